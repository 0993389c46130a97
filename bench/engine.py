"""Rules engine speed: random complete hands of fixed-limit five-card draw per second, ours beside PokerKit.

Both engines play the same kind of hand in the same run: three to six players, antes, fixed limit with a
cap of four, random legal acts (check, call, bet or raise, fold, draws of 0-4 cards) until the pot is
awarded. Ours runs with the full rules on (the invariant checks after every act, the transition table,
the event record). Run with ``cardtable bench --only engine``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from bench._report import OURS, BenchRow
from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, Stakes
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.simulate import play_random

STAKES = Stakes(ante=1, small_bet=2, big_bet=4, cap=4)
CONFIG = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=Betting.FIXED_LIMIT, stakes=STAKES)
CODES = [card_str(c) for c in FULL_DECK]


def ours_one(rng: random.Random) -> None:
    n = rng.randrange(3, 7)
    deck = list(CODES)
    rng.shuffle(deck)
    hand = Hand(CONFIG, [SeatSpec(seat=k + 1, stack=200) for k in range(n)], n, deck=deck)
    play_random(hand, rng, mucks=False)


def pokerkit_one(rng: random.Random) -> None:
    import pokerkit as pk

    n = rng.randrange(3, 7)
    automations = (pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.BLIND_OR_STRADDLE_POSTING,
                   pk.Automation.CARD_BURNING, pk.Automation.HOLE_DEALING, pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
                   pk.Automation.HAND_KILLING, pk.Automation.CHIPS_PUSHING, pk.Automation.CHIPS_PULLING)
    streets = (pk.Street(False, (False,) * 5, 0, False, pk.Opening.POSITION, 2, 4),
               pk.Street(True, (), 0, True, pk.Opening.POSITION, 4, 4))
    state: Any = pk.State(automations, pk.Deck.STANDARD, (pk.StandardHighHand,), streets,
                          pk.BettingStructure.FIXED_LIMIT, True, 1, (), 0, (200,) * n, n, mode=pk.Mode.CASH_GAME)
    while state.status:
        if state.can_stand_pat_or_discard():
            cards = list(state.hole_cards[state.stand_patter_or_discarder_index])
            rng.shuffle(cards)
            state.stand_pat_or_discard(cards[: rng.randrange(5)])
        elif state.actor_index is not None:
            roll = rng.randrange(10)
            if roll < 3 and state.can_complete_bet_or_raise_to():
                state.complete_bet_or_raise_to()
            elif roll == 9 and state.can_fold():
                state.fold()
            else:
                state.check_or_call()
        else:  # nothing left to do by hand: a safety valve against a stuck state
            break


def _burst(play: Callable[[random.Random], None], rng: random.Random, seconds: float) -> tuple[int, float]:
    hands = 0
    started = time.perf_counter()
    while True:
        for _ in range(10):
            play(rng)
        hands += 10
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return hands, elapsed


def _rates(players: list[Callable[[random.Random], None]], seconds: float) -> list[tuple[float, int]]:
    """Hands per second of each player, measured in alternating short bursts so that both see the same load
    on a shared machine."""
    rngs = [random.Random(2024) for _ in players]
    totals = [[0, 0.0] for _ in players]
    rounds = 10
    for _ in range(rounds):
        for k, play in enumerate(players):
            hands, elapsed = _burst(play, rngs[k], seconds / rounds)
            totals[k][0] += hands
            totals[k][1] += elapsed
    return [(hands / elapsed, int(hands)) for hands, elapsed in totals]


def run(quick: bool = False) -> list[BenchRow]:
    seconds = 1.0 if quick else 5.0
    metric = "random complete hands/s, fixed-limit five-card draw"
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        ((ours, n_ours),) = _rates([ours_one], seconds)
        return [BenchRow(area="engine", metric=metric, system=OURS, value=ours, unit="hands/s",
                         note=f"{n_ours} hands, invariants checked after every act")]
    (ours, n_ours), (theirs, n_theirs) = _rates([ours_one, pokerkit_one], seconds)
    return [
        BenchRow(area="engine", metric=metric, system=OURS, value=ours, unit="hands/s",
                 note=f"{n_ours} hands, invariants checked after every act"),
        BenchRow(area="engine", metric=metric, system="pokerkit", value=theirs, unit="hands/s",
                 note=f"{n_theirs} hands"),
        BenchRow(area="engine", metric="speed-up over PokerKit", system=OURS, value=ours / theirs, unit="x",
                 note="goal: 10x; alternating bursts, same run"),
    ]


if __name__ == "__main__":
    from bench._report import to_markdown

    print(to_markdown(run(quick=True)))
