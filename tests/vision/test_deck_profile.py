"""A deck profile settles what the network hesitated over and never turns one card into another."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.cards import ALL_CARDS
from vision.deck import DeckProfile
from vision.read import NONE, Readings


def _unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, np.float32)
    return a / np.linalg.norm(a)


def _readings(first: str, second: str, embedding: np.ndarray) -> Readings:
    probs = np.zeros((1, NONE + 1), np.float32)
    probs[0, ALL_CARDS.index(first)] = 0.5
    probs[0, ALL_CARDS.index(second)] = 0.45
    probs[0, NONE] = 0.05
    return Readings(probs, embedding[None, :])


PROFILE = DeckProfile("t", "0", {"As": _unit([1, 0, 0]), "Kh": _unit([0, 1, 0])}, True, {"As": 0.9, "Kh": 0.9})


def test_the_networks_first_choice_gains_where_the_prototype_agrees() -> None:
    r = PROFILE.sharpen(_readings("As", "Kh", _unit([1, 0.05, 0])))
    assert r.best(0)[0] == "As" and r.best(0)[1] > 0.8
    assert float(r.probs[0, NONE]) == np.float32(0.05)


def test_a_prototype_that_disagrees_only_takes_probability_away() -> None:
    r = PROFILE.sharpen(_readings("As", "Kh", _unit([0.05, 1, 0])))
    assert float(r.probs[0, ALL_CARDS.index("Kh")]) <= 0.45 + 1e-6
    assert float(r.probs[0, ALL_CARDS.index("As")]) <= 0.5 + 1e-6


def test_a_corner_unlike_the_decks_own_corners_gains_nothing() -> None:
    r = PROFILE.sharpen(_readings("As", "Kh", _unit([1, 0.3, 1])))
    assert float(r.probs[0, ALL_CARDS.index("As")]) <= 0.5 + 1e-6


def test_the_floors_are_saved_and_loaded(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    PROFILE.save(path)
    loaded = DeckProfile.load(path)
    assert loaded.floors == {"As": 0.9, "Kh": 0.9} and sorted(loaded.prototypes) == ["As", "Kh"]
