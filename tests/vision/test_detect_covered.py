"""Cards found from one corner index when the rest is covered (`vision.covered`), reported by their visible
part, with a searching profile on frames found at full size only."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from hardware_sim.camera.art import draw_back
from tests.vision.conftest import finds
from tests.vision.test_detect_opened_index import _scene as _joined_scene
from tests.vision.test_detect_threshold import _place
from tests.vision.test_reoutline import _lay
from vision import pipeline
from vision.covered import VISIBLE_FILL, _placements, covered_cards, visible_part
from vision.errors import VisionInputError
from vision.geometry import order_quad, quad_area, quad_iou, side_lengths
from vision.index_first import index_marks
from vision.pipeline import Recognizer
from vision.profile import default_profile

SEARCHING = replace(default_profile(), recut=True, search=True)
Quad = npt.NDArray[np.float32]
FELT = (40, 110, 30)


def _upright(x: float, y: float) -> Quad:
    return np.array([[x, y], [x + 130, y], [x + 130, y + 182], [x, y + 182]], np.float32)


def _turned(quad: Quad, degrees: float, centre: tuple[float, float]) -> Quad:
    m = cv2.getRotationMatrix2D(centre, degrees, 1.0)
    return np.asarray(cv2.transform(quad.reshape(-1, 1, 2), m).reshape(4, 2), np.float32)


def _inside(point: tuple[float, float], quad: Quad) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), point, False) >= 0


# (the covering card's offset from the covered card, what shows of the covered card): a strip along its
# long side with its top-left index, its index end, and all of it but the far corner.
LAYOUTS = [((80, 10), "side strip"), ((8, 120), "end"), ((70, 110), "all but a corner")]


@pytest.mark.parametrize(("offset", "shows"), LAYOUTS)
@pytest.mark.parametrize("degrees", [0.0, 25.0])
def test_a_card_under_another_is_found_by_its_index_and_reported_by_its_visible_part(
        monkeypatch: pytest.MonkeyPatch, offset: tuple[int, int], shows: str, degrees: float) -> None:
    frame = np.full((520, 760, 3), FELT, np.uint8)
    under = _turned(_upright(250, 120), degrees, (380, 260))
    over = _turned(_upright(250 + offset[0], 120 + offset[1]), degrees, (380, 260))
    _lay(frame, "Qd", under)
    _lay(frame, "7s", over)
    # The detector found the card on top only.
    monkeypatch.setattr(pipeline, "find_cards", finds(frame, order_quad(over)))
    found = Recognizer(SEARCHING).identify(frame)
    assert [d.rank for d in found] == ["7", "Q"], shows
    queen = np.array(found[1].corners, np.float32)
    # Its outline is the part of the queen that shows: on the queen, its centre off the seven.
    assert _inside(found[1].center, under) and not _inside(found[1].center, over), shows
    inter, _ = cv2.intersectConvexConvex(queen, over)
    assert inter <= 0.1 * quad_area(queen), shows
    shown = quad_area(under) - cv2.intersectConvexConvex(under, over)[0]
    assert quad_area(queen) >= 0.6 * shown, shows


@pytest.mark.parametrize("book", [(310, 90, 460, 330), (230, 220, 420, 340)])
def test_a_card_under_an_object_is_reported_by_the_part_that_shows(book: tuple[int, int, int, int]) -> None:
    """A book over the card's far side or far end, not found as a card: the card's paper border ends at it,
    and so does the visible part."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    card = _upright(250, 120)
    _lay(frame, "Ks", card)
    cv2.rectangle(frame, book[:2], book[2:], (30, 50, 90), -1)
    (found,) = covered_cards(frame, [], SEARCHING, card_length=182.0)
    assert found.reading.rank == "K"
    x0, y0, x1, y1 = book
    centre = found.outline.mean(axis=0)
    assert not (x0 <= centre[0] <= x1 and y0 <= centre[1] <= y1)
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    inter, _ = cv2.intersectConvexConvex(found.outline, box)
    assert inter <= 0.1 * quad_area(found.outline)


def test_a_spread_none_of_whose_lower_cards_was_found_is_read_card_by_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spread from the left: a queen at the bottom, a jack over it, an ace over the jack; only the ace is
    found. The jack's and the queen's strips each show an index; each card is cut by the one over it."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    queen, jack, ace = _upright(200, 150), _upright(250, 155), _upright(300, 160)
    for code, quad in (("Qh", queen), ("Js", jack), ("Ad", ace)):
        _lay(frame, code, quad)
    monkeypatch.setattr(pipeline, "find_cards", finds(frame, order_quad(ace)))
    found = Recognizer(SEARCHING).identify(frame)
    assert sorted(d.rank or "-" for d in found) == ["A", "J", "Q"]
    for d in found[1:]:
        own, over = (queen, jack) if d.rank == "Q" else (jack, ace)
        assert _inside(d.center, own) and not _inside(d.center, over), d.rank


def test_an_index_joined_to_the_picture_s_frame_still_places_its_card() -> None:
    """A queen whose rank and pip touch the picture's frame by a thin line, in both corners (as in
    `test_detect_opened_index`): her index marks show once the ink's thin lines are cut, and place her."""
    frame, truth = _joined_scene(joined=True)
    empty = np.zeros(frame.shape[:2], np.uint8)
    assert not len(index_marks(frame, 170.0, empty)[0])
    cards, _ = _placements(frame, empty, 170.0)
    assert max(quad_iou(c, truth) for c in cards) > 0.6


def test_without_a_searching_profile_or_on_a_wide_frame_nothing_is_placed(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = np.full((520, 760, 3), FELT, np.uint8)
    under, over = _upright(250, 120), _upright(330, 130)
    _lay(frame, "Qd", under)
    _lay(frame, "7s", over)
    monkeypatch.setattr(pipeline, "find_cards", finds(frame, order_quad(over)))
    assert len(Recognizer(SEARCHING).identify(frame)) == 2
    assert len(Recognizer(default_profile()).identify(frame)) == 1
    # A 1280 x 720 frame (the live table's rendered frames): its 30 ms budget has no room for it.
    wide = np.full((720, 1280, 3), FELT, np.uint8)
    wide[:520, :760] = frame
    assert len(Recognizer(SEARCHING).identify(wide)) == 1


def test_a_card_found_already_is_not_placed_again() -> None:
    """A found outline a little inside its card leaves the card's index outside it: the card it places is
    the card found, not one under it."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    card = _upright(250, 120)
    _lay(frame, "Qd", card)
    centre = card.mean(axis=0)
    inner = (centre + (card - centre) * 0.85).astype(np.float32)
    assert covered_cards(frame, [inner], SEARCHING, card_length=182.0) == []
    # Without the outline, the same index places the queen.
    alone = covered_cards(frame, [], SEARCHING, card_length=182.0)
    assert [c.reading.rank for c in alone] == ["Q"]
    assert quad_iou(alone[0].card, card) > 0.7


def test_an_outline_found_but_not_read_on_the_card_is_its_own_not_a_cover() -> None:
    """A piece of the queen's face found and not read (its corners miss the index): it is the queen's own
    outline, so the queen placed from her index shows whole; taken as a card read, it would cover her."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    card = _upright(250, 120)
    _lay(frame, "Qd", card)
    piece = order_quad(np.array([[300, 200], [370, 200], [370, 290], [300, 290]], np.float32))
    (whole,) = covered_cards(frame, [], SEARCHING, card_length=182.0, unread=[piece])
    # (The simulated deck's index spacing places its cards about 15% short: the placed card is the measure.)
    assert whole.reading.rank == "Q" and quad_area(whole.outline) >= 0.95 * quad_area(whole.card)
    (cut,) = covered_cards(frame, [piece], SEARCHING, card_length=182.0)
    inter, _ = cv2.intersectConvexConvex(cut.outline, piece)
    assert inter <= 0.2 * quad_area(piece) and quad_area(cut.outline) <= 0.75 * quad_area(cut.card)


def test_the_visible_part_is_the_largest_rectangle_from_the_index_corner() -> None:
    card = _upright(100, 100)
    # Nothing over it: the whole card.
    whole, share = visible_part(card, 0, [], (800, 600))  # type: ignore[misc]
    assert share > 0.97 and quad_iou(whole, card) > 0.97
    # A card over its right 70%: the left strip, 30% wide.
    strip, share = visible_part(card, 0, [_upright(139, 90)], (800, 600))  # type: ignore[misc]
    assert share == pytest.approx(0.3, abs=0.04)
    assert strip[:, 0].min() == pytest.approx(100, abs=2) and strip[:, 0].max() == pytest.approx(139, abs=5)
    # Seen from the other index corner, that strip leaves the index out: none.
    assert visible_part(card, 1, [_upright(139, 90)], (800, 600)) is None
    # Cut by the frame's edge (up to 1 - VISIBLE_FILL of the rectangle may lie beyond it).
    cut, _ = visible_part(card, 0, [], (180, 600))  # type: ignore[misc]
    assert 177 <= cut[:, 0].max() <= 180 + (1 - VISIBLE_FILL) * 130 + 1
    assert side_lengths(cut)[1] == pytest.approx(182, abs=4)


def _small_frames(seeds: range, face_down: float) -> list[tuple[npt.NDArray[np.uint8], list[Quad]]]:
    """The simulated camera's frames at 960 x 540, as the live table's camera renders them (found at full size,
    so they reach the photographs' path), with the cards' true outlines."""
    options = RenderOptions(width=960, height=540, glare=0.0)
    out = []
    for seed in seeds:
        frame = render_with_truth(random_scene(seed, cards=8, face_down=face_down), seed, options)
        out.append((frame.image, [np.array(t.corners, np.float32) for t in frame.truth]))
    return out


def test_no_face_is_placed_on_the_simulated_camera_s_backs() -> None:
    """Never a face read from a back: backs of the simulated camera at 960 x 540, each with the other cards
    taken as found (so pieces of backs lie under and beside them), and the whole recognizer."""
    placed = 0
    for image, cards in _small_frames(range(100, 112), face_down=1.0):
        length = float(np.median([side_lengths(q)[1] for q in cards]))
        for k in range(len(cards)):
            placed += len(covered_cards(image, cards[:k] + cards[k + 1:], SEARCHING, card_length=length))
        placed += len(covered_cards(image, [], SEARCHING, card_length=length))
        assert all(d.rank is None for d in Recognizer(SEARCHING).identify(image))
    assert placed == 0


def test_a_back_under_a_face_is_not_read() -> None:
    frame = np.full((520, 760, 3), FELT, np.uint8)
    _place(frame, draw_back(), (315, 211), 0.0, 182.0)
    over = _upright(300, 140)
    _lay(frame, "Kc", over)
    assert covered_cards(frame, [order_quad(over)], SEARCHING, card_length=182.0) == []


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(VisionInputError):
        covered_cards(np.zeros((100, 100), np.uint8), [], SEARCHING, card_length=70.0)
    with pytest.raises(VisionInputError):
        covered_cards(np.zeros((100, 100, 3), np.uint8), [], SEARCHING, card_length=float("nan"))
    with pytest.raises(VisionInputError):
        covered_cards(np.zeros((100, 100, 3), np.uint8), [], SEARCHING, card_length=-3.0)
