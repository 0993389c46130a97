"""A covered card's visible part stops where something that no step found lies over it (`vision.covered`,
`crossing_covers`): a card over the placed card's far part, its own indices hidden by the frame's edge, is
bounded by its straight edge running from the table onto the placed card."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_reoutline import _lay
from vision.covered import covered_cards, crossing_covers
from vision.geometry import order_quad, quad_area
from vision.profile import default_profile

SEARCHING = replace(default_profile(), recut=True, search=True)
Quad = npt.NDArray[np.float32]
FELT = (40, 110, 30)


def _upright(x: float, y: float) -> Quad:
    return np.array([[x, y], [x + 130, y], [x + 130, y + 182], [x, y + 182]], np.float32)


def _scene(offset: tuple[int, int], crop: tuple[int, int]) -> tuple[npt.NDArray[np.uint8], Quad, Quad]:
    """A queen at (250, 200), a ten lying across over her far part at `offset` from her index corner (its
    indices at its top-right and bottom-left corners), the frame then cut to `crop` (width, height) so that
    neither of the ten's indices shows: only the queen's top-left index does. A card on another casts a thin
    shadow along its edges. (Without it, the ten's paper the same white as the queen's, nothing in the
    frame shows where the ten begins on her: that stays beyond `crossing_covers`.)"""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    queen = _upright(250, 200)
    x, y = 250 + offset[0], 200 + offset[1]
    ten = np.array([[x + 182, y], [x + 182, y + 130], [x, y + 130], [x, y]], np.float32)
    _lay(frame, "Qd", queen)
    cv2.polylines(frame, [np.round(ten - 1.5).astype(np.int32)], True, (150, 150, 150), 2)
    _lay(frame, "Tc", ten)
    return np.ascontiguousarray(frame[:crop[1], :crop[0]]), queen, ten


def _on(point: npt.NDArray[np.float32], quad: Quad) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0


@pytest.mark.parametrize("degrees", [0.0, 25.0])
@pytest.mark.parametrize(("offset", "crop"), [((40, 30), (440, 315)), ((60, 25), (440, 320)), ((35, 60), (450, 330))])
def test_a_card_over_the_placed_card_that_no_step_found_ends_its_visible_part(
        offset: tuple[int, int], crop: tuple[int, int], degrees: float) -> None:
    frame, queen, ten = _scene(offset, crop)
    # The whole frame turned about the queen's middle (what turns in from beyond the frame is table).
    m = cv2.getRotationMatrix2D((300.0, 260.0), degrees, 1.0)
    frame = np.asarray(cv2.warpAffine(frame, m, (frame.shape[1], frame.shape[0]), borderValue=FELT), np.uint8)
    queen, ten = (np.asarray(cv2.transform(q.reshape(-1, 1, 2), m).reshape(4, 2), np.float32) for q in (queen, ten))
    (found,) = covered_cards(frame, [], SEARCHING, card_length=182.0)
    assert found.reading.rank == "Q"
    # Before: the queen's visible part ran on over the ten's paper, its centre on the ten (the ten, read "Q").
    assert _on(found.outline.mean(axis=0), queen) and not _on(found.outline.mean(axis=0), ten)
    inter, _ = cv2.intersectConvexConvex(found.outline, ten)
    assert inter <= 0.1 * quad_area(found.outline)


def test_a_card_s_own_print_and_sides_do_not_cover_it() -> None:
    """A queen alone: her picture's frame lines lie inside her and her sides along her outline; nothing
    crosses her, and her visible part is all of her."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    queen = _upright(250, 120)
    _lay(frame, "Qd", queen)
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    assert crossing_covers(gray, order_quad(queen), 0) == []
    (found,) = covered_cards(frame, [], SEARCHING, card_length=182.0)
    assert quad_area(found.outline) >= 0.95 * quad_area(found.card)


def _covered_by(point: tuple[float, float], covers: list[Quad]) -> bool:
    return any(_on(np.array(point, np.float32), c) for c in covers)


def test_a_sheet_over_the_card_s_far_corner_covers_what_lies_beyond_its_edges() -> None:
    """A grey card (x 100-230, y 100-282) under a sheet lying from (150, 200) over its far corner and on
    the table, with a shadow along its edges: they cross the card and run on, and they cover the sheet's
    side of them only."""
    gray = np.full((400, 500), 60, np.uint8)
    card = _upright(100, 100)
    cv2.fillConvexPoly(gray, np.round(card).astype(np.int32), 230)
    cv2.rectangle(gray, (150, 200), (300, 399), 200, -1)
    cv2.line(gray, (148, 198), (300, 198), 130, 2)
    cv2.line(gray, (148, 198), (148, 399), 130, 2)
    covers = crossing_covers(gray, card, 0)
    assert _covered_by((200, 250), covers) and _covered_by((180, 275), covers)
    assert not _covered_by((200, 150), covers) and not _covered_by((120, 250), covers)
    # Seen from the other index corner (bottom-right), what lies beyond the edges is the other side.
    assert _covered_by((200, 150), crossing_covers(gray, card, 1))
    # A frame drawn inside the card (a picture's) or a sheet beside it crosses nothing.
    for x0, y0, x1, y1 in ((130, 140, 200, 240), (260, 120, 360, 300)):
        alone = np.full((400, 500), 60, np.uint8)
        cv2.fillConvexPoly(alone, np.round(card).astype(np.int32), 230)
        cv2.rectangle(alone, (x0, y0), (x1, y1), 150, 2 if x0 == 130 else -1)
        assert crossing_covers(alone, card, 0) == [], (x0, y0)
