"""Cards the paper mask sees only in part (a card in shade, two cards merged into one outline): found by
looking again around the part it does see (`vision.detect`)."""

from __future__ import annotations

import cv2
import numpy as np

from hardware_sim.camera.art import draw_face
from tests.vision.test_detect_threshold import _found, _place
from vision.detect import MAX_COVERED, _covered_share, _is_part, _merged_boxes, _other_card, find_cards
from vision.geometry import order_quad, quad_iou
from vision.outline import _edge_outlines, edge_distance, threshold_proposals


def _shaded_scene(factor: float) -> tuple[np.ndarray, np.ndarray]:
    """A lit card on a dark table, and a second card whose lower right part lies in a shadow across the
    table: the frame's paper threshold keeps only the lit piece of it, which is no card's shape."""
    lit = np.full((540, 960, 3), (40, 60, 90), np.uint8)
    _place(lit, draw_face("Kh"), (250, 270), -8.0)
    corners = _place(lit, draw_face("9c"), (640, 280), 10.0)
    yy, xx = np.mgrid[0:540, 0:960]
    shade = (yy - 180) > (700 - xx)
    frame = np.where(shade[:, :, None], (lit.astype(np.float64) * factor).astype(np.uint8), lit)
    rng = np.random.default_rng(3)
    noisy = np.clip(frame.astype(np.float64) + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(noisy, (3, 3), 0), np.uint8), corners


def test_a_card_half_in_shade_is_found_around_its_lit_piece() -> None:
    frame, corners = _shaded_scene(0.5)
    quads = find_cards(frame)
    assert len(_found(quads, corners)) == 1
    assert len(quads) == 2  # the lit card, and the shaded one once


def test_overlapping_search_regions_are_searched_once() -> None:
    merged = _merged_boxes([(0, 0, 10, 10), (30, 30, 40, 40), (5, 5, 20, 20), (19, 19, 31, 31)])
    assert merged == [(0, 0, 40, 40)]
    assert _merged_boxes([(0, 0, 10, 10), (10, 0, 20, 10)]) == [(0, 0, 10, 10), (10, 0, 20, 10)]


def _pair_scene(offset: float = 90.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A ten lying over the right part of an ace, upright side by side (`offset` pixels between their
    centres; a card is 122 wide): the paper mask makes the two one near-square blob whose outer corners
    show two indices (the ace's and the ten's)."""
    frame = np.full((540, 960, 3), (40, 60, 90), np.uint8)
    ace = _place(frame, draw_face("Ac"), (420, 270), 0.0)
    ten_art = draw_face("Td")
    _place(frame, np.full_like(ten_art, 120), (417 + offset, 275), 0.0)  # the ten's shadow on the ace
    ten = _place(frame, ten_art, (420 + offset, 274), 0.0)
    rng = np.random.default_rng(3)
    noisy = np.clip(frame.astype(np.float64) + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(noisy, (3, 3), 0), np.uint8), ace, ten


def test_two_cards_side_by_side_are_not_one_near_square_card() -> None:
    frame, ace, ten = _pair_scene()
    quads = find_cards(frame)
    assert len(_found(quads, ten)) == 1
    both = order_quad(np.vstack([ace, ten]).reshape(-1, 2)[[0, 5, 6, 3]])
    assert all(quad_iou(q, both) < 0.6 for q in quads)
    # The ace, a quarter under the ten, is the outline's other card: as wide as the ten, its index in view.
    assert len(_found(quads, ace)) == 1
    assert len(quads) == 2


def test_a_mostly_covered_card_gets_no_outline() -> None:
    # The ace shows only its index strip (two fifths of it): its whole outline would be centred on
    # the ten, whose print the reader would then read for it.
    frame, ace, _ten = _pair_scene(offset=50.0)
    quads = find_cards(frame)
    assert not _found(quads, ace)
    assert all(quad_iou(q, order_quad(ace)) < 0.5 for q in quads)


def test_a_half_of_a_merged_outline_is_a_part_but_a_picture_frame_is_not() -> None:
    whole = np.array([[0, 0], [250, 0], [250, 170], [0, 170]], np.float32)
    right_card = np.array([[130, 0], [250, 0], [250, 170], [130, 170]], np.float32)
    assert _is_part(order_quad(right_card), order_quad(whole))
    card = np.array([[0, 0], [120, 0], [120, 170], [0, 170]], np.float32)
    picture = np.array([[20, 25], [100, 25], [100, 145], [20, 145]], np.float32)
    assert not _is_part(order_quad(picture), order_quad(card))
    # Nor is a card-shaped quad across two opposite corners of a merged outline (it shares no side with
    # it): the shapes of a photograph where a threshold blob spans a card and its neighbour's strip.
    merged = np.array([[53, 161], [377, 0], [336, 349], [138, 377]], np.float32)
    across = np.array([[54, 162], [231, 91], [330, 339], [153, 410]], np.float32)
    assert not _is_part(order_quad(across), order_quad(merged))
    # Nor is a near-square piece, or one nearly as big as the whole.
    assert not _is_part(order_quad(np.array([[0, 0], [160, 0], [160, 170], [0, 170]], np.float32)), order_quad(whole))


def test_the_other_card_of_a_merged_outline_is_as_wide_as_the_first_at_the_far_end() -> None:
    whole = order_quad(np.array([[0, 0], [250, 0], [250, 170], [0, 170]], np.float32))
    right_card = order_quad(np.array([[130, 0], [250, 0], [250, 170], [130, 170]], np.float32))
    other = _other_card(whole, right_card)
    assert other is not None
    assert quad_iou(other, order_quad(np.array([[0, 0], [120, 0], [120, 170], [0, 170]], np.float32))) > 0.98
    # Two cards overlapping by two thirds: the other card lies mostly under the first (its centre on the
    # first card's print), more than a card found this way may.
    narrow = order_quad(np.array([[0, 0], [160, 0], [160, 170], [0, 170]], np.float32))
    top = order_quad(np.array([[40, 0], [160, 0], [160, 170], [40, 170]], np.float32))
    other = _other_card(narrow, top)
    assert other is not None
    assert quad_iou(other, order_quad(np.array([[0, 0], [120, 0], [120, 170], [0, 170]], np.float32))) > 0.98
    assert _covered_share(other, top) > MAX_COVERED


def _picture_card_in_shade() -> tuple[np.ndarray, np.ndarray]:
    """Whiteness of a picture card (a white border around a coloured picture, which scores low) on a
    dark table, its lower right corner in a shadow that takes the border below every paper level: at
    each level the card is a broken ring, whose hull is no quadrilateral."""
    score = np.full((300, 400), 20, np.uint8)
    card = np.array([[140, 60], [260, 60], [260, 230], [140, 230]], np.int32)
    cv2.fillConvexPoly(score, card, 225)
    cv2.rectangle(score, (158, 84), (242, 206), 25, -1)
    cv2.fillConvexPoly(score, np.array([[260, 170], [260, 230], [200, 230]], np.int32), 36)
    return np.asarray(cv2.GaussianBlur(score, (3, 3), 0), np.uint8), card.astype(np.float32)


def test_a_broken_picture_card_is_proposed_as_the_rectangle_it_spans() -> None:
    score, card = _picture_card_in_shade()
    dist = edge_distance(score)
    plain = threshold_proposals(score, 2000, 60000)
    assert all(quad_iou(q, order_quad(card)) < 0.9 for q in plain)
    spanning = threshold_proposals(score, 2000, 60000, dist=dist)
    assert any(quad_iou(q, order_quad(card)) >= 0.9 for q in spanning)
    # A blob of no card's proportions is not proposed so: a long strip of paper.
    strip = np.full((300, 400), 30, np.uint8)
    cv2.rectangle(strip, (60, 100), (340, 160), 225, -1)
    cv2.rectangle(strip, (80, 115), (320, 145), 25, -1)
    assert threshold_proposals(strip, 2000, 60000, dist=edge_distance(strip)) == []


def test_closed_edges_propose_a_card_on_a_tiled_floor_but_not_the_tiles() -> None:
    # A card's outline is one closed edge. The tiles' outlines are closed edges too, but darker inside
    # than out (light grout around them): no card's edge.
    score = np.full((300, 400), 150, np.uint8)
    for x in range(0, 400, 130):
        cv2.line(score, (x, 0), (x, 299), 200, 5)
    for y in range(0, 300, 260):
        cv2.line(score, (0, y), (399, y), 200, 5)
    card = np.array([[160, 35], [240, 45], [225, 160], [145, 150]], np.int32)
    cv2.fillConvexPoly(score, card, 250)
    score = np.asarray(cv2.GaussianBlur(score, (3, 3), 0), np.uint8)
    quads = _edge_outlines(score, edge_distance(score), 2000, 60000)
    assert len(quads) == 1
    assert quad_iou(quads[0], order_quad(card.astype(np.float32))) > 0.9
