"""Quadrilaterals of cards in an image: ordering, warping to the canonical card, overlap."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
Image = npt.NDArray[np.uint8]

# Canonical upright card in pixels (poker size 63 x 88 mm is 1 : 1.397).
CARD_W = 200
CARD_H = 280
CARD_ASPECT = CARD_H / CARD_W


def order_quad(quad: npt.ArrayLike) -> FloatArray:
    """Order 4 points clockwise (in image coordinates) so that the first edge is a short side.

    The warp from the result is then the card upright or turned 180 degrees, never mirrored, and in
    both cases a standard corner index lands at the top-left and bottom-right.
    """
    pts = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    center = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - center[1], pts[:, 0] - center[0])
    pts = pts[np.argsort(angles)]  # clockwise on screen (y grows downwards)
    e0 = float(np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[3] - pts[2]))
    e1 = float(np.linalg.norm(pts[2] - pts[1]) + np.linalg.norm(pts[0] - pts[3]))
    if e0 > e1:
        pts = np.roll(pts, -1, axis=0)
    # Start from the top-most of the two candidates for a stable output.
    if pts[2, 1] + pts[2, 0] * 0.01 < pts[0, 1] + pts[0, 0] * 0.01:
        pts = np.roll(pts, 2, axis=0)
    return np.ascontiguousarray(pts, dtype=np.float32)


def canonical_corners(width: int = CARD_W, height: int = CARD_H) -> FloatArray:
    return np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], dtype=np.float32)


def warp_card(image: Image, quad: FloatArray, width: int = CARD_W, height: int = CARD_H) -> Image:
    """The card under `quad` (ordered by `order_quad`) as an upright `width` x `height` image."""
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), canonical_corners(width, height))
    out = cv2.warpPerspective(image, m, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8)


def quad_area(quad: FloatArray) -> float:
    return float(abs(cv2.contourArea(quad.astype(np.float32))))


def quad_iou(a: FloatArray, b: FloatArray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = quad_area(a) + quad_area(b) - inter
    return float(inter / union) if union > 0 else 0.0


def side_lengths(quad: FloatArray) -> tuple[float, float]:
    """(short, long): mean lengths of the two pairs of opposite sides."""
    q = quad.reshape(4, 2)
    a = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])) / 2
    b = (np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])) / 2
    return float(min(a, b)), float(max(a, b))


def along_to_meet(p: FloatArray, d: FloatArray, q: FloatArray, e: FloatArray) -> float | None:
    """How far along the line p + t d (in units of d) it meets the line q + s e; None if they are parallel."""
    den = float(d[0] * e[1] - d[1] * e[0])
    if abs(den) < 1e-6:
        return None
    return float((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den


EDGE_PX = 1.0  # a polygon's corner this close to the frame's edge lies on it (a card running out of the frame)
MAX_OUTSIDE = 0.25  # a card outlined past the frame's edge has at most this share of its area outside


def past_the_edge(poly: FloatArray, w: int, h: int) -> FloatArray:
    """A pentagon one of whose sides runs along the frame's edge (a card with one corner outside the
    frame): that side replaced by the corner where its two neighbours meet, outside the frame, if at most
    `MAX_OUTSIDE` of the quad lies outside; otherwise the pentagon as it is."""
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        on_edge = [(a[k] <= EDGE_PX and b[k] <= EDGE_PX) or (a[k] >= lim - 1 - EDGE_PX and b[k] >= lim - 1 - EDGE_PX)
                   for k, lim in ((0, w), (1, h))]
        if not any(on_edge):
            continue
        before, after = poly[i - 1], poly[(i + 2) % n]
        da = a - before
        t = along_to_meet(before, da, after, b - after)
        if t is None:
            return poly
        meet = before + da * t
        outside = not (0 <= meet[0] <= w - 1 and 0 <= meet[1] <= h - 1)
        if t <= 1 or not outside:
            return poly
        out = np.array([meet if j == i else poly[j] for j in range(n) if j != (i + 1) % n], np.float32)
        if not cv2.isContourConvex(out.reshape(-1, 1, 2)):
            return poly
        return out if inside_area(out, w, h) >= (1 - MAX_OUTSIDE) * quad_area(out) else poly
    return poly


def inside_area(quad: FloatArray, w: int, h: int) -> float:
    """The area of the part of `quad` inside the w x h frame."""
    if (quad[:, 0] >= 0).all() and (quad[:, 0] <= w - 1).all() and (quad[:, 1] >= 0).all() \
            and (quad[:, 1] <= h - 1).all():
        return quad_area(quad)
    frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    area, _ = cv2.intersectConvexConvex(np.ascontiguousarray(quad, np.float32), frame)
    return float(area)
