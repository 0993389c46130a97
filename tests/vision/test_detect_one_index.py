"""A card with one readable index and a clean outline needs less of a face's print (`vision.face`,
`looks_like_face(..., indices=1)`): an ace in shade has one pip, little ink and only one corner that reads."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import ART_H, ART_W, PAPER, draw_face
from tests.vision.test_detect_threshold import _found, _paper_scene
from vision import detect, face
from vision.errors import VisionInputError
from vision.geometry import order_quad


def _ace_one_index(pip: int = 10) -> np.ndarray:
    """An ace's face with its top-left index only (the other worn away) and a small pip: little ink."""
    ace = draw_face("Ad")
    art = np.full((ART_H, ART_W, 3), PAPER, np.uint8)
    iw, ih = round(ART_W * 0.2), round(ART_H * 0.3)
    art[:ih, :iw] = ace[:ih, :iw]
    cx, cy = ART_W // 2, ART_H // 2
    diamond = np.array([[cx, cy - pip * 1.3], [cx + pip, cy], [cx, cy + pip * 1.3], [cx - pip, cy]], np.int32)
    cv2.fillConvexPoly(art, diamond, (40, 40, 200))
    return art


def test_one_index_and_a_weak_print_make_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, corners = _paper_scene(_ace_one_index())
    quad = order_quad(corners)
    symmetry, ink = face.face_symmetry(frame, quad)
    assert detect._index_count(frame, quad) == 1
    # Too little of a face for a quad with no index at all...
    assert symmetry < face.MIN_SYMMETRY and ink < face.MIN_INK
    assert not face.looks_like_face(frame, quad)
    # ...but enough beside an index already read.
    assert face.looks_like_face(frame, quad, indices=1)
    assert len(_found(detect.find_cards(frame), corners)) == 1
    # It is the one-index rule that finds it.
    monkeypatch.setattr(face, "ONE_INDEX_SYMMETRY", face.MIN_SYMMETRY)
    monkeypatch.setattr(face, "ONE_INDEX_INK", face.MIN_INK)
    assert _found(detect.find_cards(frame), corners) == []


def test_one_index_does_not_make_blank_paper_a_face() -> None:
    frame, corners = _paper_scene(np.full((ART_H, ART_W, 3), PAPER, np.uint8))
    assert not face.looks_like_face(frame, order_quad(corners), indices=1)


def test_a_negative_index_count_is_a_typed_error() -> None:
    frame, corners = _paper_scene(_ace_one_index())
    with pytest.raises(VisionInputError):
        face.looks_like_face(frame, order_quad(corners), indices=-1)
