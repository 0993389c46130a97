"""Cards found from one of their corners (`vision.corner_search`): a pile's top card, whose paper is one blob
with the cards under it and which no other search closes."""

from __future__ import annotations

import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from hardware_sim.camera.art import ART_H, ART_W, PAPER, draw_back
from tests.vision.test_detect_four_edges import _joined_court, _scene
from vision import corner_search, detect
from vision.errors import VisionInputError
from vision.geometry import FloatArray, order_quad, quad_iou
from vision.outline import edge_distance, whiteness

PILE_SEED = 1209  # eight cards in one pile; the king of clubs lies whole on top
PILE_CARD = "Kc"


def _pile() -> tuple[np.ndarray, FloatArray]:
    frame = render_with_truth(random_scene(PILE_SEED, cards=8, face_down=0.2, overlap=True), PILE_SEED,
                              RenderOptions(width=960, height=540))
    top = next(t for t in frame.truth if t.card == PILE_CARD)
    assert top.face_up and top.visible >= 0.999
    return frame.image, order_quad(np.array(top.corners, np.float32))


def _rows(*segments: tuple[float, float, float, float]) -> np.ndarray:
    return np.array(segments, np.float64).reshape(-1, 4)


@pytest.mark.parametrize(("pieces", "expected"), [
    # Two pieces of one side, 6 px apart end to end: one segment over both, on the longer piece's line.
    ([(0, 0, 40, 0), (46, 1, 100, 1)], [(0, 1, 100, 1)]),
    # Overlapping and drawn the other way round (LSD gives either direction).
    ([(0, 0, 60, 0), (90, 0, 40, 0)], [(0, 0, 90, 0)]),
    # Too far apart end to end: two sides.
    ([(0, 0, 40, 0), (60, 0, 100, 0)], [(0, 0, 40, 0), (60, 0, 100, 0)]),
    # Side by side, 5 px apart across: two lines.
    ([(0, 0, 100, 0), (0, 5, 100, 5)], [(0, 0, 100, 0), (0, 5, 100, 5)]),
    # Crossing at a right angle: not joined.
    ([(0, 0, 100, 0), (50, -30, 50, 30)], [(0, 0, 100, 0), (50, -30, 50, 30)]),
])
def test_collinear_pieces_are_joined(pieces: list[tuple[float, float, float, float]],
                                     expected: list[tuple[float, float, float, float]]) -> None:
    got = corner_search.joined(_rows(*pieces))
    assert sorted(map(tuple, np.round(got, 3).tolist())) == sorted(map(tuple, np.array(expected, float).tolist()))


def test_two_square_sides_meeting_span_a_card() -> None:
    # A rounded corner: both sides stop 4 px short of where their lines meet, at (10, 20).
    quads = corner_search.corner_quads(_rows((14, 20, 80, 20), (10, 24, 10, 115)), 20.0)
    assert len(quads) == 1
    np.testing.assert_allclose(quads[0], [[10, 20], [80, 20], [80, 115], [10, 115]], atol=1e-6)


@pytest.mark.parametrize(("rows", "why"), [
    (_rows((14, 20, 80, 20), (10, 24, 10, 85)), "70 by 65: too square for a card"),
    (_rows((14, 20, 80, 20), (10, 24, 10, 190)), "70 by 170: too long for a card"),
    (_rows((14, 20, 80, 20), (10, 45, 10, 135)), "the second side starts 25 px from the corner"),
    (_rows((14, 20, 80, 20), (14, 24, 60, 115)), "meeting at 63 degrees"),
    (_rows((14, 20, 80, 20), (10, 24, 10, 40)), "the second side is shorter than a card's least side"),
])
def test_no_card_is_spanned(rows: np.ndarray, why: str) -> None:
    assert corner_search.corner_quads(rows, 20.0) == [], why


def test_a_side_is_fitted_to_the_edge_along_it() -> None:
    frame, truth = _scene(_joined_court())
    gray = frame.min(axis=2)
    rows = corner_search.joined(corner_search.segments(gray, 8.0))
    # The truth with one long side 9 px inside the card: the fit moves it back onto the card's edge.
    short = truth[1] - truth[0]
    off = truth.astype(np.float64).copy()
    off[1] -= short / np.linalg.norm(short) * 9
    off[2] -= short / np.linalg.norm(short) * 9
    assert quad_iou(order_quad(off.astype(np.float32)), truth) < 0.93
    fit = corner_search.fitted(off, rows, whiteness(frame), edge_distance(np.asarray(gray, np.uint8)))
    assert fit is not None and quad_iou(fit, truth) >= 0.97


def test_a_card_alone_is_found_from_a_corner() -> None:
    frame, truth = _scene(_joined_court())
    found = corner_search.corner_cards(frame, [])
    assert len(found) == 1 and quad_iou(found[0], truth) >= 0.9
    assert corner_search.corner_cards(frame, [truth]) == []  # already found: not again
    # An outline found around it more than twice a card's size (a pile's blob) is no card, and hides none.
    centre = truth.mean(axis=0)
    pile = (centre + (truth - centre) * 1.5).astype(np.float32)
    found = corner_search.corner_cards(frame, [pile])
    assert len(found) == 1 and quad_iou(found[0], truth) >= 0.9
    snug = (centre + (truth - centre) * 1.4).astype(np.float32)  # 1.96 times its area: a card, perhaps
    assert corner_search.corner_cards(frame, [snug]) == []


@pytest.mark.parametrize("art", [draw_back(), np.full((ART_H, ART_W, 3), PAPER, np.uint8)])
def test_an_outline_without_a_face_is_no_card(art: np.ndarray) -> None:
    frame, _ = _scene(art)
    assert corner_search.corner_cards(frame, []) == []


def test_the_top_card_of_a_pile_is_found_only_from_its_corner(monkeypatch: pytest.MonkeyPatch) -> None:
    image, top = _pile()
    assert any(quad_iou(q, top) >= 0.95 for q in detect.find_cards(image))
    monkeypatch.setattr(detect, "corner_cards", lambda frame, exclude: [])
    assert not any(quad_iou(q, top) >= 0.5 for q in detect.find_cards(image))


@pytest.mark.parametrize("frame", [np.zeros((50, 50), np.uint8), np.zeros((50, 50, 3), np.float32),
                                   np.zeros((50, 50, 4), np.uint8)])
def test_a_frame_that_is_no_bgr_image_is_refused(frame: np.ndarray) -> None:
    with pytest.raises(VisionInputError):
        corner_search.corner_cards(frame, [])


def test_a_blank_frame_gives_no_card() -> None:
    assert corner_search.corner_cards(np.full((120, 200, 3), 90, np.uint8), []) == []
