"""A face's half-turn symmetry with the light's slope taken out (`face_symmetry(..., level=True)`): light
falling off across a card is odd under a half turn and so hid a symmetric face; a court card's picture
covers most of its face, so the paper level is read high. The searches that place a card with no paper
mask behind them (`line_search.is_face`, `index_first.is_index_card`) judge a face this way."""

from __future__ import annotations

import numpy as np
import pytest

from hardware_sim.camera.art import ART_H, ART_W, PAPER, draw_face
from tests.vision.test_detect_threshold import _place
from vision import corner_search, line_search
from vision.face import face_symmetry
from vision.geometry import order_quad, quad_iou
from vision.line_search import MIN_INK, MIN_SYMMETRY, is_face


def _on_table(art: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    frame = np.full((400, 500, 3), (40, 60, 90), np.uint8)
    return frame, order_quad(_place(frame, art, (250, 200), 14.0))


def _faded(art: np.ndarray, contrast: float) -> np.ndarray:
    """A washed-out print, or one seen through haze: the ink lifted towards the paper."""
    return np.asarray(np.clip(255 - (255 - art.astype(np.float32)) * contrast, 0, 255), np.uint8)


def _lit(frame: np.ndarray, left: float, right: float) -> np.ndarray:
    """Light falling off from the frame's left edge to its right (a lamp to one side)."""
    gain = np.linspace(left, right, frame.shape[1], dtype=np.float32)[None, :, None]
    return np.asarray(np.clip(frame * gain, 0, 255), np.uint8)


@pytest.mark.parametrize("card", ["9c", "Ah", "Ks"])
def test_light_falling_across_a_faded_face_is_taken_out(card: str) -> None:
    frame, quad = _on_table(_faded(draw_face(card), 0.35))
    frame = _lit(frame, 1.0, 0.3)
    plain, _ = face_symmetry(frame, quad)
    levelled, ink = face_symmetry(frame, quad, level=True)
    assert plain < MIN_SYMMETRY  # the slope hides the face ...
    assert levelled >= MIN_SYMMETRY and ink >= MIN_INK  # ... and taken out, the face is there


@pytest.mark.parametrize("card", ["9c", "Ah"])
def test_a_face_under_a_lamp_is_a_face_with_its_indices_read(card: str) -> None:
    frame, quad = _on_table(_faded(draw_face(card), 0.5))
    frame = _lit(frame, 1.0, 0.3)
    assert face_symmetry(frame, quad)[0] < MIN_SYMMETRY
    assert is_face(frame, quad)


def test_a_dim_court_card_has_ink_under_a_paper_level_read_high() -> None:
    # The picture is most of the face: the 80th percentile is picture, not paper, and nothing is "ink".
    frame, quad = _on_table(_faded(draw_face("Ks"), 0.35))
    frame = _lit(frame, 1.0, 0.3)
    assert face_symmetry(frame, quad)[1] < MIN_INK
    assert face_symmetry(frame, quad, level=True)[1] >= MIN_INK


def test_an_evenly_lit_face_measures_the_same_either_way() -> None:
    frame, quad = _on_table(draw_face("Td"))
    plain, levelled = face_symmetry(frame, quad)[0], face_symmetry(frame, quad, level=True)[0]
    assert levelled == pytest.approx(plain, abs=0.02)


def test_levelling_finds_no_face_in_blank_paper_or_a_texture() -> None:
    frame, quad = _on_table(np.full((ART_H, ART_W, 3), PAPER, np.uint8))
    frame = _lit(frame, 1.0, 0.3)
    assert face_symmetry(frame, quad, level=True)[1] < MIN_INK  # shaded paper is still no ink
    rng = np.random.default_rng(11)
    texture = rng.integers(0, 255, (ART_H // 8, ART_W // 8, 3), dtype=np.uint8).repeat(8, 0).repeat(8, 1)
    frame, quad = _on_table(np.ascontiguousarray(texture))
    assert face_symmetry(_lit(frame, 1.0, 0.3), quad, level=True)[0] < MIN_SYMMETRY


def test_the_corner_search_finds_a_faded_card_under_a_lamp(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = np.full((540, 720, 3), (150, 175, 190), np.uint8)  # a light wooden table
    corners = order_quad(_place(frame, _faded(draw_face("9c"), 0.5), (360, 270), 11.0, length=240.0))
    frame = _lit(frame, 1.0, 0.3)
    found = corner_search.corner_cards(frame, [])
    assert any(quad_iou(q, corners) > 0.9 for q in found)
    # Judged without levelling, the same outline is no face.
    monkeypatch.setattr(line_search, "face_symmetry", lambda f, q, level=False: face_symmetry(f, q))
    assert not any(quad_iou(q, corners) > 0.9 for q in corner_search.corner_cards(frame, []))
