"""Rectify: a card's outline (or one corner of it) in a frame becomes the upright corner crops the reader reads: an
outline's two index corners warped upright (`index_crops`), or a corner's window cut along its two edges
(`corner_crops_at`); `CROP_W` x `CROP_H` grey levels, normalised for the network by `to_blob`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
Image = npt.NDArray[np.uint8]

# Canonical upright card in pixels (poker size 63 x 88 mm is 1 : 1.397).
CARD_W = 120
CARD_H = 168
CARD_ASPECT = CARD_H / CARD_W
# The corner window holding a standard index, as fractions of the card's width and height (jumbo indices too).
CORNER_W = 0.30
CORNER_H = 0.34
CROP_W = 32
CROP_H = 48


def order_quad(quad: npt.ArrayLike) -> FloatArray:
    """The 4 points clockwise (in image coordinates), the first edge a short side: warped, the card is upright or
    turned 180 degrees, never mirrored, its index at the top-left and bottom-right."""
    p = np.asarray(quad, dtype=np.float32).reshape(4, 2).tolist()  # four points: plain floats beat array calls
    cx, cy = sum(x for x, _ in p) / 4, sum(y for _, y in p) / 4
    p = sorted(p, key=lambda xy: math.atan2(xy[1] - cy, xy[0] - cx))  # clockwise on screen (y grows downwards)
    e = [math.dist(p[i], p[(i + 1) % 4]) for i in range(4)]  # edges 0-1, 1-2, 2-3, 3-0
    if e[0] + e[2] > e[1] + e[3]:
        p = p[1:] + p[:1]
    # Start from the top-most of the two candidates for a stable output.
    if p[2][1] + p[2][0] * 0.01 < p[0][1] + p[0][0] * 0.01:
        p = p[2:] + p[:2]
    return np.array(p, np.float32)


def box_quad(x0: float, y0: float, x1: float, y1: float) -> FloatArray:
    """The axis-aligned box as a quad, clockwise from its top-left corner (as `order_quad` orders an upright card)."""
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def warp_card(image: Image, quad: FloatArray, width: int = CARD_W, height: int = CARD_H,
              size: tuple[int, int] | None = None) -> Image:
    """The card under `quad` (as `order_quad` orders it) upright, `width` x `height`; `size`: only that much of it."""
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), box_quad(0, 0, width - 1, height - 1))
    out = cv2.warpPerspective(image, m, size or (width, height), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8)


def card_coords(quad: FloatArray, points: npt.ArrayLike) -> FloatArray:
    """Frame points in the card under `quad`'s coordinates: 0..1 across its short side, 0..1 along its long side."""
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), box_quad(0, 0, 1, 1))
    at = cv2.perspectiveTransform(np.asarray(points, np.float32).reshape(-1, 1, 2), m).reshape(-1, 2)
    return np.asarray(at, np.float32)


def quad_area(quad: FloatArray) -> float:
    # asarray: no copy of a quad that is float32 already (detection measures many quads a frame)
    return float(abs(cv2.contourArea(np.asarray(quad, np.float32))))


def quad_iou(a: FloatArray, b: FloatArray) -> float:
    inter, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    union = quad_area(a) + quad_area(b) - inter
    return float(inter / union) if union > 0 else 0.0


def holds(quad: npt.ArrayLike, point: Sequence[float] | FloatArray) -> bool:
    """Whether the point lies in the polygon or on its edge."""
    poly = np.asarray(quad, np.float32).reshape(-1, 1, 2)
    return bool(cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), False) >= 0)


def boxes_meet(quads: Sequence[FloatArray]) -> npt.NDArray[np.bool_]:
    """N x N: whether the bounding boxes of each two quads meet (touching counts): else they share no area."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    lo, hi = q.min(axis=1), q.max(axis=1)
    return np.asarray(np.all((lo[:, None] <= hi[None]) & (lo[None] <= hi[:, None]), axis=2))


def side_lengths(quad: FloatArray) -> tuple[float, float]:
    """(short, long): mean lengths of the two pairs of opposite sides."""
    p = np.asarray(quad, dtype=np.float32).reshape(4, 2).tolist()  # four points: plain floats beat array calls
    e = [math.dist(p[i], p[(i + 1) % 4]) for i in range(4)]  # edges 0-1, 1-2, 2-3, 3-0
    a, b = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
    return min(a, b), max(a, b)


def gray(image: Image) -> Image:
    return image if image.ndim == 2 else np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)


def corner_crops(card: Image) -> tuple[Image, Image]:
    """The top-left and (turned upright) bottom-right index windows of an upright card image."""
    g = gray(card)
    h, w = g.shape[:2]
    cw, ch = round(w * CORNER_W), round(h * CORNER_H)
    return _crop(g[:ch, :cw]), _crop(np.asarray(cv2.rotate(g[h - ch:, w - cw:], cv2.ROTATE_180), np.uint8))


def index_crops(image: Image, quad: FloatArray) -> list[Image]:
    """`corner_crops(warp_card(image, quad))`, warped window by window (the bottom-right the card turned's top-left)."""
    size = (round(CARD_W * CORNER_W), round(CARD_H * CORNER_H))
    return [_crop(gray(warp_card(image, q, size=size))) for q in (quad, np.roll(quad, -2, axis=0))]


def _crop(window: Image) -> Image:
    return np.asarray(cv2.resize(window, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA), np.uint8)


def corner_frame(corner: FloatArray, along_short: FloatArray, along_long: FloatArray, card_width: float) -> FloatArray:
    """The quad (ordered like `order_quad`) of a card `card_width` wide from `corner`, its short side along the unit
    vector `along_short`, its long side along `along_long`."""
    c = np.asarray(corner, np.float32)
    short, long = along_short * card_width, along_long * (card_width * CARD_ASPECT)
    return np.array([c, c + short, c + short + long, c + long], np.float32)


def index_window(card: FloatArray) -> FloatArray:
    """The index window at the first corner of a card quad, in the frame."""
    u, v = (card[1] - card[0]) * CORNER_W, (card[3] - card[0]) * CORNER_H
    return np.array([card[0], card[0] + u, card[0] + u + v, card[0] + v], np.float32)


class Pyramid:
    """A frame's grey levels and their halvings (`cv2.pyrDown`), made when first wanted: a window many times the
    crop's size is cut from the halving leaving it 1.5 to 3 times that, so its cost does not grow with the frame.
    Level k's pixel (x, y) is the frame's (x * 2**k, y * 2**k)."""

    def __init__(self, image: Image) -> None:
        self._image, self._levels = image, list[Image]()

    def level(self, k: int) -> Image:
        self._levels = self._levels or [gray(self._image)]
        while len(self._levels) <= k:
            self._levels.append(np.asarray(cv2.pyrDown(self._levels[-1]), np.uint8))
        return self._levels[k]


def corner_crops_at(image: Image | Pyramid, quads: Sequence[FloatArray]) -> list[Image]:
    """The index window at the first corner of each card quad (which may run outside the frame), reckoned at once."""
    if len(quads) == 0:
        return []  # no level made
    pyramid = image if isinstance(image, Pyramid) else Pyramid(image)
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    side = q[:, [1, 3]] - q[:, :1]  # along the card's short side and its long side
    length = np.linalg.norm(side, axis=2)
    u, v = np.moveaxis(side / np.maximum(length, np.float32(1e-6))[..., None], 1, 0)
    w, h = length.astype(np.float64).T
    sx, sy = w * CORNER_W / CROP_W, h * CORNER_H / CROP_H
    # Shrinking by sx wants the frame smoothed by a Gaussian of 0.45 sx first (no aliasing). Past 3, the window is
    # cut from the k-th halving, whose binomial filters smoothed by a variance of (4**k - 1) / 3 frame pixels
    # squared: the blur left to apply there makes up the same smoothing.
    k = np.where(sx > 3.0, np.ceil(np.log2(np.maximum(sx, 3.0) / 3.0)), 0.0).astype(int)
    sigma = np.where(sx > 1.5, np.sqrt(np.maximum((0.45 * sx) ** 2 - (4.0**k - 1) / 3, 0.0)) / 2.0**k, 0.0)
    f = 2.0**-k
    sx, sy, origin = sx * f, sy * f, q[:, 0] * f[:, None]
    # only the window's neighbourhood of the level is smoothed (its sides reckoned in the quads' single precision)
    across = u * (w * f).astype(np.float32)[:, None] * np.float32(CORNER_W)
    down = v * (h * f).astype(np.float32)[:, None] * np.float32(CORNER_H)
    ends = np.stack([origin, origin + across, origin + down, origin + across + down], axis=1)
    pad = (3 + 2 * sx)[:, None]
    levels = [pyramid.level(j) for j in range(int(k.max()) + 1)]
    size = np.array([levels[j].shape[1::-1] for j in k.tolist()]).reshape(-1, 2)  # each window's level, w x h
    lo = np.maximum(0, (ends.min(axis=1) - pad).astype(int))
    hi = np.minimum(size, (ends.max(axis=1) + pad).astype(int) + 1)
    outside = np.any(hi - lo < 2, axis=1)  # the window lies outside the frame: the whole level
    lo[outside], hi[outside] = 0, size[outside]
    # crop pixel (x, y) -> level point corner + x*sx*u + y*sy*v, in the neighbourhood's coordinates
    sx, sy = sx.astype(np.float32)[:, None], sy.astype(np.float32)[:, None]
    m = np.stack([u * sx, v * sy, (origin - lo).astype(np.float32)], axis=2).astype(np.float32)  # x, y rows
    out = []
    for i, ((x0, y0), (x1, y1)) in enumerate(zip(lo.tolist(), hi.tolist(), strict=True)):
        g = levels[k[i]][y0:y1, x0:x1]
        if sigma[i] > 0:  # smoothed first, in floating point (OpenCV's 8-bit Gaussian is far slower past 5 taps)
            kernel = cv2.getGaussianKernel(round(6 * sigma[i] + 1) | 1, sigma[i], cv2.CV_32F)
            g = np.asarray(cv2.sepFilter2D(g, -1, kernel, kernel), np.uint8)
        out.append(np.asarray(cv2.warpAffine(g, m[i], (CROP_W, CROP_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                             borderMode=cv2.BORDER_REPLICATE), np.uint8))
    return out


def to_blob(crops: list[Image]) -> FloatArray:
    """N x 1 x CROP_H x CROP_W float input: each crop dark on light, zero mean, unit contrast. A window is mostly
    paper: one whose median is below its mean (light ink, a black deck) is inverted."""
    pixels = np.stack(crops).reshape(len(crops), -1)
    c = pixels.astype(np.float32)
    mean = c.mean(axis=1, keepdims=True)
    light_ink = quantiles_u8(pixels)[:, None] < mean
    c = np.where(light_ink, 255.0 - c, c)
    mean = np.where(light_ink, 255.0 - mean, mean)
    out = (c - mean) / (c.std(axis=1, keepdims=True) + 8.0)
    return np.ascontiguousarray(out.reshape(len(crops), 1, CROP_H, CROP_W), dtype=np.float32)


def quantiles_u8(rows: Image, q: float = 0.5) -> npt.NDArray[np.float64]:
    """The `q` quantile of each row of 8-bit values, as `np.quantile` gives it, from the rows sorted (a radix sort)."""
    m = rows.shape[1]
    k, t = divmod(q * (m - 1), 1.0)
    ordered = np.sort(rows, axis=1, kind="stable")
    lo, hi = (ordered[:, int(j)].astype(np.float64) for j in (k, min(k + 1, m - 1)))
    return np.asarray(lo + t * (hi - lo), np.float64)
