"""Property: any single-byte change to any stored entry is detected by verify.

A journal is built once; each example copies the SQLite file, changes one byte of one column of
one row (integers through their decimal text, text through its UTF-8 bytes; a result that is no
longer valid UTF-8 is stored as a BLOB, as a raw file edit would leave it) and verifies.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from table_controller.journal import Journal, canonical_bytes, canonical_text, entry_hash
from table_controller.journal.backend import COLUMNS
from tests.journal.helpers import moment

ROWS = 8
_INT = re.compile(r"-?(0|[1-9][0-9]*)")


@pytest.fixture(scope="module")
def template() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        with Journal.open(data_dir=data) as journal:
            with journal.writer("t1") as writer:
                for i in range(ROWS - 2):
                    writer.append("action.bet", {"seat": i + 1, "chips": 25 * i, "say": "ünïcode ♠ \n"},
                                  at=moment(i), hand_id=f"h-{i // 3}", hand_number=i // 3)
            with journal.writer("t2") as writer:
                writer.append("hand.started", {"dealer_seat": 4}, at=moment(50))
                writer.record_hole_card_access(role="floor", who="Kim", why="dispute", at=moment(51))
            assert journal.verify().entries == ROWS
        yield data / "journal.sqlite3"


def _mutated(value: object, position: int, new_byte: int) -> object | None:
    """The value with one byte of its stored form replaced, or None if that byte already is `new_byte`."""
    is_int = isinstance(value, int)
    raw = bytearray(str(value).encode("utf-8"))
    index = position % len(raw)
    if raw[index] == new_byte:
        return None
    raw[index] = new_byte
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return bytes(raw)
    if is_int and _INT.fullmatch(text):
        return int(text)
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=st.integers(0, ROWS - 1), column=st.sampled_from(COLUMNS), position=st.integers(0, 10_000),
       new_byte=st.integers(0, 255))
def test_any_single_byte_change_is_detected(template: Path, row: int, column: str, position: int,
                                            new_byte: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        shutil.copy(template, data / "journal.sqlite3")
        conn = sqlite3.connect(data / "journal.sqlite3")
        try:
            conn.execute("DROP TRIGGER journal_entries_no_update")
            rowid, value = conn.execute(
                f"SELECT rowid, {column} FROM journal_entries ORDER BY table_id, seq LIMIT 1 OFFSET ?",
                (row,)).fetchone()
            assume(value is not None)  # a null hand id has no bytes to change
            changed = _mutated(value, position, new_byte)
            assume(changed is not None)
            try:
                conn.execute(f"UPDATE journal_entries SET {column} = ? WHERE rowid = ?", (changed, rowid))
            except sqlite3.IntegrityError:
                assume(False)  # the schema itself refused it (e.g. a seq that already exists)
            conn.commit()
        finally:
            conn.close()
        with Journal.open(data_dir=data, create=False) as journal:
            report = journal.verify()
        assert not report.ok, (column, value, changed)


@given(payload=st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53 - 1), 2**53 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
).filter(lambda v: isinstance(v, dict)))
@settings(max_examples=100, deadline=None)
def test_canonical_text_round_trips_and_hash_is_stable(payload: dict[str, object]) -> None:
    import json

    text = canonical_text(payload)
    assert canonical_text(json.loads(text)) == text
    assert canonical_bytes(payload) == text.encode("utf-8")
    def digest(body: dict[str, object]) -> str:
        return entry_hash(table_id="t1", seq=1, hand_id=None, hand_number=None, kind="x",
                          at="2026-11-30T09:00:00.000000Z", payload=body, prev_hash="0" * 64)

    assert digest(payload) == digest(json.loads(text))
