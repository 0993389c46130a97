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
rank reads the same one. The detection then reports the placed card as its outline.

Only for a profile that searches (calibrated from photographs) and only on frames found at full size
(photographs at most 1008 pixels wide): never on the live table's 1280 x 720 rendered frames, whose 30 ms
budget has no room for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.geometry import CARD_ASPECT, FloatArray, order_quad, quad_area, quad_iou, side_lengths
from vision.identify import SEARCH_MIN_PX, SMALL_CARD_PX, CardReading, name_guessed, read_outline
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
# An outline that is a piece of its card: its card may be this much longer (glyphs looked for at that size).
PIECE_GROWTH = 1.5
# Placed cards read at most (the nearest the outline first): the reading is the cost.
MAX_PLACED = 12


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
                    lengths: npt.NDArray[np.float64]) -> list[FloatArray]:
    """The card each index mark places on its own: its index corner where the mark says, CARD_ASPECT times
    as long as wide, `lengths` long (one per mark), ordered as `order_quad` orders a card."""
    out = []
    for middle, up, length in zip(middles, ups, lengths, strict=True):
        right = np.array([-up[1], up[0]])
        width = length / CARD_ASPECT
        corner = middle - INDEX_ACROSS * width * right + INDEX_DOWN * length * up
        card = np.array([corner, corner + width * right, corner + width * right - length * up, corner - length * up])
        out.append(order_quad(card.astype(np.float32)))
    return out


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
        found += [(True, order_quad(card + shift)) for card in cards_from_marks(middles, ups, spacings, length)]
        found += [(False, card + shift) for card in one_index_cards(middles, ups, spacings / SPACING_SHARE)]
    centre = quad.mean(axis=0)
    # A card centred off the frame (cut by its edge) is left as it was found: its index corners would be
    # read from the frame's replicated border, and its centre would be a point no one can see.
    found = [(two, card) for two, card in found if overlap_share(card, quad) >= MIN_OVERLAP
             and 0 <= card[:, 0].mean() < w and 0 <= card[:, 1].mean() < h]
    found.sort(key=lambda item: (not item[0], float(np.linalg.norm(item[1].mean(axis=0) - centre))))
    kept: list[tuple[bool, FloatArray]] = []
    for two, card in found:
        near = SAME_CARD * side_lengths(card)[1]
        if not any(float(np.abs(card - other).max()) <= near for _, other in kept):
            kept.append((two, card))
    return kept[:MAX_PLACED]


def reoutline(image: Image, quad: FloatArray, profile: DeckProfile, *, others: Sequence[FloatArray],
              card_length: float | None = None) -> Reoutlined | None:
    """The card placed from the indices around the outline `quad` that names a rank surely, or None.

    `others`: the outlines of the frame's cards already read (their indices place nothing here, and a
    placed card that is largely one of them is skipped); `card_length`: the frame's card length when it
    is known (the median of the cards read), looked for besides the outline's own length and half as
    long again (an outline that is a piece of its card)."""
    if not profile.search or side_lengths(quad)[1] < SEARCH_MIN_PX:
        return None
    own = side_lengths(quad)[1]
    lengths = [own, PIECE_GROWTH * own]
    if card_length is not None and all(abs(card_length - n) > 0.15 * n for n in lengths):
        lengths.append(card_length)
    exclude = np.zeros(image.shape[:2], np.uint8)
    for other in others:
        cv2.fillConvexPoly(exclude, np.round(other).astype(np.int32), 1)
    by_two: list[Reoutlined] = []
    by_one: list[Reoutlined] = []
    for two, card in placed_cards(image, quad, lengths, exclude):
        if any(quad_iou(card, other) > MAX_OTHER_IOU or overlap_share(card, other) > MAX_OTHER_SHARE
               for other in others):
            continue
        readings = list(read_outline(image, card, profile))
        reading = name_guessed(readings, profile, small=side_lengths(card)[1] < SMALL_CARD_PX)
        if reading.rank is None:
            continue
        if two:
            # Placed by both its indices: both must be read, as that rank (two cards' indices facing
            # each other as one card's would place a card across the two).
            if all(r is not None and r.rank == reading.rank for r in readings):
                by_two.append(Reoutlined(quad=card, reading=reading))
        else:
            by_one.append(Reoutlined(quad=card, reading=reading))
    # Two indices agreeing place a card more surely than one: a card placed by one index may be another
    # card the outline also holds (a card lying partly under it).
    for read in (by_two, by_one):
        if read:
            if len({r.reading.rank for r in read}) != 1:
                return None
            return max(read, key=lambda r: r.reading.confidence)
    return None
