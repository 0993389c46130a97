"""The durable, hash-chained hand journal (docs/journal.md).

Every event of a table is appended to the table's chain and stored durably before the controller
acts on it; each entry's hash covers its contents and the previous entry's hash, so an edit,
deletion, reordering or insertion is found by `Journal.verify()`. SQLite (WAL, synchronous=FULL)
under the data directory by default; PostgreSQL through a `postgresql://` URL.
"""

from table_controller.journal.canonical import GENESIS_HASH, canonical_bytes, canonical_text, entry_hash
from table_controller.journal.chain import StoredRow, TableChain
from table_controller.journal.entry import (
    HAND_RECORD_FORMAT,
    KIND_HAND_COMPLETED,
    KIND_HOLE_CARDS_READ,
    Anchor,
    HandCompleted,
    HandRecordEntry,
    HoleCardsRead,
    JournalEntry,
)
from table_controller.journal.errors import (
    ChainBreak,
    ChainBrokenError,
    JournalDamagedError,
    JournalError,
    JournalUnavailableError,
    JournalUsageError,
    SequenceConflictError,
    WriterBusyError,
)
from table_controller.journal.journal import Journal, TableWriter, VerifyReport

__all__ = [
    "GENESIS_HASH",
    "HAND_RECORD_FORMAT",
    "KIND_HAND_COMPLETED",
    "KIND_HOLE_CARDS_READ",
    "Anchor",
    "ChainBreak",
    "ChainBrokenError",
    "HandCompleted",
    "HandRecordEntry",
    "HoleCardsRead",
    "Journal",
    "JournalDamagedError",
    "JournalEntry",
    "JournalError",
    "JournalUnavailableError",
    "JournalUsageError",
    "SequenceConflictError",
    "StoredRow",
    "TableChain",
    "TableWriter",
    "VerifyReport",
    "WriterBusyError",
    "canonical_bytes",
    "canonical_text",
    "entry_hash",
]
