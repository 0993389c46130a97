"""Card numbering on the wire: one byte, 0..51 = rank * 4 + suit, 0xFF = unreadable.

Ranks "23456789TJQKA" (2 = 0), suits "cdhs" (clubs = 0), so 0 is "2c" and 51 is "As". This matches the
table engine's `Card` numbering, but is defined here so the bridge does not depend on the controller.
"""

from __future__ import annotations

from firmware_bridge.errors import UsageError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
UNREADABLE = 0xFF
DECK_SIZE = 52


def card_code(number: int) -> str:
    if not 0 <= number < DECK_SIZE:
        raise UsageError(f"card number {number} is not 0..51")
    return RANKS[number // 4] + SUITS[number % 4]


def card_number(code: str) -> int:
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise UsageError(f"card code {code!r} is not rank {RANKS!r} + suit {SUITS!r}")
    return RANKS.index(code[0]) * 4 + SUITS.index(code[1])


def cards_to_bitmap(numbers: frozenset[int]) -> bytes:
    """A set of cards as 7 bytes, bit n = card n: a set has no order, so none can leak."""
    value = 0
    for n in numbers:
        if not 0 <= n < DECK_SIZE:
            raise UsageError(f"card number {n} is not 0..51")
        value |= 1 << n
    return value.to_bytes(7, "big")


def bitmap_to_cards(raw: bytes) -> frozenset[int]:
    value = int.from_bytes(raw, "big")
    return frozenset(n for n in range(56) if value >> n & 1)
