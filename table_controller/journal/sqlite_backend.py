"""SQLite backend: one file under the data directory, WAL mode, `synchronous=FULL`.

Each append is one INSERT in autocommit mode, i.e. its own transaction: SQLite appends the page
images to the WAL and, with synchronous=FULL, fsyncs the WAL before the commit returns. A process
killed at any instant leaves either the whole entry or none of it; an OS crash or power cut after
`append` returned cannot lose it. Triggers refuse UPDATE and DELETE, so only someone bypassing
the journal (or dropping the triggers) can change history, and the hash chain shows that.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from table_controller.journal.backend import (
    COLUMNS,
    PAGE,
    SCHEMA_VERSION,
    JournalBackend,
    WriterLock,
    check_schema_version,
    row_from_tuple,
    row_to_tuple,
)
from table_controller.journal.chain import StoredRow
from table_controller.journal.errors import (
    JournalDamagedError,
    JournalUnavailableError,
    SequenceConflictError,
    WriterBusyError,
)

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS journal_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS journal_entries (
    table_id    TEXT    NOT NULL,
    seq         INTEGER NOT NULL CHECK (seq >= 1),
    hand_id     TEXT,
    hand_number INTEGER,
    kind        TEXT    NOT NULL,
    at          TEXT    NOT NULL,
    payload     TEXT    NOT NULL,
    prev_hash   TEXT    NOT NULL,
    hash        TEXT    NOT NULL,
    PRIMARY KEY (table_id, seq),
    UNIQUE (table_id, prev_hash)
);
CREATE INDEX IF NOT EXISTS journal_entries_hand ON journal_entries (table_id, hand_id);
CREATE TRIGGER IF NOT EXISTS journal_entries_no_update BEFORE UPDATE ON journal_entries
BEGIN SELECT RAISE(ABORT, 'journal entries are append-only'); END;
CREATE TRIGGER IF NOT EXISTS journal_entries_no_delete BEFORE DELETE ON journal_entries
BEGIN SELECT RAISE(ABORT, 'journal entries are append-only'); END;
INSERT OR IGNORE INTO journal_meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');
"""

_SELECT = f"SELECT {', '.join(COLUMNS)} FROM journal_entries"
_INSERT = f"INSERT INTO journal_entries ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def _text_or_bytes(raw: bytes) -> str | bytes:
    # A tampered file may hold bytes that are not UTF-8 in a TEXT column: surface them as bytes so
    # verification reports the entry instead of the driver raising on the read.
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


class _FlockWriterLock(WriterLock):
    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


_MAGIC = b"SQLite format 3\x00"


def damage(path: Path) -> str | None:
    """Where the database file is damaged, read from its own header (None if it looks whole): a file cut
    short mid-page, or shorter than the page count its header records."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            header = fh.read(100)
    except OSError:
        return None
    if len(header) < 100 or not header.startswith(_MAGIC):
        return None  # not a database at all: "cannot open", not damage to a journal
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    if page < 512:
        return f"the header names a page size of {page} bytes: the first page is damaged"
    pages, rest = divmod(size, page)
    recorded = int.from_bytes(header[28:32], "big")
    valid = header[24:28] == header[92:96]  # the recorded page count is valid only if it was written with the change
    if rest:
        return (f"the file ends {rest} bytes into page {pages + 1} ({page}-byte pages, byte offset {size}): it was cut "
                f"off mid-page; what page {pages + 1} and later held is lost")
    if valid and recorded > pages:
        return (f"the file holds {pages} pages of {page} bytes but its header records {recorded}: it was cut off after "
                f"page {pages} (byte offset {size})")
    return None


def _failure(path: Path, what: str, exc: sqlite3.Error) -> JournalUnavailableError:
    """A SQLite error as the journal's error: damage to the file, named with where it is, or unavailability."""
    where = damage(path) if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError) \
        else None
    if where is None and "malformed" in str(exc):
        where = f"SQLite reports the file malformed ({exc}); it is {path.stat().st_size} bytes"
    if where is not None:
        return JournalDamagedError(f"journal database {path} is damaged: {where}")
    return JournalUnavailableError(f"{what}: {exc}")


class SqliteBackend(JournalBackend):
    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = path
        self.description = str(path)
        if not create and not path.is_file():
            raise JournalUnavailableError(f"no journal database at {path}")
        try:
            if create:
                self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            else:
                self._conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                             isolation_level=None, check_same_thread=False)
            self._conn.text_factory = _text_or_bytes
            self._conn.execute("PRAGMA busy_timeout = 10000")
            if create:
                mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise JournalUnavailableError(f"{path}: SQLite refused WAL mode (got {mode})")
                self._conn.execute("PRAGMA synchronous = FULL")
                self._conn.executescript(_SCHEMA)
            found = self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_entries'").fetchone()
            if found is None:
                raise JournalUnavailableError(f"{path} is not a cardtable journal (no journal_entries table)")
            check_schema_version(self._stored_schema_version(), where=str(path))
        except sqlite3.Error as exc:
            self._close_quietly()
            raise _failure(path, f"cannot open journal database {path}", exc) from exc
        except JournalUnavailableError:
            self._close_quietly()
            raise

    def _stored_schema_version(self) -> object:
        has_meta = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_meta'").fetchone()
        if has_meta is None:
            return None
        found = self._conn.execute("SELECT value FROM journal_meta WHERE key = 'schema_version'").fetchone()
        return None if found is None else found[0]

    def _close_quietly(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()

    def append(self, row: StoredRow) -> None:
        try:
            self._conn.execute(_INSERT, row_to_tuple(row))
        except sqlite3.IntegrityError as exc:
            raise SequenceConflictError(
                f"table {row.table_id!r} already has an entry at seq {row.seq} (another writer appended; "
                "reopen the writer to resume from the current head)") from exc
        except sqlite3.Error as exc:
            raise JournalUnavailableError(f"cannot append to {self.path}: {exc}") from exc

    def rows(self, table_id: str | None = None, *, from_seq: int = 1) -> Iterator[StoredRow]:
        try:
            if table_id is not None:
                last_seq: object = from_seq - 1
                while True:
                    page = self._conn.execute(
                        f"{_SELECT} WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                        (table_id, last_seq, PAGE)).fetchall()
                    yield from (row_from_tuple(tuple(r)) for r in page)
                    if len(page) < PAGE:
                        return
                    last_seq = page[-1][1]
            else:
                page = self._conn.execute(f"{_SELECT} ORDER BY table_id, seq LIMIT ?", (PAGE,)).fetchall()
                while True:
                    yield from (row_from_tuple(tuple(r)) for r in page)
                    if len(page) < PAGE:
                        return
                    last_table, last_seq = page[-1][0], page[-1][1]
                    page = self._conn.execute(
                        f"{_SELECT} WHERE (table_id, seq) > (?, ?) ORDER BY table_id, seq LIMIT ?",
                        (last_table, last_seq, PAGE)).fetchall()
        except sqlite3.Error as exc:
            raise _failure(self.path, f"cannot read journal database {self.path}", exc) from exc

    def tables(self) -> list[str]:
        try:
            found = self._conn.execute("SELECT DISTINCT table_id FROM journal_entries ORDER BY table_id").fetchall()
        except sqlite3.Error as exc:
            raise _failure(self.path, f"cannot read journal database {self.path}", exc) from exc
        return [t for (t,) in found if isinstance(t, str)]

    def last_row(self, table_id: str) -> StoredRow | None:
        try:
            found = self._conn.execute(f"{_SELECT} WHERE table_id = ? ORDER BY seq DESC LIMIT 1",
                                       (table_id,)).fetchone()
        except sqlite3.Error as exc:
            raise _failure(self.path, f"cannot read journal database {self.path}", exc) from exc
        return None if found is None else row_from_tuple(tuple(found))

    def lock_writer(self, table_id: str) -> WriterLock:
        digest = hashlib.sha256(table_id.encode("utf-8")).hexdigest()[:16]
        lock_path = self.path.with_name(f"{self.path.name}.writer-{digest}.lock")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise JournalUnavailableError(f"cannot create writer lock {lock_path}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            raise WriterBusyError(f"another writer holds table {table_id!r} (lock {lock_path})") from exc
        return _FlockWriterLock(fd)

    def close(self) -> None:
        self._conn.close()
