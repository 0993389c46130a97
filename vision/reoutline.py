"""A found card whose outline reads no rank, outlined again from the indices printed in and around it.

On the real photographs many cards are found with an outline that is not the card's: it runs over the
book beside it, takes in the pouch under it, is a small piece of the card, or sits inside it. Its index
corners then miss the index, although the index itself prints clearly. The index alone places the card:
its two glyphs (rank over pip) say which way the card is "up" and where its corner is, and the glyphs'
spacing gives the card's size (the rank-to-pip spacing is 0.106 of the card's length on the tuning
photographs' deck, 5th-95th percentile 0.089-0.123). So around an outline that reads no rank, the ink marks
are paired into index marks (`index_first.index_marks`, the detector's own), and each places a card:
with another index mark facing it as a card's second index would (`index_first.cards_from_marks`), or
alone at the length its spacing gives. Each such card is read as any outline is (`identify.read_outline`,
with the profile's search and recut), and named only under `identify.name_guessed`'s rule (a corner
reading the rank at 0.8 or more, as for the other guessed outlines), when every placed card that reads a
rank reads the same one (a card placed by two indices, both reading it, is taken before any placed by
one). The detection then reports the placed card as its outline. When no index mark places a card (an
index too blurred, or touching the table's texture), the outline may be the index end of its card, too
small for its own index region: it is read grown about each of its index corners (`anchored_cards`),
named only from the corner grown about. An outline still unnamed that is much longer for its width than a
card may be a court card's picture frame: the card around it is read (`vision.framed`). Whatever placed the
card, a corner naming it must be open paper around its ink (`on_paper`), as an index corner is and a card
back's lattice or the table is not.

Only for a profile that searches (calibrated from photographs) and only on frames found at full size
(photographs at most 1008 pixels wide): never on the live table's 1280 x 720 rendered frames, whose 30 ms
budget has no room for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.framed import choose_framed, framed_readings, may_be_frame
from vision.geometry import CARD_ASPECT, FloatArray, quad_area, quad_iou, side_lengths
from vision.identify import (
    PARTIAL_MIN_SCORE,
    SEARCH_MIN_PX,
    SMALL_CARD_PX,
    CardReading,
    CornerReading,
    corner_views,
    iter_index_corners,
    name_guessed,
    read_outline,
    read_views,
)
from vision.index_first import INDEX_ACROSS, INDEX_DOWN, cards_from_marks, index_marks
from vision.profile import DeckProfile

Image = npt.NDArray[np.uint8]

# The rank-to-pip spacing of an index as a share of the card's length (tuning photographs, median).
SPACING_SHARE = 0.106
# Index marks are looked for this many card lengths around the outline's bounding box.
MARGIN = 0.6
# A placed card stands for the outline when this share of the smaller of the two lies in the other.
MIN_OVERLAP = 0.5
# ... and is not a card already read when it shares at most this much with it (IoU), nor this share of the
# smaller of the two. Cards of a pile overlap: a nine of hearts lying over a third of a queen read already
# (IMG_2624) shares 0.3 of its area with the queen's outline but is another card.
MAX_OTHER_IOU = 0.4
MAX_OTHER_SHARE = 0.8
# Two placed cards whose corners all lie this close (share of the card length) are one.
SAME_CARD = 0.08
# Placed cards read at most (the nearest the outline first): the reading is the cost.
MAX_PLACED = 6
# An outline that is a piece of its card: its card may be this much longer (glyphs looked for at that size).
PIECE_GROWTH = 1.5
# An outline that is a piece of its card at the card's index end (the rest under a rug, or split off by the
# picture's frame) holds the index at one of its corners, too small for its own index region: it is read
# grown about that corner by these factors (tuning split: a king under a rug found as the square of its
# index end, read "K" at 0.92 grown twice; of the 61 outlines there that read no rank, no other was named
# grown 1.3 to 3 times).
ANCHOR_GROWTH = (1.5, 2.0)
# An index corner is mostly open paper (`paper_share`): on the tuning photographs, 169 index corners read at
# 0.8 or more (outlines fitting their card, a third of the photographs) have 38% or more of it (1st
# percentile 42%, median 61%); the cards this module names there 52-77%. A card placed or grown off a card back lying
# on the table has its "index" corner on the back's rim, its lattice and the table: the simulated camera's
# backs, read with a searching built-in profile, gave "4" and "6" at 0.81-0.87 from 7 such corners, with
# 7-25% open paper. (Counting light pixels alone, without the neighbourhood, the backs' corners had 51-60%
# and the photographs' 54% or more: no gap. Tinted paper cannot be told by its colour: in a warm-lit photo
# a white card's paper is as orange as a red back's lattice is pink.)
PAPER_LEVEL = 0.75
_PAPER_SPAN = np.ones((4, 4), np.uint8)
MIN_PAPER_SHARE = 0.33


@dataclass(frozen=True, kw_only=True)
class Reoutlined:
    """A card placed from its indices, and its reading."""

    quad: FloatArray
    reading: CardReading


def overlap_share(a: FloatArray, b: FloatArray) -> float:
    """The area two convex quads share, as a share of the smaller one's area."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    small = min(quad_area(a), quad_area(b))
    return float(inter) / small if small > 0 else 0.0


def one_index_cards(middles: npt.NDArray[np.float64], ups: npt.NDArray[np.float64],
                    lengths: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """The card each index mark places on its own, as an (N, 4, 2) array: its index corner where the mark
    says, CARD_ASPECT times as long as wide, `lengths` long (one per mark), ordered as `order_quad` orders a
    card (clockwise from an index corner, a short side first, the top-most of the two index corners first;
    made for all at once, as `index_first.cards_from_marks` makes its cards)."""
    rights = np.stack([-ups[:, 1], ups[:, 0]], axis=1)
    length = np.asarray(lengths, np.float64)[:, None]
    width = length / CARD_ASPECT
    corner = middles - INDEX_ACROSS * width * rights + INDEX_DOWN * length * ups
    cards = np.stack([corner, corner + width * rights, corner + width * rights - length * ups, corner - length * ups],
                     axis=1).astype(np.float32)
    turn = cards[:, 2, 1] + cards[:, 2, 0] * 0.01 < cards[:, 0, 1] + cards[:, 0, 0] * 0.01
    cards[turn] = np.roll(cards[turn], 2, axis=1)
    return cards


def placed_cards(image: Image, quad: FloatArray, lengths: Sequence[float], exclude: Image
                 ) -> list[tuple[bool, FloatArray]]:
    """The cards that the index marks around the outline `quad` place, as (placed by two indices, card):
    overlapping the outline, centred in the frame, nearest the outline's centre first, near duplicates
    dropped. `lengths`: the card lengths to look for glyphs of; `exclude`: pixels whose ink is no index
    mark (other cards read)."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise VisionInputError(f"cards are placed in an 8-bit BGR frame, not {image.dtype} {image.shape}")
    if quad.shape != (4, 2) or not np.isfinite(quad).all():
        raise VisionInputError(f"a card outline is 4 finite points, not {quad.shape}")
    if exclude.shape != image.shape[:2]:
        raise VisionInputError(f"the excluded area is {exclude.shape}, the frame {image.shape[:2]}")
    h, w = image.shape[:2]
    centre = quad.mean(axis=0)
    reach = 0.5 * side_lengths(quad)[1]
    found: list[tuple[bool, FloatArray]] = []
    for length in lengths:
        pad = MARGIN * length
        x0, y0 = (max(0, int(v - pad)) for v in quad.min(axis=0))
        x1, y1 = int(min(w, quad[:, 0].max() + pad + 1)), int(min(h, quad[:, 1].max() + pad + 1))
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        middles, ups, spacings = index_marks(np.ascontiguousarray(image[y0:y1, x0:x1]), length,
                                             np.ascontiguousarray(exclude[y0:y1, x0:x1]))
        if not len(middles):
            continue
        shift = np.array([x0, y0], np.float32)
        pairs = cards_from_marks(middles, ups, spacings, length)
        for two, cards in ((True, np.array(pairs, np.float32).reshape(-1, 4, 2) + shift),
                           (False, one_index_cards(middles, ups, spacings / SPACING_SHARE) + shift)):
            # Cheap first, for all at once: a card sharing half its area (or half the outline's) with the
            # outline has its centre within half its length plus half the outline's of the outline's
            # centre. A card centred off the frame (cut by its edge) is left as it was found: its index
            # corners would be read from the frame's replicated border, and its centre would be a point no
            # one can see.
            centres = cards.mean(axis=1)
            longs = np.linalg.norm(cards[:, 3] - cards[:, 0], axis=1)
            near = ((np.linalg.norm(centres - centre, axis=1) <= reach + 0.5 * longs)
                    & (centres[:, 0] >= 0) & (centres[:, 0] < w) & (centres[:, 1] >= 0) & (centres[:, 1] < h))
            found += [(two, card) for card in cards[near] if overlap_share(card, quad) >= MIN_OVERLAP]
    found.sort(key=lambda item: (not item[0], float(np.linalg.norm(item[1].mean(axis=0) - centre))))
    kept: list[tuple[bool, FloatArray]] = []
    for two, card in found:
        near = SAME_CARD * side_lengths(card)[1]
        if not any(float(np.abs(card - other).max()) <= near for _, other in kept):
            kept.append((two, card))
            if len(kept) == MAX_PLACED:
                break
    return kept


def paper_share(corner: Image) -> float:
    """The share of an index corner (as `identify.iter_index_corners` warps it) that is open paper: pixels
    whose PAPER_SPAN x PAPER_SPAN neighbourhood is all at least PAPER_LEVEL of the corner's paper level (its
    85th percentile of the darkest channel, as `identify.extract_glyphs` takes it). A card's paper is open
    around its index; the light lines of a back's lattice are thin, and the table beyond a card's rim
    is not light."""
    # The darkest channel, by OpenCV: numpy's reduction over the last axis costs 10 times more.
    low = corner if corner.ndim == 2 else np.asarray(
        cv2.min(cv2.min(corner[:, :, 0], corner[:, :, 1]), corner[:, :, 2]))
    paper = float(np.percentile(low, 85))
    light = (low >= PAPER_LEVEL * paper).astype(np.uint8)
    return float(cv2.countNonZero(cv2.erode(light, _PAPER_SPAN))) / max(1, light.size)


def open_paper(image: Image, card: FloatArray, readings: Sequence[CornerReading | None]) -> tuple[bool, ...]:
    """For each index corner of the placed card `card` (its readings, as `read_outline` gives them): whether
    it reads a rank at PARTIAL_MIN_SCORE and is mostly open paper (MIN_PAPER_SHARE), as an index corner is.
    Whatever the profile's thresholds (a calibration decides from it for many); a corner read under
    PARTIAL_MIN_SCORE is not even looked at."""
    return tuple(reading is not None and reading.rank_score >= PARTIAL_MIN_SCORE
                 and paper_share(corner) >= MIN_PAPER_SHARE
                 for corner, reading in zip(iter_index_corners(image, card), readings, strict=True))


def on_paper(image: Image, card: FloatArray, readings: Sequence[CornerReading | None], rank: str) -> bool:
    """Whether an index corner of the placed card `card` that reads `rank` at PARTIAL_MIN_SCORE (its
    readings, as `read_outline` gives them) is mostly paper (MIN_PAPER_SHARE), as an index corner is. One
    such corner is enough: in a pile, the next card may cover much of the other."""
    return _on_paper(readings, open_paper(image, card, readings), rank)


def _on_paper(readings: Sequence[CornerReading | None], paper: Sequence[bool], rank: str) -> bool:
    return any(ok and reading is not None and reading.rank == rank for reading, ok in zip(readings, paper, strict=True))


def anchored_cards(quad: FloatArray) -> list[tuple[int, FloatArray]]:
    """The outline `quad` (ordered as `order_quad` orders a card) grown about each of its two index corners
    by ANCHOR_GROWTH, as (which index corner stays put: 0 or 1, card)."""
    out = []
    for which, corner in ((0, quad[0]), (1, quad[2])):
        for growth in ANCHOR_GROWTH:
            out.append((which, np.ascontiguousarray((corner + (quad - corner) * growth).astype(np.float32))))
    return out


@dataclass(frozen=True, kw_only=True)
class Placed:
    """A card placed from the index marks around an outline, and what its corners read (`read_outline`):
    all that the decision (`choose_placed`) needs, none of it depending on the profile's thresholds."""

    two: bool  # placed by two indices facing each other
    quad: FloatArray
    readings: tuple[CornerReading | None, ...]
    paper: tuple[bool, ...]  # `open_paper`


@dataclass(frozen=True, kw_only=True)
class Grown:
    """The outline grown about one of its index corners (`anchored_cards`) whose corner grown about reads a
    rank at PARTIAL_MIN_SCORE with a suit under it, and what its corners read (top-left first)."""

    quad: FloatArray
    anchor: CornerReading
    readings: tuple[CornerReading | None, ...]
    paper: tuple[bool, ...]  # `open_paper`


def may_reoutline(quad: FloatArray) -> bool:
    """Whether the outline `quad` is long enough to be outlined again: the card it may be a piece of
    (PIECE_GROWTH times as long) is long enough to be searched (`identify.SEARCH_MIN_PX`). The bar is the
    card's, not the piece's: a piece of a card small in the frame (a court card outlined by its picture's
    frame) is shorter than the card whose index it holds (tuning split at 0.75 of the size, `IMG_2543`'s king:
    its picture outlined 49 pixels long, under the bar of 60, was never outlined again; as photographed the
    same piece is 66 long and gives the king). The outline of the tuning split that the bar was set by (28
    long, inside a king's picture) stays under it."""
    return PIECE_GROWTH * side_lengths(quad)[1] >= SEARCH_MIN_PX


def reoutline(image: Image, quad: FloatArray, profile: DeckProfile, *, others: Sequence[FloatArray],
              card_length: float | None = None, grow: bool = True) -> Reoutlined | None:
    """The card placed from the indices around the outline `quad` that names a rank surely, or None.

    `others`: the outlines of the frame's cards already read (their indices place nothing here, and a
    placed card that is largely one of them is skipped); `card_length`: the frame's card length when it
    is known (the median of the cards read), looked for besides the outline's own length and half as
    long again (an outline that is a piece of its card). `grow`: when no index mark places a card, the
    outline is also read grown about each index corner (`anchored_cards`), and, when it may be a court
    card's picture frame, grown about its centre to the card around it (`vision.framed`)."""
    if not profile.search or not may_reoutline(quad):
        return None
    named, found = choose_placed(placed_readings(image, quad, profile, others=others, card_length=card_length),
                                 profile)
    if named or not grow:
        return found
    grown = choose_grown(grown_readings(image, quad, profile, others), profile)
    if grown is not None or not may_be_frame(quad):
        return grown
    # A court card outlined by its picture's frame (`vision.framed`): the card around it.
    framed = choose_framed(framed_readings(image, quad, profile, others, max_other_iou=MAX_OTHER_IOU,
                                           is_paper=lambda corner: paper_share(corner) >= MIN_PAPER_SHARE),
                           profile)
    return None if framed is None else Reoutlined(quad=framed[0], reading=framed[1])


def placed_readings(image: Image, quad: FloatArray, profile: DeckProfile, *, others: Sequence[FloatArray],
                    card_length: float | None = None) -> Iterator[Placed]:
    """The cards the index marks around the outline `quad` place (`placed_cards`; see `reoutline` for
    `others` and `card_length`) that are not largely a card read already, read one at a time: those
    placed by two indices first, nearest the outline first."""
    own = side_lengths(quad)[1]
    lengths = [own, PIECE_GROWTH * own]
    if card_length is not None and all(abs(card_length - n) > 0.15 * n for n in lengths):
        lengths.append(card_length)
    exclude = np.zeros(image.shape[:2], np.uint8)
    for other in others:
        cv2.fillConvexPoly(exclude, np.round(other).astype(np.int32), 1)
    for two, card in placed_cards(image, quad, lengths, exclude):
        if any(quad_iou(card, other) > MAX_OTHER_IOU or overlap_share(card, other) > MAX_OTHER_SHARE
               for other in others):
            continue
        readings = tuple(read_outline(image, card, profile))
        yield Placed(two=two, quad=card, readings=readings, paper=open_paper(image, card, readings))


def choose_placed(placed: Iterable[Placed], profile: DeckProfile) -> tuple[bool, Reoutlined | None]:
    """(whether any placed card names a rank, the card chosen) from the placed cards (`placed_readings`),
    under `profile`'s thresholds: a card names a rank under `name_guessed`'s rule from a corner on open
    paper; one placed by two indices needs both to read it. Cards placed by two indices are taken before
    any placed by one, and all those named at that tier must agree (else None)."""
    by_two: list[Reoutlined] = []
    by_one: list[Reoutlined] = []
    for card in placed:
        if by_two and not card.two:
            break  # a card placed by two indices is taken first anyway (below): the rest need not be read
        reading = name_guessed(card.readings, profile, small=side_lengths(card.quad)[1] < SMALL_CARD_PX)
        if reading.rank is None or not _on_paper(card.readings, card.paper, reading.rank):
            continue
        if card.two:
            # Placed by both its indices: both must be read, as that rank (two cards' indices facing
            # each other as one card's would place a card across the two).
            if all(r is not None and r.rank == reading.rank for r in card.readings):
                by_two.append(Reoutlined(quad=card.quad, reading=reading))
        else:
            by_one.append(Reoutlined(quad=card.quad, reading=reading))
    # Two indices agreeing place a card more surely than one: a card placed by one index may be another
    # card the outline also holds (a card lying partly under it).
    for read in (by_two, by_one):
        if read:
            if len({r.reading.rank for r in read}) != 1:
                return True, None
            return True, max(read, key=lambda r: r.reading.confidence)
    return False, None


def read_grown(image: Image, quad: FloatArray, profile: DeckProfile, others: Sequence[FloatArray]) -> Reoutlined | None:
    """The outline grown about one of its index corners (`anchored_cards`) that reads a rank surely from
    that corner, when all that read one agree; None otherwise (`grown_readings`, `choose_grown`)."""
    return choose_grown(grown_readings(image, quad, profile, others), profile)


def grown_readings(image: Image, quad: FloatArray, profile: DeckProfile, others: Sequence[FloatArray]
                   ) -> Iterator[Grown]:
    """The outline grown about one of its index corners (`anchored_cards`), centred in the frame and not
    largely a card read already, whose corner grown about reads a rank at PARTIAL_MIN_SCORE with a suit
    under it (`CornerReading.is_face`), read one at a time. The corner grown about must be that sure: the
    far corner of a grown outline lies beyond the outline, where another card's index may be; and it must
    show a suit: grown, an outline's corner may take in the table beyond the card (on the simulated
    camera's frames, the corner of a line painted on the table beside a card back read "4" at 0.84, with a
    suit score of 0.19)."""
    h, w = image.shape[:2]
    for which, card in anchored_cards(quad):
        if not (0 <= card[:, 0].mean() < w and 0 <= card[:, 1].mean() < h) or any(
                quad_iou(card, other) > MAX_OTHER_IOU or overlap_share(card, other) > MAX_OTHER_SHARE
                for other in others):
            continue
        # The corner grown about first (as `read_outline` reads it), the other only when that one is sure.
        anchor = read_views(corner_views(image, card, which), profile)
        if anchor is None or anchor.rank_score < PARTIAL_MIN_SCORE or not anchor.is_face():
            continue
        other = read_views(corner_views(image, card, 1 - which), profile)
        readings = (anchor, other) if which == 0 else (other, anchor)
        yield Grown(quad=card, anchor=anchor, readings=readings, paper=open_paper(image, card, readings))


def choose_grown(grown: Iterable[Grown], profile: DeckProfile) -> Reoutlined | None:
    """The grown outline (`grown_readings`) named under `profile`'s thresholds (`name_guessed`) as its
    anchor corner reads, from a corner on open paper, when all those named agree; None otherwise."""
    read: list[Reoutlined] = []
    for card in grown:
        reading = name_guessed(card.readings, profile, small=side_lengths(card.quad)[1] < SMALL_CARD_PX)
        if reading.rank == card.anchor.rank and _on_paper(card.readings, card.paper, reading.rank):
            read.append(Reoutlined(quad=card.quad, reading=reading))
    if len({r.reading.rank for r in read}) != 1:
        return None
    return max(read, key=lambda r: r.reading.confidence)
