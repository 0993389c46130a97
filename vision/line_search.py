"""Cards outlined by four straight edges anywhere in a photograph, where neither the paper mask nor a
whiteness threshold closes their outline.

A court card's paper is broken by its picture at every whiteness level, and its index ink touches the
picture's frame (one ink blob, so the index-first search finds no index mark there either); on tiles,
carpet or a magazine the paper also merges with the table. Yet its four sides are still straight image
edges. `outline.line_quads` closes such quads inside the mask's clusters only; here the frame is
searched window by window (each window about two card lengths wide, so a card lies whole in one and
its sides are among the window's longest lines), outside the cards already found.

A quad counts as a card only when everything about it says so: a card's proportions and size, an
outline that is a card's edge nearly all round (`outline.edge_evidence`), an index read in both index
corners, and a card face's half-turn symmetry with ink (`vision.face`).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.face import face_symmetry
from vision.geometry import FloatArray, quad_area, side_lengths
from vision.outline import edge_distance, edge_evidence, line_quads, whiteness

Image = npt.NDArray[np.uint8]

WINDOW = 2.2  # window side, of the frame's card length
STEP = 0.75  # window step, of the card length: a card up to 1.45 card lengths across lies whole in a window
MAX_LINES = 20  # lines per window paired into quads (a card's four sides among a cluttered window's longest)
LENGTH_RANGE = (0.6, 1.6)  # a card's length, of the frame's card length
ASPECT = (1.15, 2.0)  # card length over width, stretched photographs included
MIN_EVIDENCE = 0.9
MIN_SIDE_EVIDENCE = 0.75
MIN_SYMMETRY = 0.6
MIN_INK = 0.02
PAPER_LEVEL = 120  # whiteness (`outline.whiteness`) of card paper, even in shade
PAPER_SHARE = 0.5  # a window is searched when it holds this share of a card's area of such paper
OVERLAP = 0.3  # a quad overlapping a card already found by this share of the smaller is the same card


def four_edge_cards(frame: Image, card_length: float, exclude: list[FloatArray]) -> list[FloatArray]:
    """Quads (ordered, `geometry.order_quad`) of cards bounded by four straight edges, none overlapping
    the quads of `exclude` (the cards already found) or each other."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise VisionInputError(f"cards are looked for in an 8-bit BGR frame, not {frame.dtype} {frame.shape}")
    if not np.isfinite(card_length) or card_length <= 0:
        raise VisionInputError(f"a card length is a positive number of pixels, not {card_length}")
    h, w = frame.shape[:2]
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    score = whiteness(frame)
    dist = edge_distance(gray)
    side = max(16, int(WINDOW * card_length))
    step = max(8, int(STEP * card_length))
    short_min = LENGTH_RANGE[0] * card_length / ASPECT[1]
    long_max = LENGTH_RANGE[1] * card_length
    taken = np.zeros((h, w), np.uint8)
    for q in exclude:
        cv2.fillConvexPoly(taken, np.round(q).astype(np.int32), 1)
    paper = ((score >= PAPER_LEVEL) & (taken == 0)).astype(np.uint8)
    integral = cv2.integral(paper)
    least = PAPER_SHARE * card_length * card_length / ASPECT[1]
    candidates: list[tuple[float, FloatArray]] = []
    for y0 in _starts(h, side, step):
        for x0 in _starts(w, side, step):
            roi = np.ascontiguousarray(gray[y0:y0 + side, x0:x0 + side])
            if min(roi.shape) < 16:
                continue
            y1, x1 = y0 + roi.shape[0], x0 + roi.shape[1]
            if integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0] < least:
                continue  # no card's worth of light paper here that no card found explains
            for q in line_quads(roi, short_min / 0.6, long_max / 1.15, max_lines=MAX_LINES):
                quad = np.asarray(q + np.array([x0, y0], np.float32), np.float32)
                if not _card_shaped(quad, card_length, w, h):
                    continue
                if any(overlaps(quad, k) for k in exclude):
                    continue
                mean, weakest = edge_evidence(score, dist, quad)
                if mean >= MIN_EVIDENCE and weakest >= MIN_SIDE_EVIDENCE:
                    candidates.append((mean, quad))
    return best_faces(frame, candidates)


def best_faces(frame: Image, candidates: list[tuple[float, FloatArray]]) -> list[FloatArray]:
    """Of (edge evidence, quad) candidates, the best-evidenced of each overlapping lot, kept when its print is
    a card face's (`is_face`)."""
    tried: list[FloatArray] = []
    out: list[FloatArray] = []
    for _, quad in sorted(candidates, key=lambda mq: mq[0], reverse=True):
        if any(overlaps(quad, k) for k in tried):
            continue
        tried.append(quad)
        if is_face(frame, quad):
            out.append(quad)
    return out


def _starts(size: int, side: int, step: int) -> list[int]:
    if size <= side:
        return [0]
    starts = list(range(0, size - side, step))
    return [*starts, size - side]


def _card_shaped(quad: FloatArray, card_length: float, w: int, h: int) -> bool:
    short, long_ = side_lengths(quad)
    if short <= 0 or not ASPECT[0] <= long_ / short <= ASPECT[1]:
        return False
    if not LENGTH_RANGE[0] * card_length <= long_ <= LENGTH_RANGE[1] * card_length:
        return False
    # Lines meet outside the frame too: a card is in it (a card cut by the frame's edge is not searched here).
    return bool((quad[:, 0] >= -2).all() and (quad[:, 0] <= w + 1).all() and (quad[:, 1] >= -2).all()
                and (quad[:, 1] <= h + 1).all())


def overlaps(a: FloatArray, b: FloatArray) -> bool:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter) > OVERLAP * min(quad_area(a), quad_area(b))


def is_face(frame: Image, quad: FloatArray) -> bool:
    from vision.identify import extract_glyphs, iter_index_corners

    if not all(extract_glyphs(corner) is not None for corner in iter_index_corners(frame, quad)):
        return False
    symmetry, ink = face_symmetry(frame, quad, level=True)
    return symmetry >= MIN_SYMMETRY and ink >= MIN_INK
