"""A photograph's stretch: how much wider (or narrower) it is than its camera's shape, from its index glyph pairs.

A suit's symbol is mirror-symmetric about its card's long axis, so its moment ellipse has the card's two axes as
conjugate diameters: the direction conjugate to a rank-over-suit pair's line is the card's short side, at right
angles to the pair's line in the camera's shape. A frame stretched along x by s makes that angle right again only
once x is divided by s. Details: docs/vision.md, "Stretched photographs".
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.detect import Corner
from vision.rectify import Image
from vision.settings import Settings

_STRETCHES = np.geomspace(0.4, 2.5, 241)  # x scale over y scale tried (below 1: the frame squeezed across)


def _conjugate(image: Image, c: Corner) -> tuple[float, float] | None:
    """The unit direction conjugate to a pair's line with respect to its suit's moment ellipse (None: no blob)."""
    assert c.suit is not None
    x, y, size = c.suit
    r = max(3, round(0.75 * size))
    cx, cy = round(x), round(y)
    patch = image[max(0, cy - r):cy + r + 1, max(0, cx - r):cx + r + 1]
    if min(patch.shape[:2]) < 4:
        return None
    level = 255 - patch.max(axis=2) if c.light_ink else patch.min(axis=2)
    _, ink = cv2.threshold(np.ascontiguousarray(level), 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    n, labels, _, centres = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n < 2:
        return None
    k = 1 + int(np.argmin(np.linalg.norm(centres[1:] - (x - max(0, cx - r), y - max(0, cy - r)), axis=1)))
    m = cv2.moments(np.asarray(labels == k, np.uint8), binaryImage=True)
    shape = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]])
    if m["m00"] < 8 or np.linalg.det(shape) <= 1e-6 * m["m00"] ** 2:
        return None
    across = np.linalg.solve(shape, c.along_long.astype(np.float64))  # conjugate: at right angles to this
    norm = float(np.linalg.norm(across))
    return -float(across[1]) / norm, float(across[0]) / norm


def frame_stretch(image: Image, pairs: Sequence[Corner], s: Settings) -> float:
    """The frame's x scale over its y scale, from the glyph pairs (of `image`, BGR) whose window reads as an index;
    1.0 unless `stretch_pairs` pairs agree on it that a frame in its camera's shape does not fit, at least
    `stretch_against` times as many as fit that frame but not it, and it lies beyond `stretch_least` either way."""
    found = [(c.along_long, across) for c in pairs if c.suit is not None
             and (across := _conjugate(image, c)) is not None]
    if len(found) < s.stretch_pairs:
        return 1.0
    v = np.array([along for along, _ in found], np.float64)
    w = np.array([across for _, across in found], np.float64)
    a, b = v[:, 0] * w[:, 0], v[:, 1] * w[:, 1]  # the angle is right in the camera's shape where a / s**2 + b = 0
    t = 1.0 / _STRETCHES**2
    cosine = np.abs(a[:, None] * t + b[:, None]) / np.sqrt(
        (v[:, :1] ** 2 * t + v[:, 1:] ** 2) * (w[:, :1] ** 2 * t + w[:, 1:] ** 2))
    fits = cosine < s.stretch_angle
    level = fits[:, [int(np.argmin(np.abs(np.log(_STRETCHES))))]]  # those the frame's own shape fits
    agree, against = (fits & ~level).sum(axis=0), (~fits & level).sum(axis=0)
    k = int(np.argmax(agree - s.stretch_against * against))
    if agree[k] < s.stretch_pairs or agree[k] < s.stretch_against * against[k]:
        return 1.0
    held = fits[:, k]
    t_fit = -float((a[held] * b[held]).sum() / (a[held] ** 2).sum())  # least squares over the pairs it fits
    found_stretch = 1.0 / np.sqrt(t_fit) if t_fit > 0 else float(_STRETCHES[k])
    return float(found_stretch) if abs(np.log(found_stretch)) > np.log(s.stretch_least) else 1.0
