"""The visible strips of cards lying mostly under another card, as outlines of their own.

A card lying under another often shows only a strip of itself beside the top card: a paper region
cut by the top card's edge, much thinner than a card (its label box on the real photographs is the
strip). `outline.quad_of` turns such blobs away (a card is at most 2.3 times as long as wide, with
perspective), and a whole-card outline cannot match the strip. Here a whiteness blob whose hull is a
thin quadrilateral is proposed when it lies beside a card already found (its outline runs along that
card's edge for part of its length) and mostly outside every card found; the reader then names it
from its corners or leaves it unknown.

Measured on the real photographs' tuning split only (/tmp scripts, 30 November 2026): of 338 thin
blobs outside the cards found, 20 lie on unfound cards' labelled boxes (IoU >= 0.5); requiring the
blob to touch a found card keeps 10 of those and 7 others (6 centred on no labelled card), against
about 300 others without that test. The search runs on photographs only (frames no wider than
`MAX_WIDTH`), never on the live table's 1280 x 720 rendered frames.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry import FloatArray, order_quad, quad_area, side_lengths
from vision.outline import LEVELS, whiteness

Image = npt.NDArray[np.uint8]
Contour = npt.NDArray[Any]

MAX_WIDTH = 1008  # frames wider than this (the live table's rendered frames) are never searched
STRIP_ASPECT = (2.3, 8.0)  # thinner than `outline.quad_of` accepts, up to a sliver of a card's edge
MIN_AREA = 0.0005  # of the frame: a strip showing one index is smaller than a whole card
MAX_AREA = 0.1  # of the frame
MIN_SPAN = 0.85  # a strip spans its card's width at least: its long side, of the found cards' median short side
FRAME_MARGIN = 2.0  # px: a blob running into the photo's edge is bounded by no card edge there
MAX_COVERED = 0.3  # share of the strip that may lie on a card already found
MIN_TOUCH = 0.15  # share of the strip's outline that must lie along a card already found
TOUCH_REACH = 0.15  # how near (of the strip's short side, at least 3 px) its outline must come to that card
HULL_FIT = (0.88, 1.12)
MIN_FILL = 0.6
_RIM3 = np.ones((3, 3), np.uint8)
_PERIMETER_STEPS = np.linspace(0.0, 1.0, 20, endpoint=False, dtype=np.float32)


def thin_quad_of(contour: Contour) -> FloatArray | None:
    """The quadrilateral of a blob whose hull is close to one and thinner than a card (`STRIP_ASPECT`),
    else None."""
    hull = cv2.convexHull(contour)
    hull_area = float(cv2.contourArea(hull))
    if hull_area <= 0:
        return None
    peri = cv2.arcLength(hull, True)
    approx = np.zeros((0, 2), np.float32)
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float32)
        if len(approx) <= 4:
            break
    if len(approx) != 4:
        return None
    area = quad_area(approx)
    if not HULL_FIT[0] <= area / hull_area <= HULL_FIT[1] or float(cv2.contourArea(contour)) < MIN_FILL * area:
        return None
    short, long_ = side_lengths(approx)
    if not STRIP_ASPECT[0] < long_ / max(short, 1.0) <= STRIP_ASPECT[1]:
        return None
    return order_quad(approx)


def _overlap(a: FloatArray, b: FloatArray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter)


def _touch(quad: FloatArray, found_mask: npt.NDArray[np.float32]) -> float:
    """Share of the outline of `quad` that lies within reach of a card already found (`found_mask`)."""
    h, w = found_mask.shape
    short, _ = side_lengths(quad)
    reach = max(3, round(TOUCH_REACH * short))
    points = np.concatenate([quad[i][None, :] + (quad[(i + 1) % 4] - quad[i])[None, :] * _PERIMETER_STEPS[:, None]
                             for i in range(4)])
    xi = np.clip(np.round(points[:, 0]).astype(int), 0, w - 1)
    yi = np.clip(np.round(points[:, 1]).astype(int), 0, h - 1)
    # The distance to the nearest found pixel, so one mask serves every strip's reach.
    return float((found_mask[yi, xi] <= reach).mean())


def strip_outlines(frame: Image, found: list[FloatArray]) -> list[FloatArray]:
    """Thin outlines of cards' visible strips beside the cards `found` (see the module's docstring),
    none overlapping another or lying mostly on a found card; nothing on a frame wider than `MAX_WIDTH`
    or with no card found."""
    h, w = frame.shape[:2]
    if w > MAX_WIDTH or not found:
        return []
    mask = np.full((h, w), 255, np.uint8)
    for q in found:
        cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 0)
    near = np.asarray(cv2.distanceTransform(mask, cv2.DIST_L2, 3), np.float32)
    span = MIN_SPAN * float(np.median([side_lengths(q)[0] for q in found]))
    score = whiteness(frame)
    candidates: list[tuple[float, FloatArray]] = []
    for level in LEVELS:
        binary = np.asarray((score >= level).astype(np.uint8) * 255, np.uint8)
        binary = np.asarray(cv2.morphologyEx(binary, cv2.MORPH_OPEN, _RIM3), np.uint8)
        contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            _, _, bw, bh = cv2.boundingRect(c)
            if bw * bh < MIN_AREA * h * w:
                continue
            quad = thin_quad_of(c)
            if quad is None:
                continue
            area = quad_area(quad)
            if not MIN_AREA * h * w <= area <= MAX_AREA * h * w or side_lengths(quad)[1] < span:
                continue
            if (quad.min() < FRAME_MARGIN or float(quad[:, 0].max()) > w - 1 - FRAME_MARGIN
                    or float(quad[:, 1].max()) > h - 1 - FRAME_MARGIN):
                continue
            if any(_overlap(quad, q) > MAX_COVERED * area for q in found):
                continue
            touch = _touch(quad, near)
            if touch >= MIN_TOUCH and _shows_index(frame, quad):
                candidates.append((touch, quad))
    # The same strip at several levels: the one lying most along the card over it stands for it.
    candidates.sort(key=lambda tq: tq[0], reverse=True)
    kept: list[FloatArray] = []
    for _, quad in candidates:
        if not any(_overlap(quad, k) > MAX_COVERED * min(quad_area(quad), quad_area(k)) for k in kept):
            kept.append(quad)
    return kept


def _shows_index(frame: Image, quad: FloatArray) -> bool:
    """Whether an index's glyphs show in an index corner of the strip `quad`, taken as a card itself or as
    the visible end of a card (`identify.partial_card_quads`, as the reader takes it): a strip of paper
    beside a card with no index in view is a light patch of the table as often as a card (tuning split:
    of the thin blobs along a found card, 8 of 10 on unfound cards show one, 2 of 8 elsewhere)."""
    from vision.identify import extract_glyphs, iter_index_corners, partial_card_quads

    return any(extract_glyphs(corner) is not None
               for card in [quad, *partial_card_quads(quad)] for corner in iter_index_corners(frame, card))
