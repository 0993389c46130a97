"""Finding hole cards in a message meant for the public or the dealer."""

from __future__ import annotations

import json
import re
from typing import Any

CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")


def _strings(node: Any, keys: set[str]) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        for k, v in node.items():
            keys.add(k)
            out.extend(_strings(v, keys))
    elif isinstance(node, list):
        for v in node:
            out.extend(_strings(v, keys))
    elif isinstance(node, str):
        out.append(node)
    return out


def leaked_cards(message: str | dict[str, Any], secret: set[str]) -> set[str]:
    """The secret cards named anywhere in the message, and "hole" if it has a hole-card field at all."""
    data = json.loads(message) if isinstance(message, str) else message
    keys: set[str] = set()
    found: set[str] = set()
    for text in _strings(data, keys):
        found.update(m for m in CARD.findall(text) if m in secret)
    if "hole" in keys:
        found.add("hole")
    return found
