"""The held-out cards judged fully visible by eye (`bench.visible`) and how the rank bench scores them."""

from __future__ import annotations

import pytest

from bench.visible import HIDDEN, HiddenCard, HiddenCardError, hidden_cards
from bench.vision import DATASETS, Score, _labelled, held_out, score_ranks
from vision.pipeline import Detection


def _seen(x0: float, y0: float, x1: float, y1: float, rank: str | None) -> Detection:
    return Detection(card=None, face="up", confidence=0.9, rank=rank,
                     corners=((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def test_a_hidden_card_is_found_by_its_photo_and_box() -> None:
    boxes = [(10.0, 10.0, 60.0, 80.0), (40.0, 20.0, 90.0, 90.0)]
    hidden = [HiddenCard(filename="a.jpg", box=(40.0, 20.0, 90.0, 90.0), why="under the other"),
              HiddenCard(filename="b.jpg", box=(10.0, 10.0, 60.0, 80.0), why="another photo")]
    assert hidden_cards("a.jpg", boxes, hidden) == {1}
    assert hidden_cards("c.jpg", boxes, hidden) == frozenset()


@pytest.mark.parametrize("boxes", [[(10.0, 10.0, 60.0, 80.0)], [(40.0, 20.0, 90.0, 90.0)] * 2])
def test_a_hidden_card_that_names_no_labelled_card_or_two_is_refused(
        boxes: list[tuple[float, float, float, float]]) -> None:
    hidden = [HiddenCard(filename="a.jpg", box=(40.0, 20.0, 90.0, 90.0), why="")]
    with pytest.raises(HiddenCardError, match="expected exactly one"):
        hidden_cards("a.jpg", boxes, hidden)


def test_the_picked_cards_are_scored_in_place_of_those_standing_alone() -> None:
    # A nine lying on a ten: neither stands alone (their boxes overlap); the nine, on top, is fully visible.
    cards = [("9", 10.0, 10.0, 60.0, 80.0), ("T", 40.0, 20.0, 90.0, 90.0)]
    seen = [_seen(10, 10, 60, 80, "9")]
    alone, picked = Score(), Score()
    score_ranks(seen, cards, (400, 300), Score(), alone)
    score_ranks(seen, cards, (400, 300), Score(), picked, picked=[0])
    assert (alone.right, alone.missed) == (0, 0)
    assert (picked.right, picked.wrong, picked.unknown, picked.missed) == (1, 0, 0, 0)
    score_ranks(seen, cards, (400, 300), Score(), picked, picked=[1])
    assert (picked.right, picked.missed) == (1, 1)


def test_every_hidden_card_names_one_held_out_card_of_the_data_set() -> None:
    folder = DATASETS / "real-photos-dev"
    if not (folder / "labels.csv").is_file():
        pytest.skip(f"{folder} absent: the real photographs are not in this checkout's ../shared")
    labels = _labelled(folder)
    assert all(held_out(card.filename) for card in HIDDEN)
    hidden = {name: hidden_cards(name, [(x0, y0, x1, y1) for _, x0, y0, x1, y1 in cards])
              for name, cards in labels.items() if held_out(name)}
    assert sum(len(h) for h in hidden.values()) == len(HIDDEN) == 35
    assert sum(len(labels[name]) - len(h) for name, h in hidden.items()) == 101
