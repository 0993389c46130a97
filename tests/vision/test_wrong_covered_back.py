"""A covered card's visible part is its own paper (`vision.covered.own_paper`): a card back lying over its far
part, whose white rim meets the card's white paper without a shadow and whose edges do not run on onto the
table in the frame (no edge crosses the card: `crossing_covers` sees nothing), must not be reported as part
of the covered card. Simulated camera, tuning photographs' profile, overlapping cards at 960 x 540 (seed
206): a ten placed from its index had its visible part run over such a back, centred on the back (a face
read from a back, for the tracker)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware_sim.camera.art import draw_back
from tests.vision.test_reoutline import _lay
from vision.covered import covered_cards, crossing_covers, own_paper
from vision.geometry import order_quad, quad_area
from vision.profile import default_profile

SEARCHING = replace(default_profile(), recut=True, search=True)
Quad = npt.NDArray[np.float32]
FELT = (40, 110, 30)


def _upright(x: float, y: float, w: float = 130, h: float = 182) -> Quad:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def _lay_back(frame: npt.NDArray[np.uint8], x: int, y: int) -> None:
    """The simulated camera's card back, upright, 182 x 260 from (x, y) (its white rim, no shadow)."""
    frame[y:y + 260, x:x + 182] = cv2.resize(draw_back(), (182, 260), interpolation=cv2.INTER_AREA)[..., :3]


def _on(point: npt.NDArray[np.float32], quad: Quad) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0


def _scene(corner: tuple[int, int], code: str = "Qd") -> tuple[npt.NDArray[np.uint8], Quad, Quad]:
    """A card (a queen unless `code` says) at (250, 200)-(380, 382), its index top left; a back lying over
    its far part from `corner` on, its rim white on the card's paper; the frame cut 3 pixels beyond the
    card so that no edge of the back runs on onto the table."""
    frame = np.full((600, 700, 3), FELT, np.uint8)
    queen = _upright(250, 200)
    back = _upright(corner[0], corner[1], 182, 260)
    _lay(frame, code, queen)
    _lay_back(frame, *corner)
    return np.ascontiguousarray(frame[:385, :383]), queen, back


@pytest.mark.parametrize("code", ["Qd", "8d"])
@pytest.mark.parametrize("corner", [(290, 250), (280, 240), (285, 230)])
def test_a_back_over_the_covered_card_is_not_its_visible_part(corner: tuple[int, int], code: str) -> None:
    frame, queen, back = _scene(corner, code)
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    assert crossing_covers(gray, order_quad(queen), 0) == []  # the case the crossing edges cannot see
    (found,) = covered_cards(frame, [], SEARCHING, card_length=182.0)
    assert found.reading.rank == code[0]
    centre = found.outline.mean(axis=0)
    # Without the own-paper bound the visible part was all of the queen, centred on the back.
    assert _on(centre, queen) and not _on(centre, back)
    # The back's white rim (about 15 pixels here) is paper continuing the card's, without a shadow: the
    # visible part may run over it, never over the lattice beyond.
    lattice = back + np.array([[18, 18], [-18, 18], [-18, -18], [18, -18]], np.float32)
    inter, _ = cv2.intersectConvexConvex(found.outline, lattice)
    assert inter <= 0.05 * quad_area(found.outline)


def test_a_card_alone_is_all_its_own_paper() -> None:
    """A queen and a ten alone: the picture and the pips lie inside their paper, so every cell is theirs
    and the visible part is the whole card."""
    from vision.outline import whiteness

    for code in ("Qd", "Tc"):
        frame = np.full((520, 760, 3), FELT, np.uint8)
        card = _upright(250, 120)
        _lay(frame, code, card)
        cells = own_paper(whiteness(frame), order_quad(card), 0, court=code[0] in "JQK")
        assert cells.mean() >= 0.95, code
        # Placed from her index, the queen's card is 0.86 of her size (the index gives the length to about
        # +-16%): her picture reaches past its far sides, and is still enclosed by her paper (PAPER_BEYOND).
        placed = covered_cards(frame, [], SEARCHING, card_length=182.0)
        assert [found.reading.rank for found in placed] == (["Q"] if code == "Qd" else [])  # the built-in
        # profile places no ten from its index here
        for found in placed:
            assert quad_area(found.outline) >= 0.95 * quad_area(found.card), code
