"""A whiteness threshold's quad far from a card's shape is no card, however its corners read
(`detect.MAX_PROPOSAL_SKEW`): a blob of light table beside cards, closed by the frame's edges, can put a
card's index in two of its corners."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import ART_H, ART_W, draw_face
from vision.detect import MAX_PROPOSAL_SKEW, MIN_AREA_FRACTION, _skew, _with_threshold_cards
from vision.geometry import order_quad, quad_iou


def _trapezoid(near: float, far: float) -> np.ndarray:
    """A card's corners with its top side `far` and its bottom side `near` pixels long, 260 pixels apart."""
    cx, top, bottom = 480.0, 140.0, 400.0
    return np.array([[cx - far / 2, top], [cx + far / 2, top], [cx + near / 2, bottom], [cx - near / 2, bottom]],
                    np.float32)


def _scene(corners: np.ndarray) -> np.ndarray:
    """A drawn nine of clubs warped onto `corners` on a dark, lightly noisy table."""
    frame = np.full((540, 960, 3), (40, 60, 90), np.uint8)
    art = draw_face("9c")
    src = np.array([[0, 0], [ART_W, 0], [ART_W, ART_H], [0, ART_H]], np.float32)
    m = cv2.getPerspectiveTransform(src, corners)
    size = (frame.shape[1], frame.shape[0])
    card = cv2.warpPerspective(art, m, size)
    inside = cv2.warpPerspective(np.full((ART_H, ART_W), 255, np.uint8), m, size) > 127
    frame[inside] = card[inside]
    rng = np.random.default_rng(5)
    return np.clip(frame.astype(np.float64) + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)


def _threshold_cards(frame: np.ndarray) -> list[np.ndarray]:
    h, w = frame.shape[:2]
    return _with_threshold_cards(frame, [], MIN_AREA_FRACTION * h * w, None, [], whole_frame=True)


@pytest.mark.parametrize(("near", "far"), [(180.0, 180.0), (190.0, 160.0)])
def test_a_card_in_perspective_is_kept(near: float, far: float) -> None:
    corners = _trapezoid(near, far)
    assert _skew(corners) <= MAX_PROPOSAL_SKEW
    assert any(quad_iou(q, order_quad(corners)) > 0.9 for q in _threshold_cards(_scene(corners)))


def test_a_quad_far_from_a_card_s_shape_is_not_one_however_its_corners_read() -> None:
    corners = _trapezoid(360.0, 160.0)  # its indices print at its corners as a card's do
    assert _skew(corners) > MAX_PROPOSAL_SKEW
    assert not any(quad_iou(q, order_quad(corners)) > 0.5 for q in _threshold_cards(_scene(corners)))


def test_the_skew_is_the_larger_ratio_of_opposite_sides() -> None:
    assert _skew(_trapezoid(180.0, 180.0)) == pytest.approx(1.0)
    assert _skew(_trapezoid(360.0, 160.0)) == pytest.approx(2.25)
