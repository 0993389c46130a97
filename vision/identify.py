"""Reading a card's rank and suit from its corner index, with a confidence and a reject option.

The card is first warped upright (`geometry.warp_card`), so a standard index sits at the top-left and,
turned 180 degrees, at the bottom-right. In each index corner the ink (dark or red on the paper) is
cut into connected blobs; the top blob row is the rank ("10" is two blobs side by side), the next blob
below it is the suit. Each is compared with the deck profile's templates by normalised correlation.
A card is named only when rank and suit both score above the profile's thresholds with a margin over
the runner-up, and both corners (when both are readable) agree; otherwise it is unknown (None).
A card whose corners hold no index structure at all is a back: face down, never named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import RED_SUITS
from vision.geometry import CARD_ASPECT, CARD_H, CARD_W, canonical_corners, order_quad, side_lengths
from vision.profile import INK_THRESHOLD, RANK_SHAPE, SUIT_SHAPE, DeckProfile

Image = npt.NDArray[np.uint8]

# The index region at the top-left of the upright canonical card, as fractions of its size.
INDEX_W = 0.25
INDEX_H = 0.36
# Loose scores that are enough to say "this is a face" (the card is face up) but not to name it.
FACE_RANK_SCORE = 0.45
FACE_SUIT_SCORE = 0.45
_RIM = np.ones((3, 3), np.uint8)
# The least suit score the blob under a rank must have for the corner to name that rank (alone; two corners
# reading the same rank are pooled, `_sure_rank`). On the real photographs' tuning split, of 591 corners
# naming their card's rank right (a profile calibrated from the whole split, and one from two thirds of
# it), the lowest suit score was 0.41; the corners naming a rank at -0.55 to -0.88 were an "A" on no card
# (twice) and an outline across a jack and a nine read "A" (in a three-fold check of the split):
# a rank-like shape over a blob anti-correlated with every suit is not an index.
SUIT_UNDER_RANK = 0.0
# The least height of a rank glyph, as a share of the length of the upright card it is read on (CARD_H), for a
# searching profile (`CornerReading.index_sized`). A card's index is printed at one size against the card; read
# on an outline much bigger than its card (the hull of two or three overlapping cards, or the card an outline
# would be the end of, `partial_card_quads`, 1.4 times the outline, when the outline is a whole card or several)
# or on a piece of a picture, the glyph is too small for the card it would name. Real photographs' tuning split,
# profile of the split: the corners naming their card's rank right had ranks 23-43 pixels of 280 (most 28-31), as
# taken and in the robustness bench's variants (`gamma`, `scale75`, `shade-x`, `jpeg45`); the variants' seven
# wrong names of that kind (outlines over two or three cards read as a card's end, an outline inside a king's
# picture, an outline over a queen and a ten) 14-19. The simulated camera's deck prints smaller indices: 21-23
# pixels on its fully visible cards, 16-17 on an outline 1.4 times the card.
MIN_RANK_HEIGHT = 0.07
# A corner read this well is not checked against the opposite corner ...
SURE = 0.85
# ... unless its suit beat the next by less than this: then the other corner's reading is taken too and
# must agree (pooled when it reads the same rank, `name_card`). Rendered own deck at 1280 x 720 with the
# built-in profile (seeds 1000-1059): a nine of spades read "9c" from its first corner alone, suit 0.89
# with a margin of 0.05, while its other corner read spades at 0.93 (margin 0.09).
SURE_SUIT_MARGIN = 0.1
# Below this card height in the frame (pixels), suits need SMALL_SUIT_MARGIN to be named.
SMALL_CARD_PX = 115.0
SMALL_SUIT_MARGIN = 0.15
_WIDEN_X = np.ones((1, 3), np.uint8)
_WIDEN_Y = np.ones((3, 1), np.uint8)
_GAP_Y = np.ones((5, 1), np.uint8)
SOFT_MASKS = False
# A corner with no index at the fixed ink threshold is cut again at this share of its strongest ink,
# when that is at least FAINT_MIN (below it there is no ink worth the name: blank paper, a back's tint).
FAINT_SHARE = 0.5
FAINT_MIN = 0.2
# ... and only when no ink in the corner is strong: a corner with strong ink that still shows no index
# is not faint but something else (a back's lattice, whose cut at a lower threshold can look like one).
FAINT_MAX = 0.75
# ... and only on light paper: a corner whose 85th percentile of lightness is dim is mostly a card back.
FAINT_PAPER = 150.0


@dataclass(frozen=True, kw_only=True)
class IndexGlyphs:
    """The blobs of one corner index, as white-on-black masks, and the colour of their ink."""

    rank: Image
    suit: Image
    red: bool | None  # None when the colour cannot be told (grey image, faint ink)


@dataclass(frozen=True, kw_only=True)
class CornerReading:
    rank: str
    rank_score: float
    rank_margin: float
    suit: str
    suit_score: float
    suit_margin: float
    rank_scores: dict[str, float] = field(default_factory=dict, repr=False)
    suit_scores: dict[str, float] = field(default_factory=dict, repr=False)
    # The rank glyph's height in the upright index corner (pixels of the CARD_W x CARD_H card; 0: not known,
    # as for two corners pooled): the glyph's size against the card's (`MIN_RANK_HEIGHT`).
    rank_height: int = 0

    @classmethod
    def from_scores(cls, rank_scores: dict[str, float], suit_scores: dict[str, float], *,
                    rank_height: int = 0) -> CornerReading | None:
        rank, r_score, r_margin = _best_two(rank_scores)
        suit, s_score, s_margin = _best_two(suit_scores)
        if not suit or not rank:
            return None
        return cls(rank=rank, rank_score=r_score, rank_margin=r_margin, suit=suit, suit_score=s_score,
                   suit_margin=s_margin, rank_scores=rank_scores, suit_scores=suit_scores, rank_height=rank_height)

    def is_face(self) -> bool:
        # A suit shape under a rank-like glyph is a face even when the deck's font is unknown.
        return self.suit_score >= FACE_SUIT_SCORE and self.rank_score >= FACE_RANK_SCORE - 0.35

    def rank_accepted(self, profile: DeckProfile) -> bool:
        # The blob under the rank must look at least a little like some suit (SUIT_UNDER_RANK), whatever
        # the deck: a rank-like shape over a blob unlike any suit is another print (see SUIT_UNDER_RANK).
        # A searching profile's low bar also needs the glyph a card index's size (`index_sized`).
        return (self.rank_score >= profile.min_rank_score and self.rank_margin >= profile.rank_margin
                and self.suit_score >= SUIT_UNDER_RANK and (not profile.search or self.index_sized()))

    def index_sized(self) -> bool:
        """Whether the rank glyph is as tall as a card's index is against the card it was read on
        (MIN_RANK_HEIGHT), or its height is not known (two corners pooled)."""
        return self.rank_height == 0 or self.rank_height >= MIN_RANK_HEIGHT * CARD_H

    def accepted(self, profile: DeckProfile, suit_margin: float | None = None) -> bool:
        return (self.rank_accepted(profile) and self.suit_score >= profile.min_suit_score
                and self.suit_margin >= (profile.min_margin if suit_margin is None else suit_margin))

    @property
    def confidence(self) -> float:
        return max(0.0, min(1.0, self.rank_score, self.suit_score))


@dataclass(frozen=True, kw_only=True)
class CardReading:
    card: str | None
    face_up: bool
    confidence: float
    # The rank alone, when it is sure but the suit is not (a club and a spade blur together sooner than
    # a "Q" and a "K"); equal to card[0] when the card is named, None when the rank is not sure either.
    rank: str | None = None


def index_corners(card: Image) -> list[Image]:
    """The top-left index region and the bottom-right one turned upright."""
    h, w = card.shape[:2]
    iw, ih = round(w * INDEX_W), round(h * INDEX_H)
    tl = card[:ih, :iw]
    br = cv2.rotate(card[h - ih:, w - iw:], cv2.ROTATE_180)
    return [np.ascontiguousarray(tl), np.ascontiguousarray(br)]


def extract_glyphs(corner: Image) -> IndexGlyphs | None:
    """Cut the corner's ink into a rank blob row and the suit blob below it; None if no such structure."""
    if corner.dtype != np.uint8 or (corner.ndim == 3 and corner.shape[2] < 3) or corner.ndim not in (2, 3):
        return _extract_glyphs_any(corner)
    low = _darkest(corner)
    # The cumulative histogram of grey levels gives any order statistic of the corner (its paper level, the
    # strongest ink) exactly, without sorting its pixels.
    below = np.bincount(low.ravel(), minlength=256).cumsum()
    paper = _order_level(below, int(0.85 * (low.size - 1)))
    if paper < 50:
        return None
    # The ink strength of a pixel depends only on its grey level: computed once per level (in float32,
    # as for the whole image) and looked up, it is the very same image for a fraction of the work.
    strength = (paper - _LEVELS) / paper
    ink = np.asarray(cv2.LUT(low, strength), np.float32)
    found = _cut_glyphs(corner, ink, INK_THRESHOLD)
    if found is None and paper >= FAINT_PAPER and _may_be_faint(below, strength):
        found = _faint_cut(corner, ink)
    return found


def _extract_glyphs_any(corner: Image) -> IndexGlyphs | None:
    """`extract_glyphs` for any other image type (not 8-bit grey or colour), the plain way."""
    low = (cv2.min(cv2.min(corner[:, :, 0], corner[:, :, 1]), corner[:, :, 2]) if corner.ndim == 3
           else corner).astype(np.float32)
    flat = low.ravel()
    k = int(0.85 * (flat.size - 1))
    paper = float(np.partition(flat, k)[k])
    if paper < 50:
        return None
    ink = (paper - low) / paper
    found = _cut_glyphs(corner, ink, INK_THRESHOLD)
    if found is None and paper >= FAINT_PAPER:
        found = _faint_cut(corner, ink)
    return found


def _faint_cut(corner: Image, ink: npt.NDArray[np.float32]) -> IndexGlyphs | None:
    """Faint ink (a washed-out red, a grey photo): the index may still be there, only lighter than the fixed
    threshold; cut again at a share of this corner's own strongest ink (on light paper only)."""
    strongest = float(np.percentile(ink, STRONGEST))
    faint = FAINT_SHARE * strongest
    if faint >= FAINT_MIN and strongest < FAINT_MAX:
        return _cut_glyphs(corner, ink, faint)
    return None


# The percentile of a corner's ink taken as its strongest ink.
STRONGEST = 99.5
_LEVELS = np.arange(256, dtype=np.float32)


def _darkest(corner: Image) -> Image:
    """Each pixel's darkest channel (of B, G, R), as a contiguous uint8 image."""
    if corner.ndim == 2:
        return np.ascontiguousarray(corner)
    # A (1 x 3) erosion of the rows read as one channel: the middle byte of each pixel sees exactly its
    # own B, G and R. One OpenCV call instead of two minimums over three strided channel copies.
    h, w = corner.shape[:2]
    rows = np.ascontiguousarray(corner[:, :, :3]).reshape(h, w * 3)
    return np.ascontiguousarray(np.asarray(cv2.erode(rows, _WIDEN_X), np.uint8)[:, 1::3])


def _order_level(below: npt.NDArray[np.intp], k: int) -> float:
    """The k-th smallest grey level (from 0) of an image, given its cumulative level histogram."""
    return float(np.searchsorted(below, k + 1))


def _may_be_faint(below: npt.NDArray[np.intp], strength: npt.NDArray[np.float32]) -> bool:
    """Whether the corner's strongest ink (the STRONGEST percentile of the ink image) may pass the faint-ink
    test; False only when it surely cannot, which spares the percentile (a sort) on most corners.

    The percentile lies between two neighbouring order statistics of the ink (bracketed here one wider on
    each side). Ink strength falls as the grey level rises, so the j-th weakest ink is that of the j-th
    lightest pixel, which the level histogram gives."""
    n = int(below[-1])
    at = STRONGEST / 100 * (n - 1)
    lo, hi = max(0, int(at) - 1), min(n - 1, int(at) + 2)
    bracket_low = float(strength[int(_order_level(below, n - 1 - lo))])
    bracket_high = float(strength[int(_order_level(below, n - 1 - hi))])
    return FAINT_SHARE * bracket_high >= FAINT_MIN and bracket_low < FAINT_MAX


# The glyphs of a rank ("10") start at one height; a blob beside the rank whose top lies lower (this share of
# the rank's height) is something else: the stub of a picture's frame whose corner the rule removal took
# (the jack of clubs of IMG_2584, tuning split: the frame's side beside the "J", 12 of 26 pixels lower,
# joined it and the pair read as a "10").
ROW_TOP = 0.3


def _cut_glyphs(corner: Image, ink: npt.NDArray[np.float32], threshold: float) -> IndexGlyphs | None:
    h, w = ink.shape
    binary = (ink > threshold).view(np.uint8)
    if np.count_nonzero(binary) / binary.size > 0.45:
        return None  # a patterned or dark corner: a back or something on top of the card
    binary = _without_rules(binary)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    min_area = max(6, int(0.004 * h * w))
    blobs: list[tuple[int, int, int, int, int, int]] = []  # x, y, w, h, area, label
    for i, (x, y, bw, bh, area) in enumerate(stats.tolist()):
        if i == 0 or area < min_area:
            continue  # the background, or a speck
        if x + bw >= w or y + bh >= h:
            continue  # runs out of the index region: a pip or the picture frame
        if (x == 0 or y == 0) and (bw > 0.6 * w or bh > 0.5 * h or (x == 0 and y == 0)):
            continue  # the card's edge or the table beyond a rounded corner
        if bh < 0.06 * h:
            continue
        blobs.append((x, y, bw, bh, area, i))
    if len(blobs) < 2:
        return None
    biggest = max(b[4] for b in blobs)
    blobs = [b for b in blobs if b[4] >= 0.12 * biggest]
    blobs.sort(key=lambda b: b[1])
    first = blobs[0]
    row = [first]
    for b in blobs[1:]:
        overlap = min(first[1] + first[3], b[1] + b[3]) - max(first[1], b[1])
        gap = b[0] - (first[0] + first[2]) if b[0] > first[0] else first[0] - (b[0] + b[2])
        if overlap >= 0.6 * min(first[3], b[3]) and gap <= 0.5 * first[3] and b[1] - first[1] <= ROW_TOP * first[3]:
            row.append(b)
    rx0 = min(b[0] for b in row)
    rx1 = max(b[0] + b[2] for b in row)
    ry0 = min(b[1] for b in row)
    ry1 = max(b[1] + b[3] for b in row)
    below = [b for b in blobs if b not in row and b[1] >= ry1 - 0.25 * (ry1 - ry0)
             and b[0] < rx1 + 0.3 * (rx1 - rx0) and b[0] + b[2] > rx0 - 0.3 * (rx1 - rx0)]
    if not below:
        return None
    suit = below[0]
    in_row = np.zeros(n, np.uint8)
    in_row[[b[5] for b in row]] = 1
    rank_sel = cv2.dilate(in_row[labels[ry0:ry1, rx0:rx1]], _RIM)
    sx, sy, sw, sh = suit[0], suit[1], suit[2], suit[3]
    suit_sel = cv2.dilate((labels[sy:sy + sh, sx:sx + sw] == suit[5]).view(np.uint8), _RIM)
    if SOFT_MASKS:
        # Soft masks (ink strength, limited to the blobs and their rims) keep the sub-pixel shape of small glyphs.
        soft = np.clip((ink - 0.2) / 0.4, 0.0, 1.0)
        rank_mask = (soft[ry0:ry1, rx0:rx1] * rank_sel * 255).astype(np.uint8)
        suit_mask = (soft[sy:sy + sh, sx:sx + sw] * suit_sel * 255).astype(np.uint8)
    else:
        # The binary cut (0 or 1) times the selection (0 or 1), as 0 or 255.
        rank_mask = binary[ry0:ry1, rx0:rx1] * rank_sel * np.uint8(255)
        suit_mask = binary[sy:sy + sh, sx:sx + sw] * suit_sel * np.uint8(255)
    red: bool | None = None
    if corner.ndim == 3:
        chosen = in_row
        chosen[suit[5]] = 1
        means = _ink_means(corner, np.asarray(labels, np.int32), chosen)
        if means is not None:
            b_, g_, r_ = means
            redness = r_ - max(g_, b_)
            darkest = min(b_, g_, r_)
            if redness > 35 and r_ > 1.35 * max(g_, b_):
                red = True
            elif redness < 12 or (darkest > 0.0 and r_ < 1.12 * max(g_, b_)):
                red = False
    return IndexGlyphs(rank=rank_mask, suit=suit_mask, red=red)


def _ink_means(corner: Image, labels: npt.NDArray[np.int32], chosen: Image
               ) -> tuple[np.float32, np.float32, np.float32] | None:
    """The mean B, G and R of the pixels whose label is `chosen` (a 0/1 table by label), None under 10 pixels.

    The values are those of `corner[sel].astype(np.float32)[:, c].mean()`: that float32 sum of at most
    a few thousand bytes is an exact integer, divided in float64 and rounded to float32. OpenCV's masked
    mean is the exact sum times 1/n; times n and rounded it gives that integer back."""
    if len(chosen) <= 256:
        # Few blobs (the usual case): labels fit in bytes and a table lookup selects them.
        table = np.zeros(256, np.uint8)
        table[:len(chosen)] = chosen
        sel = np.asarray(cv2.LUT(labels.astype(np.uint8), table), np.uint8)
    else:
        sel = chosen[labels]
    n = cv2.countNonZero(sel)
    if n < 10:
        return None
    means = cv2.mean(corner, mask=sel)
    b_, g_, r_ = (np.float32(round(m * n) / n) for m in means[:3])
    return b_, g_, r_


def _without_rules(binary: Image) -> Image:
    """Remove long straight lines (a picture card's frame, the card's edge) that may touch the index."""
    h, w = binary.shape
    # Each opening is an erosion then a dilation; most corners have no long line, and an empty erosion
    # makes an empty opening: the dilation (and, with no rule at all, the removal) is skipped.
    widened = np.asarray(cv2.dilate(binary, _WIDEN_X), np.uint8)
    vertical = _opened(widened, _line(1, max(3, round(0.45 * h))))
    # A frame line seen small breaks into dashes (aliasing, noise): with short gaps closed, a longer
    # straight run still counts (longer than a rank over its suit, which the closing may join).
    dashed = _opened(np.asarray(cv2.morphologyEx(widened, cv2.MORPH_CLOSE, _GAP_Y), np.uint8),
                     _line(1, max(3, round(0.62 * h))))
    horizontal = _opened(np.asarray(cv2.dilate(binary, _WIDEN_Y), np.uint8), _line(max(3, round(0.7 * w)), 1))
    found = [m for m in (vertical, dashed, horizontal) if m is not None]
    if not found:
        return binary
    lines = found[0]
    for m in found[1:]:
        lines = np.asarray(cv2.bitwise_or(lines, m), np.uint8)
    rules = np.asarray(cv2.dilate(lines, _RIM), dtype=np.uint8)
    return np.asarray(cv2.bitwise_and(binary, 1 - rules), dtype=np.uint8)


@lru_cache(maxsize=64)
def _line(width: int, height: int) -> Image:
    """A straight-line structuring element (made once per size: corners all have the same size)."""
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_RECT, (width, height)), np.uint8)


def _opened(image: Image, kernel: Image) -> Image | None:
    """`cv2.morphologyEx(image, cv2.MORPH_OPEN, kernel)`, or None when that is empty."""
    eroded = cv2.erode(image, kernel)
    if not cv2.countNonZero(eroded):
        return None
    return np.asarray(cv2.dilate(eroded, kernel), np.uint8)


def _best_two(scores: dict[str, float]) -> tuple[str, float, float]:
    if not scores:
        return "", -1.0, 0.0
    ordered = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    label, best = ordered[0]
    second = ordered[1][1] if len(ordered) > 1 else -1.0
    return label, best, best - second


def read_corner(corner: Image, profile: DeckProfile) -> CornerReading | None:
    if profile.recut:
        return _read_recut(corner, profile)
    glyphs = extract_glyphs(corner)
    return None if glyphs is None else _read_glyphs(glyphs, profile)


def _read_glyphs(glyphs: IndexGlyphs, profile: DeckProfile) -> CornerReading | None:
    allowed = None if glyphs.red is None else (RED_SUITS if glyphs.red else "cs")
    return CornerReading.from_scores(profile.ranks.scores(glyphs.rank, RANK_SHAPE),
                                     profile.suits.scores(glyphs.suit, SUIT_SHAPE, allowed),
                                     rank_height=int(glyphs.rank.shape[0]))


def _read_recut(corner: Image, profile: DeckProfile) -> CornerReading | None:
    """The best rank reading of the corner's cuts (`glyph_cuts`), stopping at the first one read surely.
    Which cut wins does not depend on the profile's thresholds, so a calibration can cross-validate them."""
    return _best_reading(_read_glyphs(glyphs, profile) for glyphs in glyph_cuts(corner))


def _best_reading(readings: Iterable[CornerReading | None]) -> CornerReading | None:
    """The reading of highest rank score, taking no more of the (lazy) readings once one is sure."""
    best: CornerReading | None = None
    for reading in readings:
        if reading is not None and (best is None or reading.rank_score > best.rank_score):
            best = reading
        if best is not None and best.rank_score >= SURE:
            break
    return best


# The further ink thresholds of `glyph_cuts`. In real photographs the rank is often fainter than the
# pips beside it (a washed-out red, a blurred grey): at the standard threshold the rank breaks up or
# vanishes and a piece of a pip is taken for it (on the tuning split of the real photographs, most found
# cards left unknown with a well-fitting outline looked like that). A washed-out pink rank beside a
# saturated pip is fainter still (ink 0.1-0.15 against the pip's 0.3: a webcam's over-exposed frames),
# hence the two lowest cuts; a cut at 0.05 read no further card on the tuning split.
RECUT_LEVELS = (0.3, 0.2, 0.12, 0.08)


def glyph_cuts(corner: Image) -> Iterator[IndexGlyphs]:
    """The corner's glyphs cut at the standard ink threshold, then at RECUT_LEVELS and at half its
    strongest ink (each only when it shows a rank-over-suit structure), one at a time."""
    first = extract_glyphs(corner)
    if first is not None:
        yield first
    if corner.dtype != np.uint8 or corner.ndim not in (2, 3) or (corner.ndim == 3 and corner.shape[2] < 3):
        return
    low = _darkest(corner)
    below = np.bincount(low.ravel(), minlength=256).cumsum()
    paper = _order_level(below, int(0.85 * (low.size - 1)))
    if paper < 50:
        return
    ink = np.asarray(cv2.LUT(low, (paper - _LEVELS) / paper), np.float32)
    half = FAINT_SHARE * float(np.percentile(ink, STRONGEST))
    levels = [*RECUT_LEVELS, half] if FAINT_MIN <= half < INK_THRESHOLD else list(RECUT_LEVELS)
    for level in levels:
        found = _cut_glyphs(corner, ink, level)
        if found is not None:
            yield found


def _combined(a: CornerReading, b: CornerReading) -> CornerReading | None:
    """Two views of the same index: average their scores label by label (labels both corners allow)."""
    ranks = {k: (v + b.rank_scores[k]) / 2 for k, v in a.rank_scores.items() if k in b.rank_scores}
    suits = {k: (v + b.suit_scores[k]) / 2 for k, v in a.suit_scores.items() if k in b.suit_scores}
    return CornerReading.from_scores(ranks, suits)


def warp_index_corners(image: Image, quad: npt.NDArray[np.float32]) -> list[Image]:
    """`index_corners(warp_card(image, quad))` without warping the rest of the card."""
    return list(iter_index_corners(image, quad))


def iter_index_corners(image: Image, quad: npt.NDArray[np.float32]) -> Iterator[Image]:
    """The two index corners, warped one at a time: a reader sure of the first never pays for the second."""
    m = _card_transform(quad)
    for which in (0, 1):
        yield _warp_index_corner(image, m, which)


def _card_transform(quad: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """The perspective transform from the image to the upright canonical card of the outline `quad`."""
    return np.asarray(cv2.getPerspectiveTransform(quad.astype(np.float32), canonical_corners(CARD_W, CARD_H)),
                      np.float64)


def _warp_index_corner(image: Image, m: npt.NDArray[np.float64], which: int) -> Image:
    """Index corner `which` (0: top-left; 1: bottom-right, turned upright) of the card that the transform
    `m` (`_card_transform`) sets upright."""
    iw, ih = round(CARD_W * INDEX_W), round(CARD_H * INDEX_H)
    if which:
        shift = np.array([[1, 0, -(CARD_W - iw)], [0, 1, -(CARD_H - ih)], [0, 0, 1]], np.float64)
        turn = np.array([[-1, 0, iw - 1], [0, -1, ih - 1], [0, 0, 1]], np.float64)
        m = turn @ shift @ m
    return np.asarray(cv2.warpPerspective(image, m, (iw, ih), flags=cv2.INTER_CUBIC,
                                          borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)


# The outlines whose index corners `corner_views` also reads, as (width, length) factors of the detected
# outline about its centre. On the real photographs a picture card is often found by its picture's frame
# (its white border merges with the table): that outline is about 0.75-0.9 of the card each way, so its
# corner region cuts the index in half or leaves it out; grown, the index is whole again. The shrunk one
# is for an outline a little larger than its card (a shadow, the table's edge along one side).
SEARCH_GROWS = ((1.15, 1.08), (1.3, 1.16), (0.9, 0.94))
# Outlines shorter than this (pixels, long side) are not searched: a card's rank is about 0.09 of its
# length on the real photographs' deck, so here about 5 pixels tall, under the smallest templates (9),
# and among many views of so few pixels some piece of print passes for a glyph (tuning split: an outline
# 20 x 28 pixels inside a king's picture read "9" at 0.74 from a grown view; the smallest outline there
# that fits a card is 79 pixels long).
SEARCH_MIN_PX = 60.0


def grown_quad(quad: npt.NDArray[np.float32], width: float, length: float) -> npt.NDArray[np.float32]:
    """`quad` (clockwise, first side short) scaled about its centre by `width` along its short sides
    and `length` along its long sides, corners in the same order."""
    q = quad.astype(np.float64)
    across = (q[1] - q[0] + q[2] - q[3]) / 2
    along = (q[3] - q[0] + q[2] - q[1]) / 2
    centre = q.mean(axis=0)
    a, b = across * width / 2, along * length / 2
    return np.array([centre - a - b, centre + a - b, centre + a + b, centre - a + b], np.float32)


def corner_views(image: Image, quad: npt.NDArray[np.float32], which: int) -> Iterator[Image]:
    """Index corner `which` of the outline, then the same corner of the outlines of SEARCH_GROWS, warped
    one at a time (`read_views` stops at the first sure reading)."""
    yield _warp_index_corner(image, _card_transform(quad), which)
    for width, length in SEARCH_GROWS:
        yield _warp_index_corner(image, _card_transform(grown_quad(quad, width, length)), which)


def read_views(views: Iterable[Image], profile: DeckProfile) -> CornerReading | None:
    """The best rank reading of several views of one index corner (`corner_views`), stopping at the first
    sure one. Which view wins does not depend on the profile's thresholds (as with `glyph_cuts`)."""
    return _best_reading(read_corner(view, profile) for view in views)


def read_outline(image: Image, quad: npt.NDArray[np.float32], profile: DeckProfile) -> Iterator[CornerReading | None]:
    """The readings of the outline's two index corners, one at a time, for `name_card`: searched over
    `corner_views` when the profile says so (`DeckProfile.search`), else from the outline's corners only."""
    if not profile.search or side_lengths(quad)[1] < SEARCH_MIN_PX:
        for corner in iter_index_corners(image, quad):
            yield read_corner(corner, profile)
        return
    for which in (0, 1):
        yield read_views(corner_views(image, quad, which), profile)


def read_card(card: Image, profile: DeckProfile) -> CardReading:
    """Name an upright canonical card image (CARD_W x CARD_H), or say it is unknown or face down."""
    if card.shape[0] != CARD_H or card.shape[1] != CARD_W:
        card = np.asarray(cv2.resize(card, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA), dtype=np.uint8)
    return read_corners(index_corners(card), profile)


def read_corners(corners: Iterable[Image], profile: DeckProfile, *, small: bool = False) -> CardReading:
    """Name a card from its two index corners (top-left, and bottom-right turned upright).

    `small`: the card is small in the frame (its suit glyphs only a few pixels tall), where a club and a
    spade blur into the same blob: the suit must then win by a wider margin."""
    return name_card((read_corner(corner, profile) for corner in corners), profile, small=small)


def name_card(corner_readings: Iterable[CornerReading | None], profile: DeckProfile, *,
              small: bool = False) -> CardReading:
    """`read_corners` from the corners' readings (None: no index structure), taken one at a time.

    The corner scores do not depend on the profile's thresholds: a calibration that tries several
    thresholds reads the corners once and decides here for each (the second corner is still skipped
    when the first is sure, as when reading a frame)."""
    suit_margin = SMALL_SUIT_MARGIN if small else None
    readings: list[CornerReading] = []
    for reading in corner_readings:
        if reading is not None:
            readings.append(reading)
            if reading.accepted(profile, suit_margin) and reading.confidence >= SURE \
                    and reading.suit_margin >= SURE_SUIT_MARGIN:
                break  # sure enough from one corner: the other would only agree
    # A rank read surely is a face too, whatever its suit scored (a deck whose suit shapes are not
    # learnt, a faint suit): a back's mesh never passes the rank test.
    faces = [r for r in readings if r.is_face() or r.rank_accepted(profile)]
    if not faces:
        return CardReading(card=None, face_up=False, confidence=0.0)
    rank = _sure_rank(faces, profile)
    if len(faces) == 2 and faces[0].rank == faces[1].rank:
        # Both corners show the same rank: pool their evidence (it is the suit that one view may miss).
        both = _combined(faces[0], faces[1])
        if both is not None and both.accepted(profile, suit_margin):
            return CardReading(card=both.rank + both.suit, face_up=True, confidence=round(both.confidence, 3),
                               rank=both.rank)
    accepted = _one_reading(faces, lambda r: r.accepted(profile, suit_margin), lambda r: r.confidence,
                            lambda r: r.rank + r.suit)
    names = {r.rank + r.suit for r in accepted}
    if len(names) != 1:
        # Nothing sure enough, or the two corners disagree: unknown, never a guess.
        best = max(faces, key=lambda r: r.confidence)
        return CardReading(card=None, face_up=True, confidence=round(best.confidence, 3), rank=rank)
    best = max(accepted, key=lambda r: r.confidence)
    return CardReading(card=best.rank + best.suit, face_up=True, confidence=round(best.confidence, 3), rank=best.rank)


def _one_reading(faces: list[CornerReading], sure: Callable[[CornerReading], bool],
                 strength: Callable[[CornerReading], float],
                 name: Callable[[CornerReading], str]) -> list[CornerReading]:
    """The corners read surely; when the two disagree, the clearly better one alone (by 0.15): the other
    is most likely covered by the card on top."""
    accepted = sorted((r for r in faces if sure(r)), key=strength, reverse=True)
    if len(accepted) == 2 and name(accepted[0]) != name(accepted[1]) \
            and strength(accepted[0]) - strength(accepted[1]) >= 0.15:
        accepted = accepted[:1]
    return accepted


def _sure_rank(faces: list[CornerReading], profile: DeckProfile) -> str | None:
    """The card's rank when the rank alone passes the reject rule (pooled over both corners when they
    agree), whatever the suit; None when unsure or when the corners disagree."""
    if len(faces) == 2 and faces[0].rank == faces[1].rank:
        both = _combined(faces[0], faces[1])
        # Two views agreeing are surer than either: a calibration may have measured a lower bar for them.
        if both is not None and both.rank_score >= profile.pair_rank_score and both.rank_margin >= profile.rank_margin:
            return both.rank
    accepted = _one_reading(faces, lambda r: r.rank_accepted(profile), lambda r: r.rank_score, lambda r: r.rank)
    ranks = {r.rank for r in accepted}
    return ranks.pop() if len(ranks) == 1 else None


# A card partly hidden (under a cable, a knife, another card) or cut by the photo's edge is often found
# as the visible end of it: an outline about as long as the card is wide, and shorter across than the
# card is long. Its corners then hold no index, or half of one, whatever the grown views of `corner_views`
# show (they keep the outline's proportions and its centre). Read as the end of a card, the outline's
# long side is the card's short side and the card runs on from one of the two long sides, CARD_ASPECT
# times as long; its index corner at that end is the outline's own corner, whole. On the real photographs'
# tuning split (profile of the whole split, outlines read unknown), these two cards read 7 more cards right
# and none wrong: a jack under a cable, an ace under a knife, a queen cut by the photo's top edge, the lower
# half of a jack split by a wire.
PARTIAL_LENGTH = CARD_ASPECT
# A rank read from a supposed card needs one corner this sure whatever the profile's rule: the card is a
# guess, and two false outlines there (a carpet patch, a crumpled tissue) read "Q" at 0.59 and "7" at 0.67
# as such cards, while the 7 right readings had a corner at 0.83-0.96.
PARTIAL_MIN_SCORE = 0.8


def partial_card_quads(quad: npt.NDArray[np.float32]) -> list[npt.NDArray[np.float32]]:
    """The two cards of which the outline `quad` (clockwise, first side short) may be the visible end: as
    wide as the outline is long, PARTIAL_LENGTH times that long, running on from either long side; each
    ordered as `order_quad` orders a card."""
    q = quad.astype(np.float64)
    across = (q[1] - q[0] + q[2] - q[3]) / 2
    norm = float(np.linalg.norm(across))
    if norm < 1e-6:
        return []
    length = across / norm * PARTIAL_LENGTH * side_lengths(quad)[1]
    return [order_quad(np.array(card, np.float32)) for card in
            ([q[0], q[0] + length, q[3] + length, q[3]], [q[1] - length, q[1], q[2], q[2] - length])]


def read_partials(image: Image, quad: npt.NDArray[np.float32], profile: DeckProfile
                  ) -> Iterator[tuple[CornerReading | None, CornerReading | None]]:
    """The readings of both index corners of each card of `partial_card_quads`, one card at a time; none
    unless the profile searches (`DeckProfile.search`) and the outline is long enough to be searched."""
    if not profile.search or side_lengths(quad)[1] < SEARCH_MIN_PX:
        return
    for card in partial_card_quads(quad):
        first, second = (read_corner(corner, profile) for corner in iter_index_corners(image, card))
        yield first, second


def name_partials(partials: Iterable[Sequence[CornerReading | None]], profile: DeckProfile, *,
                  small: bool = False) -> CardReading | None:
    """The reading of an outline from the cards it may be the end of (`read_partials`), for an outline
    whose own corners gave no rank: a rank only when the cards that read one surely (`name_card`, and a
    corner at PARTIAL_MIN_SCORE) all read the same; None otherwise (the caller keeps its own reading)."""
    found: list[CardReading] = []
    for readings in partials:
        reading = name_card(iter(readings), profile, small=small)
        if reading.rank is not None and any(r is not None and r.rank == reading.rank
                                            and r.rank_score >= PARTIAL_MIN_SCORE for r in readings):
            found.append(reading)
    if len({r.rank for r in found}) != 1:
        return None
    best = max(found, key=lambda r: r.confidence)
    card = best.card if len({r.card for r in found}) == 1 else None
    return CardReading(card=card, face_up=True, confidence=best.confidence, rank=best.rank)


# Two cards lying side by side, one partly on the other, are often found as one near-square outline (the
# recognizer never names it: either card's index may sit in its corners). Each card's outer index corner is
# one of its corners, though: read as the two cards a card's width apart from its two long sides, each card
# is read from its own index (real photographs' tuning split, profile of the whole split: 5 more cards
# right, none wrong, in 4 photographs; the one false name it made, a "4" at 0.64 on an outline centred in no
# labelled card, is refused by the same sure-corner rule as the card ends').
def side_by_side_cards(quad: npt.NDArray[np.float32]) -> list[list[npt.NDArray[np.float32]]]:
    """The two cards, CARD_ASPECT times as long as wide, that lie against two opposite sides of the outline
    `quad` (clockwise) as long as those sides are; for each of its two pairs of opposite sides (a near-square
    outline's first side is its short one by a hair: either pair may be the cards' length), when the outline
    is wider than one card that way."""
    out = []
    for turn in (0, 1):
        q = np.roll(quad.astype(np.float64), -turn, axis=0)
        across = (q[1] - q[0] + q[2] - q[3]) / 2
        along = (q[3] - q[0] + q[2] - q[1]) / 2
        width = float(np.linalg.norm(along)) / CARD_ASPECT
        span = float(np.linalg.norm(across))
        if span >= SIDE_BY_SIDE_MIN * width:
            step = across / span * width
            out.append([order_quad(np.array(card, np.float32)) for card in
                        ([q[0], q[0] + step, q[3] + step, q[3]], [q[1] - step, q[1], q[2], q[2] - step])])
    return out


# The outline must be this much wider than one card to hold two.
SIDE_BY_SIDE_MIN = 1.05


def name_guessed(readings: Sequence[CornerReading | None], profile: DeckProfile, *, small: bool = False) -> CardReading:
    """`name_card` for a card whose outline is a guess (`side_by_side_cards`): its rank also needs a corner
    reading it at PARTIAL_MIN_SCORE, else it is left unnamed."""
    reading = name_card(iter(readings), profile, small=small)
    if reading.rank is None or any(r is not None and r.rank == reading.rank and r.rank_score >= PARTIAL_MIN_SCORE
                                   for r in readings):
        return reading
    return CardReading(card=None, face_up=reading.face_up, confidence=reading.confidence)
