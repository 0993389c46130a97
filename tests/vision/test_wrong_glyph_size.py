"""A searching profile names a rank only from a glyph as tall as a card's index is against the card it is read
on (`identify.MIN_RANK_HEIGHT`): an outline much bigger than its card (two overlapping cards' hull, or the
card an outline would be the end of when the outline is a whole card) shows the index too small."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from vision import identify
from vision.geometry import CARD_H, order_quad
from vision.identify import CornerReading, name_card, name_partials, read_outline, read_partials
from vision.profile import default_profile

# A photographs' profile: a low rank bar, a wide rank margin, the corners searched.
LOW_BAR = replace(default_profile(), recut=True, search=True, min_rank_score=0.52, min_rank_margin=0.24)


def _reading(height: int) -> CornerReading:
    reading = CornerReading.from_scores({"Q": 0.9, "9": 0.3}, {"h": 0.9, "d": 0.2}, rank_height=height)
    assert reading is not None
    return reading


def test_a_small_glyph_passes_no_searching_profile() -> None:
    tall = round(identify.MIN_RANK_HEIGHT * CARD_H) + 1
    assert _reading(tall).rank_accepted(LOW_BAR)
    assert not _reading(tall - 3).rank_accepted(LOW_BAR)
    # Its height unknown (two corners pooled): not held against it.
    assert _reading(0).rank_accepted(LOW_BAR)
    # The built-in profile (one view, its own high bar) is not changed.
    assert _reading(tall - 3).rank_accepted(default_profile())


def _grown_from_index(quad: npt.NDArray[np.float32], factor: float) -> npt.NDArray[np.float32]:
    """`quad` grown `factor` times about its first corner (an index corner), as the hull of the card and one
    lying beside it."""
    q = quad.astype(np.float64)
    return np.asarray(q[0] + (q - q[0]) * factor, np.float32)


@pytest.fixture(scope="module")
def drawn() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32], str]:
    frame = render_with_truth(random_scene(41, cards=6, face_down=0.0), 41, RenderOptions(width=960, height=540))
    card = next(t for t in frame.truth if t.visible >= 0.999)
    return frame.image, np.array(card.corners, np.float32), card.card[0]


def test_an_outline_much_bigger_than_its_card_is_not_named(
        drawn: tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32], str], monkeypatch: pytest.MonkeyPatch) -> None:
    image, quad, rank = drawn
    assert name_card(read_outline(image, quad, LOW_BAR), LOW_BAR).rank == rank
    big = _grown_from_index(quad, 1.5)
    assert name_card(read_outline(image, big, LOW_BAR), LOW_BAR).rank is None
    # Without the rule the index corner names it, from a glyph two thirds of an index's size.
    monkeypatch.setattr(identify, "MIN_RANK_HEIGHT", 0.0)
    assert name_card(read_outline(image, big, LOW_BAR), LOW_BAR).rank == rank


def test_an_outline_is_not_read_as_the_end_of_a_card_too_big_for_its_index(
        drawn: tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32], str], monkeypatch: pytest.MonkeyPatch) -> None:
    image, quad, rank = drawn
    # The index end (half its length) of a card 1.5 times the drawn one, about the drawn card's index corner:
    # read as a card's end (`partial_card_quads`), it is that big card, whose index would be the drawn one's.
    big = _grown_from_index(quad, 1.5).astype(np.float64)
    end = order_quad(np.asarray([big[0], big[1], (big[1] + big[2]) / 2, (big[0] + big[3]) / 2], np.float32))
    assert name_partials(read_partials(image, end, LOW_BAR), LOW_BAR) is None
    monkeypatch.setattr(identify, "MIN_RANK_HEIGHT", 0.0)
    partial = name_partials(read_partials(image, end, LOW_BAR), LOW_BAR)
    assert partial is not None and partial.rank == rank
