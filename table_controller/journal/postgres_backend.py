"""PostgreSQL backend, for a card room whose tables share one journal server.

Each append is one INSERT in autocommit mode with `synchronous_commit = on`: it returns once the
server has flushed the commit to its WAL. Uniqueness of (table_id, seq) is a primary key; the one
writer per table is a session-level advisory lock, which the server drops when the writer's
connection dies. Triggers refuse UPDATE, DELETE and TRUNCATE.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from table_controller.journal.backend import (
    COLUMNS,
    PAGE,
    SCHEMA_VERSION,
    JournalBackend,
    WriterLock,
    check_schema_version,
    redact_url,
    row_from_tuple,
    row_to_tuple,
)
from table_controller.journal.chain import StoredRow
from table_controller.journal.errors import JournalUnavailableError, SequenceConflictError, WriterBusyError

try:
    import psycopg
    from psycopg import errors as pg_errors
except ImportError:  # pragma: no cover - psycopg comes with the `postgres` extra
    psycopg = None  # type: ignore[assignment]

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS journal_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE IF NOT EXISTS journal_entries (
    table_id    text   NOT NULL,
    seq         bigint NOT NULL CHECK (seq >= 1),
    hand_id     text,
    hand_number bigint,
    kind        text   NOT NULL,
    at          text   NOT NULL,
    payload     text   NOT NULL,
    prev_hash   text   NOT NULL,
    hash        text   NOT NULL,
    PRIMARY KEY (table_id, seq),
    UNIQUE (table_id, prev_hash)
);
CREATE INDEX IF NOT EXISTS journal_entries_hand ON journal_entries (table_id, hand_id);
CREATE OR REPLACE FUNCTION journal_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'journal entries are append-only';
END
$$;
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_trigger WHERE tgname = 'journal_entries_no_change'
                   AND tgrelid = 'journal_entries'::regclass) THEN
        CREATE TRIGGER journal_entries_no_change BEFORE UPDATE OR DELETE ON journal_entries
            FOR EACH ROW EXECUTE FUNCTION journal_entries_append_only();
        CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
            FOR EACH STATEMENT EXECUTE FUNCTION journal_entries_append_only();
    END IF;
END
$$;
INSERT INTO journal_meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}') ON CONFLICT (key) DO NOTHING;
"""

# Serialises schema creation between controllers starting at the same moment.
_SCHEMA_LOCK_KEY = 0x63617264_7461626C  # "cardtabl"

_SELECT = f"SELECT {', '.join(COLUMNS)} FROM journal_entries"
_INSERT = f"INSERT INTO journal_entries ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))})"


def advisory_key(schema: str, table_id: str) -> int:
    """The signed 64-bit advisory-lock key of a table's writer in a schema. Advisory locks belong to the whole
    database, so the key names the schema too: journals in two schemas of one database are two journals."""
    digest = hashlib.sha256(b"cardtable.journal.writer:" + schema.encode("utf-8") + b"\x00" +
                            table_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class _AdvisoryWriterLock(WriterLock):
    def __init__(self, backend: PostgresBackend, key: int) -> None:
        self._backend: PostgresBackend | None = backend
        self._key = key

    def release(self) -> None:
        backend, self._backend = self._backend, None
        if backend is not None and not backend.closed:
            backend.execute("SELECT pg_advisory_unlock(%s)", (self._key,))


class PostgresBackend(JournalBackend):
    def __init__(self, url: str, *, create: bool = True, connect_timeout: int = 10) -> None:
        self.description = redact_url(url)
        if psycopg is None:  # pragma: no cover
            raise JournalUnavailableError("the PostgreSQL journal needs psycopg (pip install 'cardtable[postgres]')")
        try:
            self._conn: Any = psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout)
        except (psycopg.Error, ValueError) as exc:
            raise JournalUnavailableError(f"cannot connect to journal database {self.description}: "
                                     f"{_first_line(exc)}") from exc
        self.closed = False
        try:
            self._conn.execute("SET synchronous_commit TO on")
            if create and not self._has_schema():
                # Only when missing: a least-privilege role (INSERT/SELECT only) cannot run DDL at all.
                with self._conn.transaction():
                    self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK_KEY,))
                    self._conn.execute(_SCHEMA)
            if not self._has_schema():
                raise JournalUnavailableError(
                    f"{self.description} holds no cardtable journal (no journal_entries table)")
            check_schema_version(self._stored_schema_version(), where=self.description)
        except psycopg.Error as exc:
            self.close()
            raise JournalUnavailableError(
                f"cannot open journal database {self.description}: {_first_line(exc)}") from exc
        except JournalUnavailableError:
            self.close()
            raise

    def _has_schema(self) -> bool:
        found = self._conn.execute("SELECT to_regclass('journal_entries') IS NOT NULL").fetchone()
        return bool(found and found[0])

    def _stored_schema_version(self) -> object:
        if not self._conn.execute("SELECT to_regclass('journal_meta') IS NOT NULL").fetchone()[0]:
            return None
        found = self._conn.execute("SELECT value FROM journal_meta WHERE key = 'schema_version'").fetchone()
        return None if found is None else found[0]

    def execute(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        try:
            cur = self._conn.execute(sql, params)
            return list(cur.fetchall()) if cur.description is not None else []
        except psycopg.Error as exc:
            raise JournalUnavailableError(f"journal database {self.description}: {_first_line(exc)}") from exc

    def append(self, row: StoredRow) -> None:
        try:
            self._conn.execute(_INSERT, row_to_tuple(row))
        except pg_errors.UniqueViolation as exc:
            raise SequenceConflictError(
                f"table {row.table_id!r} already has an entry at seq {row.seq} (another writer appended; "
                "reopen the writer to resume from the current head)") from exc
        except psycopg.Error as exc:
            raise JournalUnavailableError(f"cannot append to {self.description}: {_first_line(exc)}") from exc

    def rows(self, table_id: str | None = None, *, from_seq: int = 1) -> Iterator[StoredRow]:
        if table_id is not None:
            last_seq: object = from_seq - 1
            while True:
                page = self.execute(f"{_SELECT} WHERE table_id = %s AND seq > %s ORDER BY seq LIMIT %s",
                                    (table_id, last_seq, PAGE))
                yield from (row_from_tuple(r) for r in page)
                if len(page) < PAGE:
                    return
                last_seq = page[-1][1]
        page = self.execute(f"{_SELECT} ORDER BY table_id, seq LIMIT %s", (PAGE,))
        while True:
            yield from (row_from_tuple(r) for r in page)
            if len(page) < PAGE:
                return
            page = self.execute(f"{_SELECT} WHERE (table_id, seq) > (%s, %s) ORDER BY table_id, seq LIMIT %s",
                                (page[-1][0], page[-1][1], PAGE))

    def tables(self) -> list[str]:
        found = self.execute("SELECT DISTINCT table_id FROM journal_entries ORDER BY table_id")
        return [t for (t,) in found if isinstance(t, str)]

    def last_row(self, table_id: str) -> StoredRow | None:
        found = self.execute(f"{_SELECT} WHERE table_id = %s ORDER BY seq DESC LIMIT 1", (table_id,))
        return row_from_tuple(found[0]) if found else None

    def lock_writer(self, table_id: str) -> WriterLock:
        schema = self.execute("SELECT current_schema()")
        key = advisory_key(str(schema[0][0]) if schema else "", table_id)
        got = self.execute("SELECT pg_try_advisory_lock(%s)", (key,))
        if not got or got[0][0] is not True:
            raise WriterBusyError(f"another writer holds table {table_id!r} on {self.description}")
        return _AdvisoryWriterLock(self, key)

    def close(self) -> None:
        if not getattr(self, "closed", True):
            self.closed = True
            self._conn.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
