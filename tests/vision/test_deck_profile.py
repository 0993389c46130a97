"""A deck profile settles what the network hesitated over, never turns one card into another, and leaves
"not an index" alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.cards import ALL_CARDS
from vision.deck import DeckProfile
from vision.errors import VisionInputError
from vision.read import NONE, Readings


def _unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, np.float32)
    return a / np.linalg.norm(a)


def _readings(first: str, second: str, embedding: np.ndarray, none: float = 0.05) -> Readings:
    """The network torn between two cards (first a little ahead), `none` sure it is no index."""
    probs = np.zeros((1, NONE + 1), np.float32)
    probs[0, ALL_CARDS.index(first)] = 0.52 * (1 - none)
    probs[0, ALL_CARDS.index(second)] = 0.48 * (1 - none)
    probs[0, NONE] = none
    return Readings(probs, embedding[None, :])


AS, KH = _unit([1, 0.1, 0]), _unit([0.1, 1, 0])
PROFILE = DeckProfile("t", "0", {"As": AS, "Kh": KH})


def test_the_networks_first_choice_gains_where_its_prototype_agrees() -> None:
    for first, second, e in (("As", "Kh", AS), ("Kh", "As", KH)):
        r = PROFILE.sharpen(_readings(first, second, e))
        assert r.best(0)[0] == first and r.best(0)[1] > 0.9  # from 0.49
        assert float(r.probs[0].sum()) <= 1.0 + 1e-6


def test_a_prototype_that_disagrees_only_takes_probability_away() -> None:
    before = _readings("As", "Kh", KH)
    r = PROFILE.sharpen(before)
    assert float(r.probs[0, ALL_CARDS.index("Kh")]) <= float(before.probs[0, ALL_CARDS.index("Kh")]) + 1e-6
    assert r.best(0)[1] < 0.5  # unknown, never the other card


def test_a_gain_is_bounded_so_a_corner_of_no_card_in_particular_stays_unnamed() -> None:
    probs = np.full((1, NONE + 1), 0.9 / NONE, np.float32)
    probs[0, ALL_CARDS.index("As")] += 0.05
    probs[0, NONE] = 0.05
    r = PROFILE.sharpen(Readings(probs / probs.sum(), AS[None, :]))
    assert r.best(0)[0] == "As" and r.best(0)[1] < 0.3


def test_not_an_index_is_the_networks_alone() -> None:
    r = PROFILE.sharpen(_readings("As", "Kh", KH, none=0.7))
    assert float(r.probs[0, NONE]) == pytest.approx(0.7) and r.best(0)[0] is None


def test_cards_the_profile_never_saw_keep_the_networks_reading() -> None:
    # a corner of a card the profile has no prototype of, equally like the two prototypes
    before = _readings("Qd", "3c", _unit([1, 1, 0.2]))
    after = PROFILE.sharpen(before)
    assert np.allclose(after.probs, before.probs, atol=1e-5)


def test_without_the_default_only_learnt_cards_are_named() -> None:
    r = DeckProfile("t", "0", {"As": AS, "Kh": KH}, default=False).sharpen(_readings("Qd", "As", _unit([0, 0, 1])))
    assert float(r.probs[0, ALL_CARDS.index("Qd")]) == 0.0 and r.best(0)[0] == "As"


def test_a_rank_prototype_stands_for_its_four_cards() -> None:
    r = DeckProfile("t", "0", {"A": AS, "K": KH}).sharpen(_readings("Kh", "As", KH))
    assert r.best(0)[0] == "Kh" and r.best(0)[1] > 0.9


def test_a_profile_is_saved_and_loaded_and_an_old_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    PROFILE.save(path)
    loaded = DeckProfile.load(path)
    assert loaded.keys == ("As", "Kh") and np.allclose(loaded.prototypes["Kh"], KH, atol=1e-5)
    path.write_text('{"format": "cardtable-deck-profile", "version": 3, "name": "x", "model": "0"}')
    with pytest.raises(VisionInputError, match=r"p\.json: profile version 3"):
        DeckProfile.load(path)
