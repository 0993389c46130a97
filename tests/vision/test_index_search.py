"""Finding cards by their index (`vision.detect.index_corners`): glyph pairs in cluttered and close-up frames."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, procedural_faces, random_scene, render_with_truth
from vision.detect import Corner, find_cards, index_corners, index_grounds
from vision.pipeline import Recognizer
from vision.rectify import CORNER_W, Image, box_quad
from vision.settings import SETTINGS


def _on(face: Image, frame: Image, x: int, y: int, width: int) -> tuple[float, float]:
    """Lays the face `width` pixels wide with its top-left corner at (x, y); returns where its index's rank is."""
    h = round(width * face.shape[0] / face.shape[1])
    frame[y:y + h, x:x + width] = cv2.resize(face, (width, h), interpolation=cv2.INTER_AREA)
    return x + 0.09 * width, y + 0.09 * h


def _near(corners: list[Corner], point: tuple[float, float], reach: float) -> bool:
    """A proposal framing the index at `point` (its window reaches down and across from the corner)."""
    for c in corners:
        centre = c.point + 0.15 * c.widths[0] * (c.along_short + 1.4 * c.along_long)
        if float(np.hypot(*(centre - np.asarray(point)))) < reach:
            return True
    return False


def test_an_index_low_in_a_frame_cluttered_above_is_still_proposed() -> None:
    """Rows of dots (a patterned cloth, a room) above a card hold over a hundred glyph pairs; the card's index, low
    in the frame, is still among the proposals read (a cap of 96 pairs taken in raster order dropped it)."""
    frame = np.full((720, 1280, 3), 215, np.uint8)
    for row in range(2):
        for col in range(20):
            cv2.circle(frame, (40 + 20 * col, 40 + 20 * row), 6, (40, 40, 40), -1)
    face = procedural_faces(0).face("7h")
    rank = _on(face, frame, 900, 420, 180)
    found = find_cards(frame, indices=False)
    alone = replace(found, outlines=[])  # as on a light desk: the card found by its index only
    corners = index_corners(frame, alone)
    assert _near(corners, rank, 20.0)
    assert len(corners) > 96


def test_an_index_touched_by_a_thin_line_is_still_proposed() -> None:
    """A one-pixel line running into the rank (a card's edge, a line drawn on the table, a picture's frame) makes
    one long tangle of it with the glyph; the tangle is cut again with the line opened away, so the index is
    proposed (it was lost in the tangle)."""
    frame = np.full((720, 1280, 3), 215, np.uint8)
    face = procedural_faces(0).face("7h")
    rank = _on(face, frame, 600, 300, 180)
    alone = replace(find_cards(frame, indices=False), outlines=[])
    assert _near(index_corners(frame, alone), rank, 20.0)
    x, y = round(rank[0]), round(rank[1])
    cv2.line(frame, (40, y), (x, y), (40, 40, 40), 1)
    cv2.line(frame, (x, y), (x, 700), (40, 40, 40), 1)
    assert _near(index_corners(frame, alone), rank, 20.0)


def test_a_black_cards_index_beside_a_light_desk_is_proposed() -> None:
    """A black deck's card (gold ink on near-black paper) on a light desk, small as at a table camera's distance:
    its index lies a few pixels from the card's edge. The ink is looked for against the mean of the card around
    it, not of the desk beside it (the desk's light raised the mean over the index, and its thin strokes were
    lost)."""
    frame = np.full((720, 1280, 3), 225, np.uint8)
    rank = _on(procedural_faces(0).black().face("7h"), frame, 600, 300, 90)
    alone = replace(find_cards(frame, indices=False), outlines=[])
    assert _near(index_corners(frame, alone), rank, 14.0)


def test_a_close_up_index_taller_than_an_eighth_of_the_frame_is_read() -> None:
    """A card photographed close (a phone over the table, a scan), its index glyphs a sixth of the frame's height,
    cut by the frame so that no outline closes round it: named by its index."""
    face = procedural_faces(0).face("Kd")
    frame = np.full((480, 640, 3), 120, np.uint8)
    w = 560
    h = round(w * face.shape[0] / face.shape[1])
    big = cv2.resize(face, (w, h), interpolation=cv2.INTER_AREA)
    frame[40:480, 40:40 + w] = big[:440]
    names = [d.card for d in Recognizer().identify(frame)]
    assert "Kd" in names


def test_a_rank_touching_its_suit_is_proposed_as_one_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """A jumbo index, or one blurred together, prints its rank touching its suit: one blob about twice as tall as
    wide, proposed as the index it is (either end may be the rank). As two glyphs only, it was never proposed."""
    import vision.detect

    frame = np.full((480, 640, 3), (40, 110, 30), np.uint8)  # felt
    cv2.rectangle(frame, (200, 100), (380, 352), (245, 245, 245), -1)  # a card
    cv2.putText(frame, "J", (212, 134), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 3)
    cv2.circle(frame, (222, 141), 8, (20, 20, 20), -1)  # its suit, touching the rank
    found = find_cards(frame, indices=False)
    corners = index_corners(frame, found)
    upright = [c for c in corners if c.along_long[1] > 0.9]
    assert upright and all(float(np.hypot(*(c.point - (200, 100)))) < 15 for c in upright)
    assert any(c.along_long[1] < -0.9 for c in corners)  # read the other way round too
    monkeypatch.setattr(vision.detect, "_stack", lambda *args: [])
    assert index_corners(frame, found) == []


def test_a_large_index_on_grey_paper_at_the_frames_edge_is_searched() -> None:
    """A card in warm light (its paper grey) lies half out of the frame on a wooden table, no outline of it found:
    its large red index darkens the local mean under it below the paper level. The hole the paper closes round it
    is ground all the same, and the card is named by its index (was: no ground there, nothing found)."""
    frame = np.zeros((640, 640, 3), np.uint8)
    frame[:] = (90, 140, 190)  # warm wood
    face = cv2.resize(procedural_faces(0).face("8h"), None, fx=3.0, fy=3.0, interpolation=cv2.INTER_AREA)
    shown = face[:260, :580]  # the card's top, the rest out of the frame
    frame[380:, 60:] = (shown * 0.55).astype(np.uint8)  # grey paper
    found = find_cards(frame, indices=False)
    rank = (60 + 0.09 * face.shape[1], 380 + 0.09 * face.shape[0])
    assert not found.outlines
    x, y = (round(v * found.ground.scale) for v in rank)
    assert found.ground.paper[y, x] > 0
    assert [d.card for d in Recognizer().identify(frame) if d.card is not None] == ["8h"]


def test_an_index_against_the_edge_of_a_card_read_is_searched() -> None:
    """In a fanned hand a card's index lies right at the edge of the card on top of it. Once that card is read its
    outline is left out of the search, but not the paper beside it: the index under its edge is still proposed
    (was: a margin around the card read was left out too, and took the index with it)."""
    frame = np.full((720, 1280, 3), (40, 110, 30), np.uint8)  # felt
    under = procedural_faces(0).face("7h")
    rank = _on(under, frame, 300, 200, 150)
    top = procedural_faces(0).face("Ks")
    h = round(150 * top.shape[0] / top.shape[1])
    left = 322  # a few pixels right of the index under it
    frame[200:200 + h, left:left + 150] = cv2.resize(top, (150, h), interpolation=cv2.INTER_AREA)
    found = find_cards(frame, indices=False)
    read = replace(found, outlines=[box_quad(left, 200, left + 150, 200 + h)])
    assert _near(index_corners(frame, read, grounds=index_grounds(read, [0])), rank, 15.0)


def test_the_table_beside_cards_read_proposes_no_index() -> None:
    """Ten cards apart on a wooden table, every one read: the table top in the ground's reach past their edges is
    left out of the search with them, so its grain pairs up into no index window (leaving out the cards alone, it
    made two dozen windows along their edges, each read for nothing)."""
    seed = 907
    frame = render_with_truth(random_scene(seed, cards=10, face_down=0.2), seed, RenderOptions()).image
    found = find_cards(frame, indices=False)
    assert len(found.outlines) == 10
    assert index_corners(frame, found, grounds=index_grounds(found, range(len(found.outlines)))) == []


@pytest.mark.parametrize("card", ["8s", "5d", "Kc"])
def test_a_card_cut_by_the_frames_corner_is_named_by_its_index(card: str) -> None:
    """A phone's photograph cuts a card at the frame's corner: its outline is the part in the frame, so the index
    lies well inside that outline by the outline's own proportions. Its glyph pairs are searched all the same (the
    search within an outline keeps to its sides, where an index lies, only when the outline is the whole card)."""
    frame = np.full((640, 640, 3), (40, 110, 30), np.uint8)  # felt
    face = procedural_faces(0).face(card)
    width = 340
    big = cv2.resize(face, (width, round(width * face.shape[0] / face.shape[1])), interpolation=cv2.INTER_AREA)
    frame[460:, 440:] = big[:180, :200]
    assert [d.card for d in Recognizer().identify(frame)] == [card]


def test_faint_streaks_of_a_light_table_are_no_glyphs() -> None:
    """A light wooden table's grain is light enough to be paper, and its streaks, a little darker, pass for ink and
    pair up by the hundred (a photograph's reading time went on them). A glyph's ink must stand well beyond the
    paper around it, as a printed index does: the streaks propose nothing, the card's index still is proposed."""
    frame = np.full((720, 1280, 3), (150, 190, 215), np.uint8)  # light wood
    streaks = frame.copy()
    for row in range(12):
        for col in range(30):
            x, y = 40 + 40 * col, 30 + 24 * row
            cv2.ellipse(streaks, (x, y), (9, 4), 10 * (row % 3), 0, 360, (127, 167, 192), -1)
    rank = _on(procedural_faces(0).face("7h"), streaks, 900, 420, 180)
    alone = replace(find_cards(streaks, indices=False), outlines=[])  # as on a light desk: found by its index only
    corners = index_corners(streaks, alone)
    assert _near(corners, rank, 20.0)
    assert not [c for c in corners if c.point[1] < 330]  # none among the streaks (above the card)


def test_where_the_cap_cuts_the_pairs_of_the_most_inked_glyphs_are_kept() -> None:
    """A frame holding more glyph pairs than are read (`Settings.max_index_pairs`): rows of grey dots, ink enough
    to count, above a card whose index is printed black. The cap keeps the pairs of the most inked glyphs first,
    so the card's index is proposed (taken in raster order, the pairs above it filled the cap)."""
    frame = np.full((720, 1280, 3), 215, np.uint8)
    for row in range(8):
        for col in range(40):
            cv2.circle(frame, (30 + 18 * col, 30 + 18 * row), 6, (165, 165, 165), -1)
    rank = _on(procedural_faces(0).face("7h"), frame, 900, 420, 180)
    alone = replace(find_cards(frame, indices=False), outlines=[])
    corners = index_corners(frame, alone)
    assert len(corners) == SETTINGS.max_index_pairs  # the cap cut
    assert _near(corners, rank, 20.0)


def test_a_lattice_pairs_up_only_along_its_rim() -> None:
    """A back's lattice (a weave, a grid of dots) is glyph-like blobs all round one another, each pairing with its
    eight neighbours: a pair of two such glyphs is the pattern's, not proposed (they were read by the hundred); only
    pairs with a glyph on the rim, of fewer neighbours, are. A card's index beside it still is proposed."""
    frame = np.full((720, 1280, 3), 215, np.uint8)
    rows, cols, step = 6, 7, 16
    for row in range(rows):
        for col in range(cols):
            cv2.circle(frame, (100 + step * col, 100 + step * row), 7, (40, 40, 40), -1)
    rank = _on(procedural_faces(0).face("7h"), frame, 900, 420, 180)
    alone = replace(find_cards(frame, indices=False), outlines=[])
    corners = index_corners(frame, alone)
    assert _near(corners, rank, 20.0)
    pairs = []  # where each proposal's glyph pair lies: its window's origin moved back (`_pairs`' framing)
    for c in corners:
        glyph = c.widths[0] * CORNER_W / 1.7  # a glyph's size
        pairs.append(c.point + 0.75 * glyph * c.along_short + 0.65 * 2.2 * glyph * c.along_long)
    lattice = [p for p in pairs if p[0] < 400]
    assert lattice  # its rim's pairs
    inner = [p for p in lattice if 100 + step * 0.75 < p[0] < 100 + step * (cols - 1.75)
             and 100 + step * 0.75 < p[1] < 100 + step * (rows - 1.75)]
    assert not inner


def test_a_small_frame_of_small_cards_is_searched_for_indices_scaled_up() -> None:
    """A light desk filmed small (480 x 270, cards about 35 pixels wide): the cards' glyphs are too few pixels to
    pair, so the frame is searched scaled up (`Settings.index_card_width`); more cards are named, none wrongly."""
    scaled_up, as_it_is = Recognizer(), Recognizer(settings=replace(SETTINGS, index_card_width=0.0))
    counts = []
    for recognizer in (scaled_up, as_it_is):
        named = 0
        for seed in (3, 5, 6):
            frame = render_with_truth(random_scene(seed, cards=8, face_down=0.2, surface="desk"), seed,
                                      RenderOptions(faces=procedural_faces(0)))
            face_up = {t.card for t in frame.truth if t.face_up}
            cards = [d.card for d in recognizer.identify(cv2.resize(frame.image, (480, 270),
                                                                     interpolation=cv2.INTER_AREA)) if d.card]
            assert set(cards) <= face_up
            named += len(cards)
        counts.append(named)
    assert counts[0] >= counts[1] + 4, counts
