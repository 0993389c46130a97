"""The visible strip of a card lying mostly under another is proposed as an outline of its own
(`vision.strip`): a thin paper blob beside a card already found, with an index in view, on photographs only."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import draw_face
from vision.geometry import FloatArray, order_quad, quad_iou, side_lengths
from vision.strip import MAX_WIDTH, STRIP_ASPECT, strip_outlines, thin_quad_of

CARD = (140, 196)  # px, a card's width and length in the test frames
TABLE = (40, 90, 40)


def _card(name: str) -> np.ndarray:
    return np.asarray(cv2.resize(draw_face(name), CARD, interpolation=cv2.INTER_AREA)[:, :, :3], np.uint8)


def _scene(*, strip: int = 45, index: bool = True, left: int = 100, top: int = 100, width: int = 640
           ) -> tuple[np.ndarray, FloatArray, FloatArray]:
    """A king lying under a seven that hides all but its top `strip` px (the index end), the seven's edge
    casting a thin shadow; returns (frame, the seven's outline, the king's visible strip)."""
    frame = np.full((480, width, 3), TABLE, np.uint8)
    under = _card("Ks") if index else np.full((CARD[1], CARD[0], 3), 235, np.uint8)
    frame[top:top + CARD[1], left:left + CARD[0]] = under
    y = top + strip
    frame[y - 4:y, left - 10:left + CARD[0] + 10] = (30, 60, 30)
    frame[y:y + CARD[1], left - 10:left + CARD[0] - 10] = _card("7h")
    seven = order_quad(np.array([[left - 10, y], [left + CARD[0] - 10, y], [left + CARD[0] - 10, y + CARD[1]],
                                 [left - 10, y + CARD[1]]], np.float32))
    visible = order_quad(np.array([[left, top], [left + CARD[0], top], [left + CARD[0], y - 4], [left, y - 4]],
                                  np.float32))
    return frame, seven, visible


def _rect_contour(w: int, h: int) -> np.ndarray:
    return np.array([[[10, 10]], [[10 + w, 10]], [[10 + w, 10 + h]], [[10, 10 + h]]], np.int32)


def test_only_blobs_thinner_than_a_card_are_strips() -> None:
    quad = thin_quad_of(_rect_contour(140, 40))
    assert quad is not None and side_lengths(quad) == pytest.approx((40.0, 140.0))
    assert thin_quad_of(_rect_contour(140, 196)) is None  # a whole card: `outline.quad_of`'s
    assert thin_quad_of(_rect_contour(int(40 * STRIP_ASPECT[1]) + 20, 40)) is None  # a line, not a strip
    triangle = np.array([[[10, 10]], [[200, 10]], [[10, 60]]], np.int32)
    assert thin_quad_of(triangle) is None


def test_the_strip_beside_a_found_card_is_proposed() -> None:
    frame, seven, visible = _scene()
    strips = strip_outlines(frame, [seven])
    assert len(strips) == 1
    assert quad_iou(strips[0], visible) > 0.8


def test_a_paper_strip_without_an_index_is_not_proposed() -> None:
    frame, seven, _ = _scene(index=False)
    assert strip_outlines(frame, [seven]) == []


def test_a_strip_must_lie_along_a_found_card() -> None:
    frame, _, _ = _scene()
    elsewhere = order_quad(np.array([[450, 250], [590, 250], [590, 446], [450, 446]], np.float32))
    assert strip_outlines(frame, [elsewhere]) == []
    assert strip_outlines(frame, []) == []


def test_a_strip_running_into_the_photos_edge_is_not_proposed() -> None:
    frame, seven, _ = _scene(top=0)  # the king's strip starts at the frame's top row
    assert strip_outlines(frame, [seven]) == []


def test_frames_wider_than_photographs_are_not_searched() -> None:
    frame, seven, _ = _scene(width=MAX_WIDTH + 272)  # the live table's 1280 x 720 frames' width
    assert strip_outlines(frame, [seven]) == []
    frame, seven, _ = _scene(width=MAX_WIDTH)
    assert len(strip_outlines(frame, [seven])) == 1
