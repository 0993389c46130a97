"""The acts as the table entered them: one frozen event per act, in the hand's one event log.

Every act of a hand (a bet, a draw, a show, a report of an irregularity...) appends an :class:`ActTaken` to
``Hand.events`` before the events it produced. The hand record's ``actions`` are these events, in order, each
written as the record's entry (:meth:`ActTaken.to_action`): a record replays by applying them again, so the log
of what was entered and the log of what happened are one list. Like the shoe's deliveries, an act entered is an
input, not an outcome: a hand's result lists the game's events without them (:data:`INPUTS`).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Protocol

from table_controller.engine.events import TABLE_INPUTS, Event

__all__ = ["INPUTS", "ActTaken", "ReportLike", "actions_of"]


class ReportLike(Protocol):
    """An irregularity report or floor ruling as an act carries it (``irregular.Report``, frozen)."""

    @property
    def kind(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


# The key under which the record keeps an act's cards: what a draw throws, a reshuffle's new stub order (top
# first), what a show names.
_CARDS_KEY = {"draw": "discard", "reshuffle": "order", "show": "cards"}


class ActTaken(Event):
    """One act as entered: its name, the seat (None for the dealer's deal, burn, serve and reshuffle, and the
    reports), and the act's
    arguments: ``to`` for a bet or raise, ``count`` for a draw announced, ``cards`` for the cards a draw throws, a
    reshuffle orders or a show names, ``report`` for an irregularity or a floor ruling."""

    kind: ClassVar[str] = "act"
    fields: ClassVar[tuple[str, ...]] = ("act", "seat", "to", "count", "cards", "report")

    def __init__(self, *, act: str, seat: int | None = None, to: int | None = None, count: int | None = None,
                 cards: tuple[str, ...] | None = None, report: ReportLike | None = None) -> None:
        self.act: Final = act
        self.seat: Final = seat
        self.to: Final = to
        self.count: Final = count
        self.cards: Final = cards
        self.report: Final = report
        self._counts(seat, to, count)

    def to_action(self) -> dict[str, Any]:
        """The entry of the record's ``actions`` (``cardtable.hand/2``)."""
        entry: dict[str, Any] = {} if self.seat is None else {"seat": self.seat}
        entry["act"] = self.act
        if self.to is not None:
            entry["to"] = self.to
        if self.count is not None:
            entry["count"] = self.count
        if self.cards is not None:
            entry[_CARDS_KEY[self.act]] = list(self.cards)
        if self.report is not None:
            entry["report"] = self.report.to_json()
        return entry

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind, **self.to_action()}


#: The events that are inputs to a hand rather than its outcome: the acts entered, the shoe's cards.
INPUTS: tuple[type[Event], ...] = (ActTaken, *TABLE_INPUTS)


def actions_of(events: list[Event]) -> list[ActTaken]:
    """The acts entered, in order, from a hand's event log."""
    return [event for event in events if isinstance(event, ActTaken)]
