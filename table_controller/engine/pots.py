"""The pot at the showdown: the main pot and the side pots, and how one pot is split among its winners.

Players are indices 0..n-1; ``contrib`` is each player's live chips this deal (antes and bets), which decide
the side pots: a player all in for less is eligible only for the layers of the pot his chips reach.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["side_pots", "split"]


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
