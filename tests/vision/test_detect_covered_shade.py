"""A card lying in a shadow that deepens along it (`vision.covered`, the shade round): its paper is too dark
for the index search's paper level (`index_first.MIN_PAPER`), so no round placed it, and its border, once
placed, fell under the paper level at its index a third of the way along. Its index's darkest ink on paper
from `covered.SHADE_PAPER` places it, and a border lighter than the table just beyond it is paper; an
object over the card, as light on both sides of the card's side, still ends the border."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_detect_covered import SEARCHING, _small_frames, _upright
from tests.vision.test_reoutline import _lay
from vision import covered
from vision.covered import SHADE_PAPER, CoveredCard, border_extents, covered_cards
from vision.errors import VisionInputError
from vision.geometry import side_lengths
from vision.identify import CardReading
from vision.index_first import MIN_PAPER, index_marks
from vision.outline import whiteness
from vision.pipeline import Recognizer

TABLE = (150, 170, 180)  # a beige table, as the photographs' kitchen tables
CARD = _upright(250, 120)  # x 250-380, y 120-302
LENGTH = 182.0
Placing = tuple[int, tuple[int, int], list[npt.NDArray[np.float32]]]


def _in_shade(near: float, far: float) -> npt.NDArray[np.uint8]:
    """A king of hearts on the table, the whole scene darkened by a shadow that deepens from `near` of the
    light at the card's top end to `far` at its bottom end."""
    frame = np.full((520, 760, 3), TABLE, np.uint8)
    _lay(frame, "Kh", CARD)
    y = np.arange(frame.shape[0], dtype=np.float32)[:, None]
    light = np.clip(near + (far - near) * (y - CARD[0, 1]) / LENGTH, far, near)
    shaded = np.asarray(frame * light[..., None], np.uint8)
    # A sheet of paper in the light, far from the card: the photograph is not dark overall, only the card's
    # part of it (in a photograph dark overall, `index_first.light_scale` lowers the usual rounds' levels).
    shaded[440:510, 20:140] = 240
    return shaded


def _inside(point: npt.NDArray[np.float32]) -> bool:
    return bool(CARD[0, 0] <= point[0] <= CARD[2, 0] and CARD[0, 1] <= point[1] <= CARD[2, 1])


@pytest.mark.parametrize(("near", "far"), [(0.4, 0.18), (0.45, 0.2), (0.5, 0.25)])
def test_a_card_in_a_deepening_shade_is_placed_from_its_index(near: float, far: float) -> None:
    frame = _in_shade(near, far)
    paper = int(frame[int(CARD[0, 1]) + 5, 300].min())
    assert SHADE_PAPER < paper <= MIN_PAPER  # (the card's paper by its top index)
    empty = np.zeros(frame.shape[:2], np.uint8)
    # The usual rounds see no index mark there: the paper is under MIN_PAPER.
    for kind in ({}, {"opened": True}, {"deep": True}):
        assert not len(index_marks(frame, LENGTH, empty, **kind)[0])  # type: ignore[arg-type]
    assert len(index_marks(frame, LENGTH, empty, deep=True, paper_range=(SHADE_PAPER, MIN_PAPER))[0])
    (found,) = covered_cards(frame, [], SEARCHING, card_length=LENGTH)
    assert found.reading.rank == "K"
    assert _inside(found.outline.mean(axis=0))


@pytest.mark.parametrize(("near", "far"), [(0.4, 0.18), (0.5, 0.25)])
def test_its_border_runs_on_in_the_shade_but_ends_at_an_object_over_it(monkeypatch: pytest.MonkeyPatch,
                                                                        near: float, far: float) -> None:
    frame = _in_shade(near, far)
    (found,) = covered_cards(frame, [], SEARCHING, card_length=LENGTH)
    card, score = found.card, whiteness(frame)
    _, along = border_extents(score, card, 0)
    assert along == covered._GRID[1]  # the long side's border all the way
    # At the paper level of its index alone, it ended where the shade fell under BORDER_PAPER of it.
    monkeypatch.setattr(covered, "SHADE_CONTRAST", np.inf)
    assert border_extents(score, card, 0)[1] < 0.8 * covered._GRID[1]
    monkeypatch.undo()
    # A grey object over the card's far end, as light as the card's border beside it: the same on both sides
    # of the card's side, so no border runs under it.
    covered_end = 230
    frame[covered_end:330, 200:420] = int(frame[covered_end + 20, int(CARD[0, 0]) + 2].mean())
    _, along = border_extents(whiteness(frame), card, 0)
    reach = (covered_end - card[0, 1]) / side_lengths(card)[1] * covered._GRID[1]
    assert along <= reach + 2


def test_no_face_is_placed_on_the_simulated_camera_s_backs_in_shade() -> None:
    """The shade round reads the darkest ink on darker paper: the simulated camera's backs at 960 x 540, each
    darkened into the shade round's paper levels, still give no card."""
    for image, cards in _small_frames(range(100, 106), face_down=1.0):
        length = float(np.median([side_lengths(q)[1] for q in cards]))
        for light in (0.45, 0.6):
            shaded = np.asarray(image * light, np.uint8)
            assert covered_cards(shaded, [], SEARCHING, card_length=length) == []


def test_bad_paper_ranges_are_typed_errors() -> None:
    frame = _in_shade(0.45, 0.2)
    empty = np.zeros(frame.shape[:2], np.uint8)
    with pytest.raises(VisionInputError):
        index_marks(frame, LENGTH, empty, deep=True, paper_range=(MIN_PAPER, SHADE_PAPER))


def _placed(quad: list[tuple[float, float]], rank: str, confidence: float) -> CoveredCard:
    card = np.array(quad, np.float32)
    return CoveredCard(outline=card, card=card, reading=CardReading(card=None, face_up=True, confidence=confidence,
                                                                    rank=rank))


def test_one_card_placed_from_its_two_indices_at_two_lengths_is_kept_once() -> None:
    """A nine placed from its top-left index at its length, and from its bottom-right index at nearly twice it
    (a shaded photograph): its second visible part ran off the card. The surer reading stays."""
    top = _placed([(250, 120), (380, 120), (380, 302), (250, 302)], "9", 0.95)
    # From the bottom-right corner (its index corner, the third), twice as long and 10% too wide.
    long_ = _placed([(237, -62), (380, -62), (380, 302), (237, 302)], "9", 0.81)
    placings: list[Placing] = [(0, (40, 56), []), (1, (40, 56), [])]
    kept, kept_placings = covered._placed_twice([top, long_], placings)
    assert kept == [top] and kept_placings == placings[:1]
    # Of other ranks, they are two cards.
    other = _placed([(237, -62), (380, -62), (380, 302), (237, 302)], "6", 0.81)
    assert len(covered._placed_twice([top, other], placings)[0]) == 2


def test_two_cards_of_one_rank_in_a_spread_stay_two() -> None:
    """A nine over another nine, shifted right and down by a third of a card: each was placed from its
    top-left index; the lower one's index corner lies beyond the upper card, not on it grown."""
    lower = _placed([(250, 120), (380, 120), (380, 302), (250, 302)], "9", 0.9)
    upper = _placed([(295, 150), (425, 150), (425, 332), (295, 332)], "9", 0.95)
    placings: list[Placing] = [(0, (40, 56), []), (0, (40, 56), [])]
    assert len(covered._placed_twice([lower, upper], placings)[0]) == 2


def test_one_card_placed_short_from_both_indices_is_one_card_spanning_them() -> None:
    """A king placed from its top-left index and from its bottom-right one, each placement 0.82 of the card's
    length (the simulated deck's index spacing): neither reaches the other's index corner. They are one
    card: the card spanned between the two corners, outlined again whole; a third placement, of another
    rank, stays as it was."""
    calls: list[tuple[int, str | None]] = []

    def outlined(card: npt.NDArray[np.float32], corner: int, reading: CardReading) -> tuple[CoveredCard, Placing]:
        calls.append((corner, reading.rank))
        return CoveredCard(outline=card, card=card, reading=reading), (corner, (40, 56), [])

    top = _placed([(519, 149), (624, 149), (623, 296), (518, 296)], "K", 0.88)
    bottom = _placed([(546, 185), (651, 185), (650, 332), (545, 332)], "K", 0.87)
    queen = _placed([(81, 152), (207, 151), (208, 329), (82, 330)], "Q", 0.9)
    placings: list[Placing] = [(0, (40, 56), []), (1, (40, 56), []), (0, (40, 56), [])]
    found, kept = covered._joined([top, bottom, queen], placings, outlined)
    assert [c.reading.rank for c in found] == ["K", "Q"] and calls == [(0, "K")]
    np.testing.assert_allclose(found[0].card, [(519, 149), (651, 149), (650, 332), (518, 332)], atol=1.5)
    assert kept[0][0] == 0 and found[1] is queen


def test_placements_that_are_not_one_card_are_not_joined() -> None:
    """Not joined: two kings placed from the same index corner (two cards of a spread); a king and a queen; a
    placement reaching the other's corner (`_placed_twice` keeps the surer); two corners spanning no card's
    shape (a king's index beside another king's, far apart)."""
    def outlined(card: npt.NDArray[np.float32], corner: int, reading: CardReading) -> tuple[CoveredCard, Placing]:
        raise AssertionError("nothing is outlined again")

    top = _placed([(519, 149), (624, 149), (623, 296), (518, 296)], "K", 0.88)
    bottom = _placed([(546, 185), (651, 185), (650, 332), (545, 332)], "K", 0.87)
    reaching = _placed([(519, 149), (651, 149), (650, 332), (518, 332)], "K", 0.9)
    wide = _placed([(600, 240), (705, 240), (704, 387), (599, 387)], "K", 0.87)
    for pair, corners in (([top, bottom], (0, 0)), ([top, _placed(bottom.card.tolist(), "Q", 0.87)], (0, 1)),
                          ([reaching, bottom], (0, 1)), ([top, wide], (0, 1))):
        placings: list[Placing] = [(corners[0], (40, 56), []), (corners[1], (40, 56), [])]
        found, _ = covered._joined(pair, placings, outlined)
        assert found == pair


def test_a_king_in_shade_read_from_both_indices_is_reported_once_whole() -> None:
    """A king in a shadow of 0.4 of the light on grey felt, a queen in the light: the king's outline is not
    found, and each of its indices places it too short. It was reported twice, by a strip at each index."""
    frame = np.full((520, 760, 3), (90, 100, 110), np.uint8)
    _lay(frame, "Qs", _upright(80, 150))
    _lay(frame, "Kh", _upright(520, 150))
    x = np.arange(frame.shape[1], dtype=np.float32)[None, :]
    light = np.clip(1.0 - 0.6 * (x - 420) / 40, 0.4, 1.0)
    shaded = np.asarray(np.rint(frame * light[..., None]), np.uint8)
    kings = [d for d in Recognizer(SEARCHING).identify(shaded) if d.rank == "K"]
    assert len(kings) == 1
    np.testing.assert_allclose(np.array(kings[0].corners), _upright(520, 150), atol=6)
