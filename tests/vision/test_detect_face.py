"""A card face told by its print rather than its index (`vision.face`): half-turn symmetric, with ink; and
the cards it lets the detector find whose indices do not read (`vision.detect`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import ART_H, ART_W, PAPER, draw_back, draw_face
from tests.vision.test_detect_threshold import _found, _paper_scene, _place
from vision import detect
from vision.errors import VisionInputError
from vision.face import MIN_INK, MIN_SYMMETRY, face_symmetry, looks_like_face
from vision.geometry import order_quad
from vision.outline import edge_evidence, threshold_proposals


def _on_table(art: np.ndarray, angle: float = 14.0) -> tuple[np.ndarray, np.ndarray]:
    frame = np.full((400, 500, 3), (40, 60, 90), np.uint8)
    corners = _place(frame, art, (250, 200), angle)
    return frame, order_quad(corners)


@pytest.mark.parametrize("card", ["9c", "Ah", "Td", "Ks"])
def test_a_card_face_is_half_turn_symmetric_with_ink(card: str) -> None:
    frame, quad = _on_table(draw_face(card))
    symmetry, ink = face_symmetry(frame, quad)
    assert symmetry >= MIN_SYMMETRY and ink >= MIN_INK
    assert looks_like_face(frame, quad)


def test_blank_paper_is_symmetric_but_has_no_ink() -> None:
    frame, quad = _on_table(np.full((ART_H, ART_W, 3), PAPER, np.uint8))
    assert face_symmetry(frame, quad)[1] < MIN_INK
    assert not looks_like_face(frame, quad)


def test_a_printed_page_or_a_rough_texture_is_no_face() -> None:
    page = np.full((ART_H, ART_W, 3), PAPER, np.uint8)
    for y in range(20, ART_H // 2, 14):  # lines of text on the top half only, left-aligned
        cv2.line(page, (15, y), (15 + (y * 37) % (ART_W - 40), y), (30, 30, 30), 4)
    frame, quad = _on_table(page)
    assert not looks_like_face(frame, quad)
    rng = np.random.default_rng(5)
    texture = cv2.GaussianBlur(rng.integers(0, 255, (ART_H, ART_W, 3), dtype=np.uint8), (9, 9), 0)
    frame, quad = _on_table(np.asarray(texture, np.uint8))
    assert face_symmetry(frame, quad)[0] < MIN_SYMMETRY


def test_bad_input_is_a_typed_error() -> None:
    frame, quad = _on_table(draw_face("9c"))
    with pytest.raises(VisionInputError):
        face_symmetry(frame[:, :, 0], quad)
    with pytest.raises(VisionInputError):
        face_symmetry(frame, quad[:3])
    with pytest.raises(VisionInputError):
        face_symmetry(frame, np.full((4, 2), np.nan, np.float32))


def _unreadable(card: str) -> np.ndarray:
    """A face whose corner indices are gone (worn, blurred past reading): only its pips are left."""
    art = draw_face(card)
    iw, ih = round(ART_W * 0.2), round(ART_H * 0.3)
    art[:ih, :iw] = PAPER
    art[ART_H - ih:, ART_W - iw:] = PAPER
    return art


def test_a_face_without_a_readable_index_is_found_by_its_print(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, corners = _paper_scene(_unreadable("9c"))
    assert len(_found(detect.find_cards(frame), corners)) == 1
    # It is the face test that finds it: without it the threshold path wants both indices.
    monkeypatch.setattr(detect, "FACE_EVIDENCE", 2.0)
    assert _found(detect.find_cards(frame), corners) == []


def test_a_back_is_no_face_and_is_not_invented_on_a_light_sheet() -> None:
    # A back's lattice is half-turn symmetric, but its field is no paper with ink on it.
    frame, quad = _on_table(draw_back())
    assert not looks_like_face(frame, quad)
    frame, _ = _paper_scene(draw_back())
    assert detect.find_cards(frame) == []


def test_two_indices_on_an_inkless_quad_do_not_make_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    # A blank card-shaped sheet half on a light sheet: as if both its corners had read as indices (on the
    # photos: a quad over carpet whose corners fall on two cards' indices), it is still no card face.
    frame, corners = _paper_scene(np.full((ART_H, ART_W, 3), PAPER, np.uint8))
    monkeypatch.setattr(detect, "_index_count", lambda _frame, _quad: 2)
    assert _found(detect.find_cards(frame), corners) == []
    monkeypatch.setattr(detect, "SURE_INK", -1.0)
    assert len(_found(detect.find_cards(frame), corners)) == 1


def test_a_four_edge_face_displaces_a_quad_spanning_it_and_the_card_under_it() -> None:
    # A ten lying over the right part of a king: one quad across the king's index strip and the ten
    # shows an index at both corners (one of each card) but no card's print; the ten's own outline does.
    frame = np.full((540, 960, 3), (40, 60, 90), np.uint8)
    king = order_quad(_place(frame, draw_face("Kc"), (400, 270), 0.0))
    ten = order_quad(_place(frame, draw_face("Ts"), (470, 270), 0.0))
    spanning = order_quad(np.array([king[0], ten[1], ten[2], king[3]], np.float32))
    assert detect._spans_two(frame, ten, [spanning])
    # Not the other way round, and a card whose print is in view is never given up for another face.
    assert not detect._spans_two(frame, spanning, [ten])
    other = order_quad(_place(frame, draw_face("9h"), (750, 270), 5.0))
    assert not detect._spans_two(frame, ten, [other])
    assert not detect._spans_two(frame, ten, [spanning, other])


def test_a_clean_face_displaces_a_two_index_quad_that_is_no_face(monkeypatch: pytest.MonkeyPatch) -> None:
    # On the photos, a threshold blob of part of a king and the table beside it read an index at both
    # corners and hid the king's own clean outline (a face, whose indices did not read).
    frame, corners = _paper_scene(_unreadable("Kc"))
    card = order_quad(corners)
    width = card[1] - card[0]
    spurious = order_quad(card - 0.4 * width)  # mostly on the card, partly on the light sheet
    _a_face_wins_over(monkeypatch, frame, corners, spurious)


def test_a_face_beats_a_better_edged_two_index_quad_that_is_no_face(monkeypatch: pytest.MonkeyPatch) -> None:
    # On carpet, a quad from the table to a king's far corner read an index at both corners (one the
    # king's) and had a cleaner edge than the king's own outline: the king's print decides.
    frame, corners = _paper_scene(draw_face("Kc"))
    card = order_quad(corners)
    far = card[2]
    spurious = order_quad(far + (card - far) * 1.6)  # the card's far corner, reaching out over the sheet

    def evidence(score: np.ndarray, dist: np.ndarray, quad: np.ndarray) -> tuple[float, float]:
        return (1.0, 1.0) if np.allclose(quad, spurious) else edge_evidence(score, dist, quad)

    monkeypatch.setattr(detect, "edge_evidence", evidence)
    _a_face_wins_over(monkeypatch, frame, corners, spurious)


def _a_face_wins_over(monkeypatch: pytest.MonkeyPatch, frame: np.ndarray, corners: np.ndarray,
                      spurious: np.ndarray) -> None:
    """`spurious`, a quad that is no face, offered as a threshold card with both indices read, gives way to
    the card's own outline; and without the rule (`SPAN_FACE` out of reach) it keeps the card out."""
    assert face_symmetry(frame, spurious)[0] < detect.SPAN_NO_FACE
    real_count = detect._index_count

    def proposals(score: np.ndarray, *args: object, **kwargs: object) -> list[np.ndarray]:
        assert score.shape == frame.shape[:2]  # the region searched is the whole frame: no offset
        return [*threshold_proposals(score, *args, **kwargs), spurious]  # type: ignore[arg-type]

    monkeypatch.setattr(detect, "threshold_proposals", proposals)
    monkeypatch.setattr(detect, "_index_count",
                        lambda f, q: 2 if np.allclose(q, spurious) else real_count(f, q))
    quads = detect.find_cards(frame)
    assert len(_found(quads, corners)) == 1
    assert not any(np.allclose(q, spurious) for q in quads)
    monkeypatch.setattr(detect, "SPAN_FACE", 2.0)
    # The rule alone: the search from a corner (`vision.corner_search`) would find a card that a quad more
    # than twice its size keeps out.
    monkeypatch.setattr(detect, "corner_cards", lambda frame, exclude: [])
    quads = detect.find_cards(frame)
    assert _found(quads, corners) == []
    assert any(np.allclose(q, spurious) for q in quads)
