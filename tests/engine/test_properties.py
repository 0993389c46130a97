"""Property tests: random legal and illegal acts never break the invariants; the legal-action list is
exactly what the engine accepts; a hand's record replays to the same result."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.engine.acts import INPUTS, ActTaken
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.hand import Hand, LegalActions
from table_controller.engine.machine import Phase
from table_controller.engine.piles import DECK_SIZE
from table_controller.engine.record import replay
from table_controller.engine.simulate import random_step, shuffled
from tests.engine.helpers import random_hand

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ACTS = ("check", "bet", "call", "raise", "fold", "pass", "straddle", "decline_straddle", "deal", "announce", "draw",
        "burn", "serve", "reshuffle", "show", "muck", "declare_no_openers", "take_open", "decline_open")


def _snapshot(hand: Hand) -> Any:
    return (hand.result(), hand.phase, hand.to_act, len(hand.actions))


def _cards_conserved(hand: Hand) -> bool:
    """Every one of the 52 shoe positions in exactly one pile or hand (the test's own count, not the engine's)."""
    places = [*hand.stub, *hand.burn_pile, *hand.muck_pile]
    for k in range(hand.n):
        places += [*hand.hands[k], *hand.held[k], *hand.discards[k]]
    return sorted(places) == list(range(DECK_SIZE))


def _try(hand: Hand, act: str, seat: int, amount: int, *, rng: random.Random, truth: list[str]) -> None:
    if act == "check":
        hand.check(seat)
    elif act == "bet":
        hand.bet(seat, amount)
    elif act == "call":
        hand.call(seat)
    elif act == "raise":
        hand.raise_to(seat, amount)
    elif act == "fold":
        hand.fold(seat)
    elif act == "pass":
        hand.pass_(seat)
    elif act == "straddle":
        hand.straddle(seat)
    elif act == "decline_straddle":
        hand.decline_straddle(seat)
    elif act == "deal":
        hand.deal()
    elif act == "burn":
        hand.burn()
    elif act == "serve":
        hand.serve()
    elif act == "announce":
        hand.announce(seat, amount % 7)
    elif act == "draw":
        cards = list(hand.hole_cards(seat)) if seat in hand.stacks() else []
        hand.draw(seat, cards[: amount % 7])
    elif act == "reshuffle":
        pool = list(hand.reshuffle_pool())
        rng.shuffle(pool)
        hand.reshuffle(pool[: len(pool) - amount % 2])
    elif act == "show":
        hand.show(seat, [truth[p] for p in hand.card_positions(seat)] if seat in hand.stacks() else None)
    elif act == "muck":
        hand.muck(seat)
    elif act == "declare_no_openers":
        hand.declare_no_openers(seat)
    elif act == "take_open":
        hand.take_open(seat)
    else:
        hand.decline_open(seat)


def _expected_ok(legal: LegalActions, act: str, seat: int, amount: int) -> bool | None:
    """True/False where the legal view decides it; None for acts it does not enumerate fully."""
    if act in ("pass", "announce", "draw", "show", "reshuffle", "declare_no_openers"):
        return None
    if act in ("deal", "burn", "serve"):  # the dealer's: no seat
        return act in legal.acts
    if legal.seat != seat or act not in legal.acts:
        return False if act != "declare_no_openers" else None
    if act in ("bet", "raise"):
        return legal.min_to <= amount <= legal.max_to
    return True


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_keeps_every_invariant(seed: int) -> None:
    rng = random.Random(seed)
    hand, truth = random_hand(rng)
    before = sum(hand.stacks().values()) + hand.pot
    steps = 0
    while not hand.is_over:
        random_step(hand, rng, aggression=rng.randrange(10), truth=truth)  # one act, a dealer's act included
        steps += 1
        assert steps < 400
        assert sum(hand.stacks().values()) + hand.pot == before
        assert _cards_conserved(hand)
    assert sum(hand.stacks().values()) + hand.carried_pot == before
    assert hand.legal_actions().acts == ()


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_action_list_is_exactly_what_the_engine_accepts(seed: int) -> None:
    rng = random.Random(seed)
    hand, truth = random_hand(rng)
    seats = [s.seat for s in hand.seats]
    steps = 0
    while not hand.is_over and steps < 300:
        steps += 1
        legal = hand.legal_actions()
        act = rng.choice(ACTS)
        seat = legal.seat if (legal.seat is not None and rng.random() < 0.7) else rng.choice([*seats, 99])
        amount = rng.choice((legal.min_to, legal.max_to, legal.min_to - 1, legal.max_to + 1, rng.randrange(0, 120)))
        expected = _expected_ok(legal, act, seat, amount)
        before = _snapshot(hand)
        try:
            _try(hand, act, seat, amount, rng=rng, truth=truth)
        except IllegalActionError:
            assert expected is not True, (act, seat, amount, legal)
            assert _snapshot(hand) == before  # a refused act changes nothing
        else:
            assert expected is not False, (act, seat, amount, legal)
        if rng.random() < 0.5 and not hand.is_over:
            random_step(hand, rng, truth=truth)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_record_of_a_random_hand_replays_to_the_same_result(seed: int) -> None:
    rng = random.Random(seed)
    hand, truth = random_hand(rng)
    while not hand.is_over:
        random_step(hand, rng, truth=truth)
    record = hand.to_record()
    first = replay(record)
    assert first == replay(record)
    assert first["stacks"] == {str(k): v for k, v in hand.stacks().items()}
    assert first["carried_pot"] == hand.carried_pot
    assert first["events"] == [e.to_json() for e in hand.events if not isinstance(e, INPUTS)]
    # The record's acts are the acts of the one event log, in order.
    assert record["actions"] == [e.to_action() for e in hand.events if isinstance(e, ActTaken)]


def test_every_phase_offers_a_next_step_until_the_end() -> None:
    rng = random.Random(7)
    seen: set[Phase] = set()
    wanted = set(Phase)
    for _ in range(5000):
        if seen >= wanted:
            break
        hand, truth = random_hand(rng)
        while not hand.is_over:
            legal = hand.legal_actions()
            assert legal.acts, legal
            seen.add(legal.phase)
            random_step(hand, rng, truth=truth)
        seen.add(hand.legal_actions().phase)
    assert seen == wanted


def _can_agrees(hand: Hand, name: str, *args: Any) -> None:
    """``can_<name>(*args)`` is True exactly when ``verify_<name>(*args)`` raises nothing; neither changes the hand."""
    before = _snapshot(hand)
    try:
        getattr(hand, f"verify_{name}")(*args)
    except IllegalActionError:
        verified = False
    else:
        verified = True
    assert getattr(hand, f"can_{name}")(*args) is verified, (name, args, hand.phase)
    assert _snapshot(hand) == before


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_can_is_true_exactly_when_verify_accepts(seed: int) -> None:
    """In random states of random hands, each act's ``can_x`` answers what its ``verify_x`` does, with legal and
    illegal arguments alike: the dealer's deal, burn, service and reshuffle, the draw, the straddle's refusal, the
    take-over of a false opener, a show, the shoe's delivery."""
    rng = random.Random(seed)
    hand, truth = random_hand(rng)
    seats = [s.seat for s in hand.seats]
    steps = 0
    while steps < 300:
        steps += 1
        seat = hand.legal_actions().seat
        seat = seat if seat is not None and rng.random() < 0.7 else rng.choice([*seats, 99])
        held = list(hand.hole_cards(seat)) if seat in seats else []
        pool = list(hand.reshuffle_pool())
        _can_agrees(hand, "deal")
        _can_agrees(hand, "burn")
        _can_agrees(hand, "serve")
        _can_agrees(hand, "draw", seat, shuffled(rng, held)[:rng.randrange(7)])
        _can_agrees(hand, "draw", seat, [rng.choice(truth)])
        _can_agrees(hand, "reshuffle", shuffled(rng, pool)[:len(pool) - rng.randrange(2)])
        _can_agrees(hand, "decline_straddle", seat)
        _can_agrees(hand, "take_open", seat)
        _can_agrees(hand, "show", seat, [truth[p] for p in hand.card_positions(seat)] if seat in seats else None)
        _can_agrees(hand, "deliver", truth[hand.delivered:hand.delivered + rng.randrange(3)])
        _can_agrees(hand, "deliver", [rng.choice(truth)])
        if hand.is_over:
            break
        random_step(hand, rng, truth=truth)
