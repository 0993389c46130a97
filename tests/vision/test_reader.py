"""The trained index reader: the committed model loads and runs in ONNX Runtime, reads the corners of
rendered cards, never names a back's corner, and a missing, corrupt or foreign model file is refused."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from hardware_sim.camera.art import draw_back, procedural_faces
from vision.cards import ALL_CARDS
from vision.errors import VisionInputError
from vision.read import CLASSES, DEFAULT_MODEL, IndexReader, default_reader
from vision.rectify import CROP_H, CROP_W, corner_crops, order_quad, warp_card


def test_model_is_small_and_described() -> None:
    assert DEFAULT_MODEL.stat().st_size <= 5_000_000
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    assert meta["classes"] == list(CLASSES) and meta["crop"] == [CROP_W, CROP_H]
    assert 0.2 < meta["temperature"] < 5


def test_a_batch_gives_probabilities_and_unit_embeddings() -> None:
    crops = [np.full((CROP_H, CROP_W), level, np.uint8) for level in (0, 128, 255)]
    r = default_reader().read(crops)
    assert r.probs.shape == (3, 53) and np.allclose(r.probs.sum(axis=1), 1.0, atol=1e-5)
    assert r.embeddings.shape[0] == 3 and np.allclose(np.linalg.norm(r.embeddings, axis=1), 1.0, atol=1e-4)


def _upright(img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    return warp_card(img, order_quad(np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)))


@pytest.mark.parametrize("style", [0, 1, 2, 3])
def test_simulator_cards_read_right_at_both_corners(style: int) -> None:
    faces = procedural_faces(style)
    crops = [c for code in ALL_CARDS for c in corner_crops(_upright(faces.face(code)))]
    readings = default_reader().read(crops)
    names = [readings.best(i) for i in range(len(crops))]
    right = sum(1 for i, (name, p) in enumerate(names) if name == ALL_CARDS[i // 2] and p >= 0.8)
    wrong = sum(1 for i, (name, p) in enumerate(names) if name not in (None, ALL_CARDS[i // 2]) and p >= 0.8)
    assert wrong == 0
    assert right >= 0.97 * len(crops)


def test_backs_corners_are_not_an_index() -> None:
    crops: list[np.ndarray] = []
    for colour in ((140, 40, 30), (35, 35, 160), (50, 110, 40), (20, 20, 20)):
        crops.extend(corner_crops(_upright(draw_back(colour))))
    readings = default_reader().read(crops)
    assert all(readings.best(i)[0] is None for i in range(len(crops)))


def test_bad_model_files_are_refused(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    with pytest.raises(VisionInputError, match=r"m\.onnx: no such model file"):
        IndexReader(model)
    shutil.copy(DEFAULT_MODEL, model)
    with pytest.raises(VisionInputError, match=r"m\.json: no such model file"):
        IndexReader(model)
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    model.with_suffix(".json").write_text(json.dumps({**meta, "format": "something-else"}))
    with pytest.raises(VisionInputError, match="not a cardtable-index-reader"):
        IndexReader(model)
    model.with_suffix(".json").write_text(json.dumps(meta))
    assert IndexReader(model).read([np.full((CROP_H, CROP_W), 200, np.uint8)]).probs.shape == (1, 53)
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(VisionInputError, match="does not match its metadata"):
        IndexReader(model)
    garbage = b"no network at all"  # described truly by its metadata, yet no model
    model.write_bytes(garbage)
    model.with_suffix(".json").write_text(json.dumps({**meta, "sha256": hashlib.sha256(garbage).hexdigest()}))
    with pytest.raises(VisionInputError, match=r"m\.onnx: ONNX Runtime cannot load this model"):
        IndexReader(model)


@pytest.mark.parametrize("temperature", ["hot", None, -1.0, 0, True, float("inf")])
def test_a_model_whose_temperature_is_not_a_positive_number_is_refused(tmp_path: Path, temperature: object) -> None:
    model = tmp_path / "m.onnx"
    shutil.copy(DEFAULT_MODEL, model)
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    described = {**meta, "temperature": temperature}
    if temperature is None:
        del described["temperature"]
    model.with_suffix(".json").write_text(json.dumps(described))
    with pytest.raises(VisionInputError, match=r"m\.json: the model's softmax temperature is not a positive number"):
        IndexReader(model)


def test_two_workers_work_on_two_items_at_once() -> None:
    import threading

    from vision.pipeline import Recognizer

    both = threading.Barrier(2, timeout=10)

    def meet(item: int) -> int:
        both.wait()  # returns only when the other item is being worked on at the same time
        return item * 10

    with Recognizer(workers=2) as rec:
        assert list(rec.in_order(meet, range(6))) == [0, 10, 20, 30, 40, 50]
    with Recognizer(workers=1) as alone:
        assert list(alone.in_order(lambda i: i + 1, range(3))) == [1, 2, 3]


def test_the_bench_times_the_reader_per_crop() -> None:
    from bench.vision import reader_ms
    from vision.pipeline import Recognizer

    ms = reader_ms(Recognizer(), batches=3)
    assert 0.0 < ms < 5.0  # one crop of a batch of 25 (about 0.4 ms here; the batch takes about 10)
