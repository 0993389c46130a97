"""A card read from one index window alone is drawn from that window: its far sides are moved out to where the paper
around its index ends (a card held against a shirt), past its pips, and stay where the paper runs on (a white wall)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.pipeline import Detection, _to_paper_edges
from vision.rectify import index_window, quad_iou
from vision.resolve import Reading, corners_of
from vision.settings import SETTINGS

CARD = np.array([[100, 80], [200, 80], [200, 220], [100, 220]], np.float32)  # 100 x 140 pixels
DRAWN = np.array([[100, 80], [170, 80], [170, 178], [100, 178]], np.float32)  # from its index, seven tenths of it


def _held_card(background: tuple[int, int, int]) -> np.ndarray:
    image = np.full((320, 320, 3), background, np.uint8)
    cv2.fillConvexPoly(image, CARD.astype(np.int32), (235, 235, 235))
    cv2.rectangle(image, (106, 86), (116, 100), (30, 30, 30), -1)  # the rank
    cv2.circle(image, (111, 110), 5, (30, 30, 30), -1)  # the suit
    for x, y in ((135, 120), (165, 120), (135, 180), (165, 180), (150, 150)):
        cv2.circle(image, (x, y), 11, (30, 30, 30), -1)  # pips, some between the drawn card's far sides and the card's
    return image


def _reading(quad: np.ndarray) -> Reading:
    det = Detection(card="5s", face="up", confidence=0.99, corners=corners_of(quad))
    return Reading(det, (index_window(quad),))


def test_a_card_held_against_a_shirt_is_moved_out_to_its_paper_edges_past_its_pips() -> None:
    moved = _to_paper_edges(_held_card((110, 150, 185)), _reading(DRAWN), SETTINGS)
    assert quad_iou(moved.quad, CARD) > 0.95


def test_a_card_against_a_white_wall_keeps_the_card_drawn_from_its_index() -> None:
    kept = _to_paper_edges(_held_card((235, 235, 235)), _reading(DRAWN), SETTINGS)
    assert np.array_equal(kept.quad, DRAWN)


def test_a_court_cards_picture_does_not_stop_its_sides_short() -> None:
    """A picture framed on the card, wider than a pip, with paper beyond it inside the card drawn, is crossed."""
    image = _held_card((110, 150, 185))
    cv2.rectangle(image, (118, 104), (162, 165), (60, 120, 200), -1)  # the picture: twice a pip's width and more
    moved = _to_paper_edges(image, _reading(DRAWN), SETTINGS)
    assert quad_iou(moved.quad, CARD) > 0.95
