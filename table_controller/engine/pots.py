"""The pot at the showdown: the main pot and the side pots, how one pot is split among its winners, and who
wins what (:func:`award_pots`).

Players are indices 0..n-1; ``contrib`` is each player's live chips this deal (antes and bets), which decide
the side pots: a player all in for less is eligible only for the layers of the pot his chips reach.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Final

from table_controller.engine.events import Frozen

__all__ = ["Award", "award_pots", "side_pots", "split"]


class Award(Frozen):
    """One pot won: its index (0 the main pot), its chips, its winners in the odd chips' order, and their shares,
    won with the hand value ``value``."""

    fields: ClassVar[tuple[str, ...]] = ("pot_index", "amount", "winners", "shares", "value")

    def __init__(self, *, pot_index: int, amount: int, winners: tuple[int, ...], shares: tuple[int, ...],
                 value: int) -> None:
        self.pot_index: Final = pot_index
        self.amount: Final = amount
        self.winners: Final = winners
        self.shares: Final = shares
        self.value: Final = value


def side_pots(pot: int, contrib: Sequence[int], contenders: Sequence[int],
              eligible: Sequence[int]) -> list[tuple[int, list[int]]]:
    """The pots from the main pot up, each as (chips, players eligible to win it).

    ``contenders`` are the players who did not fold (their chips set the levels), ``eligible`` those of them who
    may win (not mucked, not foul). Chips in the pot that are nobody's live bet (a carried pot, dead antes) go
    to the main pot. A layer may have nobody eligible: its chips stay for the next deal."""
    levels = sorted({contrib[j] for j in contenders})
    if len(levels) == 1:  # nobody all in for less: one pot
        return [(pot, list(eligible))]
    layers: list[tuple[int, list[int]]] = []
    prev = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, prev) for c in contrib)
        layers.append((amount, [j for j in eligible if contrib[j] >= level]))
        prev = level
    extra = pot - sum(amount for amount, _ in layers)
    layers[0] = (layers[0][0] + extra, layers[0][1])
    return layers


def split(amount: int, winners: int, odd_first: int = 0) -> list[int]:
    """Equal shares of ``amount`` for ``winners`` tied hands (in their odd-chip order); the chips left over go
    one each to the winner ``odd_first``, then to the others in order."""
    share, odd = divmod(amount, winners)
    shares = [share] * winners
    order = [odd_first, *(k for k in range(winners) if k != odd_first)]
    for k in order[:odd]:
        shares[k] += 1
    return shares


def award_pots(pot: int, contrib: Sequence[int], contenders: Sequence[int], eligible: Sequence[int], *,
               values: Mapping[int, int], button: int,
               top_card: Callable[[int], int] | None = None) -> tuple[list[Award], int]:
    """Who wins each pot at the showdown, and the chips no eligible hand may win (they stay for the next deal).

    ``values`` holds each eligible player's hand value (higher wins); tied winners split a pot, and the odd chips
    go from the button's left, or, given ``top_card`` (a player's highest card, rank then suit), first to the
    winner holding the highest card (the house option of 001)."""
    players = len(contrib)
    awards: list[Award] = []
    carried = 0
    for index, (amount, elig) in enumerate(side_pots(pot, contrib, contenders, eligible)):
        if amount == 0:
            continue
        if not elig:
            carried += amount
            continue
        best = max(values[j] for j in elig)
        winners = sorted((j for j in elig if values[j] == best), key=lambda j: (j - button - 1) % players)
        odd_first = 0
        if amount % len(winners) and top_card is not None:
            odd_first = max(range(len(winners)), key=lambda k: top_card(winners[k]))
        awards.append(Award(pot_index=index, amount=amount, winners=tuple(winners),
                            shares=tuple(split(amount, len(winners), odd_first)), value=best))
    return awards, carried
