"""The durable, hash-chained journal (``table_controller.journal``) behind the controller's JournalPort.

Each controller entry becomes one entry of the table's chain, stored before ``append`` returns; hole-card
reads use the journal's ``hole_cards.read`` kind and finished hands its ``hand.completed`` kind (so
``cardtable history export`` and ``verify`` see them). ``entries()`` reads the chain back, verified, for
:meth:`TableController.recover`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from table_controller.controller.errors import DeviceError
from table_controller.controller.journal_port import PortEntry
from table_controller.journal import KIND_HAND_COMPLETED, KIND_HOLE_CARDS_READ, Journal, JournalError, TableWriter

__all__ = ["DurableJournal"]

_NOT_REPLAYED = frozenset({KIND_HOLE_CARDS_READ, KIND_HAND_COMPLETED})


class DurableJournal:
    def __init__(self, journal: Journal, table_id: str, *, now: Callable[[], datetime] | None = None) -> None:
        self.journal = journal
        self.table_id = table_id
        self._stored_hands: set[int] = set()  # hands with a stored record, as last read by entries()
        self._stored_games: dict[int, Any] = {}  # hand -> its stored record's game, as last read by entries()
        self._now = now or (lambda: datetime.now(UTC))
        try:
            self.writer: TableWriter = journal.writer(table_id)
        except JournalError as exc:
            raise DeviceError(f"journal: {exc}", code="journal_unavailable") from exc

    @classmethod
    def open(cls, table_id: str, *, data_dir: str | Path | None = None, url: str | None = None) -> DurableJournal:
        try:
            journal = Journal.open(data_dir=data_dir, url=url)
        except JournalError as exc:
            raise DeviceError(f"cannot open the journal: {exc}", code="journal_unavailable") from exc
        return cls(journal, table_id)

    @property
    def description(self) -> str:
        return self.journal.description

    @staticmethod
    def _hand_id(hand: int | None) -> str | None:
        return None if not hand else f"h{hand:06d}"

    def append(self, kind: str, data: dict[str, Any], *, hand: int | None = None) -> None:
        try:
            self.writer.append(kind, data, at=self._now(), hand_id=self._hand_id(hand), hand_number=hand or None)
        except JournalError as exc:
            # Nothing is acted on unless it is journaled: the caller's operation fails as a device fault.
            raise DeviceError(f"journal write failed: {exc}", code="journal_unavailable") from exc

    def audit(self, *, role: str, who: str, why: str, hand: int | None) -> None:
        try:
            self.writer.record_hole_card_access(role=role, who=who[:200], why=why[:500], at=self._now(),
                                                hand_id=self._hand_id(hand), hand_number=hand or None)
        except JournalError as exc:
            raise DeviceError(f"journal write failed: {exc}", code="journal_unavailable") from exc

    def store_hand(self, *, hand: int, record: dict[str, Any], result: dict[str, Any]) -> None:
        try:
            self.writer.record_hand_completed(hand_id=f"h{hand:06d}", hand_number=hand, record=record, result=result,
                                              at=self._now())
            self._stored_hands.add(hand)
        except JournalError as exc:
            raise DeviceError(f"journal write failed: {exc}", code="journal_unavailable") from exc

    def entries(self) -> list[PortEntry]:
        out: list[PortEntry] = []
        games: dict[str, Any] = {}  # one object per distinct game: a table's hands share a few
        for entry in self.journal.read_all(self.table_id):
            if entry.kind == KIND_HAND_COMPLETED and entry.hand_number is not None:
                self._stored_hands.add(entry.hand_number)
                record = entry.payload.get("record")
                game = record.get("game") if isinstance(record, dict) else None
                key = json.dumps(game, sort_keys=True)
                self._stored_games[entry.hand_number] = games.setdefault(key, game)
            if entry.kind in _NOT_REPLAYED:
                continue
            out.append(PortEntry(seq=entry.seq, kind=entry.kind, data=dict(entry.payload), hand=entry.hand_number))
        return out

    def has_hand(self, hand: int) -> bool:
        """Whether the hand's record is stored (as of the last :meth:`entries` and since)."""
        return hand in self._stored_hands

    def stored_game(self, hand: int) -> Any:
        """The ``game`` of the hand's stored record as the last :meth:`entries` read it (what recovery asks), None
        without one."""
        return self._stored_games.get(hand)

    def close(self) -> None:
        self.writer.close()
        self.journal.close()
