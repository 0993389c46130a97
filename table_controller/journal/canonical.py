"""Canonical JSON and the entry hash: the exact bytes an outside auditor recomputes.

The encoding (also in docs/journal.md): UTF-8; object keys sorted by Unicode code point; no
whitespace (separators "," and ":"); strings escape only '"', '\\' and the control characters
U+0000..U+001F (as \\b \\f \\n \\r \\t, the rest as \\u00XX with lowercase hex); every other
character is written as itself. Values are limited to objects, arrays, strings, booleans, null and
integers in -(2**53-1)..2**53-1. Floats are refused: chips are integers, and float text is the one
thing JSON encoders disagree about. With these limits `json.dumps(..., sort_keys=True,
separators=(",", ":"), ensure_ascii=False)` is exactly the canonical form.

Pure: no IO, no clock.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from table_controller.journal.errors import JournalUsageError

#: Version of the hashed body layout; part of every hash so a future layout cannot collide.
HASH_VERSION = 1
#: prev_hash of the first entry of every table.
GENESIS_HASH = "0" * 64
MAX_SAFE_INT = 2**53 - 1
_MAX_DEPTH = 64


def check_json(value: Any, *, where: str = "payload", depth: int = 0) -> None:
    """Raise JournalUsageError unless `value` is within the canonical JSON subset."""
    if depth > _MAX_DEPTH:
        raise JournalUsageError(f"{where}: nested deeper than {_MAX_DEPTH} levels")
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise JournalUsageError(f"{where}: integer {value} is outside ±(2**53-1)")
        return
    if isinstance(value, float):
        raise JournalUsageError(f"{where}: floats are not allowed in the journal (use integers)")
    if isinstance(value, str):
        _check_text(value, where)
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            check_json(item, where=f"{where}[{i}]", depth=depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise JournalUsageError(f"{where}: object key {key!r} is not a string")
            _check_text(key, f"{where} key")
            check_json(item, where=f"{where}.{key}", depth=depth + 1)
        return
    raise JournalUsageError(f"{where}: {type(value).__name__} is not a JSON value")


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise JournalUsageError(f"{where}: string is not valid Unicode (lone surrogate)") from exc


def canonical_text(value: Any) -> str:
    """The canonical JSON text of a value already checked by `check_json`."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_bytes(value: Any) -> bytes:
    return canonical_text(value).encode("utf-8")


def hashed_body(
    *,
    table_id: str,
    seq: int,
    hand_id: str | None,
    hand_number: int | None,
    kind: str,
    at: str,
    payload: Mapping[str, Any],
    prev_hash: str,
) -> dict[str, Any]:
    """The JSON object whose canonical bytes are hashed: every stored field but `hash`, plus `v`."""
    return {
        "at": at,
        "hand_id": hand_id,
        "hand_number": hand_number,
        "kind": kind,
        "payload": dict(payload),
        "prev_hash": prev_hash,
        "seq": seq,
        "table_id": table_id,
        "v": HASH_VERSION,
    }


def entry_hash(
    *,
    table_id: str,
    seq: int,
    hand_id: str | None,
    hand_number: int | None,
    kind: str,
    at: str,
    payload: Mapping[str, Any],
    prev_hash: str,
) -> str:
    """Lowercase hex SHA-256 of the canonical bytes of `hashed_body(...)`."""
    body = hashed_body(table_id=table_id, seq=seq, hand_id=hand_id, hand_number=hand_number, kind=kind,
                       at=at, payload=payload, prev_hash=prev_hash)
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


def format_timestamp(moment: datetime) -> str:
    """The stored form of a caller's timestamp: UTC, microseconds, 'Z' (2026-11-30T09:22:41.000000Z)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise JournalUsageError("timestamps must be timezone-aware (pass datetime.now(UTC) or similar)")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_STAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{6})Z")


def parse_timestamp(text: str) -> datetime:
    """The moment a stored timestamp names; ValueError unless it is exactly the stored form."""
    match = _STAMP.fullmatch(text)
    if match is None:
        raise ValueError(f"timestamp {text!r} is not YYYY-MM-DDTHH:MM:SS.ffffffZ")
    year, month, day, hour, minute, second, micro = (int(part) for part in match.groups())
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)
