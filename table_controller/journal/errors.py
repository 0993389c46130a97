"""The journal's errors, split by who is at fault.

`JournalError` is the root. Each error carries the CLI exit code it maps to (see
`table_controller.cli._common`): 1 for a finding (a tampered journal), 2 for bad input or an
unusable database. `JournalUsageError` is a caller's mistake (a payload that is not JSON, a writer
that lost the race for its table); `JournalUnavailableError` is the database's side (missing file,
bad URL, server down); `ChainBrokenError` is the journal's content failing verification.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class JournalError(Exception):
    """Root of every error the journal raises."""

    exit_code = 2
    code = "journal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class JournalUsageError(JournalError):
    """The caller asked for something the journal refuses: bad entry, bad payload, bad table id."""

    code = "bad_input"


class SequenceConflictError(JournalUsageError):
    """Another writer already appended at this sequence number: this writer's view is stale.

    Raised instead of forking the chain. The writer must be reopened (which re-reads the head).
    """

    code = "sequence_conflict"


class WriterBusyError(JournalUsageError):
    """Another live process holds the writer lock of this table."""

    code = "writer_busy"


class JournalUnavailableError(JournalError):
    """The database cannot be used: missing, unreadable, not a journal, bad URL, server down."""

    code = "unavailable"


class JournalDamagedError(JournalUnavailableError):
    """The database file itself is damaged (cut short, a page unreadable): the message says where."""

    exit_code = 1
    code = "damaged"


class JournalSchemaError(JournalUnavailableError):
    """The database is a journal whose layout this code does not read (a newer or unknown schema_version)."""

    code = "schema_version"


@dataclass(frozen=True, kw_only=True)
class ChainBreak:
    """The first broken link: which table, which stored entry, what is wrong."""

    table_id: str
    #: seq as stored in the offending row (None when unreadable); for an anchor failure, the anchor's seq.
    seq: int | None
    #: 0-based position of the offending row in the table's rows ordered by seq.
    position: int
    code: str
    reason: str

    def describe(self) -> str:
        where = f"table {self.table_id!r}"
        where += f" entry seq {self.seq}" if self.seq is not None else f" row {self.position}"
        return f"{where}: {self.reason}"

    def as_dict(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "seq": self.seq, "position": self.position, "code": self.code,
                "reason": self.reason}


class ChainBrokenError(JournalError):
    """The stored entries fail verification; `brk` names the first broken link."""

    exit_code = 1
    code = "tampered"

    def __init__(self, brk: ChainBreak) -> None:
        super().__init__(brk.describe())
        self.brk = brk
