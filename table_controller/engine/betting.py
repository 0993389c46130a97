"""The betting structures: how much a bet or raise may be, behind one small interface.

A :class:`BettingStructure` answers one question, :meth:`~BettingStructure.raise_range`: given where the betting
interval stands (a :class:`Round`), between which totals may the player bet or raise, or may he not raise at
all (the cap is reached). The hand clips the answer to the player's chips (an all-in for less is allowed) and
applies the entry bets of the blind forms; everything else about the amounts is the structure's.

Fixed limit, spread limit, pot limit and no limit are the four structures of the books; the block system
(003 Block system) is a form with its own raise limit, so it is a structure here too. :func:`structure_for`
picks the one a game plays.
"""

from __future__ import annotations

from typing import ClassVar, Final

from table_controller.engine.config import Betting, GameConfig, GameForm
from table_controller.engine.events import Frozen

__all__ = ["R_BLOCK", "R_LIMITS", "BettingStructure", "Round", "structure_for"]

R_LIMITS = {
    Betting.FIXED_LIMIT: "fixed limit: bets and raises of exactly the small bet before the draw, the big bet after",
    Betting.SPREAD_LIMIT: "spread limit: a bet or raise between the minimum and the maximum, a raise at least the last",
    Betting.POT_LIMIT: "pot limit: a raise at least the last full bet or raise, at most the pot after calling",
    Betting.NO_LIMIT: "no limit: a raise at least the last full bet or raise (an all-in may be less)",
}
R_BLOCK = "003 Block system: a raise is at most 2 chips before the draw, at most each player's pre-draw total after"


class Round:
    """Where a betting interval stands for the player about to bet or raise (read-only by convention: built
    for one question and dropped)."""

    def __init__(self, *, current: int, last_increment: int, raises: int, first: bool, pot_after_call: int,
                 all_in_to: int, predraw_level: int, entry: bool) -> None:
        self.current = current  # the total bet to match
        self.last_increment = last_increment  # the last full bet or raise (0: none yet)
        self.raises = raises  # full bets and raises made in this interval
        self.first = first  # the interval before the draw
        self.pot_after_call = pot_after_call  # the pot, every bet and this player's call (pot limit)
        self.all_in_to = all_in_to  # this player's bet plus his stack
        self.predraw_level = predraw_level  # the highest total bet before the draw (block system)
        self.entry = entry  # an entry bet is pending for this player (the blind forms): a cap does not stop it


class BettingStructure(Frozen):
    """The rules of one structure, its amounts set by keyword (frozen: a copied hand shares its structure)."""

    def raise_range(self, r: Round) -> tuple[int, int] | None:
        """(min_to, max_to) for a bet or raise now, before the player's chips are counted; None: no raise."""
        raise NotImplementedError


class FixedLimit(BettingStructure):
    fields: ClassVar[tuple[str, ...]] = ("small_bet", "big_bet", "cap")

    def __init__(self, *, small_bet: int, big_bet: int, cap: int) -> None:
        self.small_bet: Final = small_bet
        self.big_bet: Final = big_bet
        self.cap: Final = cap  # bets and raises per interval (0: no cap)

    def raise_range(self, r: Round) -> tuple[int, int] | None:
        if self.cap and r.raises >= self.cap and not r.entry:
            return None
        to = r.current + (self.small_bet if r.first else self.big_bet)
        return to, to


class SpreadLimit(BettingStructure):
    fields: ClassVar[tuple[str, ...]] = ("min_bet", "max_bet")

    def __init__(self, *, min_bet: int, max_bet: int) -> None:
        self.min_bet: Final = min_bet
        self.max_bet: Final = max_bet

    def raise_range(self, r: Round) -> tuple[int, int] | None:
        step = min(max(self.min_bet, r.last_increment), self.max_bet)
        return r.current + step, r.current + self.max_bet


class PotLimit(BettingStructure):
    fields: ClassVar[tuple[str, ...]] = ("min_bet",)

    def __init__(self, *, min_bet: int) -> None:
        self.min_bet: Final = min_bet

    def raise_range(self, r: Round) -> tuple[int, int] | None:
        return r.current + max(self.min_bet, r.last_increment), r.current + r.pot_after_call


class NoLimit(BettingStructure):
    fields: ClassVar[tuple[str, ...]] = ("min_bet",)

    def __init__(self, *, min_bet: int) -> None:
        self.min_bet: Final = min_bet

    def raise_range(self, r: Round) -> tuple[int, int] | None:
        return r.current + max(self.min_bet, r.last_increment), r.all_in_to


class BlockSystem(BettingStructure):
    fields: ClassVar[tuple[str, ...]] = ("raise_limit",)

    def __init__(self, *, raise_limit: int) -> None:
        self.raise_limit: Final = raise_limit  # before the draw; after it, each player's pre-draw total

    def raise_range(self, r: Round) -> tuple[int, int] | None:
        limit = self.raise_limit if r.first else max(1, r.predraw_level)
        return r.current + 1, r.current + limit


def structure_for(config: GameConfig) -> BettingStructure:
    st = config.stakes
    if config.form is GameForm.BLOCK_SYSTEM:
        return BlockSystem(raise_limit=st.block_raise_limit)
    if config.betting is Betting.FIXED_LIMIT:
        return FixedLimit(small_bet=st.small_bet, big_bet=st.big_bet, cap=st.cap)
    if config.betting is Betting.SPREAD_LIMIT:
        return SpreadLimit(min_bet=st.min_bet, max_bet=st.max_bet)
    if config.betting is Betting.POT_LIMIT:
        return PotLimit(min_bet=st.min_bet)
    return NoLimit(min_bet=st.min_bet)
