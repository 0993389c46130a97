"""What the controller needs from a journal, and an in-memory one.

The controller writes every input before it acts on it: seat changes, the start of a hand, the deck check,
each card the shoe delivered (its code, or "??"), each act, device fault, prompt answer, irregularity and
ruling; and, when a hand ends, its record. Replaying those entries through a fresh controller rebuilds the
table exactly (:meth:`TableController.recover`), which is how a crashed controller resumes. Every read of
hole cards is written as an audit entry.

:class:`MemoryJournal` keeps entries in a list (tests, and headless demo runs);
:class:`table_controller.controller.durable.DurableJournal` adapts the hash-chained journal package.
Payloads are JSON objects of strings, integers, booleans, lists and objects (no floats).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["JournalPort", "KeepsHandIndex", "MemoryJournal", "PortEntry"]


@dataclass(frozen=True, kw_only=True)
class PortEntry:
    seq: int
    kind: str
    data: dict[str, Any]
    hand: int | None = None


class JournalPort(Protocol):
    def append(self, kind: str, data: dict[str, Any], *, hand: int | None = None) -> None:
        """Write one entry durably; return only when it is stored."""

    def audit(self, *, role: str, who: str, why: str, hand: int | None) -> None:
        """Record that ``who``, acting as ``role``, was shown hole cards (of hand ``hand``)."""

    def store_hand(self, *, hand: int, record: dict[str, Any], result: dict[str, Any]) -> None:
        """Keep the finished hand's record (``cardtable.hand/2``) and result."""

    def entries(self) -> list[PortEntry]:
        """Every controller entry of this table in order (audit entries excluded), for replay."""

    def close(self) -> None: ...


@runtime_checkable
class KeepsHandIndex(Protocol):
    """A journal that can tell whether a hand's record is stored (so one lost in a crash is stored again), and
    the game it records (a hand started before games were journaled is replayed with it)."""

    def has_hand(self, hand: int) -> bool: ...

    def stored_game(self, hand: int) -> Any:
        """The ``game`` object of the hand's stored record as stored (None without one), unvalidated."""


@dataclass
class MemoryJournal:
    items: list[PortEntry] = field(default_factory=list)
    audits: list[dict[str, Any]] = field(default_factory=list)
    hands: dict[int, dict[str, Any]] = field(default_factory=dict)

    def append(self, kind: str, data: dict[str, Any], *, hand: int | None = None) -> None:
        _check_plain(data)
        self.items.append(PortEntry(seq=len(self.items) + 1, kind=kind, data=dict(data), hand=hand))

    def audit(self, *, role: str, who: str, why: str, hand: int | None) -> None:
        self.audits.append({"role": role, "who": who, "why": why, "hand": hand})

    def store_hand(self, *, hand: int, record: dict[str, Any], result: dict[str, Any]) -> None:
        self.hands[hand] = {"record": record, "result": result}

    def entries(self) -> list[PortEntry]:
        return list(self.items)

    def has_hand(self, hand: int) -> bool:
        return hand in self.hands

    def stored_game(self, hand: int) -> Any:
        stored = self.hands.get(hand)
        return stored["record"].get("game") if stored is not None else None

    def close(self) -> None:
        return None


def _check_plain(value: Any) -> None:
    # The durable journal refuses floats; refuse them here too so tests catch it.
    if isinstance(value, float):
        raise TypeError("journal payloads hold no floats")
    if isinstance(value, dict):
        for v in value.values():
            _check_plain(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _check_plain(v)
