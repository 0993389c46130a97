"""A court card outlined by its picture's frame, read as the card around it.

A jack, queen or king has its picture inside a printed frame: a dark rectangle on the card's paper, narrower
than the card by the index columns on either side and a little shorter. In a photograph that frame can be the
strongest closed edge the detector finds (the card's own rim faint against a light table, or in shade), and
the card is then outlined by its frame. That outline's index corners lie inside the picture, off the index, so
it reads no rank; and where the index is faint or its glyphs touch the frame, no index mark places the card
either (`vision.reoutline`). The card around the frame is then the frame grown about its centre, wider by an
index column on each side and a little longer at each end. It is read at a few such growths (FRAME_WIDTHS,
FRAME_LENGTHS), and named only when both its index corners read one rank, each on open paper, the rank
accepted under the profile's own bars at both: two corners agreeing on a guessed outline, as a card placed by
its two indices must (`reoutline.choose_placed`).

Which outlines: unnamed face-up ones much longer for their width than a card is (MIN_FRAME_ASPECT): a court
card's frame is about 1.55-2.1 times as long as wide where the card is 1.4 (real photographs' tuning split:
`cam_image47`'s jack of clubs in its shaded variant, 1.56; `cam_image43`'s faint jack, 2.07). A whole card's
outline left unnamed (1.3-1.5) is never grown.

Only for a searching profile, on frames found at full size, as the rest of the re-outlining (`reoutline`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.geometry import FloatArray, quad_iou, side_lengths
from vision.identify import SMALL_CARD_PX, CardReading, CornerReading, iter_index_corners, name_card, read_outline
from vision.profile import DeckProfile

Image = npt.NDArray[np.uint8]

# The card over its frame, across and along (the frame grown about its centre by each pair).
FRAME_WIDTHS = (1.2, 1.3, 1.4, 1.5)
FRAME_LENGTHS = (1.05, 1.1)
# An outline at least this much longer than wide may be a court card's frame (a card is 1.4 times).
MIN_FRAME_ASPECT = 1.5
# The card grown from it must have a card's proportions (perspective and stretched photographs included).
GROWN_ASPECT = (1.2, 1.65)


@dataclass(frozen=True, kw_only=True)
class Framed:
    """A card grown about a frame's outline (`framed_cards`) and what its two index corners read."""

    quad: FloatArray
    readings: tuple[CornerReading | None, ...]
    paper: tuple[bool, ...]  # each corner mostly open paper (`reoutline.paper_share`)


def may_be_frame(quad: FloatArray) -> bool:
    """Whether the outline `quad` is long enough for its width to be a court card's picture frame."""
    short, long_ = side_lengths(quad)
    return long_ >= MIN_FRAME_ASPECT * short


def framed_cards(quad: FloatArray) -> list[FloatArray]:
    """The cards around the frame outline `quad` (ordered as `order_quad` orders a card: first edge a short
    side): grown about its centre by FRAME_WIDTHS across and FRAME_LENGTHS along, those of a card's
    proportions (GROWN_ASPECT), in that order (narrowest first)."""
    q = quad.astype(np.float64)
    centre = q.mean(axis=0)
    across = q[1] - q[0] + q[2] - q[3]
    along = q[3] - q[0] + q[2] - q[1]
    across /= max(float(np.linalg.norm(across)), 1e-9)
    along /= max(float(np.linalg.norm(along)), 1e-9)
    # Each corner as (across, along) coordinates about the centre (the axes need not be at right angles).
    try:
        coords = np.linalg.solve(np.column_stack([across, along]), (q - centre).T).T
    except np.linalg.LinAlgError:
        return []  # a degenerate outline (its sides parallel): no card around it
    out = []
    for width in FRAME_WIDTHS:
        for length in FRAME_LENGTHS:
            grown = centre + np.outer(coords[:, 0] * width, across) + np.outer(coords[:, 1] * length, along)
            card = np.ascontiguousarray(grown.astype(np.float32))
            short, long_ = side_lengths(card)
            if GROWN_ASPECT[0] * short <= long_ <= GROWN_ASPECT[1] * short:
                out.append(card)
    return out


def framed_readings(image: Image, quad: FloatArray, profile: DeckProfile, others: Sequence[FloatArray],
                    *, max_other_iou: float, is_paper: Callable[[Image], bool]) -> Iterator[Framed]:
    """The cards around the frame outline `quad` (`framed_cards`), centred in the frame and not largely a card
    read already (`others`, IoU over `max_other_iou`), read one at a time; `is_paper`: whether an index corner
    (as `identify.iter_index_corners` warps it) is open paper (`reoutline`'s test)."""
    h, w = image.shape[:2]
    for card in framed_cards(quad):
        if not (0 <= card[:, 0].mean() < w and 0 <= card[:, 1].mean() < h) or any(
                quad_iou(card, other) > max_other_iou for other in others):
            continue
        readings = tuple(read_outline(image, card, profile))
        if any(r is None for r in readings):
            continue
        corners = tuple(is_paper(corner) for corner in iter_index_corners(image, card))
        yield Framed(quad=card, readings=readings, paper=corners)


def choose_framed(framed: Sequence[Framed] | Iterator[Framed], profile: DeckProfile
                  ) -> tuple[FloatArray, CardReading] | None:
    """The grown card (`framed_readings`) both of whose corners read one rank accepted under `profile`'s bars,
    each on open paper, named as `name_card` names it; the surest, when all so named agree; else None."""
    named: list[tuple[FloatArray, CardReading]] = []
    for card in framed:
        first, second = card.readings
        if first is None or second is None or first.rank != second.rank or not all(card.paper):
            continue
        if not (first.rank_accepted(profile) and second.rank_accepted(profile)):
            continue
        reading = name_card(iter(card.readings), profile, small=side_lengths(card.quad)[1] < SMALL_CARD_PX)
        if reading.rank == first.rank:
            named.append((card.quad, reading))
    if len({reading.rank for _, reading in named}) != 1:
        return None
    return max(named, key=lambda n: n[1].confidence)
