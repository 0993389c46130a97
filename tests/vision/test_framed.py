"""A court card outlined by its picture's frame is read as the card around it (`vision.framed`), through the
re-outlining (`reoutline.reoutline`), with a searching profile only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_reoutline import SEARCHING, _corner_error, _photo_cases
from vision import framed as framed_module
from vision import reoutline as reoutline_module
from vision.framed import (
    FRAME_LENGTHS,
    FRAME_WIDTHS,
    GROWN_ASPECT,
    MIN_FRAME_ASPECT,
    Framed,
    choose_framed,
    framed_cards,
    framed_readings,
    may_be_frame,
)
from vision.geometry import side_lengths
from vision.identify import CardReading, CornerReading
from vision.profile import default_profile
from vision.reoutline import MAX_OTHER_IOU, MIN_PAPER_SHARE, paper_share, reoutline

Quad = npt.NDArray[np.float32]
# A court card's frame on the photographs' deck: about 0.77 of the card across and 0.93 along.
ACROSS, ALONG = 1 / 1.3, 1 / 1.08


def _frame_of(card: Quad, across: float = ACROSS, along: float = ALONG) -> Quad:
    """The card's outline shrunk about its centre: `across` of its width, `along` of its length."""
    centre = card.mean(axis=0)
    u = (card[1] - card[0] + card[2] - card[3]) / 2
    v = (card[3] - card[0] + card[2] - card[1]) / 2
    u_n, v_n = u / np.linalg.norm(u), v / np.linalg.norm(v)
    rel = card - centre
    coords = np.linalg.solve(np.column_stack([u_n, v_n]), rel.T).T
    return np.asarray(centre + np.outer(coords[:, 0] * across, u_n) + np.outer(coords[:, 1] * along, v_n),
                      np.float32)


def _read_framed(image: npt.NDArray[np.uint8], frame: Quad, others: Sequence[Quad] = ()
                 ) -> tuple[Quad, CardReading] | None:
    return choose_framed(framed_readings(image, frame, SEARCHING, others, max_other_iou=MAX_OTHER_IOU,
                                         is_paper=lambda corner: paper_share(corner) >= MIN_PAPER_SHARE),
                         SEARCHING)


def _upright(width: float, length: float) -> Quad:
    return np.array([[100, 100], [100 + width, 100], [100 + width, 100 + length], [100, 100 + length]], np.float32)


def _reading(rank: str, score: float = 0.9) -> CornerReading:
    return CornerReading(rank=rank, rank_score=score, rank_margin=0.3, suit="s", suit_score=0.9, suit_margin=0.3,
                         rank_height=40)


def test_only_an_outline_longer_for_its_width_than_a_card_may_be_a_frame() -> None:
    assert MIN_FRAME_ASPECT == 1.5
    # (width, length, may be a frame): a whole card at 1.4 never; a jack's frame at 1.56 and 2.07 (tuning split).
    for width, length, frame in ((100, 140, False), (100, 149, False), (100, 150, True), (81, 168, True),
                                 (116, 181, True)):
        assert may_be_frame(_upright(width, length)) == frame, (width, length)


def test_the_cards_around_a_frame_are_it_grown_about_its_centre() -> None:
    frame = _upright(80, 160)
    cards = framed_cards(frame)
    # Every growth of a card's proportions, narrowest first: 1.2 x 1.05 gives 96 x 168 (1.75: none).
    expected = [(w, n) for w in FRAME_WIDTHS for n in FRAME_LENGTHS
                if GROWN_ASPECT[0] <= 160 * n / (80 * w) <= GROWN_ASPECT[1]]
    assert len(cards) == len(expected) > 0
    for card, (w, n) in zip(cards, expected, strict=True):
        assert np.allclose(card.mean(axis=0), frame.mean(axis=0), atol=1e-3)
        assert np.allclose(side_lengths(card), (80 * w, 160 * n), atol=1e-3)
    # Turned and seen at a slant, the growth follows the outline's own sides.
    turned = _frame_of(np.array([[300, 100], [420, 160], [330, 330], [210, 270]], np.float32), 1.0, 1.0)
    for card in framed_cards(turned):
        assert np.allclose(card.mean(axis=0), turned.mean(axis=0), atol=1e-2)
    # A degenerate outline (all four corners on a line) gives no card.
    assert framed_cards(np.array([[0, 0], [10, 0], [20, 0], [30, 0]], np.float32)) == []


def test_a_court_card_outlined_by_its_frame_is_read_as_the_card() -> None:
    cases = [(image, card, rank) for image, card, rank in _photo_cases(range(40, 52)) if rank in "JQK"]
    assert len(cases) >= 5
    named = 0
    for image, card, rank in cases:
        frame = _frame_of(card)
        assert may_be_frame(frame)
        found = _read_framed(image, frame)
        if found is None:
            continue
        assert found[1].rank == rank
        assert _corner_error(found[0], card) < 0.12 * side_lengths(card)[1]
        named += 1
    assert named >= 0.8 * len(cases), (named, len(cases))


def test_the_re_outlining_reads_a_frame_when_no_index_places_its_card(monkeypatch: pytest.MonkeyPatch) -> None:
    # An index too faint to pair into index marks (`cam_image43`'s jack) places nothing, nor does growing the
    # outline about its index corners: then the card around the frame is read.
    monkeypatch.setattr(reoutline_module, "placed_readings", lambda *a, **k: iter(()))
    monkeypatch.setattr(reoutline_module, "grown_readings", lambda *a, **k: iter(()))
    image, card, rank = next(c for c in _photo_cases(range(40, 52)) if c[2] in "JQK")
    found = reoutline(image, _frame_of(card), SEARCHING, others=[])
    assert found is not None and found.reading.rank == rank
    assert _corner_error(found.quad, card) < 0.12 * side_lengths(card)[1]
    # Without the framed reading, nothing.
    monkeypatch.setattr(framed_module, "FRAME_WIDTHS", ())
    assert reoutline(image, _frame_of(card), SEARCHING, others=[]) is None
    # Nor is an outline of a whole card's proportions grown (it is no frame).
    monkeypatch.undo()
    monkeypatch.setattr(reoutline_module, "placed_readings", lambda *a, **k: iter(()))
    monkeypatch.setattr(reoutline_module, "grown_readings", lambda *a, **k: iter(()))
    assert reoutline(image, _frame_of(card, 0.8, 0.8), SEARCHING, others=[]) is None


def test_a_frame_inside_a_card_read_already_is_not_read_again() -> None:
    image, card, _ = next(c for c in _photo_cases(range(40, 52)) if c[2] in "JQK")
    assert _read_framed(image, _frame_of(card), others=[card]) is None


def test_the_built_in_profile_never_grows_a_frame() -> None:
    image, card, _ = next(c for c in _photo_cases(range(40, 52)) if c[2] in "JQK")
    assert reoutline(image, _frame_of(card), default_profile(), others=[]) is None


def test_both_corners_must_read_one_rank_on_open_paper() -> None:
    quad = _upright(100, 140)
    profile = replace(SEARCHING, min_rank_score=0.5)
    agree = Framed(quad=quad, readings=(_reading("J"), _reading("J")), paper=(True, True))
    chosen = choose_framed([agree], profile)
    assert chosen is not None and chosen[1].rank == "J"
    for refused in (
        Framed(quad=quad, readings=(_reading("J"), _reading("Q")), paper=(True, True)),  # two ranks
        Framed(quad=quad, readings=(_reading("J"), None), paper=(True, True)),  # one corner unread
        Framed(quad=quad, readings=(_reading("J"), _reading("J")), paper=(True, False)),  # a corner not paper
        Framed(quad=quad, readings=(_reading("J"), _reading("J", 0.4)), paper=(True, True)),  # under the bar
    ):
        assert choose_framed([refused], profile) is None
    # Two growths naming two ranks: neither.
    other = Framed(quad=quad, readings=(_reading("K"), _reading("K")), paper=(True, True))
    assert choose_framed([agree, other], profile) is None
    assert choose_framed([], profile) is None
