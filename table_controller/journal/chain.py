"""Verifying hash chains: pure, fed stored rows in (table, seq) order, answering with entries or a break.

How it works: each table has its own chain. Its first entry has seq 1 and prev_hash GENESIS_HASH;
entry n+1 has seq n+1 and prev_hash equal to entry n's hash; each hash is the SHA-256 of the
canonical encoding of the entry's other fields (canonical.py). `TableChain.feed(row)` checks one
stored row against what the chain expects, in this order, and names the first check that fails:

    malformed            a column has the wrong type, or the envelope is invalid
    not_canonical        the payload text is not a JSON object in canonical form
    missing_entries      seq skips ahead (entries deleted or never written)
    out_of_order         seq goes backwards or repeats
    prev_hash_mismatch   prev_hash is not the hash of the entry before (reordered or inserted)
    hash_mismatch        the stored hash is not the hash of the stored fields (edited)

and, once a table's rows are all fed, against an anchor the caller kept:

    truncated            the chain ends before the anchor's seq
    anchor_mismatch      the entry at the anchor's seq has another hash (rewritten chain)

No IO here: backends produce `StoredRow`s, this module judges them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NoReturn

from pydantic import ValidationError

from table_controller import bounded
from table_controller.journal.canonical import GENESIS_HASH, canonical_text
from table_controller.journal.entry import Anchor, JournalEntry
from table_controller.journal.errors import ChainBreak, ChainBrokenError


@dataclass(frozen=True, kw_only=True)
class StoredRow:
    """One row as a backend read it, before any trust: every column may hold anything."""

    table_id: object
    seq: object
    hand_id: object
    hand_number: object
    kind: object
    at: object
    payload: object
    prev_hash: object
    hash: object

    @classmethod
    def of(cls, entry: JournalEntry) -> StoredRow:
        """The row a backend stores for an entry (payload as canonical JSON text)."""
        return cls(table_id=entry.table_id, seq=entry.seq, hand_id=entry.hand_id, hand_number=entry.hand_number,
                   kind=entry.kind, at=entry.at, payload=canonical_text(entry.payload),
                   prev_hash=entry.prev_hash, hash=entry.hash)


_TEXT_COLUMNS = ("table_id", "kind", "at", "payload", "prev_hash", "hash")
MAX_PAYLOAD_CHARS = 16 * 1024 * 1024  # a hand record is kilobytes; a row far larger is damage, not data


def _label(value: object) -> str:
    return repr(value) if isinstance(value, str) else f"<{type(value).__name__}>"


@dataclass
class TableChain:
    """Incremental verifier of one table's chain."""

    table_id: str
    expected_seq: int = 1
    prev_hash: str = GENESIS_HASH
    position: int = 0
    hashes_seen: dict[int, str] = field(default_factory=dict)
    #: Keep every (seq -> hash) only when an anchor will be checked; otherwise memory stays flat.
    remember: frozenset[int] = frozenset()

    def feed(self, row: StoredRow) -> JournalEntry:
        """Check the next stored row; return it as an entry or raise ChainBrokenError."""
        entry = self.decode(row)
        if entry.seq > self.expected_seq:
            missing = (f"entry seq {self.expected_seq}" if entry.seq == self.expected_seq + 1
                       else f"entries seq {self.expected_seq}..{entry.seq - 1}")
            self._break(entry.seq, "missing_entries", f"{missing} missing before this entry")
        if entry.seq < self.expected_seq:
            self._break(entry.seq, "out_of_order", f"seq {entry.seq} where seq {self.expected_seq} was expected")
        if entry.prev_hash != self.prev_hash:
            before = "the genesis hash" if self.expected_seq == 1 else f"the hash of entry seq {self.expected_seq - 1}"
            self._break(entry.seq, "prev_hash_mismatch",
                        f"prev_hash {entry.prev_hash[:16]}… is not {before} ({self.prev_hash[:16]}…): "
                        "entries were reordered, inserted or removed")
        computed = entry.computed_hash()
        if computed != entry.hash:
            self._break(entry.seq, "hash_mismatch",
                        f"stored hash {entry.hash[:16]}… does not match the entry's contents "
                        f"(computed {computed[:16]}…): the entry was altered")
        if entry.seq in self.remember:
            self.hashes_seen[entry.seq] = entry.hash
        self.expected_seq = entry.seq + 1
        self.prev_hash = entry.hash
        self.position += 1
        return entry

    def finish(self, anchor: Anchor | None) -> None:
        """After the last row: check the anchor the caller kept, if any."""
        if anchor is None:
            return
        last = self.expected_seq - 1
        if last < anchor.seq:
            raise ChainBrokenError(ChainBreak(
                table_id=self.table_id, seq=anchor.seq, position=self.position, code="truncated",
                reason=f"the chain ends at seq {last} but the anchor records seq {anchor.seq}: "
                       "entries at the tail were removed"))
        seen = self.hashes_seen.get(anchor.seq)
        if seen != anchor.hash:
            raise ChainBrokenError(ChainBreak(
                table_id=self.table_id, seq=anchor.seq, position=anchor.seq - 1, code="anchor_mismatch",
                reason=f"entry seq {anchor.seq} has hash {str(seen)[:16]}… but the anchor records "
                       f"{anchor.hash[:16]}…: the chain was rewritten"))

    def _break(self, seq: int | None, code: str, reason: str) -> NoReturn:
        raise ChainBrokenError(ChainBreak(table_id=self.table_id, seq=seq, position=self.position, code=code,
                                     reason=reason))

    def decode(self, row: StoredRow) -> JournalEntry:
        """One stored row as an entry, checked alone (its columns and its canonical payload), not its link in
        the chain: :meth:`feed` checks that. Raises ChainBrokenError ("malformed", "not_canonical")."""
        seq = row.seq if isinstance(row.seq, int) and not isinstance(row.seq, bool) else None
        for name in _TEXT_COLUMNS:
            value = getattr(row, name)
            if not isinstance(value, str):
                self._break(seq, "malformed", f"column {name} holds {_label(value)}, not text")
        if seq is None:
            self._break(None, "malformed", f"column seq holds {_label(row.seq)}, not an integer")
        for name in ("hand_id", "hand_number"):
            value = getattr(row, name)
            wanted = str if name == "hand_id" else int
            if value is not None and (not isinstance(value, wanted) or isinstance(value, bool)):
                self._break(seq, "malformed", f"column {name} holds {_label(value)}, not {wanted.__name__} or null")
        if row.table_id != self.table_id:
            self._break(seq, "malformed", f"row of table {_label(row.table_id)} in the chain of {self.table_id!r}")
        text = str(row.payload)
        try:
            payload = bounded.loads(text, max_bytes=MAX_PAYLOAD_CHARS, what="payload")
        except bounded.BoundedInputError as exc:
            self._break(seq, "not_canonical", str(exc))
        if not isinstance(payload, dict):
            self._break(seq, "not_canonical", "payload is not a JSON object")
        try:
            canonical = canonical_text(payload)
        except ValueError:
            canonical = None
        if canonical != text:
            self._break(seq, "not_canonical", "payload is not in canonical JSON form")
        try:
            return JournalEntry.model_validate({
                "table_id": row.table_id, "seq": seq, "hand_id": row.hand_id, "hand_number": row.hand_number,
                "kind": row.kind, "at": row.at, "payload": payload, "prev_hash": row.prev_hash, "hash": row.hash})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "entry"
            self._break(seq, "malformed", f"invalid {where}: {first['msg']}")
