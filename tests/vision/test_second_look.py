"""A photograph read a second time smaller (`pipeline.SECOND_LOOK`): what that reading may add, and when it runs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.pipeline import SECOND_LOOK, Detection, Recognizer, merged_outline, scaled, with_second_look
from vision.profile import default_profile

SEARCHING = replace(default_profile(), recut=True, search=True)


def _card(x: float, y: float, rank: str | None, *, face: str = "up") -> Detection:
    """A 50 x 70 outline with its top left corner at (x, y)."""
    return Detection(card=None, face="up" if face == "up" else "down", confidence=0.9 if rank else 0.0, rank=rank,
                     corners=((x, y), (x + 50, y), (x + 50, y + 70), (x, y + 70)))


NINE = _card(100, 100, "9")


@pytest.mark.parametrize(("first", "expected"), [
    pytest.param([], [NINE], id="nothing there: the card is added"),
    pytest.param([_card(300, 100, "K")], [_card(300, 100, "K"), NINE], id="a card elsewhere stays"),
    pytest.param([_card(105, 95, None)], [NINE], id="an unnamed outline there is replaced"),
    pytest.param([_card(90, 110, "T")], [_card(90, 110, "T")], id="a card named there is never changed"),
    pytest.param([_card(90, 110, "9")], [_card(90, 110, "9")], id="nor is one named alike"),
    pytest.param([_card(100, 100, None, face="down")], [_card(100, 100, None, face="down")], id="a back stays a back"),
])
def test_what_the_second_reading_adds(first: list[Detection], expected: list[Detection]) -> None:
    assert with_second_look(first, [NINE]) == expected


def _wide(rank: str | None, *, face: str = "up") -> Detection:
    """A 150 x 70 outline over x 100-250: the hull of a row of cards 50 wide, taken for one card."""
    return Detection(card=None, face="up" if face == "up" else "down", confidence=0.9 if rank else 0.0, rank=rank,
                     corners=((100, 100), (250, 100), (250, 170), (100, 170)))


ROW = [_card(100, 100, "T"), _card(150, 100, "K"), _card(200, 100, "A")]


@pytest.mark.parametrize(("first", "second", "expected"), [
    pytest.param([_wide(None, face="down")], ROW, ROW, id="an unread row taken for one card gives way to its cards"),
    pytest.param([_wide(None)], ROW[:2], ROW[:2], id="so does an unnamed one of two cards"),
    pytest.param([_wide("K")], ROW, ROW, id="and one named for one of them"),
    pytest.param([_wide("Q")], ROW, [_wide("Q")], id="one named for none of them stays, and hides them"),
    pytest.param([_wide(None, face="down")], ROW[:1], [_wide(None, face="down")], id="one card in it: a back stays"),
    pytest.param([_wide("K")], [_card(150, 100, "K"), _card(160, 105, "T")], [_wide("K")],
                 id="two cards in one place are no row"),
    pytest.param([_wide(None, face="down"), _card(400, 100, "9")], ROW, [_card(400, 100, "9"), *ROW],
                 id="the other cards stay"),
])
def test_an_outline_of_several_cards_gives_way_to_them(first: list[Detection], second: list[Detection],
                                                       expected: list[Detection]) -> None:
    assert with_second_look(first, second) == expected


@pytest.mark.parametrize(("detection", "named", "merged"), [
    pytest.param(_wide(None), ROW, True, id="three cards' centres in it"),
    pytest.param(_wide(None), [*ROW[:1], _card(400, 100, "9")], False, id="one in it, one outside"),
    pytest.param(_card(100, 100, "T"), ROW, False, id="a card's own outline holds only its own centre"),
    pytest.param(Detection(card=None, face="up", confidence=0.9, rank="K",
                           corners=((140, 100), (165, 100), (165, 170), (140, 170))),
                 [_card(110, 100, "T"), _card(150, 100, "K")], True,
                 id="a strip across two cards' meeting, its centre in both and theirs outside it"),
    pytest.param(_wide("K"), [_card(100, 100, None), *ROW[1:2]], False, id="only named cards count"),
])
def test_merged_outline(detection: Detection, named: list[Detection], merged: bool) -> None:
    assert merged_outline(detection, [d for d in named if d.rank is not None]) is merged


def test_an_unnamed_outline_of_the_second_reading_adds_nothing() -> None:
    first = [_card(300, 100, "K")]
    assert with_second_look(first, [_card(100, 100, None), _card(102, 98, None, face="down")]) == first


def test_two_cards_of_the_second_reading_in_one_place_are_added_once() -> None:
    assert with_second_look([], [NINE, _card(104, 96, "6")]) == [NINE]


def test_corners_are_scaled_back_to_the_frame() -> None:
    back = scaled(_card(30, 60, "Q"), (4 / 3, 1.25))
    far = 40 + 50 * 4 / 3
    assert np.allclose(back.corners, [(40, 75), (far, 75), (far, 162.5), (40, 162.5)])
    assert back.rank == "Q"


@pytest.mark.parametrize(("profile", "width", "height", "readings"), [
    # Smaller, then sharpened at its own size (`vision.focus`); evenly lit, it is not levelled, and too wide to
    # be enlarged.
    pytest.param(SEARCHING, 960, 540, [(540, 960), (405, 720), (540, 960)],
                 id="a photograph with a searching profile: again smaller and sharpened"),
    pytest.param(SEARCHING, 1280, 720, [(720, 1280)], id="the table camera's frame: once"),
    pytest.param(default_profile(), 960, 540, [(540, 960)], id="the built-in profile: once"),
])
def test_a_photograph_is_read_again_smaller_only_with_a_searching_profile(
        monkeypatch: pytest.MonkeyPatch, profile: object, width: int, height: int,
        readings: list[tuple[int, int]]) -> None:
    shapes: list[tuple[int, int]] = []

    def reading(self: Recognizer, image: np.ndarray) -> list[Detection]:
        shapes.append(image.shape[:2])
        # The first reading finds nothing; the second (smaller) one a card at (30, 60).
        return [_card(30, 60, "Q")] if len(shapes) == 2 else []

    monkeypatch.setattr(Recognizer, "_identify", reading)
    found = Recognizer(profile).identify(np.full((height, width, 3), 90, np.uint8))  # type: ignore[arg-type]
    assert shapes == readings
    if len(readings) > 1:
        (x0, y0), *_ = found[0].corners
        assert (x0, y0) == pytest.approx((30 / SECOND_LOOK, 60 / SECOND_LOOK))
    else:
        assert found == []
