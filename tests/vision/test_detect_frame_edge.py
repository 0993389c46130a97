"""A card running out of the frame: its paper blob is a pentagon with one side along the frame's edge, and
its outline is the quad with that side replaced by the corner outside the frame where its two neighbours
meet (`geometry.past_the_edge`), in the paper mask's outlines."""

from __future__ import annotations

import numpy as np
import pytest

from hardware_sim.camera.art import draw_face
from tests.vision.test_detect_threshold import _place
from vision import detect
from vision.geometry import along_to_meet, inside_area, order_quad, past_the_edge, quad_iou
from vision.pipeline import Recognizer

W, H = 378, 504


def _poly(points: list[tuple[float, float]]) -> np.ndarray:
    return np.array(points, np.float32)


@pytest.mark.parametrize(("pentagon", "quad"), [
    # A card's top corner above the frame: the side along y = 0 gives way to the corner at y = -48.
    ([(175, 0), (255, 0), (302, 47), (253, 108), (157, 27)], [(207, -48), (302, 47), (253, 108), (157, 27)]),
    # The same card running off the left edge (x and y swapped; the order turns with it).
    ([(0, 175), (27, 157), (108, 253), (47, 302), (0, 255)], [(27, 157), (108, 253), (47, 302), (-48, 207)]),
])
def test_the_side_along_the_frame_gives_way_to_the_corner_outside(
        pentagon: list[tuple[float, float]], quad: list[tuple[float, float]]) -> None:
    out = past_the_edge(_poly(pentagon), W, H)
    assert out.shape == (4, 2)
    np.testing.assert_allclose(out, _poly(quad), atol=1.0)


@pytest.mark.parametrize("pentagon", [
    [(150, 40), (255, 30), (302, 77), (253, 138), (157, 67)],  # no side on the frame's edge
    [(100, 0), (300, 0), (302, 47), (253, 108), (95, 20)],  # the corner outside would be most of the card
    [(175, 0), (255, 0), (255, 60), (175, 60), (170, 30)],  # the neighbours run apart: they meet inside
])
def test_other_pentagons_are_left_as_they_are(pentagon: list[tuple[float, float]]) -> None:
    poly = _poly(pentagon)
    np.testing.assert_array_equal(past_the_edge(poly, W, H), poly)


def test_the_area_inside_the_frame() -> None:
    square = _poly([(-10, -10), (10, -10), (10, 10), (-10, 10)])
    assert inside_area(square, 100, 100) == pytest.approx(100.0, abs=1.0)
    inside = _poly([(10, 10), (30, 10), (30, 30), (10, 30)])
    assert inside_area(inside, 100, 100) == pytest.approx(400.0)


def _cut_card() -> tuple[np.ndarray, np.ndarray]:
    frame = np.full((540, 720, 3), (40, 60, 90), np.uint8)
    corners = order_quad(_place(frame, draw_face("Ah"), (360, 95), 35.0, length=200.0))
    assert corners[:, 1].min() < -20  # a corner well above the frame
    return frame, corners


def test_a_card_running_out_of_the_frame_is_outlined_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, corners = _cut_card()
    assert max(quad_iou(q, corners) for q in detect.find_cards(frame)) > 0.95
    detections = Recognizer().identify(frame)
    assert [d.card for d in detections] == ["Ah"]
    # Without it the card is found only by a looser outline.
    monkeypatch.setattr(detect, "past_the_edge", lambda poly, w, h: poly)
    assert max(quad_iou(q, corners) for q in detect.find_cards(frame)) < 0.95



@pytest.mark.parametrize(("p", "d", "q", "e", "t"), [
    ((0, 0), (1, 0), (5, -3), (0, 1), 5.0),  # the x axis meets the line x = 5 at t = 5
    ((0, 0), (2, 2), (4, 0), (-1, 1), 1.0),  # the diagonal meets the other diagonal at (2, 2)
    ((0, 0), (1, 0), (0, 1), (3, 0), None),  # parallel
])
def test_where_two_lines_meet(p: tuple[float, float], d: tuple[float, float], q: tuple[float, float],
                              e: tuple[float, float], t: float | None) -> None:
    got = along_to_meet(*(np.array(v, np.float32) for v in (p, d, q, e)))
    assert got == (None if t is None else pytest.approx(t))


def test_a_cut_corner_inside_the_frame_gives_way_to_its_neighbours_meeting() -> None:
    # A dog-eared card: the short side from (90, 0) to (100, 10) stands for the corner (100, 0).
    pentagon = _poly([(0, 0), (90, 0), (100, 10), (100, 140), (0, 140)])
    np.testing.assert_allclose(detect._cut_corner(pentagon), _poly([(0, 0), (100, 0), (100, 140), (0, 140)]))
