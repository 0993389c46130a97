"""A corner names a rank only when the blob under it looks at least a little like a suit
(`identify.SUIT_UNDER_RANK`): a rank-like shape over a blob unlike every suit is some other print."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.glyphs import draw_rank, draw_suit
from vision.identify import SUIT_UNDER_RANK, CornerReading, name_card, name_partials, read_corner
from vision.profile import default_profile

PHOTO_RULE = replace(default_profile(), min_rank_score=0.58, min_rank_margin=0.24, min_pair_score=0.58,
                     recut=True, search=True)


def _reading(rank: str, score: float, suit_score: float) -> CornerReading:
    reading = CornerReading.from_scores({rank: score, "9": 0.1}, {"s": suit_score, "c": suit_score - 0.3})
    assert reading is not None
    return reading


def test_a_rank_over_a_blob_unlike_any_suit_names_nothing() -> None:
    # Measured on the real photographs: the corners naming an "A" on no card had suit scores of -0.55 to
    # -0.88; the right ones 0.41 or more.
    assert name_card(iter([_reading("A", 0.68, -0.55), None]), PHOTO_RULE).rank is None
    assert name_card(iter([_reading("A", 0.68, 0.41), None]), PHOTO_RULE).rank == "A"
    just = SUIT_UNDER_RANK
    assert name_card(iter([_reading("A", 0.68, just), None]), PHOTO_RULE).rank == "A"
    assert name_card(iter([_reading("A", 0.68, just - 0.01), None]), PHOTO_RULE).rank is None
    # Nor the card end it may be: the same corner rule holds there.
    assert name_partials([(_reading("A", 0.9, -0.7), None), (None, None)], PHOTO_RULE) is None
    # Two corners agreeing are pooled first: the rank is named from their pooled scores.
    assert name_card(iter([_reading("Q", 0.7, -0.2), _reading("Q", 0.7, 0.6)]), PHOTO_RULE).rank == "Q"


def _corner(suit: bool) -> np.ndarray:
    """A white index corner (50 x 101, as `identify.index_corners` cuts it) with a drawn "A" and, under it, a
    spade or a solid bar."""
    corner = np.full((101, 50, 3), 255, np.uint8)
    draw_rank(corner, "A", 20, 8, 28, color=(0, 0, 0))
    if suit:
        draw_suit(corner, "s", (20, 56), 18, (0, 0, 0))
    else:
        corner[50:60, 8:36] = 0  # a bar: no suit is like it
    return corner


def test_a_drawn_index_reads_and_a_rank_over_a_bar_does_not() -> None:
    with_suit = read_corner(_corner(True), PHOTO_RULE)
    assert with_suit is not None and with_suit.rank == "A" and with_suit.rank_accepted(PHOTO_RULE)
    over_bar = read_corner(_corner(False), PHOTO_RULE)
    assert over_bar is not None and over_bar.rank == "A" and over_bar.rank_score >= 0.58
    assert over_bar.suit_score < SUIT_UNDER_RANK and not over_bar.rank_accepted(PHOTO_RULE)
