"""Cards as small integers, and their two-character codes.

A card is an ``int`` in 0..51 equal to ``rank_index * 4 + suit_index``, where ``rank_index`` indexes
:data:`RANKS` ("2" lowest, "A" highest) and ``suit_index`` indexes :data:`SUITS` ("c", "d", "h", "s").
So sorting cards numerically sorts by rank first, and within a rank by suit clubs < diamonds < hearts <
spades, which is the suit order used to break ties when cutting for the first deal.

Codes are exactly two characters, rank then suit: "As", "Td", "2c". Nothing else is accepted (no "10h",
no lower-case ranks, no upper-case suits), so a code read from a camera or a wire is either exact or an
error. :data:`UNKNOWN_CODE` ("??") names a card whose face is not known (face down, or unreadable); it is
never a valid :class:`Card`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import NewType

__all__ = [
    "FULL_DECK",
    "RANKS",
    "RANK_NAMES",
    "RANK_PLURALS",
    "SUITS",
    "SUIT_NAMES",
    "UNKNOWN_CODE",
    "Card",
    "CardCodeError",
    "card_str",
    "make_card",
    "parse_card",
    "parse_cards",
    "rank_of",
    "suit_of",
]

Card = NewType("Card", int)

RANKS = "23456789TJQKA"
SUITS = "cdhs"
UNKNOWN_CODE = "??"

RANK_NAMES: tuple[str, ...] = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
RANK_PLURALS: tuple[str, ...] = (
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "sevens",
    "eights",
    "nines",
    "tens",
    "jacks",
    "queens",
    "kings",
    "aces",
)
SUIT_NAMES: tuple[str, ...] = ("clubs", "diamonds", "hearts", "spades")


class CardCodeError(ValueError):
    """A card code or card number that does not name one of the 52 cards."""


FULL_DECK: tuple[Card, ...] = tuple(Card(i) for i in range(52))

_CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_BY_CODE: dict[str, Card] = {code: Card(i) for i, code in enumerate(_CODES)}


def make_card(rank_index: int, suit_index: int) -> Card:
    """The card with this rank index (0 = two .. 12 = ace) and suit index (0 = clubs .. 3 = spades)."""
    if not (0 <= rank_index < 13 and 0 <= suit_index < 4):
        raise CardCodeError(f"no card has rank index {rank_index!r} and suit index {suit_index!r}")
    return Card(rank_index * 4 + suit_index)


def rank_of(card: int) -> int:
    """Rank index 0..12 (two .. ace)."""
    return card >> 2


def suit_of(card: int) -> int:
    """Suit index 0..3 (clubs, diamonds, hearts, spades)."""
    return card & 3


def parse_card(code: str) -> Card:
    """The card named by a canonical two-character code such as "As" or "Td".

    Raises :class:`CardCodeError` for anything else, including "??" (an unknown card is not a card).
    """
    card = _BY_CODE.get(code) if isinstance(code, str) else None
    if card is None:
        raise CardCodeError(
            f"bad card code {code!r}: expected exactly a rank from {RANKS!r} followed by a suit from {SUITS!r},"
            ' such as "As" or "Td"'
        )
    return card


def parse_cards(codes: str | Iterable[str]) -> tuple[Card, ...]:
    """Several cards from codes: an iterable of codes, or one string of codes separated by whitespace.

    Duplicates are kept (whether a duplicate is an error depends on the caller); bad codes raise
    :class:`CardCodeError`.
    """
    items = codes.split() if isinstance(codes, str) else codes
    return tuple(parse_card(code) for code in items)


def card_str(card: int) -> str:
    """The canonical two-character code of a card, e.g. "As"."""
    try:
        number = -1 if isinstance(card, bool) else operator.index(card)  # ints and numpy ints, not floats
    except TypeError:
        number = -1
    if not 0 <= number < 52:
        raise CardCodeError(f"not a card: {card!r} (cards are integers 0..51)")
    return _CODES[number]
