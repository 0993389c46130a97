"""Events: what happened in a hand, one frozen keyword-only dataclass per kind, appended to the record.

Cards appear as two-character codes, "??" for a card the table has not identified. Events carry hole
cards (they are the auditor's record); the controller decides who may see them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, kw_only=True)
class Event:
    kind: ClassVar[str] = "event"

    def __post_init__(self) -> None:
        for value in self.__dict__.values():  # the fast pass; the slow one names the field
            if type(value) is int and value < 0:
                for name, bad in self.__dict__.items():
                    if type(bad) is int and bad < 0:
                        raise ValueError(f"{type(self).__name__}.{name} must not be negative")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind}
        for key, value in self.__dict__.items():
            out[key] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True, kw_only=True)
class ForcedBetPosted(Event):
    kind: ClassVar[str] = "forced"
    seat: int
    amount: int
    what: str  # ante, dealer_ante, blind, straddle, blind_open, block_ante, block_blind, block_raise
    all_in: bool = False


@dataclass(frozen=True, kw_only=True)
class StraddleDeclined(Event):
    kind: ClassVar[str] = "straddle_declined"
    seat: int


@dataclass(frozen=True, kw_only=True)
class CardsDealt(Event):
    kind: ClassVar[str] = "dealt"
    order: tuple[int, ...]  # seats in the order served in one round, five rounds
    cards_each: int


@dataclass(frozen=True, kw_only=True)
class Checked(Event):
    kind: ClassVar[str] = "check"
    seat: int


@dataclass(frozen=True, kw_only=True)
class BetMade(Event):
    kind: ClassVar[str] = "bet"
    seat: int
    to: int
    amount: int
    all_in: bool
    opens: bool
    full: bool = True  # False: an all-in for less than a full bet, which does not reopen the betting


@dataclass(frozen=True, kw_only=True)
class Called(Event):
    kind: ClassVar[str] = "call"
    seat: int
    amount: int
    all_in: bool


@dataclass(frozen=True, kw_only=True)
class Raised(Event):
    kind: ClassVar[str] = "raise"
    seat: int
    to: int
    amount: int
    all_in: bool
    full: bool  # False: an all-in short raise, which does not reopen the betting


@dataclass(frozen=True, kw_only=True)
class Folded(Event):
    kind: ClassVar[str] = "fold"
    seat: int


@dataclass(frozen=True, kw_only=True)
class BetReturned(Event):
    kind: ClassVar[str] = "bet_returned"
    seat: int
    amount: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class IntervalClosed(Event):
    kind: ClassVar[str] = "interval_closed"
    interval: str
    pot: int


@dataclass(frozen=True, kw_only=True)
class DrawAnnounced(Event):
    kind: ClassVar[str] = "announce"
    seat: int
    count: int


@dataclass(frozen=True, kw_only=True)
class Burned(Event):
    kind: ClassVar[str] = "burn"
    card: str


@dataclass(frozen=True, kw_only=True)
class DrawServed(Event):
    kind: ClassVar[str] = "draw"
    seat: int
    discards: tuple[str, ...]
    served: tuple[str, ...]
    held_out: bool  # the opener's discards kept apart under his chips


@dataclass(frozen=True, kw_only=True)
class Reshuffled(Event):
    kind: ClassVar[str] = "reshuffle"
    size: int
    for_seat: int


@dataclass(frozen=True, kw_only=True)
class Shown(Event):
    kind: ClassVar[str] = "show"
    seat: int
    cards: tuple[str, ...]
    description: str


@dataclass(frozen=True, kw_only=True)
class Mucked(Event):
    kind: ClassVar[str] = "muck"
    seat: int


@dataclass(frozen=True, kw_only=True)
class OpenersJudged(Event):
    kind: ClassVar[str] = "openers"
    seat: int
    proved: bool
    cards: tuple[str, ...]
    rule: str


@dataclass(frozen=True, kw_only=True)
class PotAwarded(Event):
    kind: ClassVar[str] = "award"
    pot_index: int
    amount: int
    seats: tuple[int, ...]
    shares: tuple[int, ...]
    hand: str


@dataclass(frozen=True, kw_only=True)
class PotCarried(Event):
    kind: ClassVar[str] = "carried"
    amount: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class HandEnded(Event):
    kind: ClassVar[str] = "end"
    status: str
    carried_pot: int


@dataclass(frozen=True, kw_only=True)
class CardsDelivered(Event):
    """The shoe delivered cards, in its order: ``first`` is the shoe position of the first ("??": not read)."""

    kind: ClassVar[str] = "delivered"
    first: int
    cards: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class CardsForgotten(Event):
    """Which cards a seat holds is no longer known (the dealer saw only how many he threw): ``count`` of them."""

    kind: ClassVar[str] = "forgotten"
    seat: int
    count: int


# What the shoe and the table tell a live hand, not acts of the game: the hand record carries the cards in its
# deck (as delivered, "??" where forgotten), so a hand's result lists the game's events without these.
TABLE_INPUTS: tuple[type[Event], ...] = (CardsDelivered, CardsForgotten)
