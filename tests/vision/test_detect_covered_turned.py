"""A card placed from one index a few degrees off its true turn (`vision.covered`): the rank-to-pip direction
of a small index gives the turn to several degrees only, and its sides then miss the card's edges; turned
back onto them (`covered.straightened`) they are a card's edge, and the card is read."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_detect_covered import FELT, SEARCHING, _turned, _upright
from tests.vision.test_reoutline import _lay
from vision import covered
from vision.covered import MIN_CORNER_EVIDENCE, MIN_PLACED_EVIDENCE, TURNS, covered_cards, snapped, turned_evidence
from vision.geometry import quad_iou
from vision.outline import edge_distance, whiteness

Placements = tuple[npt.NDArray[np.float32], npt.NDArray[np.int_]]


def _turned_placements(frame: npt.NDArray[np.uint8], degrees: float) -> Placements:
    """The placements the card's indices give, each turned by `degrees` about its index corner."""
    cards, which = covered._placements(frame, np.zeros(frame.shape[:2], np.uint8), 182.0)
    turned = [_turned(c, degrees, (float(c[2 if w else 0][0]), float(c[2 if w else 0][1])))
              for c, w in zip(cards, which, strict=True)]
    return np.array(turned, np.float32), which


def _only(monkeypatch: pytest.MonkeyPatch, cards: npt.NDArray[np.float32], which: npt.NDArray[np.int_]) -> None:
    """Make these the only placements (none from the darkest ink's marks, in shade or not)."""
    def placements(image: object, exclude: object, length: float, *, ink: int = covered._PLAIN) -> Placements:
        return (cards, which) if ink == covered._PLAIN else (cards[:0], which[:0])
    monkeypatch.setattr(covered, "_placements", placements)


@pytest.mark.parametrize("degrees", [8.0, 9.0])
def test_a_card_placed_a_few_degrees_off_is_turned_onto_its_edges_and_read(
        monkeypatch: pytest.MonkeyPatch, degrees: float) -> None:
    frame = np.full((520, 760, 3), FELT, np.uint8)
    card = _upright(250, 120)
    _lay(frame, "9c", card)
    cards, which = _turned_placements(frame, degrees)
    # As placed (turned the way that takes its sides off the card), no placement's sides at its index corner
    # are a card's edge: the card was passed over.
    score = whiteness(frame)
    dist = edge_distance(np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8))
    evidences = [snapped(score, dist, c, int(w))[1] for c, w in zip(cards, which, strict=True)]
    assert max(evidences) < MIN_CORNER_EVIDENCE
    assert max(evidences) >= MIN_PLACED_EVIDENCE
    _only(monkeypatch, cards, which)
    (found,) = covered_cards(frame, [], SEARCHING, card_length=182.0)
    assert found.reading.rank == "9"
    # Turned back onto the card: its outline runs along the card's sides.
    assert quad_iou(found.outline, card) > 0.75


def test_a_placement_whose_sides_are_no_card_s_edge_however_turned_is_not_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The nine's index printed on a sheet of paper as large as the table: no side of the card it places is an
    edge, at any turn."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    _lay(frame, "9c", _upright(250, 120))
    sheet = frame.copy()
    sheet[(frame == FELT).all(axis=2)] = (235, 235, 235)
    cards, which = _turned_placements(sheet, 7.0)
    _only(monkeypatch, cards, which)
    assert covered_cards(sheet, [], SEARCHING, card_length=182.0) == []


@pytest.mark.parametrize("degrees", [-9.0, 0.0, 4.0, 9.0])
def test_the_turned_evidence_is_the_best_that_snapped_gives_over_the_turns(degrees: float) -> None:
    """`turned_evidence` samples every turn and shift at once; it must say what `snapped` says turn by turn."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    _lay(frame, "9c", _upright(250, 120))
    frame[100:330, 200:262] = 150  # a grey sheet over the left edge: the sides are a card's edge only in part
    score = whiteness(frame)
    dist = edge_distance(np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8))
    cards, which = _turned_placements(frame, degrees)
    assert len(cards)
    seen = set()
    for card, w in zip(cards, which, strict=True):
        corner = card[2] if w else card[0]
        one_by_one = max(snapped(score, dist, _turned(card, t, (float(corner[0]), float(corner[1]))), int(w))[1]
                         for t in TURNS)
        assert turned_evidence(score, dist, card, int(w)) == pytest.approx(one_by_one, abs=1e-9)
        seen.add(round(one_by_one, 2))
    assert len(seen) > 1  # placements of several evidences, not only sure or hopeless ones
