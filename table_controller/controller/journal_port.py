"""What the controller needs from a journal, and an in-memory one.

The controller writes every input before it acts on it: seat changes, the start of a hand, each card the
shoe delivered (its identity, or "??"), each act, draw, irregularity and ruling, and the end of the hand
with its record. Replaying those entries through a fresh controller rebuilds the table exactly, which is
how a crashed controller resumes. Reads of hole cards are written as audit entries.

:class:`MemoryJournal` keeps entries in a list (tests, and headless demo runs that ask for no storage);
``table_controller.controller.durable`` adapts the durable journal package to the same protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["JournalEntry", "JournalPort", "MemoryJournal"]


@dataclass(frozen=True, kw_only=True)
class JournalEntry:
    seq: int
    kind: str
    data: dict[str, Any]


class JournalPort(Protocol):
    def append(self, kind: str, data: dict[str, Any]) -> None:
        """Write one entry durably; return only when it is stored."""

    def entries(self) -> list[JournalEntry]:
        """Every entry of this table in order (for replay after a crash)."""

    def store_hand(self, hand: int, record: dict[str, Any]) -> None:
        """Keep the finished hand's record (``cardtable.hand/1``)."""

    def close(self) -> None: ...


@dataclass
class MemoryJournal:
    items: list[JournalEntry] = field(default_factory=list)
    hands: dict[int, dict[str, Any]] = field(default_factory=dict)

    def append(self, kind: str, data: dict[str, Any]) -> None:
        self.items.append(JournalEntry(seq=len(self.items) + 1, kind=kind, data=dict(data)))

    def entries(self) -> list[JournalEntry]:
        return list(self.items)

    def store_hand(self, hand: int, record: dict[str, Any]) -> None:
        self.hands[hand] = record

    def close(self) -> None:
        return None
