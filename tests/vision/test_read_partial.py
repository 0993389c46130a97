"""An outline that is only the visible end of its card (the rest under a cable, a knife, another card, or
beyond the photo's edge) is read as that end (`identify.partial_card_quads`, `read_partials`,
`name_partials`) when its own corners give no rank, with a searching profile only."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from tests.vision.conftest import finds
from vision import pipeline
from vision.geometry import order_quad, side_lengths
from vision.identify import (
    PARTIAL_LENGTH,
    PARTIAL_MIN_SCORE,
    CornerReading,
    name_card,
    name_partials,
    partial_card_quads,
    read_outline,
    read_partials,
)
from vision.labelled import _card_outcomes, _Outline, _PhotoCards
from vision.pipeline import Recognizer
from vision.profile import default_profile

SEARCHING = replace(default_profile(), recut=True, search=True)


def test_the_cards_an_outline_may_be_the_end_of() -> None:
    # An outline 100 wide and 70 tall: first side short (the left one, downwards), clockwise from (100, 170).
    quad = order_quad(np.array([[100, 100], [200, 100], [200, 170], [100, 170]], np.float32))
    assert side_lengths(quad) == pytest.approx((70.0, 100.0))
    cards = partial_card_quads(quad)
    assert len(cards) == 2
    for card in cards:
        assert side_lengths(card) == pytest.approx((100.0, 100.0 * PARTIAL_LENGTH), abs=1e-3)
        assert np.array_equal(card, order_quad(card))
    # One runs on downwards from the top side, the other upwards from the bottom side.
    spans = sorted((float(c[:, 1].min()), float(c[:, 1].max())) for c in cards)
    assert spans == [pytest.approx((170 - 140, 170)), pytest.approx((100, 100 + 140))]
    assert all(float(c[:, 0].min()) == pytest.approx(100) and float(c[:, 0].max()) == pytest.approx(200)
               for c in cards)


def _end_outlines(seeds: range, share: float = 0.55) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """(frame, the outline of one end of a fully visible card, `share` of its length, rank): what the
    detector gives for a card whose other end is hidden."""
    out = []
    for seed in seeds:
        frame = render_with_truth(random_scene(seed, cards=6, face_down=0.0), seed, RenderOptions())
        for truth in frame.truth:
            if truth.visible < 0.999:
                continue
            q = np.array(truth.corners, np.float64)
            top = [q[0], q[1], q[1] + share * (q[2] - q[1]), q[0] + share * (q[3] - q[0])]
            bottom = [q[3] + share * (q[0] - q[3]), q[2] + share * (q[1] - q[2]), q[2], q[3]]
            for end in (top, bottom):
                out.append((frame.image, order_quad(np.array(end, np.float32)), truth.card[0]))
    return out


def test_the_end_of_a_card_reads_its_index_as_the_card_it_may_be_the_end_of() -> None:
    own_right = own_named = right = wrong = 0
    cases = _end_outlines(range(40, 43))
    for image, quad, rank in cases:
        own = name_card(read_outline(image, quad, SEARCHING), SEARCHING).rank
        own_right += own == rank
        own_named += own is not None
        partial = name_partials(read_partials(image, quad, SEARCHING), SEARCHING)
        right += partial is not None and partial.rank == rank
        wrong += partial is not None and partial.rank != rank
    # Measured: the outline's own (searched) corners read none of the 36; as card ends, all 36 (72 of 72 on
    # seeds 40-45).
    assert len(cases) == 36 and own_named == 0 and right >= 33 and wrong == 0


def test_the_recognizer_reads_card_ends_with_a_searching_profile_only(monkeypatch: pytest.MonkeyPatch) -> None:
    image, quad, rank = _end_outlines(range(41, 42))[0]
    monkeypatch.setattr(pipeline, "find_cards", finds(image, quad))
    (plain,) = Recognizer().identify(image)
    (searched,) = Recognizer(SEARCHING).identify(image)
    assert plain.rank is None and searched.rank == rank and searched.face == "up"
    assert list(read_partials(image, quad, default_profile())) == []
    # An outline too small to be searched is not read as a card's end either.
    assert list(read_partials(image, (quad * 0.3).astype(np.float32), SEARCHING)) == []


def _reading(rank: str, score: float, other: str = "9", other_score: float = 0.1) -> CornerReading:
    reading = CornerReading.from_scores({rank: score, other: other_score}, {"s": 0.9, "c": 0.1})
    assert reading is not None
    return reading


def test_a_card_end_is_named_only_from_a_sure_corner_and_when_the_two_cards_agree() -> None:
    profile = replace(SEARCHING, min_rank_score=0.58, min_rank_margin=0.24)
    sure, unsure = PARTIAL_MIN_SCORE + 0.05, PARTIAL_MIN_SCORE - 0.1
    named = name_partials([(None, None), (_reading("J", sure), None)], profile)
    assert named is not None and named.rank == "J" and named.face_up
    # Passing the profile's rule is not enough: the card is a guess, so one corner must be sure.
    assert name_partials([(_reading("Q", unsure), None), (None, None)], profile) is None
    # Two corners of one card agreeing, one of them sure.
    pair = name_partials([(_reading("A", 0.6), _reading("A", sure)), (None, None)], profile)
    assert pair is not None and pair.rank == "A"
    # The two cards read different ranks: unknown, never a guess.
    assert name_partials([(_reading("J", sure), None), (_reading("Q", sure), None)], profile) is None
    assert name_partials([], profile) is None


def test_the_calibration_scores_card_ends_as_the_recognizer_reads_them() -> None:
    """Readings of an outline: its two corners, then two by two those of the cards it may be the end of."""
    blank = np.zeros((4, 4, 3), np.uint8)
    outline = _Outline(corners=((blank,), (blank,)), small=False, named=True, boxes=(0,),
                       partials=((blank, blank), (blank, blank)))
    photo = _PhotoCards(photo="p.jpg", ranks=("J",), outlines=(outline,))
    profile = replace(SEARCHING, min_rank_score=0.58, min_rank_margin=0.24)
    sure = PARTIAL_MIN_SCORE + 0.05
    assert _card_outcomes([(photo, [[None, None, None, None, _reading("J", sure), None]])], profile) == (1, 1, 0)
    assert _card_outcomes([(photo, [[None, None, None, None, _reading("K", sure), None]])], profile) == (1, 0, 1)
    assert _card_outcomes([(photo, [[None, None, _reading("J", sure), None, _reading("K", sure), None]])],
                          profile) == (1, 0, 0)
    # The outline's own corners come first: a rank from them is not overruled by a card end's.
    assert _card_outcomes([(photo, [[_reading("J", 0.9), None, _reading("K", sure), None, None, None]])],
                          profile) == (1, 1, 0)
