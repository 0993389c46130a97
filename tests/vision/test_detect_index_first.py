"""Cards found from their two corner indices first (`vision.index_first`), where no outline of theirs
closes, and the detector's use of it (`vision.detect._with_index_cards`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import ART_H, ART_W, PAPER, draw_back, draw_face
from tests.vision.test_detect_threshold import _place
from vision import detect
from vision.errors import VisionInputError
from vision.geometry import order_quad, quad_iou
from vision.index_first import cards_from_marks, index_marks, is_index_card

LENGTH = 170.0


def _scene(art: np.ndarray, *, width: int = 700, angle: float = 20.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A king on the left (the card already found) and `art` on the right, turned `angle` degrees."""
    frame = np.full((500, width, 3), (40, 60, 90), np.uint8)
    king = order_quad(_place(frame, draw_face("Kd"), (160, 250), -8.0, LENGTH))
    card = order_quad(_place(frame, art, (450, 250), angle, LENGTH))
    return frame, king, card


def _candidates(frame: np.ndarray, exclude: np.ndarray | None = None) -> list[np.ndarray]:
    mask = np.zeros(frame.shape[:2], np.uint8) if exclude is None else exclude
    return cards_from_marks(*index_marks(frame, LENGTH, mask), LENGTH)


@pytest.mark.parametrize(("card", "angle"), [("9c", 20.0), ("Ah", -35.0), ("Td", 160.0), ("Qs", 95.0)])
def test_two_indices_fix_the_whole_card(card: str, angle: float) -> None:
    frame, _, truth = _scene(draw_face(card), angle=angle)
    near = [q for q in _candidates(frame) if quad_iou(q, truth) >= 0.85]
    assert near, "no outline from the two indices lies on the card"
    assert all(is_index_card(frame, q) for q in near)


def test_no_index_no_card() -> None:
    for art in (draw_back(), np.full((ART_H, ART_W, 3), PAPER, np.uint8)):
        frame, _, truth = _scene(art)
        assert not any(quad_iou(q, truth) > 0.3 for q in _candidates(frame))
    rng = np.random.default_rng(7)
    noise = np.asarray(cv2.GaussianBlur(rng.integers(0, 255, (500, 700, 3), dtype=np.uint8), (5, 5), 0), np.uint8)
    assert not [q for q in _candidates(noise) if is_index_card(noise, q)]


def test_an_outline_off_the_card_is_refused() -> None:
    frame, _, truth = _scene(draw_face("9c"))
    shifted = np.asarray(truth + np.array([60.0, 40.0], np.float32), np.float32)
    assert not is_index_card(frame, shifted)


def test_the_excluded_area_hides_its_indices() -> None:
    frame, _, truth = _scene(draw_face("9c"))
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(truth).astype(np.int32), 1)
    assert not any(quad_iou(q, truth) > 0.3 for q in _candidates(frame, mask))


def test_the_detector_adds_the_card_outside_those_found_and_nothing_twice() -> None:
    frame, king, truth = _scene(draw_face("9c"))
    out = detect._with_index_cards(frame, [king], None)
    assert out[0] is king
    assert len(out) == 2 and quad_iou(out[1], truth) >= 0.85
    # Found already: not added again.
    again = detect._with_index_cards(frame, [king, truth], None)
    assert len(again) == 2


def test_the_detector_does_not_search_a_1280_wide_frame() -> None:
    frame, king, _ = _scene(draw_face("9c"), width=1280)
    assert detect._with_index_cards(frame, [king], None) == [king]


def test_bad_input_is_a_typed_error() -> None:
    frame, _, _ = _scene(draw_face("9c"))
    mask = np.zeros(frame.shape[:2], np.uint8)
    with pytest.raises(VisionInputError):
        index_marks(frame[:, :, 0], LENGTH, mask)
    with pytest.raises(VisionInputError):
        index_marks(frame, LENGTH, mask[:10])
    with pytest.raises(VisionInputError):
        index_marks(frame, float("nan"), mask)
    with pytest.raises(VisionInputError):
        index_marks(frame, 0.0, mask)
