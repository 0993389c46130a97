"""A deck profile settles what the network hesitated over, vetoes a name its prototypes contradict (or cannot
tell from another), never turns one card into another, and leaves "not an index" alone."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware_sim.camera import PlacedCard, RenderOptions, TableScene, render
from vision.cards import ALL_CARDS
from vision.deck import DeckProfile, calibrate_deck
from vision.errors import VisionInputError
from vision.pipeline import Recognizer
from vision.read import NONE, Readings
from vision.settings import SETTINGS


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


def _sure(card: str, embedding: np.ndarray, p: float = 0.97, runner_up: str = "") -> Readings:
    """The network `p` sure of `card`, half the rest on `runner_up` (the other prototype's card unless given),
    the other half spread over the other cards."""
    runner_up = runner_up or ("Kh" if card == "As" else "As")
    probs = np.full((1, NONE + 1), (1 - p - 0.01) / 2 / (NONE - 2), np.float32)
    probs[0, ALL_CARDS.index(card)] = p
    probs[0, ALL_CARDS.index(runner_up)] = (1 - p - 0.01) / 2
    probs[0, NONE] = 0.01
    return Readings(probs, embedding[None, :])


def _like(sim_as: float, sim_kh: float) -> np.ndarray:
    """A unit embedding with the given cosine similarities to the two prototypes."""
    basis = np.stack([AS, KH])
    xy = np.linalg.solve(basis[:, :2], [sim_as, sim_kh])  # in the prototypes' plane (their third value is 0)
    return np.asarray([xy[0], xy[1], np.sqrt(max(0.0, 1.0 - float(xy @ xy)))], np.float32)


def test_a_sure_name_whose_nearest_prototype_is_another_card_is_vetoed() -> None:
    # the corner is a little nearer the deck's Kh than its As: the network's sure As is not named
    e = _like(0.70, 0.75)
    r = PROFILE.sharpen(_sure("As", e))
    name, p = r.best(0)
    assert p < SETTINGS.name_bar and name != "Kh"
    ranks = r.probs[0, :NONE].reshape(4, -1).sum(axis=0)
    assert float(ranks.max()) < SETTINGS.rank_bar  # nor is its rank alone
    assert float(r.probs[0, NONE]) == pytest.approx(0.01)


def test_a_corner_nearly_as_like_two_prototypes_is_vetoed_and_a_clear_one_kept() -> None:
    tight = SETTINGS.profile_margin / 2
    assert PROFILE.sharpen(_sure("As", _like(0.80, 0.80 - tight))).best(0)[1] < SETTINGS.name_bar
    clear = 2 * SETTINGS.profile_margin
    name, p = PROFILE.sharpen(_sure("As", _like(0.80, 0.80 - clear))).best(0)
    assert name == "As" and p >= 0.97  # the agreeing prototype only adds


def test_a_corner_only_somewhat_like_its_cards_prototype_gains_nothing() -> None:
    unsure = 0.8  # below the naming bar
    loose = _like(SETTINGS.profile_similarity - 0.1, 0.1)
    assert PROFILE.sharpen(_sure("As", loose, unsure)).best(0)[1] <= unsure + 1e-6
    close = _like(SETTINGS.profile_similarity + 0.05, 0.1)
    name, p = PROFILE.sharpen(_sure("As", close, unsure)).best(0)
    assert name == "As" and p >= SETTINGS.name_bar


def test_a_sure_name_its_prototype_does_not_veto_keeps_the_networks_probability() -> None:
    # as like the As prototype as calibration corners seldom are, but nearest it by far: no gain, no loss
    r = PROFILE.sharpen(_sure("As", _like(0.6, 0.0), 0.93))
    assert r.best(0)[0] == "As" and r.best(0)[1] >= 0.93 - 1e-6


def test_a_hesitation_towards_a_card_the_profile_never_saw_is_not_settled() -> None:
    # the network torn between the deck's As and a Qd the calibration photos did not show
    close = _like(SETTINGS.profile_similarity + 0.05, 0.1)
    assert PROFILE.sharpen(_sure("As", close, 0.8, runner_up="Qd")).best(0)[1] <= 0.8 + 1e-6


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


def _photo(path: Path, *cards: str, seed: int) -> Path:
    """A table camera's frame of the cards lying apart on the felt."""
    placed = tuple(PlacedCard(card=c, x=300 + 220 * i, y=230, angle=20.0 + 35 * i) for i, c in enumerate(cards))
    cv2.imwrite(str(path), render(TableScene(cards=placed), seed, RenderOptions(width=960, height=540, glare=0.0)))
    return path


def test_a_profile_from_real_crops_names_its_cards_and_vetoes_those_it_cannot_tell_apart(tmp_path: Path) -> None:
    profile = calibrate_deck([_photo(tmp_path / f"{c}.png", c, seed=i) for i, c in enumerate(("7c", "Qh"))])
    table = _photo(tmp_path / "table.png", "Qh", "7c", seed=9)
    image = cv2.imread(str(table))
    assert sorted(d.card for d in Recognizer(profile).identify(image) if d.card) == ["7c", "Qh"]
    # a profile whose 7c and Qh prototypes are one and the same gives no evidence either way: both corners abstain
    blurred = DeckProfile("same", profile.model_sha256, {"7c": profile.prototypes["7c"],
                                                          "Qh": profile.prototypes["7c"]})
    found = Recognizer(blurred).identify(image)
    assert [d.card for d in found] == [None, None] and all(d.face == "up" for d in found)


def test_a_profile_is_saved_and_loaded_and_an_old_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    PROFILE.save(path)
    loaded = DeckProfile.load(path)
    assert loaded.keys == ("As", "Kh") and np.allclose(loaded.prototypes["Kh"], KH, atol=1e-5)
    path.write_text('{"format": "cardtable-deck-profile", "version": 3, "name": "x", "model": "0"}')
    with pytest.raises(VisionInputError, match=r"p\.json: profile version 3"):
        DeckProfile.load(path)
