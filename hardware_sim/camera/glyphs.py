"""Procedural glyphs of the simulated camera's card faces: the four suit shapes and the rank characters of a
standard corner index.

Suit shapes are built from circles and polygons in a unit box; ranks use OpenCV's Hershey fonts (the index
reader is trained on these faces too); nothing here is copied artwork.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import RANKS

Image = npt.NDArray[np.uint8]
Color = tuple[int, int, int]

# How a rank is printed in a standard corner index ("T" is printed "10").
RANK_GLYPHS: dict[str, str] = {r: r for r in RANKS} | {"T": "10"}
# Hershey faces close to the upright sans and serif faces printed on card indices.
RANK_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)

_SHIFT = 4
_ONE = 1 << _SHIFT

# Unit-box shapes (x right, y down, both in [-1, 1]): circles (cx, cy, r) and polygons.
_SUIT_SHAPES: dict[str, tuple[list[tuple[float, float, float]], list[list[tuple[float, float]]]]] = {
    "d": ([], [[(0.0, -1.0), (0.72, 0.0), (0.0, 1.0), (-0.72, 0.0)]]),
    "h": (
        [(-0.46, -0.42, 0.5), (0.46, -0.42, 0.5)],
        [[(-0.93, -0.25), (0.93, -0.25), (0.0, 1.0)]],
    ),
    "s": (
        [(-0.46, 0.22, 0.47), (0.46, 0.22, 0.47)],
        [[(-0.92, 0.12), (0.92, 0.12), (0.0, -1.0)], [(0.0, 0.3), (-0.32, 1.0), (0.32, 1.0)]],
    ),
    "c": (
        [(0.0, -0.56, 0.4), (-0.54, 0.12, 0.4), (0.54, 0.12, 0.4), (0.0, 0.02, 0.2)],
        [[(0.0, 0.0), (-0.28, 1.0), (0.28, 1.0)]],
    ),
}


def draw_suit(img: Image, suit: str, center: tuple[float, float], height: float, color: Color,
              *, upside_down: bool = False) -> None:
    """Draw a filled suit shape `height` pixels tall centred on `center`."""
    circles, polys = _SUIT_SHAPES[suit]
    half = height / 2.0
    flip = -1.0 if upside_down else 1.0
    cx, cy = center
    for ux, uy, ur in circles:
        c = (round((cx + ux * half) * _ONE), round((cy + flip * uy * half) * _ONE))
        cv2.circle(img, c, max(1, round(ur * half * _ONE)), color, -1, cv2.LINE_AA, _SHIFT)
    for poly in polys:
        pts = np.array([[round((cx + ux * half) * _ONE), round((cy + flip * uy * half) * _ONE)] for ux, uy in poly],
                       dtype=np.int32)
        cv2.fillPoly(img, [pts], color, cv2.LINE_AA, _SHIFT)


def rank_text_size(rank: str, height: float, font: int, thickness_ratio: float) -> tuple[float, float, int]:
    """(scale, width in px, thickness) so that the printed rank is `height` px tall."""
    text = RANK_GLYPHS[rank]
    (_, h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height / max(h, 1)
    thickness = max(1, round(height * thickness_ratio))
    (w2, _), _ = cv2.getTextSize(text, font, scale, thickness)
    return scale, float(w2), thickness


def draw_rank(img: Image, rank: str, center_x: float, top: float, height: float, *, color: Color,
              font: int = cv2.FONT_HERSHEY_DUPLEX, thickness_ratio: float = 0.12) -> tuple[float, float]:
    """Draw the rank's index text with its top at `top`, centred on `center_x`; returns (left, bottom)."""
    text = RANK_GLYPHS[rank]
    scale, width, thickness = rank_text_size(rank, height, font, thickness_ratio)
    if rank == "T":
        # Card indices print "10" narrow: squeeze it the way printers do.
        tmp = np.zeros((int(height * 2 + 8), int(width + 8)), np.uint8)
        cv2.putText(tmp, text, (4, int(height + 4)), font, scale, 255, thickness, cv2.LINE_AA)
        ys, xs = np.nonzero(tmp > 0)
        crop = tmp[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        new_w = max(2, round(height * 0.95))
        glyph = np.asarray(cv2.resize(crop, (new_w, max(2, round(height))), interpolation=cv2.INTER_AREA), np.uint8)
        left = round(center_x - new_w / 2)
        _blend_mask(img, glyph, left, round(top), color)
        return float(left), top + height
    org = (round(center_x - width / 2), round(top + height))
    cv2.putText(img, text, org, font, scale, color, thickness, cv2.LINE_AA)
    return center_x - width / 2, top + height


def _blend_mask(img: Image, mask: Image, left: int, top: int, color: Color) -> None:
    h, w = mask.shape
    x0, y0 = max(0, left), max(0, top)
    x1, y1 = min(img.shape[1], left + w), min(img.shape[0], top + h)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - top:y1 - top, x0 - left:x1 - left].astype(np.float32)[..., None] / 255.0
    region = img[y0:y1, x0:x1].astype(np.float32)
    col = np.array(color, np.float32)[None, None, :]
    img[y0:y1, x0:x1] = (region * (1 - m) + col * m).astype(np.uint8)
