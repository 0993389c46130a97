"""Exact table of tampering cases: what an attacker does to the stored rows -> what verify reports.

Each case builds the same journal (table t1 with five entries, t2 with two), keeps t1's head as an
anchor, tampers through the database's back door (triggers dropped), and checks the first break
verify names: (table, seq, code), or None when the tampering is, by design, undetectable without
the anchor. Runs on SQLite and, when available, PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from table_controller.journal import (
    Anchor,
    Journal,
    JournalEntry,
    SequenceConflictError,
    StoredRow,
    canonical_text,
    entry_hash,
)
from table_controller.journal.backend import row_to_tuple
from tests.journal.helpers import Target, moment

INSERT = ("INSERT INTO journal_entries (table_id, seq, hand_id, hand_number, kind, at, payload, prev_hash, hash) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")


@dataclass
class Built:
    entries: list[JournalEntry]
    anchor: Anchor


def build(target: Target) -> Built:
    with target.open() as journal:
        entries = []
        with journal.writer("t1") as w1:
            for i in range(1, 6):
                entries.append(w1.append("action.bet", {"seat": i, "chips": 10 * i, "note": f"bet {i}"}, at=moment(i),
                                         hand_id="h-1", hand_number=1))
            anchor = w1.head
        with journal.writer("t2") as w2:
            w2.append("hand.started", {"dealer_seat": 2}, at=moment(10), hand_id="h-9", hand_number=9)
            w2.append("action.check", {"seat": 3}, at=moment(11), hand_id="h-9", hand_number=9)
    assert anchor is not None
    return Built(entries=entries, anchor=anchor)


def forged(*, table_id: str, seq: int, prev_hash: str, payload: dict[str, Any]) -> StoredRow:
    """An entry whose own hash is correct for its fields: what a careful forger would store."""
    fields: dict[str, Any] = {"table_id": table_id, "seq": seq, "hand_id": "h-1", "hand_number": 1,
                              "kind": "action.bet", "at": "2026-11-30T09:00:03.000021Z", "payload": payload,
                              "prev_hash": prev_hash}
    entry = JournalEntry(**fields, hash=entry_hash(**fields))
    return StoredRow.of(entry)


Tamper = Callable[[Target, Built], None]


def edit_payload(t: Target, b: Built) -> None:
    t.tamper(("UPDATE journal_entries SET payload = ? WHERE table_id = 't1' AND seq = 3",
              (canonical_text({"seat": 3, "chips": 3000, "note": "bet 3"}),)))


def edit_hand_number(t: Target, b: Built) -> None:
    t.tamper(("UPDATE journal_entries SET hand_number = 2 WHERE table_id = 't1' AND seq = 2", ()))


def edit_timestamp(t: Target, b: Built) -> None:
    t.tamper(("UPDATE journal_entries SET at = '2026-11-30T08:00:04.000028Z' WHERE table_id = 't1' AND seq = 4", ()))


def edit_kind(t: Target, b: Built) -> None:
    t.tamper(("UPDATE journal_entries SET kind = 'action.fold' WHERE table_id = 't1' AND seq = 1", ()))


def edit_stored_hash(t: Target, b: Built) -> None:
    t.tamper(("UPDATE journal_entries SET hash = ? WHERE table_id = 't1' AND seq = 5", ("ab" * 32,)))


def reencode_payload(t: Target, b: Built) -> None:
    # Same JSON value, other bytes: not canonical, so not what was hashed.
    t.tamper(("UPDATE journal_entries SET payload = ? WHERE table_id = 't1' AND seq = 3",
              ('{"chips": 30, "note": "bet 3", "seat": 3}',)))


def delete_middle(t: Target, b: Built) -> None:
    t.tamper(("DELETE FROM journal_entries WHERE table_id = 't1' AND seq = 3", ()))


def delete_first(t: Target, b: Built) -> None:
    t.tamper(("DELETE FROM journal_entries WHERE table_id = 't1' AND seq = 1", ()))


def swap_two(t: Target, b: Built) -> None:
    t.tamper(("UPDATE journal_entries SET seq = 1000 WHERE table_id = 't1' AND seq = 2", ()),
             ("UPDATE journal_entries SET seq = 2 WHERE table_id = 't1' AND seq = 3", ()),
             ("UPDATE journal_entries SET seq = 3 WHERE table_id = 't1' AND seq = 1000", ()))


def insert_middle(t: Target, b: Built) -> None:
    # Make room at seq 3 and slip in a self-consistent forged entry. It cannot claim entry 2 as its
    # predecessor (the old entry 3 does, and (table_id, prev_hash) is unique), so it links elsewhere.
    row = forged(table_id="t1", seq=3, prev_hash="ee" * 32, payload={"seat": 9, "chips": 1})
    t.tamper(*[("UPDATE journal_entries SET seq = ? WHERE table_id = 't1' AND seq = ?", (s + 1, s))
               for s in (5, 4, 3)], (INSERT, row_to_tuple(row)))


def truncate_tail(t: Target, b: Built) -> None:
    t.tamper(("DELETE FROM journal_entries WHERE table_id = 't1' AND seq = 5", ()))


def rewrite_consistently(t: Target, b: Built) -> None:
    # Edit entry 3 and recompute every hash from there on: a chain alone cannot tell.
    prev = b.entries[1].hash
    statements = []
    for old in b.entries[2:]:
        payload = dict(old.payload, chips=0) if old.seq == 3 else old.payload
        row = forged(table_id="t1", seq=old.seq, prev_hash=prev, payload=payload)
        assert isinstance(row.hash, str)
        statements.append(("UPDATE journal_entries SET payload = ?, prev_hash = ?, hash = ?, at = ? "
                           "WHERE table_id = 't1' AND seq = ?",
                           (row.payload, row.prev_hash, row.hash, row.at, old.seq)))
        prev = row.hash
    # Reversed so that no intermediate state repeats a (table_id, prev_hash) pair.
    t.tamper(*reversed(statements))


def move_to_other_table(t: Target, b: Built) -> None:
    t.tamper(("UPDATE journal_entries SET table_id = 't3' WHERE table_id = 't1' AND seq = 5", ()))


def append_forged_tail(t: Target, b: Built) -> None:
    row = forged(table_id="t1", seq=6, prev_hash="dd" * 32, payload={"seat": 1, "chips": 5})
    t.tamper((INSERT, row_to_tuple(row)))


# (tamper, break without anchor, break with t1's anchor) -- each break as (table, seq, code).
CASES: dict[str, tuple[Tamper | None, tuple[str, int, str] | None, tuple[str, int, str] | None]] = {
    "intact": (None, None, None),
    "edit payload": (edit_payload, ("t1", 3, "hash_mismatch"), ("t1", 3, "hash_mismatch")),
    "edit hand number": (edit_hand_number, ("t1", 2, "hash_mismatch"), ("t1", 2, "hash_mismatch")),
    "edit timestamp": (edit_timestamp, ("t1", 4, "hash_mismatch"), ("t1", 4, "hash_mismatch")),
    "edit kind": (edit_kind, ("t1", 1, "hash_mismatch"), ("t1", 1, "hash_mismatch")),
    "edit stored hash": (edit_stored_hash, ("t1", 5, "hash_mismatch"), ("t1", 5, "hash_mismatch")),
    "re-encode payload": (reencode_payload, ("t1", 3, "not_canonical"), ("t1", 3, "not_canonical")),
    "delete middle entry": (delete_middle, ("t1", 4, "missing_entries"), ("t1", 4, "missing_entries")),
    "delete first entry": (delete_first, ("t1", 2, "missing_entries"), ("t1", 2, "missing_entries")),
    "swap two entries": (swap_two, ("t1", 2, "prev_hash_mismatch"), ("t1", 2, "prev_hash_mismatch")),
    "insert in the middle": (insert_middle, ("t1", 3, "prev_hash_mismatch"), ("t1", 3, "prev_hash_mismatch")),
    "append forged tail": (append_forged_tail, ("t1", 6, "prev_hash_mismatch"), ("t1", 6, "prev_hash_mismatch")),
    "truncate the tail": (truncate_tail, None, ("t1", 5, "truncated")),
    "rewrite the chain consistently": (rewrite_consistently, None, ("t1", 5, "anchor_mismatch")),
    "move an entry to another table": (move_to_other_table, ("t3", 5, "missing_entries"),
                                       ("t1", 5, "truncated")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_tamper_case(case: str, target: Target) -> None:
    tamper, without_anchor, with_anchor = CASES[case]
    built = build(target)
    if tamper is not None:
        tamper(target, built)
    with target.open(create=False) as journal:
        for anchors, expected in (([], without_anchor), ([built.anchor], with_anchor)):
            report = journal.verify(anchors)
            found = None if report.first_break is None else (
                report.first_break.table_id, report.first_break.seq, report.first_break.code)
            assert found == expected, (anchors, report.first_break)
            assert report.ok is (expected is None)


def test_intact_report_counts_entries_tables_and_hands(target: Target) -> None:
    built = build(target)
    with target.open(create=False) as journal:
        report = journal.verify()
    assert (report.entries, report.tables, report.hands) == (7, 2, 2)
    assert report.heads["t1"] == built.anchor
    assert report.heads["t2"].seq == 2


def test_break_description_names_table_entry_and_reason(target: Target) -> None:
    delete_middle(target, build(target))
    with target.open(create=False) as journal:
        brk = journal.verify().first_break
    assert brk is not None
    assert brk.describe() == "table 't1' entry seq 4: entry seq 3 missing before this entry"


def test_schema_refuses_a_second_entry_at_a_seq(target: Target) -> None:
    # A restarted writer with a stale view cannot fork the chain: (table_id, seq) is unique.
    built = build(target)
    with target.open() as journal, journal.writer("t1") as writer:
        writer.last_seq, writer.last_hash = 2, built.entries[1].hash  # pretend the head is entry 2
        with pytest.raises(SequenceConflictError, match="already has an entry at seq 3"):
            writer.append("action.bet", {"seat": 1, "chips": 1}, at=moment(99))
    with target.open(create=False) as journal:
        assert journal.verify().ok


def test_triggers_refuse_update_and_delete_through_the_driver(target: Target) -> None:
    build(target)
    with target.open() as journal:
        backend: Any = journal.backend
        if target.kind == "sqlite":
            import sqlite3

            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                backend._conn.execute("DELETE FROM journal_entries WHERE seq = 1")
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                backend._conn.execute("UPDATE journal_entries SET kind = 'x' WHERE seq = 1")
        else:
            import psycopg

            for sql in ("DELETE FROM journal_entries WHERE seq = 1", "UPDATE journal_entries SET kind = 'x'",
                        "TRUNCATE journal_entries"):
                with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                    backend._conn.execute(sql)
        assert journal.verify().entries == 7


def verify_with(journal: Journal, anchor: Anchor) -> str | None:
    brk = journal.verify([anchor]).first_break
    return None if brk is None else brk.code


def test_anchor_for_a_table_the_journal_lacks_is_truncation(target: Target) -> None:
    build(target)
    with target.open(create=False) as journal:
        assert verify_with(journal, Anchor(table_id="t9", seq=4, hash="cd" * 32)) == "truncated"
