"""A card on a bright table (white cloth, paper, marble): its paper merges with the table top into one
blob, so it is found by its outline instead, and only when a corner shows an index."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import draw_back, draw_face
from vision.pipeline import Recognizer


def _on_bright_table(art: np.ndarray, angle: float, *, rough: bool = False) -> np.ndarray:
    rng = np.random.default_rng(5)
    frame = np.full((540, 960, 3), (150, 160, 165) if rough else (214, 220, 224), np.uint8)
    frame = np.clip(frame.astype(np.float64) + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    if rough:
        # A light carpet: bright tufts everywhere, some touching the card's edge.
        for x, y in zip(rng.integers(0, 960, 900), rng.integers(0, 540, 900), strict=True):
            cv2.circle(frame, (int(x), int(y)), 2, (235, 238, 240), -1)
    h, w = art.shape[:2]
    scale = 180 / h  # a card 180 pixels long
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += np.array([480 - w / 2, 270 - h / 2])
    card = cv2.warpAffine(art, m, (960, 540))
    inside = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (960, 540))
    # The card's edge casts a thin shadow on the table, as it does in a photograph.
    edge = cv2.dilate(inside, np.ones((5, 5), np.uint8)) > inside
    frame[edge] = (frame[edge] * 0.7).astype(np.uint8)
    frame[inside > 127] = card[inside > 127]
    return np.asarray(cv2.GaussianBlur(frame, (3, 3), 0), np.uint8)


@pytest.mark.parametrize("rough", [False, True])
def test_face_up_card_on_a_bright_table_is_found(rough: bool) -> None:
    recognizer = Recognizer()
    for angle in (0.0, 25.0, 70.0):
        found = recognizer.identify(_on_bright_table(draw_face("Qh"), angle, rough=rough))
        near = [d for d in found if abs(d.center[0] - 480) < 20 and abs(d.center[1] - 270) < 20]
        assert len(near) == 1, (angle, found)
        assert near[0].face == "up" and near[0].card in ("Qh", None), angle


@pytest.mark.parametrize("rough", [False, True])
def test_back_on_a_bright_table_is_never_named(rough: bool) -> None:
    found = Recognizer().identify(_on_bright_table(draw_back(), 25.0, rough=rough))
    assert all(d.card is None for d in found)
