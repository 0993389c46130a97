"""Cards that the one paper mask cannot cut out: found at a whiteness threshold of their own and
accepted only with an index in both index corners (`vision.outline`, `vision.detect`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import draw_back, draw_face
from vision.detect import _contradicts, find_cards
from vision.geometry import order_quad, quad_iou
from vision.outline import edge_distance, edge_evidence, line_quads, threshold_proposals, whiteness


def _place(frame: np.ndarray, art: np.ndarray, center: tuple[float, float], angle: float,
           length: float = 170.0) -> np.ndarray:
    """Lay a card's art on the frame; returns the card's true corners."""
    h, w = art.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, length / h)
    m[:, 2] += np.array([center[0] - w / 2, center[1] - h / 2])
    size = (frame.shape[1], frame.shape[0])
    card = cv2.warpAffine(art, m, size)
    inside = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, size) > 127
    frame[inside] = card[inside]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    return (corners @ m[:, :2].T + m[:, 2]).astype(np.float32)


def _paper_scene(art: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A card lying half on a sheet of off-white paper on a dark table: the paper mask makes card and
    sheet one blob, which is no card's shape."""
    frame = np.full((540, 960, 3), (40, 60, 90), np.uint8)
    cv2.rectangle(frame, (200, 120), (520, 420), (214, 222, 226), -1)
    corners = _place(frame, art, (520, 270), 12.0)
    rng = np.random.default_rng(3)
    noisy = np.clip(frame.astype(np.float64) + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(noisy, (3, 3), 0), np.uint8), corners


def _found(quads: list[np.ndarray], corners: np.ndarray) -> list[np.ndarray]:
    truth = order_quad(corners)
    return [q for q in quads if quad_iou(q, truth) >= 0.8]


def test_card_joined_to_a_light_sheet_is_cut_out_at_its_own_threshold() -> None:
    frame, corners = _paper_scene(draw_face("9c"))
    quads = find_cards(frame)
    assert len(_found(quads, corners)) == 1
    # And the merged blob does not also come out as a card of its own.
    assert all(quad_iou(q, order_quad(corners)) >= 0.8 or quad_iou(q, order_quad(corners)) < 0.05 for q in quads)


def test_a_back_joined_to_a_light_sheet_is_not_invented_from_the_threshold_path() -> None:
    frame, corners = _paper_scene(draw_back())
    # A back has no index: the threshold path never adds it, so no quad may sit on it unless the paper
    # mask's own pass found it there.
    quads = find_cards(frame)
    assert len(_found(quads, corners)) <= 1


def test_threshold_proposals_find_a_rectangle_only_one_level_separates() -> None:
    score = np.full((300, 400), 150, np.uint8)
    cv2.rectangle(score, (40, 40), (360, 260), 200, -1)  # a light sheet
    cv2.rectangle(score, (150, 80), (250, 220), 245, -1)  # the card on it, brighter still
    quads = threshold_proposals(score, 1000.0, 0.6 * 300 * 400)
    card = order_quad(np.array([[150, 80], [250, 80], [250, 220], [150, 220]], np.float32))
    assert any(quad_iou(q, card) > 0.9 for q in quads)


@pytest.mark.parametrize("shift", [0.0, 25.0])
def test_edge_evidence_is_high_on_a_cards_outline_only(shift: float) -> None:
    frame = np.full((300, 400, 3), (40, 90, 40), np.uint8)
    cv2.rectangle(frame, (150, 80), (250, 220), (245, 245, 245), -1)
    score = whiteness(frame)
    dist = edge_distance(np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8))
    quad = order_quad(np.array([[150 + shift, 80], [250 + shift, 80], [250 + shift, 220], [150 + shift, 220]]))
    mean, weakest = edge_evidence(score, dist, quad)
    if shift == 0.0:
        assert mean > 0.9 and weakest > 0.8
    else:
        assert weakest < 0.3  # the shifted quad's left side runs over the card's paper


def test_cards_of_a_pile_do_not_contradict_each_other_but_a_piece_does() -> None:
    a = order_quad(np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32))
    overlapping = a + np.array([45.0, 30.0], np.float32)
    piece = order_quad(np.array([[5, 5], [95, 5], [95, 80], [5, 80]], np.float32))
    assert not _contradicts(a, overlapping)
    assert _contradicts(a, piece)
    assert _contradicts(a, a + np.array([10.0, 5.0], np.float32))


def _overlapping_pair() -> tuple[np.ndarray, np.ndarray]:
    """Two face-up cards on a dark cloth, the second lying across the first (its edge casts a thin
    shadow on the card below, as in a photograph): the paper mask makes them one blob."""
    frame = np.full((540, 960, 3), (30, 28, 26), np.uint8)
    _place(frame, draw_face("7c"), (420, 270), 8.0, length=220.0)
    top = draw_face("Kd")
    h, w = top.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -20.0, 220.0 / h)
    m[:, 2] += np.array([530 - w / 2, 300 - h / 2])
    inside = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (960, 540))
    shadow = cv2.dilate(inside, np.ones((5, 5), np.uint8)) > inside
    frame[shadow] = (frame[shadow] * 0.6).astype(np.uint8)
    corners = _place(frame, top, (530, 300), -20.0, length=220.0)
    return np.asarray(cv2.GaussianBlur(frame, (3, 3), 0), np.uint8), corners


def test_line_quads_close_the_top_cards_outline() -> None:
    frame, corners = _overlapping_pair()
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    quads = line_quads(gray, 100.0, 300.0)
    assert any(quad_iou(q, order_quad(corners)) > 0.85 for q in quads)


def test_card_lying_on_another_is_found_by_its_four_edges() -> None:
    frame, corners = _overlapping_pair()
    assert len(_found(find_cards(frame), corners)) == 1
