"""A near-square outline, two cards side by side taken for one, is never named itself; with a searching
profile it is read as the two cards that lie against two of its opposite sides (`identify.side_by_side_cards`),
each from its own outer index."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, render_with_truth
from hardware_sim.camera.scene import PlacedCard, TableScene
from tests.vision.conftest import finds
from vision import pipeline
from vision.geometry import CARD_ASPECT, order_quad, side_lengths
from vision.identify import PARTIAL_MIN_SCORE, CornerReading, name_guessed, side_by_side_cards
from vision.labelled import _card_outcomes, _Outline, _PhotoCards
from vision.pipeline import Recognizer, may_be_named
from vision.profile import default_profile

SEARCHING = replace(default_profile(), recut=True, search=True)


def test_the_two_cards_side_by_side_of_an_outline() -> None:
    # 145 wide, 200 tall: two cards as long as it is tall would be 143 wide each, too wide to lie side by
    # side; two as long as it is wide (104 wide) lie against its top and bottom sides.
    quad = order_quad(np.array([[100, 100], [245, 100], [245, 300], [100, 300]], np.float32))
    (pair,) = side_by_side_cards(quad)
    width = 145 / CARD_ASPECT
    for card in pair:
        assert side_lengths(card) == pytest.approx((width, 145.0), abs=1e-3)
        assert np.array_equal(card, order_quad(card))
    spans = sorted((float(c[:, 1].min()), float(c[:, 1].max())) for c in pair)
    assert spans == [pytest.approx((100, 100 + width)), pytest.approx((300 - width, 300))]
    # A square one may be two cards either way.
    assert len(side_by_side_cards(order_quad(np.array([[0, 0], [200, 0], [200, 200], [0, 200]], np.float32)))) == 2


def _side_by_side(seed: int) -> tuple[np.ndarray, np.ndarray, set[str]]:
    """A frame of two cards, the second lying on the first 28 mm to its side, and the near-square outline
    around both (what the detector gives when it takes them for one)."""
    deck = [r + s for r in "9TJQKA" for s in "cdhs"]
    first, second = deck[(2 * seed) % 24], deck[(2 * seed + 7) % 24]
    angle = (0, 10, -15, 20, -5, 30, -25, 5, 15, -10)[seed]
    step = np.array([np.cos(np.radians(angle)), -np.sin(np.radians(angle))]) * 28
    scene = TableScene(cards=(PlacedCard(card=first, x=350, y=220, angle=angle),
                              PlacedCard(card=second, x=350 + step[0], y=220 + step[1], angle=angle)))
    frame = render_with_truth(scene, seed, RenderOptions())
    corners = np.vstack([np.array(t.corners, np.float32) for t in frame.truth])
    hull = cv2.approxPolyDP(cv2.convexHull(corners), 3, True).reshape(-1, 2)
    assert len(hull) == 4
    return frame.image, order_quad(hull), {first[0], second[0]}


def test_a_near_square_outline_is_read_as_the_two_cards_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    both = wrong = 0
    for seed in range(10):
        image, quad, ranks = _side_by_side(seed)
        assert not may_be_named(quad)
        monkeypatch.setattr(pipeline, "find_cards", finds(image, quad))
        (plain,) = Recognizer().identify(image)
        assert plain.rank is None and plain.card is None
        read = {d.rank for d in Recognizer(SEARCHING).identify(image)} - {None}
        both += read == ranks
        wrong += bool(read - ranks)
    # Measured: both cards of all 10 read, none wrong.
    assert both >= 9 and wrong == 0


def _reading(rank: str, score: float) -> CornerReading:
    reading = CornerReading.from_scores({rank: score, "9": 0.1}, {"s": 0.9, "c": 0.1})
    assert reading is not None
    return reading


def test_a_guessed_card_is_named_only_from_a_sure_corner() -> None:
    profile = replace(SEARCHING, min_rank_score=0.58, min_rank_margin=0.24)
    assert name_guessed([_reading("Q", PARTIAL_MIN_SCORE + 0.05), None], profile).rank == "Q"
    unsure = name_guessed([_reading("Q", PARTIAL_MIN_SCORE - 0.1), None], profile)
    assert unsure.rank is None and unsure.card is None and unsure.face_up


def test_the_calibration_scores_side_by_side_cards_as_the_recognizer_reads_them() -> None:
    """A near-square outline over two labelled cards, and its two pairs of cards: one pair's cards over
    each labelled card, the other pair's cards over neither."""
    blank = np.zeros((4, 4, 3), np.uint8)

    def outline(boxes: tuple[int, ...], half_of: tuple[int, int] | None, named: bool = True) -> _Outline:
        return _Outline(corners=((blank,), (blank,)), small=False, named=named, boxes=boxes, half_of=half_of)

    photo = _PhotoCards(photo="p.jpg", ranks=("Q", "J"),
                        outlines=(outline((0, 1), None, named=False), outline((0,), (0, 0)), outline((1,), (0, 0)),
                                  outline((), (0, 1)), outline((), (0, 1))))
    profile = replace(SEARCHING, min_rank_score=0.58, min_rank_margin=0.24)
    sure = PARTIAL_MIN_SCORE + 0.05
    nothing: list[CornerReading | None] = [None, None]
    # One pair reads the queen: the pair stands for the outline (the jack's card is found, unknown).
    readings = [nothing, [_reading("Q", sure), None], nothing, nothing, nothing]
    assert _card_outcomes([(photo, readings)], profile) == (2, 1, 0)
    # Both pairs read a rank: which way the cards lie is not known, and the outline stays unnamed.
    readings = [nothing, [_reading("Q", sure), None], nothing, [_reading("K", sure), None], nothing]
    assert _card_outcomes([(photo, readings)], profile) == (2, 0, 0)
    # No card of either pair reads a rank: the outline stays, unnamed.
    assert _card_outcomes([(photo, [nothing] * 5)], profile) == (2, 0, 0)
