"""Rules engine speed: random complete hands of fixed-limit five-card draw per second, ours beside PokerKit.

Both engines play the same kind of hand in the same run: three to six players, antes, fixed limit with a
cap of four, random legal acts (check, call, bet or raise, fold, draws of 0-4 cards) until the pot is
awarded. Ours runs with the full rules on (the invariant checks after every act, the transition table,
the event record, the legal-action view before every act). Run with ``cardtable bench --only engine``.

Both random players draw their choices from :class:`QuickRandom`, whose ``randrange`` is one multiplication
(the standard one takes several Python-level calls, which would weigh on the faster engine's figure and
say nothing about either engine). The 52-card deck is shuffled by the standard ``random.shuffle`` on both
sides: PokerKit shuffles inside its ``State``, ours in the bench (the shoe's part at a real table).
The notes give the mean acts per hand of each engine, to show that both play the same kind of hand, and the
CPU time per hand (process time over the same bursts), which other work on a shared machine disturbs less
than hands per second; the speed-up row gives the ratio both ways.
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench._report import OURS, BenchRow
from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, Stakes
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.simulate import play_random, shuffled

STAKES = Stakes(ante=1, small_bet=2, big_bet=4, cap=4)
CONFIG = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=Betting.FIXED_LIMIT, stakes=STAKES)
CODES = [card_str(c) for c in FULL_DECK]


class QuickRandom(random.Random):
    """``random.Random`` with a one-step ``randrange(n)`` for the players' many small choices."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None and step == 1 and start > 0:
            return int(self.random() * start)
        return super().randrange(start, stop, step)


def ours_one(rng: random.Random) -> int:
    """One random hand in our engine; returns the number of acts played."""
    n = 3 + rng.randrange(4)
    deck = list(CODES)
    rng.shuffle(deck)
    hand = Hand(CONFIG, [SeatSpec(seat=k + 1, stack=200) for k in range(n)], n, deck=deck)
    play_random(hand, rng, mucks=False)
    return len(hand.actions)


def pokerkit_one(rng: random.Random) -> int:
    """One random hand in PokerKit; returns the number of acts played (PokerKit shows the hands itself)."""
    import pokerkit as pk

    n = 3 + rng.randrange(4)
    acts = 0
    automations = (pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.BLIND_OR_STRADDLE_POSTING,
                   pk.Automation.CARD_BURNING, pk.Automation.HOLE_DEALING, pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
                   pk.Automation.HAND_KILLING, pk.Automation.CHIPS_PUSHING, pk.Automation.CHIPS_PULLING)
    streets = (pk.Street(False, (False,) * 5, 0, False, pk.Opening.POSITION, 2, 4),
               pk.Street(True, (), 0, True, pk.Opening.POSITION, 4, 4))
    state: Any = pk.State(automations, pk.Deck.STANDARD, (pk.StandardHighHand,), streets,
                          pk.BettingStructure.FIXED_LIMIT, True, 1, (), 0, (200,) * n, n, mode=pk.Mode.CASH_GAME)
    while state.status:
        acts += 1
        if state.can_stand_pat_or_discard():
            cards = shuffled(rng, state.hole_cards[state.stand_patter_or_discarder_index])
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
    return acts


Player = Callable[[random.Random], int]


def _burst(play: Player, rng: random.Random, seconds: float) -> tuple[int, int, float, float]:
    """Hands, acts, wall seconds and CPU seconds of one burst of about ``seconds``."""
    hands = acts = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while True:
        for _ in range(10):
            acts += play(rng)
        hands += 10
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return hands, acts, elapsed, time.process_time() - cpu_started


@dataclass(kw_only=True)
class Rate:
    hands: int = 0
    acts: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.hands / self.seconds

    @property
    def acts_per_hand(self) -> float:
        return self.acts / self.hands

    @property
    def cpu_us_per_hand(self) -> float:
        """CPU time per hand in microseconds: less sensitive than hands/s to other work on a shared machine."""
        return self.cpu_seconds / self.hands * 1e6


def _rates(players: list[Player], seconds: float) -> list[Rate]:
    """Hands per second of each player, measured in alternating short bursts so that both see the same load
    on a shared machine."""
    rngs = [QuickRandom(2024) for _ in players]
    totals = [Rate() for _ in players]
    rounds = 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns on a fold that could have checked
        for _ in range(rounds):
            for k, play in enumerate(players):
                hands, acts, elapsed, cpu = _burst(play, rngs[k], seconds / rounds)
                totals[k].hands += hands
                totals[k].acts += acts
                totals[k].seconds += elapsed
                totals[k].cpu_seconds += cpu
    return totals


def run(quick: bool = False) -> list[BenchRow]:
    seconds = 1.0 if quick else 5.0
    metric = "random complete hands/s, fixed-limit five-card draw"
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        (ours,) = _rates([ours_one], seconds)
        return [BenchRow(area="engine", metric=metric, system=OURS, value=ours.per_second, unit="hands/s",
                         note=_ours_note(ours))]
    ours, theirs = _rates([ours_one, pokerkit_one], seconds)
    return [
        BenchRow(area="engine", metric=metric, system=OURS, value=ours.per_second, unit="hands/s",
                 note=_ours_note(ours)),
        BenchRow(area="engine", metric=metric, system="pokerkit", value=theirs.per_second, unit="hands/s",
                 note=f"{theirs.hands} hands, {theirs.acts_per_hand:.1f} acts each (showdown automated), "
                      f"{theirs.cpu_us_per_hand:.0f} us CPU per hand"),
        BenchRow(area="engine", metric="speed-up over PokerKit", system=OURS,
                 value=ours.per_second / theirs.per_second, unit="x",
                 note=f"goal: 10x; alternating bursts, same run; by CPU time per hand: "
                      f"{theirs.cpu_us_per_hand / ours.cpu_us_per_hand:.2f}x"),
    ]


def _ours_note(rate: Rate) -> str:
    return (f"{rate.hands} hands, {rate.acts_per_hand:.1f} acts each (incl. the showdown shows), "
            f"{rate.cpu_us_per_hand:.0f} us CPU per hand; invariants checked after every act")


if __name__ == "__main__":
    from bench._report import to_markdown

    print(to_markdown(run(quick=True)))
