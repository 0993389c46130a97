"""Property tests: random legal and illegal acts never break the invariants; the legal-action list is
exactly what the engine accepts; a hand's record replays to the same result."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.engine.acts import INPUTS, ActTaken
from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import (
    AnteMode,
    Betting,
    GameConfig,
    GameForm,
    HouseOptions,
    OddChip,
    PassMeaning,
    Stakes,
)
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.hand import Hand, LegalActions, SeatSpec
from table_controller.engine.machine import Phase
from table_controller.engine.record import replay
from table_controller.engine.simulate import random_step

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ACTS = ("check", "bet", "call", "raise", "fold", "pass", "straddle", "decline_straddle", "announce", "draw",
        "reshuffle", "show", "muck", "declare_no_openers", "take_open", "decline_open")


def _random_hand(rng: random.Random) -> tuple[Hand, list[str]]:
    form = rng.choice(list(GameForm))
    betting = rng.choice(list(Betting))
    stakes = Stakes(ante=rng.choice((0, 1, 2)), small_bet=2, big_bet=4, cap=rng.choice((0, 3, 4)), min_bet=2,
                    max_bet=rng.choice((2, 6, 10)), blind=rng.choice((1, 2)))
    options = HouseOptions(
        ante_mode=rng.choice(list(AnteMode)), burn_before_draw=rng.random() < 0.8,
        never_deal_last_card=rng.random() < 0.3, odd_chip=rng.choice(list(OddChip)),
        pass_meaning=rng.choice(list(PassMeaning)), refuse_false_open=rng.random() < 0.5,
        straddle_limit=rng.choice((None, 1, 2)), blind_opening_double_to_stay=rng.random() < 0.3)
    config = GameConfig(form=form, betting=betting, stakes=stakes, options=options)
    n = rng.randrange(2, 9)
    numbers = sorted(rng.sample(range(1, 11), n))
    seats = [SeatSpec(seat=s, stack=rng.randrange(0, 80)) for s in numbers]
    truth = [card_str(c) for c in FULL_DECK]
    rng.shuffle(truth)
    deck: list[str] | None = truth if rng.random() < 0.7 else None
    hand = Hand(config, seats, rng.choice(numbers), deck=deck, carried_pot=rng.choice((0, 0, 7)),
                passed_deals=rng.randrange(5))
    return hand, truth


def _snapshot(hand: Hand) -> Any:
    return (hand.result(), hand.phase, hand.to_act, len(hand.actions))


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
    if legal.seat != seat or act not in legal.acts:
        return False if act != "declare_no_openers" else None
    if act in ("bet", "raise"):
        return legal.min_to <= amount <= legal.max_to
    return True


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_keeps_every_invariant(seed: int) -> None:
    rng = random.Random(seed)
    hand, truth = _random_hand(rng)
    before = sum(hand.stacks().values()) + hand.pot
    steps = 0
    while not hand.is_over:
        random_step(hand, rng, aggression=rng.randrange(10), truth=truth)
        steps += 1
        assert steps < 400
        assert sum(hand.stacks().values()) + hand.pot == before
    assert sum(hand.stacks().values()) + hand.carried_pot == before
    assert hand.legal_actions().acts == ()


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_action_list_is_exactly_what_the_engine_accepts(seed: int) -> None:
    rng = random.Random(seed)
    hand, truth = _random_hand(rng)
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
    hand, truth = _random_hand(rng)
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
    wanted = {Phase.STRADDLING, Phase.FIRST_BETTING, Phase.DRAWING, Phase.RESHUFFLING, Phase.FINAL_BETTING,
              Phase.REOPENING, Phase.PROVING, Phase.SHOWDOWN, Phase.COMPLETE, Phase.PASSED_OUT}
    for _ in range(5000):
        if seen >= wanted:
            break
        hand, truth = _random_hand(rng)
        while not hand.is_over:
            legal = hand.legal_actions()
            assert legal.acts, legal
            seen.add(legal.phase)
            random_step(hand, rng, truth=truth)
        seen.add(hand.legal_actions().phase)
    assert seen == wanted
