"""Cards bounded by four straight edges anywhere in a photograph (`vision.line_search`), where the paper
mask, the whiteness thresholds and the index-first search find nothing: a court card whose index ink
touches its picture's frame (one ink blob: no index mark for the index-first search)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import ART_H, ART_W, BLACK, PAPER, draw_back, draw_face
from tests.vision.test_detect_threshold import _place
from vision import detect, line_search
from vision.errors import VisionInputError
from vision.geometry import FloatArray, order_quad, quad_iou
from vision.index_first import cards_from_marks, index_marks

LENGTH = 170.0


def _joined_court(card: str = "Jc") -> np.ndarray:
    """A court card whose rank and pip are joined to the picture's frame by ink, in both index corners."""
    art = draw_face(card)
    frame_x = round(ART_W * 0.22)
    for y in (round(ART_H * 0.1), round(ART_H * 0.19)):
        cv2.line(art, (round(ART_W * 0.1), y), (frame_x, y), BLACK, 2)
    turned = cv2.rotate(art[: ART_H // 2], cv2.ROTATE_180)
    art[ART_H - ART_H // 2:] = turned
    return art


def _scene(art: np.ndarray, *, width: int = 700) -> tuple[np.ndarray, FloatArray]:
    frame = np.full((500, width, 3), (40, 60, 90), np.uint8)
    card = order_quad(_place(frame, art, (350, 250), 18.0, LENGTH))
    rng = np.random.default_rng(5)
    noisy = np.clip(frame.astype(np.float64) + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(noisy, (3, 3), 0), np.uint8), card


def test_the_joined_index_leaves_no_index_mark() -> None:
    frame, truth = _scene(_joined_court())
    marks = index_marks(frame, LENGTH, np.zeros(frame.shape[:2], np.uint8))
    assert not any(quad_iou(q, truth) > 0.5 for q in cards_from_marks(*marks, LENGTH))


def test_four_edges_and_two_indices_find_the_card() -> None:
    frame, truth = _scene(_joined_court())
    found = line_search.four_edge_cards(frame, LENGTH, [])
    assert len(found) == 1 and quad_iou(found[0], truth) >= 0.9
    # Already found: not again.
    assert line_search.four_edge_cards(frame, LENGTH, [truth]) == []


@pytest.mark.parametrize("art", [draw_back(), np.full((ART_H, ART_W, 3), PAPER, np.uint8)])
def test_an_outline_without_a_face_is_no_card(art: np.ndarray) -> None:
    frame, _ = _scene(art)
    assert line_search.four_edge_cards(frame, LENGTH, []) == []


def test_a_card_of_another_size_is_not_taken() -> None:
    frame, _ = _scene(_joined_court())
    assert line_search.four_edge_cards(frame, 3.0 * LENGTH, []) == []


def test_the_detector_adds_it_on_a_photograph_only(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, truth = _scene(_joined_court())
    out = detect._with_index_cards(frame, [], (LENGTH / 1.4, LENGTH))
    assert len(out) == 1 and quad_iou(out[0], truth) >= 0.9
    # It is the four-edge search that adds it, and (`vision.corner_search`) the search from a corner
    # where the four-edge search does not; nothing else does.
    monkeypatch.setattr(detect, "four_edge_cards", lambda *args: [])
    again = detect._with_index_cards(frame, [], (LENGTH / 1.4, LENGTH))
    assert len(again) == 1 and quad_iou(again[0], truth) >= 0.9
    monkeypatch.setattr(detect, "corner_cards", lambda *args: [])
    assert detect._with_index_cards(frame, [], (LENGTH / 1.4, LENGTH)) == []
    monkeypatch.undo()
    wide, _ = _scene(_joined_court(), width=1280)
    assert detect._with_index_cards(wide, [], (LENGTH / 1.4, LENGTH)) == []


def test_bad_input_is_a_typed_error() -> None:
    frame, _ = _scene(_joined_court())
    with pytest.raises(VisionInputError):
        line_search.four_edge_cards(frame[:, :, 0], LENGTH, [])
    with pytest.raises(VisionInputError):
        line_search.four_edge_cards(frame, 0.0, [])
    with pytest.raises(VisionInputError):
        line_search.four_edge_cards(frame, float("nan"), [])


def test_segments_of_one_line_merge_whichever_way_they_run() -> None:
    from vision.outline import _merged_lines

    segments = np.array([[10, 50, 60, 50],  # y = 50, 50 long
                         [200, 51, 120, 51],  # the same line a pixel off, traced the other way: 80 long
                         [10, 60, 40, 60],  # a parallel line 10 pixels away: its own line
                         [30, 10, 30, 200]], np.int32)  # a perpendicular line, 190 long
    lines = _merged_lines(segments.reshape(-1, 1, 4))
    assert [round(n) for _, _, n in lines] == [190, 130, 30]
    theta, rho, _ = lines[1]
    assert abs(abs(rho) - 50.0) < 1.0 and min(theta, np.pi - theta) > np.radians(80)
