"""The storage interface every journal backend implements, and opening one from a data dir or URL.

A backend stores rows and hands them back in (table_id, seq) order; it judges nothing (chain.py
does). Its promises: `append` returns only once the row is durable (committed and flushed to
stable storage as far as the database can promise); a second row with the same (table_id, seq)
is refused by a uniqueness constraint (SequenceConflictError), so two writers can never fork a chain;
`lock_writer` gives one live writer per table, released when the process dies.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator

from table_controller.journal.chain import StoredRow
from table_controller.journal.errors import JournalSchemaError

#: Name of the SQLite file under the data directory.
SQLITE_FILENAME = "journal.sqlite3"
COLUMNS = ("table_id", "seq", "hand_id", "hand_number", "kind", "at", "payload", "prev_hash", "hash")
PAGE = 500
#: The layout of the tables that this code writes and reads, stored as `journal_meta.schema_version`.
#: A change of layout raises it, and the backends then carry an older journal forward when they open it.
SCHEMA_VERSION = 1


class WriterLock(ABC):
    """Held by the one writer of a table; released explicitly or when the process dies."""

    @abstractmethod
    def release(self) -> None: ...


class JournalBackend(ABC):
    """Durable, append-only storage of journal rows."""

    #: Where the journal lives, safe to print (no password).
    description: str

    @abstractmethod
    def append(self, row: StoredRow) -> None:
        """Store one row durably; raise SequenceConflictError if (table_id, seq) is taken."""

    @abstractmethod
    def rows(self, table_id: str | None = None, *, from_seq: int = 1) -> Iterator[StoredRow]:
        """Rows in (table_id, seq) order; of one table from `from_seq` on, or of every table."""

    @abstractmethod
    def tables(self) -> list[str]:
        """Table ids with at least one row, sorted."""

    @abstractmethod
    def last_row(self, table_id: str) -> StoredRow | None:
        """The row with the highest seq of a table, if any."""

    @abstractmethod
    def lock_writer(self, table_id: str) -> WriterLock:
        """Take the table's writer lock or raise WriterBusyError."""

    @abstractmethod
    def close(self) -> None: ...


def check_schema_version(stored: object, *, where: str) -> None:
    """Refuse a journal whose stored `schema_version` is not the one this code reads.

    `stored` is the `journal_meta` value (None when the row or the table is missing). There is one layout
    so far, so there is nothing to migrate: a journal from a newer cardtable, or one whose version is
    missing or unreadable, is refused rather than read with the wrong layout.
    """
    text = stored.decode("utf-8", "replace") if isinstance(stored, bytes) else stored
    if text is None:
        raise JournalSchemaError(f"{where} has no schema_version in journal_meta: not a journal this cardtable "
                                 f"can read (it reads schema version {SCHEMA_VERSION})")
    version = int(text) if isinstance(text, str) and text.isascii() and text.isdigit() else None
    if version is None:
        raise JournalSchemaError(f"{where} has an unreadable schema_version {str(text)[:40]!r}: not a journal "
                                 f"this cardtable can read (it reads schema version {SCHEMA_VERSION})")
    if version > SCHEMA_VERSION:
        raise JournalSchemaError(f"{where} was written by a newer cardtable (schema version {version}; this one "
                                 f"reads {SCHEMA_VERSION}): upgrade cardtable to open it")
    if version < SCHEMA_VERSION:
        raise JournalSchemaError(f"{where} has schema version {version}, older than any this cardtable reads "
                                 f"({SCHEMA_VERSION})")


def row_from_tuple(values: tuple[object, ...]) -> StoredRow:
    return StoredRow(**dict(zip(COLUMNS, values, strict=True)))


def row_to_tuple(row: StoredRow) -> tuple[object, ...]:
    return tuple(getattr(row, name) for name in COLUMNS)


def redact_url(url: str) -> str:
    """The URL with any password replaced, for messages."""
    return re.sub(r"^([a-z][a-z0-9+.-]*://[^:/?#@]*):[^@/?#]*@", r"\1:***@", url, flags=re.IGNORECASE)
