"""The index-first search's second round (`index_first.index_marks(opened=True)`): thin lines joining an
index's glyphs to other ink (a court card's picture frame) are cut, so the index marks separate."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import ART_H, ART_W, draw_face
from tests.vision.test_detect_threshold import _place
from vision import detect
from vision.geometry import FloatArray, order_quad, quad_iou
from vision.index_first import cards_from_marks, index_marks, is_index_card

LENGTH = 170.0
CENTRE = (350.0, 250.0)


def _scene(*, joined: bool) -> tuple[np.ndarray, FloatArray]:
    """An upright queen whose rank and pip, in both corners, touch the picture's frame by a 1-pixel line."""
    frame = np.full((500, 700, 3), (40, 60, 90), np.uint8)
    truth = order_quad(_place(frame, draw_face("Qs"), CENTRE, 0.0, LENGTH))
    scale = LENGTH / ART_H
    left, top = CENTRE[0] - ART_W * scale / 2, CENTRE[1] - ART_H * scale / 2
    if joined:
        for fy in (0.085, 0.19):
            for turned in (False, True):
                x0, x1 = (0.1 * ART_W, 0.22 * ART_W) if not turned else (0.78 * ART_W, 0.9 * ART_W)
                y = (fy if not turned else 1.0 - fy) * ART_H
                a = (round(left + x0 * scale), round(top + y * scale))
                b = (round(left + x1 * scale), round(top + y * scale))
                cv2.line(frame, a, b, (25, 25, 25), 1)
    return frame, truth


def _cards(frame: np.ndarray, *, opened: bool) -> list[FloatArray]:
    marks = index_marks(frame, LENGTH, np.zeros(frame.shape[:2], np.uint8), opened=opened)
    return [q for q in cards_from_marks(*marks, LENGTH) if is_index_card(frame, q)]


def test_joined_glyphs_are_no_index_marks_until_the_lines_are_cut() -> None:
    plain, truth = _scene(joined=False)
    assert any(quad_iou(q, truth) >= 0.85 for q in _cards(plain, opened=False))
    joined, truth = _scene(joined=True)
    assert not any(quad_iou(q, truth) >= 0.5 for q in _cards(joined, opened=False))
    assert any(quad_iou(q, truth) >= 0.85 for q in _cards(joined, opened=True))


def test_the_detector_runs_the_second_round(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, truth = _scene(joined=True)
    monkeypatch.setattr(detect, "four_edge_cards", lambda *args: [])
    out = detect._with_index_cards(frame, [], (LENGTH / 1.4, LENGTH))
    assert len(out) == 1 and quad_iou(out[0], truth) >= 0.85
    # Found already: not again.
    assert len(detect._with_index_cards(frame, [truth], (LENGTH / 1.4, LENGTH))) == 1

