"""The journal's envelope and the payloads of the kinds the journal itself defines.

An entry is one line of a table's chain: who (table), where in the hand (hand id and number),
where in the chain (seq, prev_hash, hash), what (kind and a JSON-object payload) and when (a
timestamp the caller passes in; nothing here reads a clock). Entries are pydantic models, frozen
and validated when built, so a malformed entry never reaches the database.

Kinds are dotted lowercase names. Two are defined here because the journal offers helpers for
them: `hole_cards.read` (an audit line for every read of hole cards) and `hand.completed` (the
hand record and result of a finished hand). Every other kind is the controller's: to the journal its
payload only has to be a JSON object; the controller types each of its kinds
(``table_controller.controller.entries``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from table_controller.journal.canonical import check_json, entry_hash, parse_timestamp
from table_controller.journal.errors import JournalUsageError

TableId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
HandId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")]
Kind = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$", max_length=64)]
Hex64 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
Timestamp = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")]

KIND_HOLE_CARDS_READ = "hole_cards.read"
KIND_HAND_COMPLETED = "hand.completed"
HAND_RECORD_FORMAT = "cardtable.hand/2"


class JournalEntry(BaseModel):
    """One stored, hash-chained entry. `hash` covers every other field (see canonical.py)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    table_id: TableId
    seq: int = Field(ge=1)
    hand_id: HandId | None
    hand_number: int | None = Field(ge=0)
    kind: Kind
    at: Timestamp
    payload: dict[str, Any]
    prev_hash: Hex64
    hash: Hex64

    @field_validator("payload")
    @classmethod
    def _payload_is_canonical_json(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            check_json(value)
        except JournalUsageError as exc:
            raise ValueError(exc.message) from exc
        return value

    @field_validator("at")
    @classmethod
    def _at_is_a_real_moment(cls, value: str) -> str:
        parse_timestamp(value)  # raises ValueError for 2026-13-45
        return value

    @property
    def timestamp(self) -> datetime:
        return parse_timestamp(self.at)

    def computed_hash(self) -> str:
        """The hash this entry's fields call for; equal to `hash` for an intact entry."""
        return entry_hash(table_id=self.table_id, seq=self.seq, hand_id=self.hand_id,
                          hand_number=self.hand_number, kind=self.kind, at=self.at, payload=self.payload,
                          prev_hash=self.prev_hash)


class Anchor(BaseModel):
    """A (table, seq, hash) the caller kept outside the database, e.g. the head after each hand.

    Verifying against an anchor detects what a chain alone cannot: the loss of entries at the tail
    and a wholesale rewrite of the chain.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    table_id: TableId
    seq: int = Field(ge=1)
    hash: Hex64

    def to_text(self) -> str:
        return f"{self.table_id}:{self.seq}:{self.hash}"

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """Parse 'TABLE:SEQ:HASH' (the form `cardtable history verify` prints and accepts)."""
        parts = text.rsplit(":", 2)
        if len(parts) != 3 or not parts[1].isdigit():
            raise JournalUsageError(f"anchor {text!r} is not TABLE:SEQ:HASH")
        try:
            return cls(table_id=parts[0], seq=int(parts[1]), hash=parts[2])
        except ValidationError as exc:
            raise JournalUsageError(f"anchor {text!r} is not TABLE:SEQ:HASH with a 64-hex-digit hash") from exc


class HoleCardsRead(BaseModel):
    """Payload of `hole_cards.read`: somebody saw hole cards. Who, in what role, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
    who: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    why: Annotated[str, StringConstraints(min_length=1, max_length=500)]
    #: Seats whose hole cards were read; None means every seat.
    seats: list[Annotated[int, Field(ge=1, le=10)]] | None = None


class HandCompleted(BaseModel):
    """Payload of `hand.completed`: the hand record (opaque, format `cardtable.hand/2`) and result."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    record: dict[str, Any]
    result: dict[str, Any]

    @field_validator("record")
    @classmethod
    def _record_names_its_format(cls, value: dict[str, Any]) -> dict[str, Any]:
        fmt = value.get("format")
        if not isinstance(fmt, str) or not fmt:
            raise ValueError(f"a hand record must name its format (e.g. {HAND_RECORD_FORMAT!r})")
        return value


#: Payload models of the kinds the journal defines; checked on append.
KNOWN_PAYLOADS: dict[str, type[BaseModel]] = {
    KIND_HOLE_CARDS_READ: HoleCardsRead,
    KIND_HAND_COMPLETED: HandCompleted,
}


def validate_payload(kind: str, payload: dict[str, Any]) -> None:
    """Raise JournalUsageError if a known kind's payload does not fit its model."""
    model = KNOWN_PAYLOADS.get(kind)
    if model is None:
        return
    try:
        model.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "payload"
        raise JournalUsageError(f"{kind} payload: {where}: {first['msg']}") from exc


class HandRecordEntry(BaseModel):
    """A completed hand as the journal holds it (what `history export` writes out)."""

    model_config = ConfigDict(frozen=True)

    table_id: str
    hand_id: str
    hand_number: int | None
    seq: int
    at: str
    record: dict[str, Any]
    result: dict[str, Any]
