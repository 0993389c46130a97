"""A card whose index end lies under a cloth (`vision.covered`, the far-index round): placed from its
top-left index, only its long side there is a card's edge (the cloth runs across its index end, even turned),
so no edge confirms it; its other index, a card's length away, reads the same rank, and that does."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_detect_covered import FELT, SEARCHING, _upright
from tests.vision.test_reoutline import _lay
from vision import covered
from vision.covered import MIN_CORNER_EVIDENCE, covered_cards, snapped, snapped_sides, turned_evidence
from vision.outline import edge_distance, whiteness

CLOTH = (35, 25, 20)
LENGTH = 182.0


def _cloth(frame: npt.NDArray[np.uint8], points: list[tuple[int, int]]) -> None:
    cv2.fillPoly(frame, [np.array(points, np.int32)], CLOTH)


def _scene(card: str, *, far_covered: bool = False) -> npt.NDArray[np.uint8]:
    """The card at (250, 120), 130 x 182, a dark cloth over its index end from a fifth of its width on and down
    its right side (the top-left index shows); with `far_covered`, a second cloth over its bottom-right
    index."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    _lay(frame, card, _upright(250, 120))
    _cloth(frame, [(278, 60), (520, 60), (520, 240), (380, 240), (380, 200), (278, 118)])
    if far_covered:
        _cloth(frame, [(330, 250), (420, 250), (420, 330), (330, 330)])
    return frame


def _placed_from_top_left(frame: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int_]]:
    cards, which = covered._placements(frame, np.zeros(frame.shape[:2], np.uint8), LENGTH)
    near = [i for i, c in enumerate(cards) if which[i] == 0 and np.linalg.norm(c[0] - (250, 120)) < 20]
    return cards[near], which[near]


def _only(monkeypatch: pytest.MonkeyPatch, cards: npt.NDArray[np.float32], which: npt.NDArray[np.int_]) -> None:
    """Make these the only placements (none from the darkest ink's marks, in shade or not)."""
    def placements(image: object, exclude: object, length: float, *, ink: int = covered._PLAIN
                   ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int_]]:
        return (cards, which) if ink == covered._PLAIN else (cards[:0], which[:0])
    monkeypatch.setattr(covered, "_placements", placements)


def test_a_card_whose_index_end_is_under_a_cloth_is_confirmed_by_its_far_index(
        monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _scene("Kh")
    cards, which = _placed_from_top_left(frame)
    assert len(cards)
    score = whiteness(frame)
    dist = edge_distance(np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8))
    for card in cards:
        # Its index end is no card's edge, as placed or turned; its long side is one.
        moved, (end, side) = snapped_sides(score, dist, card, 0)
        assert end < MIN_CORNER_EVIDENCE <= side
        assert snapped(score, dist, card, 0)[1] == min(end, side)
        assert turned_evidence(score, dist, moved, 0) < MIN_CORNER_EVIDENCE
    _only(monkeypatch, cards, which)
    (found,) = covered_cards(frame, [], SEARCHING, card_length=LENGTH)
    assert found.reading.rank == "K"
    # Reported by its visible part: on the card, off the cloth.
    centre = found.outline.mean(axis=0)
    assert 250 <= centre[0] <= 380 and 120 <= centre[1] <= 302
    assert (frame[int(centre[1]), int(centre[0])] != CLOTH).any()


def test_without_its_far_index_such_a_card_is_not_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same card with its bottom-right index under a cloth too: one index and one side are not enough."""
    frame = _scene("Kh", far_covered=True)
    cards, which = _placed_from_top_left(frame)
    assert len(cards)
    _only(monkeypatch, cards, which)
    assert covered_cards(frame, [], SEARCHING, card_length=LENGTH) == []


def test_a_far_index_of_another_rank_confirms_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The king's bottom-right index replaced by a nine's (another card's corner there): not the same card."""
    frame = _scene("Kh")
    nine = _scene("9c")
    frame[240:302, 330:380] = nine[240:302, 330:380]
    cards, which = _placed_from_top_left(frame)
    assert len(cards)
    _only(monkeypatch, cards, which)
    assert covered_cards(frame, [], SEARCHING, card_length=LENGTH) == []
