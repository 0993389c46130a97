"""The journal as the controller and the CLI use it: open, write one table's chain, replay, verify.

    journal = Journal.open(data_dir="./cardtable-data")          # or url="postgresql://..."
    writer = journal.writer("t1")                                 # verifies the chain, takes the lock
    writer.append("hand.started", {"dealer_seat": 3}, at=now, hand_id="h-0001", hand_number=1)
    ...                                                           # act only after append returned
    for entry in journal.read_all("t1"): ...                      # replay after a restart

`append` computes seq and prev_hash from the writer's head, hashes the entry, stores it and only
then returns it: the caller acts on an event after it is durable, never before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import BaseModel, ValidationError

from table_controller.journal.backend import JournalBackend, WriterLock
from table_controller.journal.canonical import GENESIS_HASH, entry_hash, format_timestamp
from table_controller.journal.chain import StoredRow, TableChain
from table_controller.journal.entry import (
    KIND_HAND_COMPLETED,
    KIND_HOLE_CARDS_READ,
    Anchor,
    HandCompleted,
    HandRecordEntry,
    HoleCardsRead,
    JournalEntry,
    validate_payload,
)
from table_controller.journal.errors import ChainBreak, ChainBrokenError, JournalUsageError, WriterBusyError
from table_controller.journal.opening import open_backend


@dataclass(frozen=True, kw_only=True)
class VerifyReport:
    """What `Journal.verify` found: counts, each table's head, and the first broken link if any."""

    entries: int
    tables: int
    hands: int
    heads: dict[str, Anchor] = field(default_factory=dict)
    first_break: ChainBreak | None = None

    @property
    def ok(self) -> bool:
        return self.first_break is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "entries": self.entries,
            "tables": self.tables,
            "hands": self.hands,
            "heads": {t: {"seq": a.seq, "hash": a.hash} for t, a in self.heads.items()},
            "break": None if self.first_break is None else self.first_break.as_dict(),
        }


class Journal:
    """A journal database: many tables, each with its own hash chain."""

    def __init__(self, backend: JournalBackend) -> None:
        self.backend = backend
        self._writing: set[str] = set()

    @classmethod
    def open(cls, *, data_dir: str | Path | None = None, url: str | None = None, create: bool = True) -> Journal:
        """Open (and by default create) the journal: SQLite under `data_dir`, or the database at `url`."""
        return cls(open_backend(data_dir=data_dir, url=url, create=create))

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.backend.close()

    @property
    def description(self) -> str:
        return self.backend.description

    # -- writing -------------------------------------------------------------------------------

    def writer(self, table_id: str, *, verify: bool = True) -> TableWriter:
        """The one writer of a table: takes its lock, checks its chain, and resumes at its head.

        `verify=False` checks only the head entry's own hash instead of the whole chain (verification
        reads roughly ten thousand entries a second), for a caller that verified the chain otherwise.

        Raises WriterBusyError if another writer (in this or another process) holds the table,
        ChainBrokenError if the stored chain fails verification (a writer never extends a broken chain).
        """
        _check_table_id(table_id)
        if table_id in self._writing:
            raise WriterBusyError(f"table {table_id!r} already has a writer in this process")
        lock = self.backend.lock_writer(table_id)
        try:
            if verify:
                head: JournalEntry | None = None
                for entry in self.read_all(table_id):
                    head = entry
            else:
                # Trust the stored chain (the caller verified it another way) but not the head row itself.
                last = self.backend.last_row(table_id)
                head = None if last is None else _self_consistent(table_id, last)
        except BaseException:
            lock.release()
            raise
        self._writing.add(table_id)
        return TableWriter(self, table_id, lock, head)

    def _writer_closed(self, table_id: str) -> None:
        self._writing.discard(table_id)

    # -- reading and replay --------------------------------------------------------------------

    def tables(self) -> list[str]:
        return self.backend.tables()

    def head(self, table_id: str) -> Anchor | None:
        """The table's last entry as an anchor to keep outside the database (unverified)."""
        last = self.backend.last_row(table_id)
        if last is None:
            return None
        entry = TableChain(table_id=table_id).decode(last)
        return Anchor(table_id=table_id, seq=entry.seq, hash=entry.hash)

    def read_all(self, table_id: str) -> Iterator[JournalEntry]:
        """Every entry of a table in order, each checked against the chain; raises ChainBrokenError."""
        chain = TableChain(table_id=table_id)
        for row in self.backend.rows(table_id):
            yield chain.feed(row)

    def entries_since(self, table_id: str, seq: int, *, expected_hash: str | None = None) -> Iterator[JournalEntry]:
        """Entries of a table with seq > `seq`, for a controller that has already applied up to `seq`.

        The entry at `seq` itself is read and checked (its hash, and `expected_hash` if given) so the
        entries that follow link to what the caller holds; the chain before it is not re-read.
        """
        if seq < 0:
            raise JournalUsageError(f"seq must be >= 0, not {seq}")
        if seq == 0:
            if expected_hash not in (None, GENESIS_HASH):
                raise JournalUsageError("expected_hash at seq 0 can only be the genesis hash")
            yield from self.read_all(table_id)
            return
        rows = self.backend.rows(table_id, from_seq=seq)
        first = next(rows, None)
        chain = TableChain(table_id=table_id, expected_seq=seq, position=seq - 1)
        if first is None:
            raise ChainBrokenError(ChainBreak(table_id=table_id, seq=seq, position=seq - 1, code="truncated",
                                         reason=f"the chain has no entry seq {seq}, which the caller has applied"))
        start = chain.decode(first)
        chain.prev_hash = start.prev_hash  # trust the link before `seq`: the caller verified it earlier
        chain.feed(first)
        if expected_hash is not None and start.hash != expected_hash:
            raise ChainBrokenError(ChainBreak(table_id=table_id, seq=seq, position=seq - 1, code="anchor_mismatch",
                                         reason=f"entry seq {seq} has hash {start.hash[:16]}… but the caller "
                                                f"holds {expected_hash[:16]}…"))
        for row in rows:
            yield chain.feed(row)

    def hand_records(self, table_id: str | None = None) -> Iterator[HandRecordEntry]:
        """Every completed hand's record and result, table by table in chain order (verified)."""
        for table in [table_id] if table_id is not None else self.tables():
            for entry in self.read_all(table):
                if entry.kind != KIND_HAND_COMPLETED or entry.hand_id is None:
                    continue
                body = HandCompleted.model_validate(entry.payload)
                yield HandRecordEntry(table_id=table, hand_id=entry.hand_id, hand_number=entry.hand_number,
                                      seq=entry.seq, at=entry.at, record=body.record, result=body.result)

    def verify(self, anchors: Iterable[Anchor] = ()) -> VerifyReport:
        """Check every table's chain (and the anchors given); report counts or the first break."""
        by_table = {a.table_id: a for a in anchors}
        entries = 0
        hands: set[tuple[str, str]] = set()
        heads: dict[str, Anchor] = {}
        chain: TableChain | None = None
        current: object = None

        def finish() -> None:
            if chain is not None:
                chain.finish(by_table.pop(chain.table_id, None))

        try:
            for row in self.backend.rows():
                if chain is None or row.table_id != current:
                    finish()
                    current = row.table_id
                    label = row.table_id if isinstance(row.table_id, str) else repr(row.table_id)
                    anchor = by_table.get(label)
                    chain = TableChain(table_id=label,
                                       remember=frozenset() if anchor is None else frozenset({anchor.seq}))
                entry = chain.feed(row)
                entries += 1
                heads[entry.table_id] = Anchor(table_id=entry.table_id, seq=entry.seq, hash=entry.hash)
                if entry.hand_id is not None:
                    hands.add((entry.table_id, entry.hand_id))
            finish()
            for table_id, anchor in sorted(by_table.items()):
                TableChain(table_id=table_id).finish(anchor)  # a table the anchor names but the DB lacks
        except ChainBrokenError as exc:
            return VerifyReport(entries=entries, tables=len(heads), hands=len(hands), heads=heads,
                                first_break=exc.brk)
        return VerifyReport(entries=entries, tables=len(heads), hands=len(hands), heads=heads)


class TableWriter:
    """Appends to one table's chain. Get one from `Journal.writer`; close it to free the table."""

    def __init__(self, journal: Journal, table_id: str, lock: WriterLock, head: JournalEntry | None) -> None:
        self.journal = journal
        self.table_id = table_id
        self._lock: WriterLock | None = lock
        self.last_seq = 0 if head is None else head.seq
        self.last_hash = GENESIS_HASH if head is None else head.hash

    @property
    def head(self) -> Anchor | None:
        """The last entry written, as an anchor to keep elsewhere (e.g. printed after each hand)."""
        if self.last_seq == 0:
            return None
        return Anchor(table_id=self.table_id, seq=self.last_seq, hash=self.last_hash)

    def __enter__(self) -> TableWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()
            self.journal._writer_closed(self.table_id)

    def build(self, kind: str, payload: Mapping[str, Any] | BaseModel, *, at: datetime,
              hand_id: str | None = None, hand_number: int | None = None) -> JournalEntry:
        """The next entry, hashed and validated, without storing it."""
        body = payload.model_dump(mode="json") if isinstance(payload, BaseModel) else dict(payload)
        validate_payload(kind, body)
        stamp = format_timestamp(at)
        seq = self.last_seq + 1
        try:
            digest = entry_hash(table_id=self.table_id, seq=seq, hand_id=hand_id, hand_number=hand_number, kind=kind,
                                at=stamp, payload=_checked(body), prev_hash=self.last_hash)
            return JournalEntry(table_id=self.table_id, seq=seq, hand_id=hand_id, hand_number=hand_number,
                                kind=kind, at=stamp, payload=body, prev_hash=self.last_hash, hash=digest)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "entry"
            raise JournalUsageError(f"cannot journal this entry: {where}: {first['msg']}") from exc

    def append(self, kind: str, payload: Mapping[str, Any] | BaseModel, *, at: datetime,
               hand_id: str | None = None, hand_number: int | None = None) -> JournalEntry:
        """Store the next entry durably and return it. Act on the event only after this returns.

        Raises JournalUsageError for a bad entry (nothing stored), SequenceConflictError if another writer
        appended meanwhile, JournalUnavailableError if the database failed (the entry may or may not
        be stored: reopen the writer, which re-reads the head, before going on).
        """
        if self._lock is None:
            raise JournalUsageError(f"the writer of table {self.table_id!r} is closed")
        entry = self.build(kind, payload, at=at, hand_id=hand_id, hand_number=hand_number)
        self.journal.backend.append(StoredRow.of(entry))
        self.last_seq = entry.seq
        self.last_hash = entry.hash
        return entry

    def record_hole_card_access(self, *, role: str, who: str, why: str, at: datetime,
                                seats: list[int] | None = None, hand_id: str | None = None,
                                hand_number: int | None = None) -> JournalEntry:
        """Journal that `who`, acting as `role`, read hole cards (of `seats`, or all) and why."""
        return self.append(KIND_HOLE_CARDS_READ, _model(HoleCardsRead, role=role, who=who, why=why, seats=seats),
                           at=at, hand_id=hand_id, hand_number=hand_number)

    def record_hand_completed(self, *, hand_id: str, hand_number: int, record: Mapping[str, Any],
                              result: Mapping[str, Any], at: datetime) -> JournalEntry:
        """Journal a finished hand's record (format cardtable.hand/2) and result."""
        return self.append(KIND_HAND_COMPLETED, _model(HandCompleted, record=dict(record), result=dict(result)),
                           at=at, hand_id=hand_id, hand_number=hand_number)


def _self_consistent(table_id: str, row: StoredRow) -> JournalEntry:
    chain = TableChain(table_id=table_id)
    entry = chain.decode(row)
    if entry.computed_hash() != entry.hash:
        chain.position = entry.seq - 1
        chain._break(entry.seq, "hash_mismatch", "the head entry's stored hash does not match its contents")
    return entry


def _model(model: type[BaseModel], **fields: Any) -> BaseModel:
    try:
        return model(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "payload"
        raise JournalUsageError(f"{model.__name__}: {where}: {first['msg']}") from exc


def _checked(body: dict[str, Any]) -> dict[str, Any]:
    from table_controller.journal.canonical import check_json

    check_json(body)
    return body


def _check_table_id(table_id: str) -> None:
    try:
        Anchor(table_id=table_id, seq=1, hash=GENESIS_HASH)
    except ValidationError as exc:
        raise JournalUsageError(f"bad table id {table_id!r}: letters, digits, '.', '_' and '-', at most 64") from exc
