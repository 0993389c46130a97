"""Cards found from one of their corners: two straight image edges meeting about square, the card that
those two sides span, and each of its sides then moved onto the image edge that best shows it.

A card lying on top of a pile is whole, and its four sides are straight image edges all round, but its
paper is one blob with the cards under it, so the paper mask never closes it. Its index can join the
court picture or be read as one ink blob, so the index-first search does not place it either; and in a
cluttered window its sides are not among the longest lines, so the four-edge search
(`vision.line_search`) pairs other lines instead. What a top card does have, unlike the cards under it,
is four corners where its own two sides meet: line segments (the LSD detector, which follows a card's
thin shadow line on another card) meeting square, each running nearly the length of its side, since
nothing crosses a top card's edge. Two such segments span the card, with no card size needed: this
also finds a pile's top card on a photograph where no other card gives the size.

The spanned card is only as good as its shorter arm (a side broken where a card under it ends), so each
side is fitted again: among the segments lying along it, the line that makes it most a card's edge
(`outline.edge_points`) is taken, and the corners are where the fitted sides meet. A quad counts as a
card only as the four-edge search's do: a card's proportions, an outline that is a card's edge nearly
all round, an index read in both index corners and a face's half-turn symmetry with ink.

Simulated piles (photographs' profile, 960 x 540, the card-faces deck, eight cards a scene in piles): of
the fully visible face-up cards, not found 8 -> 2 of 55 and right 32 -> 35 on seeds 1200-1229 (looked at),
not found 6 -> 3 of 48 and right 22 -> 25 on seeds 1230-1259 (not looked at). Tuning photographs: 375 -> 376
of 391 right, no wrong name and no name off the cards added.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.geometry import FloatArray, order_quad, quad_area, side_lengths
from vision.line_search import MIN_EVIDENCE, MIN_SIDE_EVIDENCE, best_faces, overlaps
from vision.outline import edge_distance, edge_evidence, edge_points, whiteness

Segments = npt.NDArray[np.float64]  # (N, 4): x0, y0, x1, y1
Image = npt.NDArray[np.uint8]

MIN_AREA_FRACTION = 0.0015  # a card's least area, of the frame's (as `detect.MIN_AREA_FRACTION`)
PIECE = 0.4  # segments shorter than this share of a card's least short side are noise
JOIN_ANGLE = np.radians(4)  # collinear pieces: directions this close ...
JOIN_OFFSET = 3.0  # ... both ends this close (pixels) to the longer piece's line ...
JOIN_GAP = 8.0  # ... and this close end to end (pixels): one side, broken where another card's edge ends
SQUARE = np.radians(65)  # two sides of a corner meet at 65 to 115 degrees (a tilted camera skews them)
CORNER_GAP = 0.15  # a side's end is this share of its length (+ 3 px) from the corner: the rounded corner
ASPECT = (1.15, 2.0)  # long side over short, as the four-edge search
PRE_EVIDENCE = 0.6  # a spanned card with less edge evidence than this is not fitted
FIT_ANGLE = np.radians(6)  # a segment lies along a side: direction this close ...
FIT_OFFSET = 0.15  # ... and both ends within this share of the short side (+ 2 px) of the side's line
_FIT_STEPS = np.linspace(0.06, 0.94, 24)
FIT_IN, FIT_OUT = 3.0, 2.0  # pixels inside and outside a side where the card's edge is judged
# A quad already found over a spanned card with more than this times its area is the blob of a pile, not a
# card: it hides no card (simulated piles, seeds 1200-1259: 2 more of 103 cards found; tuning photographs: none
# moved).
BIGGER = 2.0


def corner_cards(frame: Image, exclude: list[FloatArray]) -> list[FloatArray]:
    """Quads (ordered, `geometry.order_quad`) of cards spanned by two of their sides meeting at a corner,
    none overlapping each other or a quad of `exclude` (the cards already found) of at most `BIGGER` times
    its area."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise VisionInputError(f"cards are looked for in an 8-bit BGR frame, not {frame.dtype} {frame.shape}")
    h, w = frame.shape[:2]
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    least_area = MIN_AREA_FRACTION * h * w
    min_side = float(np.sqrt(least_area / ASPECT[1]))
    found = joined(segments(gray, PIECE * min_side))
    spanned = corner_quads(found, min_side)
    if not spanned:
        return []
    score = whiteness(frame)
    dist = edge_distance(gray)
    rough: list[tuple[float, npt.NDArray[np.float64]]] = []
    for quad in spanned:
        ordered = order_quad(quad.astype(np.float32))
        if any(overlaps(ordered, k) and quad_area(k) <= BIGGER * quad_area(ordered) for k in exclude):
            continue
        mean, _ = edge_evidence(score, dist, ordered)
        if mean >= PRE_EVIDENCE:
            rough.append((mean, quad))
    rough.sort(key=lambda mq: -mq[0])
    candidates: list[tuple[float, FloatArray]] = []
    for _, quad in rough:
        fit = fitted(quad, found, score, dist)
        if fit is None or not _card_shaped(fit, min_side, least_area, w, h):
            continue
        if any(overlaps(fit, k) and quad_area(k) <= BIGGER * quad_area(fit) for k in exclude):
            continue
        mean, weakest = edge_evidence(score, dist, fit)
        if mean >= MIN_EVIDENCE and weakest >= MIN_SIDE_EVIDENCE:
            candidates.append((mean, fit))
    return best_faces(frame, candidates)


def segments(gray: Image, min_length: float) -> Segments:
    """The image's straight line segments (LSD) at least `min_length` long."""
    lines = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD).detect(gray)[0]
    if lines is None:
        return np.zeros((0, 4), np.float64)
    rows = np.asarray(lines, np.float64).reshape(-1, 4)
    return rows[np.hypot(rows[:, 2] - rows[:, 0], rows[:, 3] - rows[:, 1]) >= min_length]


def joined(rows: Segments) -> Segments:
    """Collinear pieces joined end to end, longest first: each piece joins the longest piece whose line it
    lies on and whose span it reaches (`JOIN_*`), and so on while the span grows."""
    if len(rows) == 0:
        return rows
    starts, ends = rows[:, :2], rows[:, 2:]
    lengths = np.hypot(*(ends - starts).T)
    units = (ends - starts) / lengths[:, None]
    used = np.zeros(len(rows), bool)
    out = []
    for i in np.argsort(-lengths, kind="stable"):
        if used[i]:
            continue
        used[i] = True
        d, p = units[i], starts[i]
        n = np.array([-d[1], d[0]])
        along = np.sort(np.stack([(starts - p) @ d, (ends - p) @ d], axis=1), axis=1)
        on_line = ((np.abs(units @ d) >= np.cos(JOIN_ANGLE)) & (np.abs((starts - p) @ n) <= JOIN_OFFSET)
                   & (np.abs((ends - p) @ n) <= JOIN_OFFSET))
        lo, hi = 0.0, float(lengths[i])
        while True:
            hit = ~used & on_line & (along[:, 0] <= hi + JOIN_GAP) & (along[:, 1] >= lo - JOIN_GAP)
            if not hit.any():
                break
            used |= hit
            lo, hi = min(lo, float(along[hit, 0].min())), max(hi, float(along[hit, 1].max()))
        out.append(np.concatenate([p + d * lo, p + d * hi]))
    return np.array(out, np.float64).reshape(-1, 4)


def corner_quads(rows: Segments, min_side: float) -> list[npt.NDArray[np.float64]]:
    """Parallelograms spanned by two segments meeting about square (`SQUARE`) at a corner: the point where
    their lines meet is near one end of each (`CORNER_GAP`), and their lengths are a card's proportions.
    Corners: the meeting point, the far end of the first, the fourth corner, the far end of the second."""
    starts, ends = rows[:, :2], rows[:, 2:]
    lengths = np.hypot(*(ends - starts).T)
    keep = np.flatnonzero(lengths >= min_side)
    out: list[npt.NDArray[np.float64]] = []
    if keep.size < 2:
        return out
    units = (ends - starts) / np.maximum(lengths, 1e-9)[:, None]
    normals = np.stack([-units[:, 1], units[:, 0]], axis=1)
    rhos = (normals * starts).sum(axis=1)
    for i in keep:
        other = keep[(keep > i) & (np.abs(units[keep] @ units[i]) < np.cos(SQUARE))]
        if other.size == 0:
            continue
        det = normals[i, 0] * normals[other, 1] - normals[i, 1] * normals[other, 0]
        meet = np.stack([(rhos[i] * normals[other, 1] - normals[i, 1] * rhos[other]) / det,
                         (normals[i, 0] * rhos[other] - rhos[i] * normals[other, 0]) / det], axis=1)
        i_start = np.linalg.norm(starts[i] - meet, axis=1)
        i_end = np.linalg.norm(ends[i] - meet, axis=1)
        o_start = np.linalg.norm(starts[other] - meet, axis=1)
        o_end = np.linalg.norm(ends[other] - meet, axis=1)
        near = ((np.minimum(i_start, i_end) <= CORNER_GAP * lengths[i] + 3)
                & (np.minimum(o_start, o_end) <= CORNER_GAP * lengths[other] + 3))
        for k in np.flatnonzero(near):
            j, corner = other[k], meet[k]
            arm_i = (ends[i] if i_start[k] < i_end[k] else starts[i]) - corner
            arm_j = (ends[j] if o_start[k] < o_end[k] else starts[j]) - corner
            a, b = float(np.linalg.norm(arm_i)), float(np.linalg.norm(arm_j))
            if min(a, b) <= 0 or not ASPECT[0] <= max(a, b) / min(a, b) <= ASPECT[1]:
                continue
            out.append(np.array([corner, corner + arm_i, corner + arm_i + arm_j, corner + arm_j]))
    return out


def fitted(quad: npt.NDArray[np.float64], rows: Segments, score: Image, dist: npt.NDArray[np.float32]
           ) -> FloatArray | None:
    """The quad with each side moved onto the line, among its own and those of the segments lying along it
    (`FIT_*`), along which it is most a card's edge; ordered, or None when the fitted sides do not close a
    convex quad."""
    short = min(float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[2] - quad[1])))
    centre = quad.mean(axis=0)
    starts, ends = rows[:, :2], rows[:, 2:]
    units = (ends - starts) / np.maximum(np.hypot(*(ends - starts).T), 1e-9)[:, None]
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length <= 0:
            return None
        d = (b - a) / length
        n = np.array([-d[1], d[0]])
        rho = float(n @ a)
        along = np.sort(np.stack([(starts - a) @ d, (ends - a) @ d], axis=1), axis=1)
        reach = FIT_OFFSET * short + 2
        near = ((np.abs(units @ d) >= np.cos(FIT_ANGLE)) & (np.abs(starts @ n - rho) <= reach)
                & (np.abs(ends @ n - rho) <= reach) & (along[:, 1] > 0) & (along[:, 0] < length))
        best, best_line = _side_score(score, dist, a, b, centre), (n, rho)
        for k in np.flatnonzero(near):
            nk = np.array([-units[k, 1], units[k, 0]])
            rk = float(nk @ starts[k])
            # The side's ends slid along their neighbouring sides' direction onto the segment's line.
            a2 = a - n * (float(a @ nk) - rk) / float(n @ nk)
            b2 = b - n * (float(b @ nk) - rk) / float(n @ nk)
            s = _side_score(score, dist, a2, b2, centre)
            if s > best:
                best, best_line = s, (nk, rk)
        lines.append(best_line)
    corners = []
    for i in range(4):
        (n1, r1), (n2, r2) = lines[i - 1], lines[i]
        m = np.array([n1, n2])
        if abs(float(np.linalg.det(m))) < 1e-6:
            return None
        corners.append(np.linalg.solve(m, np.array([r1, r2])))
    out = np.array(corners, np.float32)
    if not np.isfinite(out).all() or not cv2.isContourConvex(out.reshape(-1, 1, 2)):
        return None
    return order_quad(out)


def _side_score(score: Image, dist: npt.NDArray[np.float32], a: npt.NDArray[np.float64],
                b: npt.NDArray[np.float64], centre: npt.NDArray[np.float64]) -> float:
    """The share of the side a-b that looks like a card's edge, the card lying towards `centre`."""
    along = a[None, :] + (b - a)[None, :] * _FIT_STEPS[:, None]
    d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
    n = np.array([-d[1], d[0]])
    if float((centre - (a + b) / 2) @ n) < 0:
        n = -n
    ins, outs = along + n * FIT_IN, along - n * FIT_OUT
    return float(edge_points(score, dist, along.astype(np.float32), ins.astype(np.float32),
                             outs.astype(np.float32)).mean())


def _card_shaped(quad: FloatArray, min_side: float, least_area: float, w: int, h: int) -> bool:
    short, long_ = side_lengths(quad)
    if short < min_side or not ASPECT[0] <= long_ / short <= ASPECT[1] or quad_area(quad) < least_area:
        return False
    return bool((quad[:, 0] >= -2).all() and (quad[:, 0] <= w + 1).all() and (quad[:, 1] >= -2).all()
                and (quad[:, 1] <= h + 1).all())
