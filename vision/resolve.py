"""Resolve: a frame's readings (`Reading`: card X, read from the index window here, its outline there) become one
detection per card (`one_per_card`). The rules: docs/vision.md, "One detection per card".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.rectify import CORNER_H, CORNER_W, FloatArray, box_quad, card_coords, holds, order_quad, quad_area, quad_iou

if TYPE_CHECKING:  # the recognizer's output type; `vision.pipeline` calls this module
    from vision.pipeline import Detection


@dataclass(frozen=True)
class Reading:
    """A named detection and the index windows (frame quads) its name was read from: the first at the corner
    `corner` (0 or 2) of its outline `det.corners`. `whole`: an outline found whose two index corners read it."""

    det: Detection
    windows: tuple[FloatArray, ...]
    corner: int = 0
    whole: bool = False
    # how far across its card from the index corner (0..1) it is seen: to a card lying on it (`pipeline._seen_edges`)
    seen_across: float = 1.0

    @cached_property
    def quad(self) -> FloatArray:
        return self.det.quad

    @cached_property
    def boxes(self) -> tuple[tuple[float, ...], ...]:
        """Each window's bounding box (x0, y0, x1, y1)."""
        return tuple((*map(float, w.min(axis=0)), *map(float, w.max(axis=0))) for w in self.windows)


@dataclass(frozen=True)
class Mark:
    """An index window read as some card's index, though of no card surely: `card` is the likeliest, `det` the
    unknown card it stands for (its outline extrapolated from the window; None when that holds only table)."""

    window: FloatArray
    card: str
    det: Detection | None = None


def join_corners(readings: Sequence[Reading], aspect: tuple[float, float]) -> list[Reading]:
    """The readings, one card read at both its index corners from windows alone joined into one, corner to corner."""
    singles = sorted((r for r in readings if not r.whole and len(r.windows) == 1), key=lambda r: -r.det.confidence)
    joined: dict[int, Reading] = {}  # by the id of the pair's surer reading
    used: set[int] = set()
    for i, a in enumerate(singles):
        for b in singles[i + 1:]:
            if a.det.card == b.det.card and not {id(a), id(b)} & used:
                quad = _corner_to_corner(np.roll(a.quad, -a.corner, axis=0), np.roll(b.quad, -b.corner, axis=0), aspect)
                if quad is not None:
                    joined[id(a)] = Reading(replace(a.det, corners=corners_of(quad)), (a.windows[0], b.windows[0]))
                    used |= {id(a), id(b)}
    return [joined.get(id(r), r) for r in readings if id(r) not in used or id(r) in joined]


def _corner_to_corner(a: FloatArray, b: FloatArray, aspect: tuple[float, float]) -> FloatArray | None:
    """The card quad from card quad `a`'s first (index) corner to `b`'s, or None when they are no one card's."""
    ua, va, ub, vb = ((q[k] - q[0]) / max(float(np.linalg.norm(q[k] - q[0])), 1e-6) for q in (a, b) for k in (1, 3))
    if float(ua @ ub) > -0.8 or float(va @ vb) > -0.8:
        return None  # not turned half a turn from each other
    # corner 1 lies on a's short side and b's long side, corner 3 on a's long side and b's short side: solve
    # a0 + width ua = b0 + up vb and a0 + height va = b0 + across ub
    d = np.asarray(b[0] - a[0], np.float64)
    try:
        width, up = np.linalg.solve(np.stack([ua, -vb], axis=1).astype(np.float64), d)
        height, across = np.linalg.solve(np.stack([va, -ub], axis=1).astype(np.float64), d)
    except np.linalg.LinAlgError:
        return None
    short = float(np.linalg.norm(a[1] - a[0]))
    if min(width, up, height, across) <= 0 or not aspect[0] <= height / width <= aspect[1] or \
            not 0.6 * short <= width <= 3.0 * short:
        return None
    return np.array([a[0], a[0] + width * ua, b[0], a[0] + height * va], np.float32)


def one_per_card(readings: Sequence[Reading], unnamed: Sequence[Detection],
                 marks: Sequence[Mark] = ()) -> list[Detection]:
    """The kept readings, each cut where other cards lie on it, then the unnamed detections (marks' too) not covered."""
    kept: list[Reading] = []
    for reading in sorted(readings, key=lambda r: (not r.whole, -r.det.confidence)):
        if any(k.det.card == reading.det.card for k in kept):
            continue
        taken = [any(_same_index(w, kw) for k in kept for kb, kw in zip(k.boxes, k.windows, strict=True)
                     if _meet(b, kb)) for b, w in zip(reading.boxes, reading.windows, strict=True)]
        if all(taken) or (any(taken) and reading.whole):
            continue
        # joined corner to corner with one window on a surer card's glyphs: read from the other window alone
        free = taken.index(False)
        x = replace(reading, windows=(reading.windows[free],), corner=2 * free) if any(taken) else reading
        centres = [w.mean(axis=0) for w in x.windows]  # once, not for each card kept
        if any(k.whole and any(holds(k.quad, c) for c in centres) for k in kept):
            continue
        kept.append(x)
    named = [_cut(x, [w for k in kept if k is not x for w in k.windows], marks) for x in kept]
    out = _uncovered(named, unnamed)
    # a mark's window on a card seen whole is its pips; on an outline not named (a back, a pile, cards outlined as
    # one) a card is reported there already
    seen = [k.quad for k in kept if k.whole] + [d.quad for d in out]
    marked = [m.det for m in marks if m.det is not None and not any(holds(q, m.window.mean(axis=0)) for q in seen)]
    return named + out + _uncovered([*named, *out], marked)


def _cut(x: Reading, above: Sequence[FloatArray], marks: Sequence[Mark]) -> Detection:
    """The detection of `x`, cut to the largest rectangle from its index corner that overlaps none of the windows
    `above` and `marks`; a mark that may be its own index (likeliest this card, on its glyphs, or in its opposite
    index corner) is no cover."""
    if x.whole:
        return x.det
    quad = np.roll(x.quad, -x.corner, axis=0)
    own = x.windows[0]
    others = [m.window for m in marks if m.card != x.det.card and not _same_index(m.window, own)]
    if others:
        u, v = card_coords(quad, np.array([w.mean(axis=0) for w in others])).T
        others = [w for w, opposite in zip(others, (u > 1 - CORNER_W) & (v > 1 - CORNER_H), strict=True)
                  if not opposite]
    starts: list[tuple[float, float]] = []  # where each window on the card begins, across and along it
    for w in [*above, *others]:
        inter = cv2.intersectConvexConvex(quad, w)[1]
        if inter is None or not holds(quad, w.mean(axis=0)):
            continue  # an index beside this card
        u, v = card_coords(quad, inter.reshape(-1, 2)).min(axis=0)
        starts.append((float(u), float(v)))
    # [0, U] x [0, V] misses the window beginning at (u, v) when U <= u or V <= v; it holds the middle of the card's
    # own index window (its glyphs), not all of it: a fanned neighbour's index may begin within that window's width
    best = (0.0, 1.0, 1.0)
    for end in sorted({1.0, *(u for u, _ in starts)}):
        across = max(end, CORNER_W / 2)
        along = max(CORNER_H / 2, min([1.0, *(v for u, v in starts if u < across)]))
        if across * along > best[0]:
            best = (across * along, across, along)
    _, across, along = best
    across = min(across, x.seen_across)  # no further than the card is seen
    if across >= 1.0 and along >= 1.0:
        return x.det
    m = cv2.getPerspectiveTransform(box_quad(0, 0, 1, 1), quad)
    rect = box_quad(0, 0, across, along).reshape(-1, 1, 2)
    cut = order_quad(cv2.perspectiveTransform(rect, m).reshape(4, 2))
    return replace(x.det, corners=corners_of(cut))


def _uncovered(named: list[Detection], unnamed: Sequence[Detection]) -> list[Detection]:
    """The unnamed detections, largest first, overlapping no kept one, holding no smaller named one's centre (a zone
    round cards) and on no kept one over twice their size (a large pip, a picture's frame)."""
    seen = [d.quad for d in named]  # the named quads, then the unnamed ones kept
    areas = [quad_area(q) for q in seen]
    quads = [d.quad for d in unnamed]
    sizes = [quad_area(q) for q in quads]
    out: list[Detection] = []
    for i in sorted(range(len(unnamed)), key=lambda i: -sizes[i]):
        d, q, a = unnamed[i], quads[i], sizes[i]
        if any(quad_iou(q, o) > 0.3 for o in seen):
            continue
        if any(areas[j] < 0.7 * a and holds(q, o.center) for j, o in enumerate(named)):
            continue
        if any(b > 2 * a and holds(o, d.center) for o, b in zip(seen, areas, strict=True)):
            continue
        out.append(d)
        seen.append(q)
        areas.append(a)
    return out


def _same_index(a: FloatArray, b: FloatArray) -> bool:
    """Two windows on one index: overlapping by a third of the smaller, or one holding the other's centre."""
    inter = cv2.intersectConvexConvex(a, b)[0]
    return inter > 0.33 * min(quad_area(a), quad_area(b)) or holds(a, b.mean(axis=0)) or holds(b, a.mean(axis=0))


def _meet(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two bounding boxes (x0, y0, x1, y1) meet."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def corners_of(quad: FloatArray) -> tuple[tuple[float, float], ...]:
    """A quad's points as a detection's corners."""
    return tuple((float(x), float(y)) for x, y in quad)
