"""A deck profile's prototypes decide the corners they are decisive about (whatever the network ranked first),
make unknown a name they do not bear out, leave the network alone where they are no evidence, and leave "not an
index" alone."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_a_calibrated_deck_names_the_card_its_prototype_decides_though_the_network_ranked_it_second() -> None:
    # the network leaves the corner unknown, a little surer of As; the deck's own Kh prototype decides it
    before = _readings("As", "Kh", KH)
    assert before.best(0)[1] < SETTINGS.name_bar
    name, p = PROFILE.sharpen(before).best(0)
    assert name == "Kh" and p >= SETTINGS.name_bar
    name, p = PROFILE.sharpen(_readings("Kh", "As", AS)).best(0)
    assert name == "As" and p >= SETTINGS.name_bar


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


def test_a_corner_nearly_as_like_two_prototypes_is_unknown_and_a_clear_one_named() -> None:
    like = SETTINGS.profile_similarity + 0.05
    tight = _like(like, like - SETTINGS.profile_margin / 2)
    r = PROFILE.sharpen(_sure("As", tight))
    assert r.best(0)[1] < SETTINGS.name_bar
    ranks = r.probs[0, :NONE].reshape(4, -1).sum(axis=0)
    assert float(ranks.max()) < SETTINGS.rank_bar  # nor is its rank alone
    assert float(r.probs[0, NONE]) == pytest.approx(0.01)
    name, p = PROFILE.sharpen(_sure("As", _like(like, like - 2 * SETTINGS.profile_margin), 0.8)).best(0)
    assert name == "As" and p >= SETTINGS.name_bar


def test_a_corner_unlike_every_prototype_keeps_the_networks_reading() -> None:
    # no evidence either way (a corner under other light than the calibration photos, or a rank prototype made
    # of another suit's cards): the network's sure As stands, though the Kh prototype is a little nearer
    for sims in ((0.5, 0.6), (SETTINGS.profile_similarity - 0.05, 0.1)):
        r = PROFILE.sharpen(_sure("As", _like(*sims), 0.93))
        assert r.best(0)[0] == "As" and r.best(0)[1] == pytest.approx(0.93)


def test_a_hesitation_towards_a_card_the_profile_never_saw_is_not_decided() -> None:
    # the network torn between the deck's As and a Qd the calibration photos did not show
    close = _like(SETTINGS.profile_similarity + 0.05, 0.1)
    assert PROFILE.sharpen(_sure("As", close, 0.6, runner_up="Qd")).best(0)[1] <= 0.6 + 1e-6


@settings(max_examples=300, deadline=None)
@given(st.floats(-1, 1), st.floats(-1, 1), st.floats(0, 1), st.sampled_from(("As", "Kh", "Qd")),
       st.floats(0.3, 0.999))
def test_a_profile_never_names_a_learnt_card_its_prototypes_do_not_bear_out(
        x: float, y: float, z: float, first: str, p: float) -> None:
    e = np.asarray([x, y, z], np.float32)
    if float(np.linalg.norm(e)) < 1e-3:
        return
    e /= np.linalg.norm(e)
    r = PROFILE.sharpen(_sure(first, e, p))
    name, q = r.best(0)
    if name is None or q < SETTINGS.name_bar or name not in PROFILE.keys:
        return
    sims = {k: float(e @ v) for k, v in PROFILE.prototypes.items()}
    other = "Kh" if name == "As" else "As"
    # named with the deck's evidence: clearly nearest its own prototype; or with none (unlike every prototype)
    assert sims[name] - sims[other] >= SETTINGS.profile_margin - 1e-6 or \
        max(sims.values()) < SETTINGS.profile_similarity + 1e-6


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


def test_a_rank_prototype_decides_the_rank_and_the_network_the_suit() -> None:
    probs = np.zeros((1, NONE + 1), np.float32)
    probs[0, [ALL_CARDS.index(c) for c in ("As", "Kh", "Kd", "Ks")]] = (0.5, 0.3, 0.05, 0.1)
    probs[0, NONE] = 0.05
    r = DeckProfile("t", "0", {"A": AS, "K": KH}).sharpen(Readings(probs, KH[None, :]))
    assert r.best(0)[0] == "Kh" and float(r.probs[0, ALL_CARDS.index("As")]) < 1e-6
    kings = [float(r.probs[0, ALL_CARDS.index(c)]) for c in ("Kh", "Ks", "Kd")]
    assert sum(kings) == pytest.approx(0.95, abs=1e-4) and kings[0] == pytest.approx(3 * kings[1], rel=1e-3)


def _photo(path: Path, *cards: str, seed: int) -> Path:
    """A table camera's frame of the cards lying apart on the felt."""
    placed = tuple(PlacedCard(card=c, x=300 + 220 * i, y=230, angle=20.0 + 35 * i) for i, c in enumerate(cards))
    cv2.imwrite(str(path), render(TableScene(cards=placed), seed, RenderOptions(width=960, height=540, glare=0.0)))
    return path


def test_a_profile_from_real_crops_names_its_cards_and_not_those_it_cannot_tell_apart(tmp_path: Path) -> None:
    profile = calibrate_deck([_photo(tmp_path / f"{c}.png", c, seed=i) for i, c in enumerate(("7c", "Qh"))])
    table = _photo(tmp_path / "table.png", "Qh", "7c", seed=9)
    image = cv2.imread(str(table))
    assert sorted(d.card for d in Recognizer(profile).identify(image) if d.card) == ["7c", "Qh"]
    # a profile whose 7c and Qh prototypes are both the deck's 7c cannot tell a 7c corner from a Qh: that card is
    # unknown; the Qh, unlike both prototypes, is no evidence either way and keeps the network's name
    blurred = DeckProfile("same", profile.model_sha256, {"7c": profile.prototypes["7c"],
                                                          "Qh": profile.prototypes["7c"]})
    found = Recognizer(blurred).identify(image)
    assert sorted(d.card or "?" for d in found) == ["?", "Qh"] and all(d.face == "up" for d in found)


def test_a_profile_is_saved_and_loaded_and_an_old_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    PROFILE.save(path)
    loaded = DeckProfile.load(path)
    assert loaded.keys == ("As", "Kh") and np.allclose(loaded.prototypes["Kh"], KH, atol=1e-5)
    path.write_text('{"format": "cardtable-deck-profile", "version": 3, "name": "x", "model": "0"}')
    with pytest.raises(VisionInputError, match=r"p\.json: profile version 3"):
        DeckProfile.load(path)
