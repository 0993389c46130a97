"""One detection per card: a card read from an outline that is only a piece of it is not placed a second time
from its other index by the covered cards' step (`pipeline.one_card`)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.conftest import finds
from tests.vision.test_reoutline import _lay
from vision import pipeline
from vision.geometry import order_quad
from vision.pipeline import Recognizer, one_card
from vision.profile import default_profile

SEARCHING = replace(default_profile(), recut=True, search=True)
Quad = npt.NDArray[np.float32]
FELT = (40, 110, 30)


def _upright(x: float, y: float, w: float = 130, h: float = 182) -> Quad:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def _frame(cards: list[tuple[str, Quad]]) -> npt.NDArray[np.uint8]:
    frame = np.full((520, 760, 3), FELT, np.uint8)
    for code, quad in cards:
        _lay(frame, code, quad)
    return frame


@pytest.mark.parametrize("knife", [False, True])
def test_a_card_read_from_a_piece_of_it_is_not_placed_again(monkeypatch: pytest.MonkeyPatch, knife: bool) -> None:
    """A jack found by the outline of its lower part only (as a court card's picture frame is found), or cut
    in two by a knife lying across it: its top-left index, outside that outline, placed the jack again (a
    tracker saw one card twice)."""
    jack = _upright(250, 120)
    frame = _frame([("Jd", jack)])
    if knife:
        cv2.line(frame, (200, 215), (430, 200), (60, 160, 140), 14)
    lower = order_quad(_upright(250, 222, 130, 80))
    monkeypatch.setattr(pipeline, "find_cards", finds(frame, lower))
    found = Recognizer(SEARCHING).identify(frame)
    assert [d.rank for d in found] == ["J"]
    # Without the rule, the covered cards' step reports the jack's upper part as a second jack.
    monkeypatch.setattr(pipeline, "one_card", lambda a, b, length: False)
    assert [d.rank for d in Recognizer(SEARCHING).identify(frame)] == ["J", "J"]


def test_a_card_of_the_same_rank_under_another_is_still_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two jacks, one over the other, the lower showing a strip along its side with its index: two cards."""
    under, over = _upright(220, 120), _upright(270, 135)
    frame = _frame([("Jd", under), ("Js", over)])
    monkeypatch.setattr(pipeline, "find_cards", finds(frame, order_quad(over)))
    found = Recognizer(SEARCHING).identify(frame)
    assert [d.rank for d in found] == ["J", "J"]


def test_pieces_of_one_card_make_a_card_s_rectangle() -> None:
    card_length = 182.0
    top, bottom = _upright(100, 100, 130, 90), _upright(100, 192, 130, 90)
    assert one_card(top, bottom, card_length)
    # A strip beside a card (a card of the same rank under it): nearly square together.
    assert not one_card(_upright(100, 100), _upright(230, 110, 40, 182), card_length)
    # A strip beyond a card's end: too long together.
    assert not one_card(_upright(100, 100), _upright(100, 282, 130, 50), card_length)
    # Pieces apart from each other are not one card.
    assert not one_card(top, _upright(100, 250, 130, 40), card_length)
