"""Spot: the trained index spotter, run by ONNX Runtime on the grey frame. It marks where corner indices lie, each
with the turn of its index upright and the width of its index window, so each gives the card quad whose index
window (`rectify.index_window`) frames it for the reader. `python -m vision.spot_train` makes the model.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.errors import VisionInputError
from vision.read import load_model
from vision.rectify import CARD_ASPECT, CORNER_H, CORNER_W, FloatArray, Image, corner_frame

MODEL_FORMAT = "cardtable-index-spotter-1"
DEFAULT_MODEL = Path(__file__).resolve().parent / "model" / "index-spotter.onnx"
MAX_MODEL_BYTES = 10_000_000  # the spotter is about a quarter of a megabyte


@dataclass(frozen=True)
class Spot:
    centre: FloatArray  # the index's centre, frame pixels
    along_short: FloatArray  # unit vector: the index's upright x axis (its card's short side from the corner)
    window: float  # index window width, frame pixels
    heat: float  # the network's probability that an index is centred here

    def turned(self, angle: float) -> Spot:
        """The spot with its index turned `angle` radians about its centre (clockwise on the screen)."""
        c, s = math.cos(angle), math.sin(angle)
        u = self.along_short
        return replace(self, along_short=np.array([c * u[0] - s * u[1], s * u[0] + c * u[1]], np.float32))

    def card(self, index_centre: tuple[float, float]) -> FloatArray:
        """The card quad (first corner the index's) whose index window holds the index centred at `index_centre`
        (shares of the window's width and height)."""
        u = self.along_short
        v = np.array([-u[1], u[0]], np.float32)
        card_width = self.window / CORNER_W
        window_height = card_width * CARD_ASPECT * CORNER_H
        corner = self.centre - u * (index_centre[0] * self.window) - v * (index_centre[1] * window_height)
        return corner_frame(corner, u, v, card_width)


class IndexSpotter:
    def __init__(self, path: str | Path = DEFAULT_MODEL) -> None:
        self.path = Path(path)
        meta_path = self.path.with_suffix(".json")
        meta, self._net = load_model(self.path, MODEL_FORMAT, MAX_MODEL_BYTES)
        try:
            norm = meta["input"]
            self.mean, self.scale, self.multiple = float(norm["mean"]), float(norm["scale"]), int(norm["multiple"])
            self.stride, self.width_unit = int(meta["stride"]), float(meta["width_unit"])
            cx, cy = (float(v) for v in meta["index_centre"])
        except (KeyError, TypeError, ValueError) as exc:
            raise VisionInputError(f"{meta_path}: the model's input, stride or framing is missing") from exc
        if self.scale <= 0 or self.stride <= 0 or self.multiple <= 0 or self.width_unit <= 0:
            raise VisionInputError(f"{meta_path}: the model's input, stride or framing is not positive")
        self.index_centre = (cx, cy)
        self._input = self._net.get_inputs()[0].name
        self.spots(np.full((64, 64), 128, np.uint8), 1.0, 0.5)  # set the network up outside any frame's time

    def spots(self, grey: Image, scale: float, bar: float) -> list[Spot]:
        """The indices the network finds in a grey frame looked at `scale` times its size: each local maximum of the
        heat map (3 x 3 cells) at `bar` or more, surest first, in frame pixels."""
        h, w = grey.shape[:2]
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        small = grey if size == (w, h) else cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
        m = self.multiple
        padded = cv2.copyMakeBorder(small, 0, -size[1] % m, 0, -size[0] % m, cv2.BORDER_REPLICATE)
        blob = ((padded.astype(np.float32) - self.mean) / self.scale)[None, None]
        maps = np.asarray(self._net.run(None, {self._input: blob})[0], np.float32)[0]
        gh, gw = math.ceil(size[1] / self.stride), math.ceil(size[0] / self.stride)
        heat = 1.0 / (1.0 + np.exp(-maps[0, :gh, :gw]))
        peaks = (heat >= bar) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
        ys, xs = np.nonzero(peaks)
        out = []
        for k in np.argsort(-heat[ys, xs]):
            y, x = int(ys[k]), int(xs[k])
            c, s, log_width, dx, dy = (float(v) for v in maps[1:6, y, x])
            norm = math.hypot(c, s) or 1.0
            centre = np.array([x + 0.5 + dx, y + 0.5 + dy], np.float32) * (self.stride / scale)
            out.append(Spot(centre, np.array([c / norm, s / norm], np.float32),
                            self.width_unit * math.exp(min(log_width, 5.0)) / scale, float(heat[y, x])))
        return out


@functools.cache
def default_spotter() -> IndexSpotter:
    """The process's one loaded spotter, shared by every recognizer that is given none."""
    return IndexSpotter()
