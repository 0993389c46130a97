"""The deck as the table reports it: the shoe's order, one card per position, by code, number or ``None``.

A deal (``Hand``) keeps its cards by shoe position and their identities apart. These functions read what the
shoe or a record gives into card codes and identities, and name a bad card with the error for who is at fault:
:class:`ConfigError` for a deck a hand is built with, :class:`IllegalActionError` for a card reported during play.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from table_controller.engine.cards import UNKNOWN_CODE, Card, card_str, parse_card
from table_controller.engine.errors import ConfigError, IllegalActionError
from table_controller.engine.hand_state import CardLike
from table_controller.engine.piles import DECK_SIZE

CODE_OF: Final[tuple[str, ...]] = tuple(card_str(c) for c in range(DECK_SIZE))  # each card's code, by its number
CARD_OF: Final[dict[str, Card]] = {code: Card(c) for c, code in enumerate(CODE_OF)}
CODE_SET: Final = frozenset(CODE_OF)


def whole_pack(deck: Sequence[CardLike] | None) -> list[Card | None] | None:
    """The identities of a deck that lists the 52 cards once each by their codes (the shoe's usual report), or None
    for anything else (unknown or repeated cards, other spellings, the wrong length), which parse_deck reads."""
    if (type(deck) is not list and type(deck) is not tuple) or len(deck) != DECK_SIZE:
        return None
    ident: list[Card | None] = []
    for item in deck:
        card = CARD_OF.get(item) if type(item) is str else None
        if card is None:
            return None  # not one of our codes: parse_deck reads it, or names what is wrong with it
        ident.append(card)
    if len(set(ident)) != DECK_SIZE:
        return None
    return ident


def parse_deck(deck: Sequence[CardLike] | None) -> list[str]:
    """Any deck as 52 codes, "??" for a card not known (listed as None or "??", or past the end of a short deck);
    a bad card, a deck over 52 or a card listed twice is a :class:`ConfigError`."""
    if type(deck) in (list, tuple) and len(deck) == DECK_SIZE:  # type: ignore[arg-type]
        try:
            if len(CODE_SET.intersection(deck)) == DECK_SIZE:  # type: ignore[arg-type]
                return list(deck)  # type: ignore[arg-type]  # the whole pack, each card once: the usual deck
        except TypeError:
            pass  # something unhashable: the checks below name it
    codes: list[str] = []
    for item in deck or ():
        if item is None or item == UNKNOWN_CODE:
            codes.append(UNKNOWN_CODE)
        elif isinstance(item, str):
            codes.append(item if item in CARD_OF else card_str(parse_card(item)))
        else:
            codes.append(card_str(item))
    if len(codes) > DECK_SIZE:
        raise ConfigError(f"the deck has {len(codes)} cards; a pack has {DECK_SIZE}")
    known = [c for c in codes if c != UNKNOWN_CODE]
    if len(set(known)) != len(known):
        dup = sorted({c for c in known if known.count(c) > 1})
        raise ConfigError(f"card(s) listed twice in the deck: {', '.join(dup)}")
    codes += [UNKNOWN_CODE] * (DECK_SIZE - len(codes))
    return codes


def card_int(item: int) -> int:
    """A card given by its number (0-51), checked."""
    if isinstance(item, bool) or not isinstance(item, int) or not 0 <= item < DECK_SIZE:
        card_str(item)  # raises CardCodeError, a ValueError, with the standard message
    return item


def card_or_unknown(item: CardLike, what: str) -> Card | None:
    """A card reported during play, None where the table could not read it; a bad one is ``bad_card``."""
    if item is None or item == UNKNOWN_CODE:
        return None
    try:
        return parse_card(item) if isinstance(item, str) else Card(card_int(item))
    except ValueError as exc:
        raise IllegalActionError("bad_card", f"{what}: {exc}") from None
