"""Cards found from one corner index when the rest of the card is covered: by another card, an object, or
the photo's edge.

A card lying under another card, in a spread, or under a book or a toy shows a strip of itself with its
index at a corner, and no outline of its own closes. The index alone places the card: its rank and pip say
which way the card is "up" and where its corner is, and their spacing gives the card's length
(`reoutline.SPACING_SHARE`; `reoutline.one_index_cards` places it). Such a card is taken only on evidence
that does not need the whole card:

- the index corner reads a rank surely, from the corner the index placed (`identify.name_guessed`'s 0.8
  rule, with a suit under the rank), and that corner is open paper around its ink (`reoutline.on_paper`:
  a card back's lattice and the table are not);
- the card's two sides that meet at that corner are a card's edge (`outline.side_evidence`, once the card
  is moved a few pixels onto them: `snapped`): paper inside, the table or another card's rim beyond, or an
  image edge along them; or, last, one of them is, and the card's far index corner, a card's length away,
  reads the same rank surely (`_far_index`: a cloth over the index end leaves no edge there);
- the card is not one already found (at most MAX_INSIDE of it inside a found outline: a found card's index
  sticking out of its outline places that card again), and shows at least MIN_VISIBLE of itself.

Its outline is then its VISIBLE part, which is what the labels of the real photographs box and what a
tracker needs (the covered rest is a guess): the largest rectangle from the index corner, along the card's
sides, not under the outlines found, inside the frame, and within the card's paper border as it runs on
from the corner (an object over the card, a rug or a book, is not found as a card: `border_extents`).

Only for a profile that searches (calibrated from photographs) on frames found at full size: never on the
live table's 1280 x 720 frames, whose 30 ms budget has no room for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.geometry import FloatArray, order_quad, quad_area, quad_iou, side_lengths
from vision.identify import (
    PARTIAL_MIN_SCORE,
    SMALL_CARD_PX,
    CardReading,
    corner_views,
    name_guessed,
    read_views,
)
from vision.index_first import MIN_PAPER, index_marks
from vision.outline import SIDE_STEPS, edge_distance, edge_points, sample_at, whiteness
from vision.profile import DeckProfile
from vision.reoutline import SAME_CARD, SPACING_SHARE, on_paper, one_index_cards

Image = npt.NDArray[np.uint8]
COURT = frozenset("JQK")

# A placed card's length, of the frame's card length (the median of the cards read): the spacing of one
# index says the length to about +-16% (5-95% of the tuning photographs' deck).
LENGTH_RANGE = (0.7, 1.45)
# Without a card read in the frame, its cards are looked for at these lengths, of the frame's longer side
# (photographs of one card: its length is 0.3-0.6 of the photo's longer side; 0.7-1.45 times each).
NO_CARD_LENGTHS = (0.3, 0.45)
# The visible part must be at least this share of the placed card (a sliver shows no more than an index).
MIN_VISIBLE = 0.12
# A placed card this much inside one card already found is that card (its index sticking out of its outline).
MAX_INSIDE = 0.7
# An outline found but not read lying this much (of its area) on a placed card is that card's own.
UNREAD_SAME = 0.6
# The two sides meeting at the index corner, checked over this share of each (from the corner).
CORNER_REACH = (0.6, 0.35)  # (across, along)
MIN_CORNER_EVIDENCE = 0.7
# A placed card whose sides there reach only this much as placed is read too (after the others, as placed,
# as `snapped` says) when, turned onto its edges (`turned_evidence`), they reach MIN_CORNER_EVIDENCE: the
# rank-to-pip direction of a small index gives the card's turn to several degrees only, and a side a few
# degrees off its edge shows little (a jack on a white plate, tuning photographs: 0.50 and 0.67 as placed,
# 1.0 and 0.92 turned).
MIN_PLACED_EVIDENCE = 0.4
# The placed card is moved by up to this share of its length each way onto its edges (`snapped`).
_SNAP_STEPS = np.linspace(-0.05, 0.05, 11)
# ... and, once read, turned about its index corner by these (degrees) onto them (`straightened`).
TURNS = tuple(float(t) for t in np.arange(-6.0, 6.5, 1.5))
EDGE_NEAR = 4.0
EVIDENCE_SLACK = 0.05
# The card's grid for the visible part (across, along), the share of a visible rectangle that must be seen,
# and the least of the card (across, along) it must keep: an index spans about 0.18 x 0.25 of its card.
_GRID = (40, 56)
VISIBLE_FILL = 0.92
MIN_STRIP = (0.2, 0.25)
# The card's paper border (`border_extents`): looked at these depths inside each side (of the card's length),
# paper at this share of its level at the index corner, ended by this many cells in a row that are not.
BORDER_DEPTHS = (0.015, 0.025, 0.035)
BORDER_PAPER = 0.7
BORDER_GAP = 4
# Placed cards read at most per frame, the surest edges first (the reading is the cost: tuning photographs,
# before the opened index marks, 10, 16, 20 or 40 read the same cards, p95 152, 195, 257 and 354 ms a photo;
# with them, 10 or 12 read one card fewer and 30 the same as 16; the most cards placed in a photo there is
# 3); placed cards whose corners all lie `reoutline.SAME_CARD` of the card's length apart are one.
MAX_READ = 16
# ... and at most this many more of those whose sides are a card's edge only once turned (MIN_PLACED_EVIDENCE).
MAX_READ_TURNED = 8
# ... and at most this many more placed from the darkest ink's marks only (`index_marks(deep=True)`).
MAX_READ_DEEP = 8
# ... and, last, at most this many more of those with only one side a card's edge (MIN_CORNER_EVIDENCE, even
# turned the other is not), kept only when the card's far index corner, where the card's length puts it, reads
# the same rank surely (`_far_index`): a cloth over one end of the card leaves no edge there, but the index at
# the card's other end still shows (an ace under a cloth, tuning photographs: its index end 0.25 as placed,
# 0.42 turned; its indices A 0.94 and 0.86). Two corners a card's length apart reading one rank surely, one
# of them on open paper, and a side of the card between them are a card.
MAX_READ_FAR = 8
FAR_LENGTHS = (1.0, 1.12, 0.9, 1.24)
_FAR = 3  # the tier of those placed cards (after the tiers of MAX_READ, MAX_READ_TURNED, MAX_READ_DEEP)
# A card's index corner this close to another card (of its length) may lie on it (`_stacked`).
STACK_REACH = 0.05
# A card placed from one index, grown this much about its index corner, reaches its other index corner
# whatever the length its index's spacing gave (+-16%; `_placed_twice`).
TWICE_REACH = 1.25
# Something lying over the card that no step found (a card whose outline never closed, its index hidden) is
# bounded by straight image edges across the card (`crossing_covers`): a Hough segment (Canny edges, as
# `outline.edge_distance` takes them) at least CROSS_LENGTH of the card's width long, reaching CROSS_DEPTH of
# its width inside the card and running on CROSS_OUT of its width beyond its outline. A card's own print
# (a picture's frame, pips) stays inside it and its own sides run along its outline; what runs from the
# table onto the card lies over it.
CROSS_LENGTH = 0.3
CROSS_DEPTH = 0.12
CROSS_OUT = 0.06
# The edges as `outline.edge_distance` takes them: one card's paper on another's shows a thin shadow or a
# shade of white, but at 15 / 45 court cards' pictures, carpet and wood grain gave lines "crossing" the
# covered cards of 31 tuning photographs and 17 of those cards were lost. Hough segments bridge gaps of
# CROSS_GAP of the card's width.
CROSS_CANNY = (30, 90)
CROSS_GAP = 0.03
# A band over more than this share of the card's index (MIN_STRIP from its corner) is no cover: the index
# was just read there, so nothing lies over it.
CROSS_INDEX = 0.1
# The card's own paper (`own_paper`): what lies over a card without an edge crossing it from the table (a
# back whose white rim meets the card's white paper, its lattice beyond; an object the frame cuts) is not
# this card's paper. The card is looked at PAPER_SUB x PAPER_SUB pixels a cell of its grid (_GRID), and
# PAPER_BEYOND of its size beyond its far sides (the index gives the length to about +-16%); paper is at
# BORDER_PAPER of the level at its index (MIN_STRIP from the corner), thin light lines opened away, the
# part connected to the index kept. Ink the paper encloses is the card's own when it is small (pips, a
# glyph: under OWN_HOLE of the card), or of any size on a court card (its picture inside its border); a
# back's lattice is enclosed by the back's own white rim, and is no small hole. A cell is the card's when
# OWN_PAPER_SHARE of it is; the index strip (MIN_STRIP) always is, as the index was just read there.
PAPER_SUB = 4
PAPER_BEYOND = 0.3
OWN_HOLE = 0.12
OWN_PAPER_SHARE = 0.5
# A card lying in shade. Its index marks: the darkest ink's (`index_marks(deep=True)`) on paper from SHADE_PAPER
# up to `index_first.MIN_PAPER` (darkest channel), a round of their own read after all the others with a
# budget of its own (MAX_READ_SHADE): in the deep round's budget they took the read of a jack placed there
# (tuning photographs). A king in a table's shadow has its paper at 92-109; a darker table's own texture stays
# under SHADE_PAPER. Its border (`border_extents`): a shade deepening along the card leaves the border under
# BORDER_PAPER of the level at the index (that king: whiteness 16-34 along one end against about 55 at the
# index), but still lighter than just beyond the card's side, by SHADE_CONTRAST of that level or more, and at
# SHADE_FLOOR of it at least; an object lying over the card's side shows the same light on both sides of it.
SHADE_PAPER = 80
MAX_READ_SHADE = 8
SHADE_CONTRAST = 0.2
SHADE_FLOOR = 0.25
_PLAIN, _DEEP, _SHADE = 0, 1, 2  # the index marks of a round: plain and opened, darkest ink, darkest ink in shade
_SHADE_TIER = 4  # (after the tiers of MAX_READ, MAX_READ_TURNED, MAX_READ_DEEP and MAX_READ_FAR)
# One card placed from its two opposite indices, both short of the other's corner (`_joined`), is the card
# spanned between them when that is a card's shape: its length this many times its width (a card's is 1.4).
SPANNED_ASPECT = (1.2, 1.65)


@dataclass(frozen=True, kw_only=True)
class CoveredCard:
    """A card placed from one index, its visible part (`outline`) and its reading."""

    outline: FloatArray
    card: FloatArray
    reading: CardReading


# (the index corner placed from, the border's extents, what may cover the card) of a card placed and read
Placing = tuple[int, tuple[int, int], list[FloatArray]]


def corner_quad(card: FloatArray, which: int, reach: tuple[float, float] = CORNER_REACH) -> FloatArray:
    """The part of `card` (ordered as `order_quad` orders a card) at index corner `which`, `reach` of its
    width and length, with the card's own two sides at that corner as its sides 0 and 3."""
    q = card.astype(np.float64)
    if which:
        q = np.roll(q, 2, axis=0)
    across, along = q[1] - q[0], q[3] - q[0]
    a, b = across * reach[0], along * reach[1]
    return np.array([q[0], q[0] + a, q[0] + a + b, q[0] + b], np.float32)


def snapped(score: Image, dist: npt.NDArray[np.float32], card: FloatArray, which: int, *, fit: bool = False
            ) -> tuple[FloatArray, float]:
    """(card, evidence): `snapped_sides` with the weaker of the two sides' evidence."""
    moved, sides = snapped_sides(score, dist, card, which, fit=fit)
    return moved, min(sides)


def snapped_sides(score: Image, dist: npt.NDArray[np.float32], card: FloatArray, which: int, *, fit: bool = False
                  ) -> tuple[FloatArray, tuple[float, float]]:
    """(card, (end, side)): `card` moved (by at most _SNAP_STEPS of its length each way) so that its two sides
    meeting at index corner `which` lie on the card's edges, and those two sides' best edge evidence
    (`outline.side_evidence`): the index end's, then the long side's. The index places its corner to a few
    pixels only (the index's distances from the card's edges, and the length its spacing gives, vary from
    deck to deck), and the evidence is taken within a few pixels of the edge. Each side is set by the shift
    across it alone: the smallest shift of best evidence; with `fit`, among the shifts within EVIDENCE_SLACK
    of its best evidence (paper inside, darker outside holds over a few pixels' shifts), the one running
    closest to image edges (`_misfit`).
    Cards are read from the first and outlined from the second (tuning photographs: read from the second,
    3 cards fewer were read and 1 more)."""
    corner = corner_quad(card, which).astype(np.float32)
    across, along = corner[1] - corner[0], corner[3] - corner[0]
    across, along = across / max(1e-6, float(np.linalg.norm(across))), along / max(1e-6, float(np.linalg.norm(along)))
    steps = _SNAP_STEPS * side_lengths(card)[1]
    short, _ = side_lengths(corner)
    d_in, d_out = max(2.5, 0.05 * short), max(2.0, 0.03 * short)  # as `outline.side_evidence` takes them
    # Shifts along the card move the side across its index end (side 0: corner 0 to 1, inside along the
    # card), and shifts across it the long side (side 3: corner 3 to 0, inside across the card); each side's
    # points at every shift, sampled at once.
    chosen: list[tuple[float, float]] = []
    for unit, (a, b) in ((along, (corner[0], corner[1])), (across, (corner[3], corner[0]))):
        base = a[None, :] + (b - a)[None, :] * SIDE_STEPS[:, None]
        points = (base[None, :, :] + steps[:, None, None] * unit[None, None, :]).reshape(-1, 2).astype(np.float32)
        inward = unit.astype(np.float32)
        good = edge_points(score, dist, points, points + inward * d_in, points - inward * d_out)
        evidence = good.reshape(len(steps), len(SIDE_STEPS)).mean(axis=1)
        top = float(evidence.max())
        slack = EVIDENCE_SLACK if fit else 0.0
        near = [i for i in range(len(steps)) if evidence[i] >= top - slack]
        misfits = {i: _misfit(dist, a + steps[i] * unit, b + steps[i] * unit) if fit else 0.0 for i in near}
        pick = min(near, key=lambda i: (misfits[i], abs(float(steps[i]))))
        chosen.append((top, float(steps[pick])))
    moved = card + chosen[0][1] * along + chosen[1][1] * across
    return np.ascontiguousarray(moved.astype(np.float32)), (chosen[0][0], chosen[1][0])


def _misfit(dist: npt.NDArray[np.float32], a: FloatArray, b: FloatArray) -> float:
    """How far the segment a-b runs from image edges: the mean distance of its points, each counted up to
    EDGE_NEAR pixels (a point off the image counts fully)."""
    steps = np.linspace(0.0, 1.0, 24)[:, None]
    near, inside = sample_at(dist, a.astype(np.float64) + (b - a).astype(np.float64) * steps)
    return float(np.mean(np.where(inside, np.minimum(near, EDGE_NEAR), EDGE_NEAR)))


def turned_evidence(score: Image, dist: npt.NDArray[np.float32], card: FloatArray, which: int) -> float:
    """The best evidence `snapped` gives the card turned about its index corner by any of TURNS degrees (what
    `straightened` chooses among), every turn and shift sampled at once: it is asked of many placed cards
    before any is read, and `straightened` itself, a turn at a time with its fit, costs about 6 ms a card."""
    q = corner_quad(card, which).astype(np.float64)
    origin, across, along = q[0], q[1] - q[0], q[3] - q[0]
    short, _ = side_lengths(corner_quad(card, which))
    d_in, d_out = max(2.5, 0.05 * short), max(2.0, 0.03 * short)  # as `snapped` takes them
    steps = _SNAP_STEPS * side_lengths(card)[1]
    radians = np.deg2rad(np.asarray(TURNS, np.float64))
    cos, sin = np.cos(radians)[:, None], np.sin(radians)[:, None]
    # Each turn as cv2.getRotationMatrix2D turns (degrees counter-clockwise on screen, the y axis down).
    a = np.stack([cos * across[0] + sin * across[1], -sin * across[0] + cos * across[1]], axis=-1)[:, 0]
    b = np.stack([cos * along[0] + sin * along[1], -sin * along[0] + cos * along[1]], axis=-1)[:, 0]
    a_unit = a / np.maximum(1e-6, np.linalg.norm(a, axis=1))[:, None]
    b_unit = b / np.maximum(1e-6, np.linalg.norm(b, axis=1))[:, None]
    tops = []
    # Side 0 (the index end) shifted along the card; side 3 (the long side, corner 3 to 0) shifted across it.
    for start, run, unit in ((np.broadcast_to(origin, a.shape), a, b_unit), (origin + b, -b, a_unit)):
        base = start[:, None, :] + run[:, None, :] * SIDE_STEPS[None, :, None]  # (turns, points, 2)
        points = base[:, None, :, :] + steps[None, :, None, None] * unit[:, None, None, :]
        inward = np.broadcast_to(unit[:, None, None, :], points.shape)
        flat = points.reshape(-1, 2).astype(np.float32)
        ins = (points + inward * d_in).reshape(-1, 2).astype(np.float32)
        outs = (points - inward * d_out).reshape(-1, 2).astype(np.float32)
        good = edge_points(score, dist, flat, ins, outs).reshape(len(TURNS), len(steps), len(SIDE_STEPS))
        tops.append(good.mean(axis=2).max(axis=1))
    return float(np.minimum(tops[0], tops[1]).max())


def straightened(score: Image, dist: npt.NDArray[np.float32], card: FloatArray, which: int
                 ) -> tuple[FloatArray, float]:
    """(card, evidence): `snapped` over the card turned about its index corner by each of TURNS degrees:
    among those within EVIDENCE_SLACK of the best evidence, the one whose two sides at that corner run
    closest to image edges, the smallest turn among equals. The rank-to-pip direction gives the card's turn
    to a few degrees only, and over a card's length a few degrees put the far end off the card."""
    corner = card[2] if which else card[0]
    tried = []
    for degrees in TURNS:
        m = cv2.getRotationMatrix2D((float(corner[0]), float(corner[1])), degrees, 1.0)
        turned = np.asarray(cv2.transform(card.reshape(-1, 1, 2), m).reshape(4, 2), np.float32)
        moved, evidence = snapped(score, dist, turned, which, fit=True)
        q = corner_quad(moved, which)
        tried.append((evidence, _misfit(dist, q[0], q[1]) + _misfit(dist, q[0], q[3]), abs(degrees), moved))
    top = max(t[0] for t in tried)
    best = min((t for t in tried if t[0] >= top - EVIDENCE_SLACK), key=lambda t: (t[1], t[2]))
    return best[3], best[0]


def crossing_covers(gray: Image, card: FloatArray, which: int) -> list[FloatArray]:
    """What lies over `card` (ordered as `order_quad` orders a card) beyond the straight edges crossing it
    (see CROSS_LENGTH): for each such segment of the grey frame's edges (CROSS_CANNY), the band swept from
    it away from index corner `which`, a card's length deep, as a convex quad. A card lying over the card's
    far part, whose index is hidden or cut by the frame, is found by no step; its paper continues the
    card's own, but its edge on the card is a straight line that runs on onto the table."""
    width, length = side_lengths(card)
    corner = (card[2] if which else card[0]).astype(np.float64)
    h, w = gray.shape[:2]
    x0, y0 = np.floor(card.min(axis=0) - 3 * CROSS_OUT * width).astype(int)
    x1, y1 = np.ceil(card.max(axis=0) + 3 * CROSS_OUT * width).astype(int)
    x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    edges = cv2.Canny(cv2.GaussianBlur(gray[y0:y1, x0:x1], (3, 3), 0), *CROSS_CANNY)
    segments = cv2.HoughLinesP(edges, 1, np.pi / 180, max(8, int(0.15 * width)),
                               minLineLength=CROSS_LENGTH * width, maxLineGap=max(3.0, CROSS_GAP * width))
    if segments is None:
        return []
    contour = card.reshape(-1, 1, 2).astype(np.float32)
    origin = np.array([x0, y0], np.float64)
    index = corner_quad(card, which, MIN_STRIP)  # the index: nothing lies over it, as it was just read
    index_area = quad_area(index)
    steps = np.linspace(0.0, 1.0, 24)[:, None]
    out = []
    for sx0, sy0, sx1, sy1 in segments.reshape(-1, 4).astype(np.float64):
        a, b = np.array([sx0, sy0]) + origin, np.array([sx1, sy1]) + origin
        depth = [cv2.pointPolygonTest(contour, (float(x), float(y)), True) for x, y in a + (b - a) * steps]
        if max(depth) < CROSS_DEPTH * width or min(depth) > -CROSS_OUT * width:
            continue
        d = (b - a) / max(1e-6, float(np.linalg.norm(b - a)))
        normal = np.array([-d[1], d[0]])
        if float(np.dot(corner - a, normal)) > 0:
            normal = -normal  # away from the index corner
        band = np.array([a, b, b + normal * length, a + normal * length], np.float32)
        if _inside_share(index, band, index_area) <= CROSS_INDEX:
            out.append(band)
    return out


def border_extents(score: Image, card: FloatArray, which: int) -> tuple[int, int]:
    """How far (in cells of the card's grid, _GRID: across, along) the card's paper border runs on from
    index corner `which` along its two sides there: a card under a rug, a book or a towel is paper up to the
    object's edge, and the object, not found as a card, does not cover it in `visible_part`. The border is
    the whiteness (`outline.whiteness`) just inside each side (the lightest of BORDER_DEPTHS); it ends where
    BORDER_GAP cells in a row are under BORDER_PAPER of its level at the corner (a cable across leaves it
    whole)."""
    gw, gh = _GRID
    q = (np.roll(card, 2, axis=0) if which else card).astype(np.float64)
    across, along = q[1] - q[0], q[3] - q[0]
    length = float(np.linalg.norm(along))
    a_unit, b_unit = across / max(1e-6, float(np.linalg.norm(across))), along / max(1e-6, length)
    depths = np.asarray(BORDER_DEPTHS, np.float64)[:, None, None] * length
    top = q[0] + across * ((np.arange(gw) + 0.5) / gw)[:, None]  # (gw, 2)
    side = q[0] + along * ((np.arange(gh) + 0.5) / gh)[:, None]
    tops, _ = sample_at(score, (top[None] + depths * b_unit).reshape(-1, 2))
    sides, _ = sample_at(score, (side[None] + depths * a_unit).reshape(-1, 2))
    top_light = tops.reshape(len(BORDER_DEPTHS), gw).max(axis=0).astype(np.float64)
    side_light = sides.reshape(len(BORDER_DEPTHS), gh).max(axis=0).astype(np.float64)
    level = float(np.percentile(np.concatenate([top_light[:6], side_light[:6]]), 85))
    # Just beyond each side: a border in shade is still lighter than the table beside it (`SHADE_CONTRAST`).
    tops_out, _ = sample_at(score, (top[None] - depths * b_unit).reshape(-1, 2))
    sides_out, _ = sample_at(score, (side[None] - depths * a_unit).reshape(-1, 2))
    top_dark = tops_out.reshape(len(BORDER_DEPTHS), gw).max(axis=0).astype(np.float64)
    side_dark = sides_out.reshape(len(BORDER_DEPTHS), gh).max(axis=0).astype(np.float64)
    return (_run(_border_paper(top_light, top_dark, level)), _run(_border_paper(side_light, side_dark, level)))


def _border_paper(light: npt.NDArray[np.float64], beyond: npt.NDArray[np.float64], level: float
                  ) -> npt.NDArray[np.bool_]:
    """The border cells that are paper: at BORDER_PAPER of the `level` at the corner, or lighter than just
    `beyond` the side by SHADE_CONTRAST of that level and at SHADE_FLOOR of it at least (a card in shade)."""
    shaded = (light - beyond >= SHADE_CONTRAST * level) & (light >= SHADE_FLOOR * level)
    return np.asarray((light >= BORDER_PAPER * level) | shaded, np.bool_)


def _run(paper: npt.NDArray[np.bool_]) -> int:
    """The cells from the start up to the first BORDER_GAP in a row that are not paper."""
    gaps = np.convolve((~paper).astype(np.int32), np.ones(BORDER_GAP, np.int32), mode="valid")
    ends = np.nonzero(gaps >= BORDER_GAP)[0]
    return int(ends[0]) if len(ends) else len(paper)


def own_paper(score: Image, card: FloatArray, which: int, *, court: bool = False) -> npt.NDArray[np.uint8]:
    """The cells of the card's grid (_GRID: rows along, columns across, index corner `which` at the origin)
    that are its own paper connected to its index, or ink that paper encloses (see PAPER_SUB); `court`: a
    jack, queen or king, whose picture is a large enclosed region of its own."""
    gw, gh = _GRID
    q = np.roll(card, 2, axis=0) if which else card
    target = np.array([[0, 0], [gw, 0], [gw, gh], [0, gh]], np.float32) * PAPER_SUB
    m = cv2.getPerspectiveTransform(q.astype(np.float32), target)
    size = (int(gw * PAPER_SUB * (1 + PAPER_BEYOND)), int(gh * PAPER_SUB * (1 + PAPER_BEYOND)))
    warped = cv2.warpPerspective(score, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=0)
    sw, sh = int(np.ceil(MIN_STRIP[0] * gw * PAPER_SUB)), int(np.ceil(MIN_STRIP[1] * gh * PAPER_SUB))
    level = float(np.percentile(warped[:sh, :sw], 85))
    paper = np.asarray(cv2.morphologyEx((warped >= BORDER_PAPER * level).astype(np.uint8), cv2.MORPH_OPEN,
                                        np.ones((3, 3), np.uint8)), np.uint8)
    count, labels = cv2.connectedComponents(paper, connectivity=4)
    at_index = np.bincount(labels[:sh, :sw].ravel(), minlength=count)
    at_index[0] = 0  # the background
    own = (labels == int(np.argmax(at_index))).astype(np.uint8) if at_index.any() else np.zeros_like(paper)
    # What the paper encloses: the parts of the rest that touch no side of the window.
    rest = (1 - own).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=4)
    x, y, bw, bh, area = (stats[:, k] for k in range(5))
    hole = (x > 0) & (y > 0) & (x + bw < size[0]) & (y + bh < size[1])
    if not court:
        hole &= area < OWN_HOLE * gw * gh * PAPER_SUB * PAPER_SUB
    own[hole[labels] & (rest > 0)] = 1  # (label 0 is the paper itself)
    own = own[:gh * PAPER_SUB, :gw * PAPER_SUB]
    cells = np.asarray(own.reshape(gh, PAPER_SUB, gw, PAPER_SUB).mean(axis=(1, 3)) >= OWN_PAPER_SHARE, np.uint8)
    cells[:int(np.ceil(MIN_STRIP[1] * gh)), :int(np.ceil(MIN_STRIP[0] * gw))] = 1
    return cells


def visible_part(card: FloatArray, which: int, covers: Sequence[FloatArray], size: tuple[int, int],
                 extents: tuple[int, int] | None = None, *, paper: npt.NDArray[np.uint8] | None = None
                 ) -> tuple[FloatArray, float] | None:
    """(outline, share): the largest rectangle of `card` (ordered as `order_quad` orders a card) from its
    index corner `which`, along the card's own sides, that is visible (at least VISIBLE_FILL of it not under
    `covers` and inside a frame of `size` (width, height)), ordered as a card, and the share of the card it
    is. A card under another shows a strip along a side or an end of itself, with its index at a corner; a
    card with one corner covered, the larger of the two. None when it leaves the index out (under
    MIN_STRIP of the card either way). `extents`: how far the card's border runs on from the corner
    (`border_extents`), in the card's grid; the rectangle stays within them. `paper`: the cells that are
    the card's own paper (`own_paper`); the rectangle is seen only there."""
    w, h = size
    gw, gh = _GRID
    q = np.roll(card, 2, axis=0) if which else card
    target = np.array([[0, 0], [gw, 0], [gw, gh], [0, gh]], np.float32)
    m = cv2.getPerspectiveTransform(q.astype(np.float32), target)
    # The covers and the frame drawn straight into the card's own grid (index corner at the origin).
    seen = np.ones((gh, gw), np.uint8)
    for cover in covers:
        pts = cv2.perspectiveTransform(cover.reshape(-1, 1, 2).astype(np.float32), m).reshape(-1, 2)
        cv2.fillConvexPoly(seen, np.round(pts * 8).astype(np.int32), 0, shift=3)
    grid = (np.mgrid[0:gh, 0:gw][::-1].astype(np.float32) + 0.5).transpose(1, 2, 0)  # (x, y) per cell
    inv = np.linalg.inv(m)
    at = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), inv).reshape(gh, gw, 2)
    seen &= ((at[..., 0] >= 0) & (at[..., 0] < w) & (at[..., 1] >= 0) & (at[..., 1] < h)).astype(np.uint8)
    if extents is not None:
        seen[:, extents[0]:] = 0
        seen[extents[1]:, :] = 0
    if paper is not None:
        seen &= paper
    # Rectangles [0, a) x [0, b) of the grid: the share of each that is seen, from the integral image.
    counts = cv2.integral(seen)[1:, 1:].astype(np.float64)
    areas = np.arange(1, gh + 1, dtype=np.float64)[:, None] * np.arange(1, gw + 1, dtype=np.float64)[None, :]
    ok = counts >= VISIBLE_FILL * areas
    ok[: int(np.ceil(MIN_STRIP[1] * gh)) - 1, :] = False
    ok[:, : int(np.ceil(MIN_STRIP[0] * gw)) - 1] = False
    if not ok.any():
        return None
    b, a = np.unravel_index(int(np.argmax(np.where(ok, areas, 0))), ok.shape)
    rect = np.array([[0, 0], [a + 1, 0], [a + 1, b + 1], [0, b + 1]], np.float32)
    quad = cv2.perspectiveTransform(rect.reshape(-1, 1, 2), inv).reshape(4, 2)
    return order_quad(quad), float(areas[b, a]) / (gw * gh)


def covered_cards(image: Image, outlines: Sequence[FloatArray], profile: DeckProfile, *,
                  card_length: float | None, unread: Sequence[FloatArray] = ()) -> list[CoveredCard]:
    """The cards that one index each places outside the `outlines` found (see the module's doc), with
    their visible parts and readings. `card_length`: the frame's card length (the median of the cards
    read); None when no card was read (a photograph of one card under a towel): then cards of
    NO_CARD_LENGTHS of the frame's longer side are looked for."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise VisionInputError(f"cards are placed in an 8-bit BGR frame, not {image.dtype} {image.shape}")
    if card_length is not None and (not np.isfinite(card_length) or card_length <= 0):
        raise VisionInputError(f"a card length is a positive number of pixels, not {card_length}")
    if not profile.search:
        return []
    h, w = image.shape[:2]
    exclude = np.zeros((h, w), np.uint8)
    for q in outlines:
        cv2.fillConvexPoly(exclude, np.round(q).astype(np.int32), 1)
    lengths = [card_length] if card_length is not None else [share * max(h, w) for share in NO_CARD_LENGTHS]
    rounds = [(ink, length) for ink in (_PLAIN, _DEEP, _SHADE) for length in lengths]
    placed = [_placements(image, exclude, length, ink=ink) for ink, length in rounds]
    cards = np.concatenate([p[0] for p in placed])
    which = np.concatenate([p[1] for p in placed])
    inks = np.concatenate([np.full(len(p[0]), ink) for p, (ink, _) in zip(placed, rounds, strict=True)])
    if not len(cards):
        return []
    longs = np.linalg.norm(cards[:, 3] - cards[:, 0], axis=1)
    order = range(len(cards))
    score = whiteness(image)
    gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    dist = edge_distance(gray)
    found: list[CoveredCard] = []
    # (index corner, border extents, what may cover it) of each card found
    placings: list[Placing] = []
    # The cards read so far: an index's marks are paired more than once (a ten's two digits, a pip's parts),
    # and the same card placed again is not read again (a card passed over before reading is not read at all).
    read: list[FloatArray] = []
    # First the cheap tests, for every placed card; then the reading, the surest edges first: the cards whose
    # sides are a card's edge as placed, then (a budget of their own) those whose sides are one once turned.
    candidates: list[tuple[int, float, int, FloatArray]] = []
    for k in order:
        card = np.ascontiguousarray(cards[k])
        area = quad_area(card)
        if any(_inside_share(card, q, area) > MAX_INSIDE for q in outlines):
            continue
        card, sides = snapped_sides(score, dist, card, int(which[k]))
        evidence = min(sides)
        tier = 0
        if evidence < MIN_CORNER_EVIDENCE:
            if evidence >= MIN_PLACED_EVIDENCE:
                evidence = turned_evidence(score, dist, card, int(which[k]))
            tier = 1
            if evidence < MIN_CORNER_EVIDENCE:
                # One side a card's edge at least, the other end to be confirmed by its far index.
                tier, evidence = _FAR, max(sides)
                if evidence < MIN_CORNER_EVIDENCE:
                    continue
        if inks[k] != _PLAIN and tier != _FAR:
            tier = 2 if inks[k] == _DEEP else _SHADE_TIER
        visible = visible_part(card, int(which[k]), _covers(card, outlines, unread), (w, h))
        if visible is not None and visible[1] >= MIN_VISIBLE:
            candidates.append((tier, evidence, k, card))
    candidates.sort(key=lambda c: (c[0], -c[1]))
    budget = [MAX_READ, MAX_READ_TURNED, MAX_READ_DEEP, MAX_READ_FAR, MAX_READ_SHADE]
    for tier, _, k, start in candidates:
        corner, card = int(which[k]), start
        near = SAME_CARD * longs[k]
        if any(float(np.abs(card - other).max()) <= near for other in read):
            continue
        if budget[tier] <= 0:
            continue
        budget[tier] -= 1
        read.append(card)
        anchor = read_views(corner_views(image, card, corner), profile)
        if anchor is None or anchor.rank_score < PARTIAL_MIN_SCORE or not anchor.is_face():
            continue
        readings = [anchor, None] if corner == 0 else [None, anchor]
        reading = name_guessed(readings, profile, small=side_lengths(card)[1] < SMALL_CARD_PX)
        if reading.rank is None or not on_paper(image, card, readings, reading.rank):
            continue
        if tier == _FAR:
            if not _far_index(image, card, corner, reading.rank, profile):
                continue
        else:
            # Read: now its outline, as true as the edges at its index corner make it, cut at what covers it.
            card, _ = straightened(score, dist, card, corner)
        extents = border_extents(score, card, corner)
        covers = _covers(card, outlines, unread) + crossing_covers(gray, card, corner)
        paper = own_paper(score, card, corner, court=reading.rank in COURT)
        visible = visible_part(card, corner, covers, (w, h), extents, paper=paper)
        if visible is None:
            continue
        found.append(CoveredCard(outline=visible[0], card=card, reading=reading))
        placings.append((corner, extents, covers))

    def outlined(card: FloatArray, corner: int, reading: CardReading) -> tuple[CoveredCard, Placing] | None:
        extents = border_extents(score, card, corner)
        covers = _covers(card, outlines, unread) + crossing_covers(gray, card, corner)
        visible = visible_part(card, corner, covers, (w, h), extents,
                               paper=own_paper(score, card, corner, court=reading.rank in COURT))
        if visible is None:
            return None
        return CoveredCard(outline=visible[0], card=card, reading=reading), (corner, extents, covers)

    found, placings = _joined(found, placings, outlined)
    found, placings = _placed_twice(found, placings)
    return _distinct(_stacked(found, placings, (w, h)))


def _far_index(image: Image, card: FloatArray, corner: int, rank: str, profile: DeckProfile) -> bool:
    """Whether the placed card's other index corner (not `corner`) reads `rank` at PARTIAL_MIN_SCORE with a
    suit under it, in one of its views (`read_views` over `corner_views`), the card taken at each of
    FAR_LENGTHS of its placed length about its index corner (one index's spacing gives the card's length to
    +-16%, and the simulated deck's index spacing is another than the photographs'): the card's far end
    confirms it where its sides do not. Its paper is not asked (`on_paper` holds at the index that placed the
    card, which is no back's): the far corner's view takes in the cloth beside the card (an ace under a
    cloth, tuning photographs: 21% open paper)."""
    anchor = card[2] if corner else card[0]
    for growth in FAR_LENGTHS:
        grown = np.ascontiguousarray((anchor + (card - anchor) * growth).astype(np.float32))
        far = read_views(corner_views(image, grown, 1 - corner), profile)
        if far is not None and far.rank_score >= PARTIAL_MIN_SCORE and far.is_face():
            return far.rank == rank
    return False


def _covers(card: FloatArray, outlines: Sequence[FloatArray], unread: Sequence[FloatArray]) -> list[FloatArray]:
    """What may cover the card: the cards read, and the outlines found but not read unless mostly on the card
    (UNREAD_SAME of them: the card's own outline, which read nothing)."""
    return [*outlines, *(q for q in unread if _inside_share(q, card, quad_area(q)) < UNREAD_SAME)]


def _stacked(found: list[CoveredCard], placings: list[Placing],
             size: tuple[int, int]) -> list[CoveredCard]:
    """The cards placed, each cut by those placed over it: in a spread of cards none of which was found, each
    card's index corner shows, so a card whose index corner lies on another card, while that card's index
    corner does not lie on it, lies over it (the same card placed from its two indices has each index on the
    other's card, and stays as it is). A card left without its index is dropped."""
    corners = [c.card[2] if which else c.card[0] for c, (which, _, _) in zip(found, placings, strict=True)]
    out = []
    for j, (card, (which, extents, covers)) in enumerate(zip(found, placings, strict=True)):
        over = [found[i].outline for i in range(len(found))
                if i != j and _holds(card.card, corners[i]) and not _holds(found[i].card, corners[j])]
        if not over:
            out.append(card)
            continue
        # (Not bounded by its own paper again: on the tuning photographs that lost 2 cards of spreads.)
        visible = visible_part(card.card, which, [*covers, *over], size, extents)
        if visible is not None and visible[1] >= MIN_VISIBLE:
            out.append(CoveredCard(outline=visible[0], card=card.card, reading=card.reading))
    return out


def _joined(found: list[CoveredCard], placings: list[Placing],
            outlined: Callable[[FloatArray, int, CardReading], tuple[CoveredCard, Placing] | None]
            ) -> tuple[list[CoveredCard], list[Placing]]:
    """The cards placed, one card placed from its two opposite indices, neither placement reaching the other's
    index corner (both index spacings gave it too short), made one: the card spanned between the two index
    corners, along the surer placement's sides, outlined again (`outlined`: its visible part). As placed, the
    far end of either stops inside the card, where its picture's frame runs on beyond it and was taken for
    something lying across the card (`crossing_covers`): each was reported by a strip at its index, in two
    places (a king in shade on grey felt, both placements 0.82 of its length)."""
    corners = [c.card[2] if which else c.card[0] for c, (which, _, _) in zip(found, placings, strict=True)]
    order = sorted(range(len(found)), key=lambda i: -found[i].reading.confidence)
    used: set[int] = set()
    out: dict[int, tuple[CoveredCard, Placing]] = {}
    for i in order:
        if i in used:
            continue
        for k in order:
            if k == i or k in used or found[k].reading.rank != found[i].reading.rank \
                    or placings[k][0] == placings[i][0]:
                continue
            if _holds(found[i].card, corners[k]) or _holds(found[k].card, corners[i]) \
                    or not _one_card(found, corners, i, k, opposite=True):
                continue
            card = _spanned(found[i].card, placings[i][0], corners[k])
            width, length = side_lengths(card)
            if not SPANNED_ASPECT[0] * width <= length <= SPANNED_ASPECT[1] * width:
                continue
            joined = outlined(card, placings[i][0], found[i].reading)
            if joined is not None:
                out[i] = joined
                used.update((i, k))
                break
    kept = [out.get(i, (found[i], placings[i])) for i in range(len(found)) if i in out or i not in used]
    return [c for c, _ in kept], [p for _, p in kept]


def _spanned(card: FloatArray, which: int, far: FloatArray) -> FloatArray:
    """The card from `card`'s index corner `which` to the opposite index corner `far`, along `card`'s sides
    (ordered as `order_quad` orders a card)."""
    q = (np.roll(card, 2, axis=0) if which else card).astype(np.float64)
    across, along = q[1] - q[0], q[3] - q[0]
    a, b = np.linalg.lstsq(np.stack([across, along], axis=1), far.astype(np.float64) - q[0], rcond=None)[0]
    spanned = np.array([q[0], q[0] + a * across, q[0] + a * across + b * along, q[0] + b * along])
    if which:
        spanned = np.roll(spanned, 2, axis=0)
    return np.ascontiguousarray(spanned.astype(np.float32))


def _placed_twice(found: list[CoveredCard], placings: list[Placing]
                  ) -> tuple[list[CoveredCard], list[Placing]]:
    """The cards placed, one card placed from its two indices at two lengths kept once (the surer reading): two
    placements of one rank, one's index corner on the other card (`_holds`), the other's index corner on the
    first card grown TWICE_REACH about its own index corner (one index gives the length to +-16% only, so the
    first may stop short of the other's corner). Two cards of one rank in a spread are not: the lower card's
    index corner lies beyond the upper card's, not on it grown away from its own corner. (Shaded tuning
    photographs: a nine placed from its top index at its length and from its bottom one at twice it, the
    second's visible part a strip running off the card onto a bottle, centred on no card.)"""
    corners = [c.card[2] if which else c.card[0] for c, (which, _, _) in zip(found, placings, strict=True)]
    order = sorted(range(len(found)), key=lambda i: -found[i].reading.confidence)
    kept: list[int] = []
    for i in order:
        if not any(found[k].reading.rank == found[i].reading.rank
                   and _one_card(found, corners, k, i, opposite=placings[k][0] != placings[i][0]) for k in kept):
            kept.append(i)
    kept.sort()
    return [found[i] for i in kept], [placings[i] for i in kept]


def _one_card(found: list[CoveredCard], corners: list[FloatArray], a: int, b: int, *, opposite: bool = False
              ) -> bool:
    """Whether placements `a` and `b` are one card placed from its two indices (see `_placed_twice`).
    `opposite`: they were placed from opposite index corners; then it is enough that each one's index corner
    lies on the other grown: both indices may give a card too short to reach the other's corner (a king in
    shade on grey felt, both placements 0.82 of its length: it was reported twice)."""
    def grown(k: int) -> FloatArray:
        return np.ascontiguousarray((corners[k] + (found[k].card - corners[k]) * TWICE_REACH).astype(np.float32))
    if opposite and _holds(grown(a), corners[b]) and _holds(grown(b), corners[a]):
        return True
    return ((_holds(found[b].card, corners[a]) and _holds(grown(a), corners[b]))
            or (_holds(found[a].card, corners[b]) and _holds(grown(b), corners[a])))


def _holds(card: FloatArray, point: FloatArray) -> bool:
    """Whether the point lies on the card or within STACK_REACH of its length outside it: the cards of a
    spread lie side by side, and one card's corner may sit on the edge of the card under it."""
    reach = STACK_REACH * side_lengths(card)[1]
    return cv2.pointPolygonTest(card.reshape(-1, 1, 2), (float(point[0]), float(point[1])), True) > -reach


def _placements(image: Image, exclude: Image, length: float, *, ink: int = 0
                ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int_]]:
    """(cards, which): the cards of about `length` that the index marks outside `exclude` place, and the
    index corner (0 or 1) each was placed from, that corner inside the frame. `ink`: _PLAIN (the ink as it is
    and opened), _DEEP (the darkest ink only, `index_marks(deep=True)`) or _SHADE (that on paper in shade)."""
    h, w = image.shape[:2]
    # Both the ink as it is and with its thin lines cut (as the index-first search's second round): a court
    # card's rank or pip touching its picture's frame, a ten's digits touching each other, a pip touching a
    # book's print (tuning split: +3 cards read, a king by a book, a ten under a candle, a ten in a spread).
    if ink == _PLAIN:
        marks = [index_marks(image, length, exclude, opened=opened) for opened in (False, True)]
    else:
        papers = (SHADE_PAPER, MIN_PAPER) if ink == _SHADE else (MIN_PAPER, 255)
        marks = [index_marks(image, length, exclude, deep=True, paper_range=papers)]
    middles, ups, spacings = (np.concatenate([m[i] for m in marks]) for i in range(3))
    if not len(middles):
        return np.zeros((0, 4, 2), np.float32), np.zeros(0, int)
    cards = one_index_cards(middles, ups, spacings / SPACING_SHARE)
    longs = np.linalg.norm(cards[:, 3] - cards[:, 0], axis=1)
    ok = (longs >= LENGTH_RANGE[0] * length) & (longs <= LENGTH_RANGE[1] * length)
    # The index corner the mark placed: the first corner, or the third when the card was turned.
    which = (np.linalg.norm(cards[:, 2] - middles, axis=1) < np.linalg.norm(cards[:, 0] - middles, axis=1)).astype(int)
    corner = np.where(which[:, None] == 1, cards[:, 2], cards[:, 0])
    ok &= (corner[:, 0] >= 0) & (corner[:, 0] < w) & (corner[:, 1] >= 0) & (corner[:, 1] < h)
    return cards[ok], which[ok]


def _inside_share(card: FloatArray, other: FloatArray, area: float) -> float:
    inter, _ = cv2.intersectConvexConvex(card.astype(np.float32), other.astype(np.float32))
    return float(inter) / area if area > 0 else 0.0


def _distinct(found: list[CoveredCard]) -> list[CoveredCard]:
    """One card per visible part: of placements whose visible parts overlap by half, the surest, and none
    of such a group that reads two ranks. Two placements of one rank whose cards overlap by half are one
    card too (placed from its two indices, with something across its middle: two visible parts)."""
    found = sorted(found, key=lambda c: -c.reading.confidence)
    out: list[CoveredCard] = []
    dropped: set[int] = set()
    for i, c in enumerate(found):
        if i in dropped:
            continue
        dropped.update(j for j in range(i + 1, len(found))
                       if found[j].reading.rank == c.reading.rank and quad_iou(c.card, found[j].card) > 0.5)
        group = [j for j in range(i + 1, len(found)) if j not in dropped and _inside_share(
            c.outline, found[j].outline, min(quad_area(c.outline), quad_area(found[j].outline))) > 0.5]
        dropped.update(group)
        if all(found[j].reading.rank == c.reading.rank for j in group):
            out.append(c)
    return out
