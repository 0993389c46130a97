"""The live hand: the controller's adapter over the rules engine's hand.

Filled in against ``table_controller.engine`` (see ``LiveHand``). This module also lists the irregularities
the dealer console offers, each with the rule it applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from table_controller.service.models import Award, DrawEntry, LegalAction, PotView, SeatStatus

__all__ = ["IRREGULARITIES", "CardNeed", "HandOutcome", "Irregularity", "LiveHand", "SeatInfo"]


@dataclass(frozen=True, kw_only=True)
class Irregularity:
    label: str
    rule: str
    needs_seat: bool = True


IRREGULARITIES: dict[str, Irregularity] = {
    "exposed_card_deal": Irregularity(
        label="Card exposed in the deal",
        rule="000 Card exposed in the deal: one exposed card is kept, no misdeal"),
    "too_many_cards": Irregularity(
        label="Too many cards dealt",
        rule="000 Incorrect hand: excess back on the pack if unseen; foul if seen"),
    "too_few_cards": Irregularity(
        label="Too few cards dealt",
        rule="000 Incorrect hand; 001 IV 5a: dealt the missing cards if unseen"),
    "exposed_card_draw": Irregularity(
        label="Card exposed in the draw",
        rule="003 Incorrect dealing in the draw 1; 000; 001 IV 6 (house option)"),
    "wrong_draw_count": Irregularity(
        label="Wrong number of cards drawn",
        rule="003 Incorrect dealing in the draw 2; 000 Incorrect number of cards drawn"),
    "draw_out_of_turn": Irregularity(
        label="Draw out of turn",
        rule="003 Incorrect dealing in the draw 3; 000"),
    "foul_hand": Irregularity(
        label="Foul hand",
        rule="000 Foul hand: cannot win, chips forfeited"),
    "false_openers": Irregularity(
        label="Opener cannot prove openers",
        rule="003 False openers 1-4; 000 False openers"),
    "misdeal": Irregularity(
        label="Misdeal",
        rule="000 Card exposed in the deal: more than one exposed card; void deal, new shuffle",
        needs_seat=False),
    "mixed_cards": Irregularity(
        label="Draw mixed with discards",
        rule="003 Other rules governing the draw 4: unclean cards shuffled and cut",
        needs_seat=False),
}


@dataclass(frozen=True, kw_only=True)
class SeatInfo:
    """One player's place in the hand, as the engine has it (``hole`` is secret: floor view only)."""

    name: str
    stack: int
    bet: int
    status: SeatStatus
    hole: tuple[str, ...]
    shown: tuple[str, ...]
    drew: int | None
    opener: bool


@dataclass(frozen=True, kw_only=True)
class CardNeed:
    """The engine is waiting for a card from the shoe: to deal to a seat, to burn, or to serve a draw."""

    kind: str  # "deal", "burn", "draw"
    seat: int | None


@dataclass(frozen=True, kw_only=True)
class HandOutcome:
    status: str  # "complete", "passed_out", "void", ...
    stacks: dict[int, int]
    carried_pot: int
    awards: tuple[Award, ...]
    record: dict[str, Any]


class LiveHand(Protocol):
    """What the controller asks of one hand in play."""

    carried_in: int

    def seat_info(self) -> dict[int, SeatInfo]: ...

    def card_needed(self) -> CardNeed | None: ...

    def give_card(self, code: str) -> None: ...

    def to_act(self) -> int | None: ...

    def legal(self) -> tuple[LegalAction, ...]: ...

    def draw_entry(self) -> DrawEntry | None: ...

    def act(self, seat: int, act: str, to: int | None) -> str: ...

    def draw(self, seat: int, discard: tuple[str, ...]) -> str: ...

    def pots(self) -> tuple[PotView, ...]: ...

    def chips_total(self) -> int: ...

    def phase(self) -> str: ...

    def outcome(self) -> HandOutcome | None: ...
