"""Random legal play, for tests, benchmarks and the simulator: every choice is drawn from ``legal_actions()``.

The randomness is the caller's (any object with ``randrange``): the engine itself never draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from typing import Final, Protocol, TypeVar

from table_controller.engine.hand import Hand, LegalActions
from table_controller.engine.machine import Phase

T = TypeVar("T")
_AGGRESSIVE: Final = frozenset({"bet", "raise"})
_PASSIVE: Final = frozenset({"check", "call"})


class Chooser(Protocol):
    def randrange(self, stop: int, /) -> int: ...


def _pick(rng: Chooser, items: list[str] | tuple[str, ...]) -> str:
    """One of ``items``, each equally likely; with one item (a check or a call), nothing is drawn."""
    return items[0] if len(items) == 1 else items[rng.randrange(len(items))]


# Every order of n items, for n up to five (a hand): 1, 1, 2, 6, 24 and 120 orders.
_ORDERS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(tuple(permutations(range(n))) for n in range(6))


def shuffled(rng: Chooser, items: Sequence[T]) -> list[T]:
    """A new list of ``items`` in random order, every order equally likely: up to five items (the random players'
    discards) one ``rng.randrange`` over all their orders; more by Fisher-Yates on ``rng.randrange``."""
    n = len(items)
    if n <= 5:
        if n < 2:
            return list(items)
        orders = _ORDERS[n]
        return [items[k] for k in orders[rng.randrange(len(orders))]]
    out = list(items)
    for k in range(len(out) - 1, 0, -1):
        j = rng.randrange(k + 1)
        out[k], out[j] = out[j], out[k]
    return out


def random_step(hand: Hand, rng: Chooser, *, aggression: int = 3, truth: Sequence[str] | None = None,
                mucks: bool = True) -> None:
    """Take one random legal act (or the dealer's acts now due: the deal, a burn, a service, a reshuffle in random
    order). ``aggression`` in 0..9 weighs bets and raises.

    ``truth`` is the real deck when the hand was given "??" cards: shows then name the real cards.
    """
    legal = hand.legal_actions()
    phase = legal.phase
    acts = legal.acts
    seat = legal.seat
    if seat is None:  # the dealer's
        if "reshuffle" in acts:
            hand.reshuffle(shuffled(rng, hand.reshuffle_pool()))
        else:
            hand.dealer_acts()
        return
    if phase is Phase.DRAWING:
        cards = hand.hole_cards(seat)
        count = rng.randrange(legal.max_discard + 1)
        hand.draw(seat, shuffled(rng, cards)[:count])
        return
    if phase is Phase.STRADDLING:
        if "decline_straddle" in acts and rng.randrange(2):
            hand.decline_straddle(seat)
        else:
            hand.straddle(seat)
        return
    if phase is Phase.REOPENING:
        if "take_open" in acts and rng.randrange(2):
            hand.take_open(seat)
        else:
            hand.decline_open(seat)
        return
    if phase is Phase.SHOWDOWN or phase is Phase.PROVING:
        if mucks and "muck" in acts and rng.randrange(8) == 0:
            hand.muck(seat)
        elif truth is not None:
            hand.show(seat, [truth[p] for p in hand.card_positions(seat)])
        else:
            hand.show(seat)
        return
    _random_betting(hand, rng, legal, aggression)


def _random_betting(hand: Hand, rng: Chooser, legal: LegalActions, aggression: int) -> None:
    """A betting act: bet or raise with weight ``aggression``/10, else check or call, folding now and then."""
    acts = legal.acts
    seat = legal.seat
    assert seat is not None
    aggressive: str | None = None  # the bet or raise open, if any
    passive: list[str] = []  # the check or call open
    for name in acts:
        if name in _AGGRESSIVE and aggressive is None:
            aggressive = name
        elif name in _PASSIVE:
            passive.append(name)
    if "declare_no_openers" in acts and rng.randrange(12) == 0:
        hand.declare_no_openers(seat)
        return
    if aggressive is not None and rng.randrange(10) < aggression:
        lo, hi = legal.min_to, legal.max_to
        to = lo if lo == hi else lo + rng.randrange(hi - lo + 1)  # fixed limit: one amount, nothing to draw
        if aggressive == "bet":
            hand.bet(seat, to)
        else:
            hand.raise_to(seat, to)
        return
    if "fold" in acts and (not passive or rng.randrange(6) == 0):
        hand.fold(seat)
        return
    act = _pick(rng, passive or acts)
    if act == "check":
        hand.check(seat)
    elif act == "call":
        hand.call(seat)
    else:
        hand.fold(seat)


def play_random(hand: Hand, rng: Chooser, *, aggression: int = 3, max_steps: int = 500,
                truth: Sequence[str] | None = None, mucks: bool = True) -> Hand:
    """Play the hand to its end with random legal acts."""
    steps = 0
    while not hand.is_over:
        random_step(hand, rng, aggression=aggression, truth=truth, mucks=mucks)
        steps += 1
        if steps > max_steps:
            raise RuntimeError("the hand did not end: the engine is stuck")
    return hand
