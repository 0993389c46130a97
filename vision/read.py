"""Read: the trained index reader, run by ONNX Runtime on the CPU (no torch at table time). For each index window it
gives the calibrated probabilities of the 52 cards and of "not an index", and the network's embedding (a deck profile's
prototypes, `vision.deck`). Two threads that sleep when idle: a photograph's hundred windows are read faster, and a
frame's batch costs no more than on one.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from vision.cards import ALL_CARDS
from vision.errors import VisionInputError
from vision.images import read_at_most, read_json_file
from vision.rectify import CROP_H, CROP_W, FloatArray, Image, to_blob

MODEL_FORMAT = "cardtable-index-reader-1"
DEFAULT_MODEL = Path(__file__).resolve().parent / "model" / "index-reader.onnx"
CLASSES: tuple[str, ...] = (*ALL_CARDS, "none")
NONE = len(ALL_CARDS)
MAX_MODEL_BYTES = 100_000_000  # the reader is about a megabyte


@dataclass(frozen=True)
class Readings:
    probs: FloatArray  # N x 53, calibrated
    embeddings: FloatArray  # N x E, unit length

    def best(self, i: int) -> tuple[str | None, float]:
        """The card crop `i` shows and its probability (None: not an index)."""
        k = int(self.probs[i].argmax())
        return (CLASSES[k] if k != NONE else None), float(self.probs[i, k])

    def likeliest(self, i: int) -> str:
        """The card crop `i` likeliest shows, "not an index" aside."""
        return ALL_CARDS[int(self.probs[i, :NONE].argmax())]


def load_model(path: Path, model_format: str, max_bytes: int) -> tuple[dict[str, Any], ort.InferenceSession]:
    """A model file's description (the file beside it, ending .json), checked to be of `model_format` and to name the
    file's SHA-256, and the model's ONNX Runtime session (CPU; two threads that sleep when idle). Anything wrong: a
    one-line `VisionInputError` naming the file."""
    meta_path = path.with_suffix(".json")
    data = read_at_most(path, max_bytes, "model file")
    meta = read_json_file(meta_path, "model file")
    if not isinstance(meta, dict) or meta.get("format") != model_format:
        raise VisionInputError(f"{meta_path}: not a {model_format} model description")
    if meta.get("sha256") != hashlib.sha256(data).hexdigest():
        raise VisionInputError(f"{path}: model file does not match its metadata (corrupt or replaced)")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return meta, ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # ONNX Runtime's load errors share no base class but Exception
        raise VisionInputError(f"{path}: ONNX Runtime cannot load this model") from exc


class IndexReader:
    def __init__(self, path: str | Path = DEFAULT_MODEL) -> None:
        self.path = Path(path)
        meta_path = self.path.with_suffix(".json")
        meta, self._net = load_model(self.path, MODEL_FORMAT, MAX_MODEL_BYTES)
        if list(meta.get("classes", [])) != list(CLASSES) or list(meta.get("crop", [])) != [CROP_W, CROP_H]:
            raise VisionInputError(f"{meta_path}: model classes or crop size differ from this version's")
        temperature = meta.get("temperature")
        if isinstance(temperature, bool) or not isinstance(temperature, int | float) or not 0 < temperature < math.inf:
            raise VisionInputError(f"{meta_path}: the model's softmax temperature is not a positive number")
        self._input = self._net.get_inputs()[0].name
        self.temperature = float(temperature)
        self.meta = meta
        self.read([np.full((CROP_H, CROP_W), 200, np.uint8)])  # set the network up outside any frame's time

    def read(self, crops: list[Image]) -> Readings:
        if not crops:
            return Readings(np.zeros((0, len(CLASSES)), np.float32), np.zeros((0, 1), np.float32))
        # a session runs concurrent calls safely (cameras read in worker threads)
        logits, emb = self._net.run(["logits", "embedding"], {self._input: to_blob(crops)})
        emb = np.asarray(emb, np.float32).reshape(len(crops), -1)
        emb /= np.linalg.norm(emb, axis=1, keepdims=True) + 1e-6
        scaled = np.asarray(logits, np.float32) / self.temperature
        e = np.exp(scaled - scaled.max(axis=1, keepdims=True))  # the softmax at the calibrated temperature
        return Readings(np.asarray(e / e.sum(axis=1, keepdims=True), np.float32), emb)


@functools.cache
def default_reader() -> IndexReader:
    """The process's one loaded network, shared by every recognizer that is given none."""
    return IndexReader()
