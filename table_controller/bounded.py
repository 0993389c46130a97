"""Reading untrusted JSON within bounds: size, nesting depth and integer length.

Every JSON input from outside (a hand record given to ``cardtable replay``, a journal row read back by
``history verify``, a request body) goes through :func:`loads`: at most ``max_bytes`` are read, the nesting
may go ``max_depth`` deep (checked on the parsed value without recursion, and a parser's own recursion limit
answered the same way), and an integer may have at most :data:`MAX_INT_DIGITS` digits. Each breach is a
:class:`BoundedInputError` (a ``ValueError``) with a one-line message, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "BoundedInputError", "check_depth", "loads", "read_bounded"]

MAX_DEPTH = 64
MAX_INT_DIGITS = 30  # far above any chip count or sequence number; far below Python's own limit


class BoundedInputError(ValueError):
    """The input is too large, too deep, unreadable or not JSON (the caller's fault: exit code 2, HTTP 422)."""


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise BoundedInputError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _constant(name: str) -> Any:
    raise BoundedInputError(f"{name} is not JSON")


def check_depth(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`BoundedInputError` if lists and objects nest deeper than ``max_depth`` (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            raise BoundedInputError(f"nested more than {max_depth} deep")
        stack.extend((child, depth + 1) for child in children)


def loads(data: str | bytes, *, max_bytes: int, max_depth: int = MAX_DEPTH, what: str = "input") -> Any:
    """Parse JSON within the bounds, or raise :class:`BoundedInputError` naming ``what`` and the breach."""
    if len(data) > max_bytes:
        raise BoundedInputError(f"{what} is larger than {max_bytes} bytes")
    try:
        value = json.loads(data, parse_int=_int, parse_constant=_constant)
    except BoundedInputError as exc:
        raise BoundedInputError(f"{what}: {exc}") from None
    except RecursionError:
        raise BoundedInputError(f"{what}: nested more than {max_depth} deep") from None
    except UnicodeDecodeError:
        raise BoundedInputError(f"{what} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BoundedInputError(f"{what} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        raise BoundedInputError(f"{what} is not JSON: {exc}") from None
    try:
        check_depth(value, max_depth)
    except BoundedInputError as exc:
        raise BoundedInputError(f"{what}: {exc}") from None
    return value


def read_bounded(source: str | Path | BinaryIO, *, max_bytes: int, what: str = "input") -> bytes:
    """At most ``max_bytes`` of a file (a device like /dev/zero included) or stream; more is refused."""
    if isinstance(source, str | Path):
        try:
            with open(source, "rb") as handle:
                return read_bounded(handle, max_bytes=max_bytes, what=what)
        except OSError as exc:
            raise BoundedInputError(f"cannot read {what}: {exc.strerror or exc}") from None
    data = source.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise BoundedInputError(f"{what} is larger than {max_bytes} bytes")
    return data
