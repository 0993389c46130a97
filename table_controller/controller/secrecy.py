"""Keeping hole cards secret from what the dealer's (and the public's) requests are answered.

How it works. Some requests name cards: a card exposed in the deal or the draw, a card found faced in the
pack, the cards a player shows or throws. The engine checks each named card against the whole table and
refuses with a code that says where the card is (``card_elsewhere``: known in another hand or pile;
``card_not_held``: not known anywhere, still in the stub). Answered as it is, a dealer's token could probe
the 52 cards and learn an opponent's hand. So, for every role but the floor (who sees hole cards anyway),
the controller answers a refusal that depends on where a named card lies with one code,
``card_not_in_hand``, and one message that names only the seat: the answer says whether the named card is
among that seat's cards and nothing about where else it is. A seat whose cards the table has forgotten
(a draw entered as a count, :meth:`EngineHand.forget`) is judged against the cards it may hold, so a card
known to be elsewhere is not told apart from one in the stub there either.

Every refused report or card-naming act is journaled (kind ``refused``) and counted per hand; every
:data:`ALERT_EVERY` refusals in one hand raise a security alert for the floor (someone may be probing).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table_controller.controller.errors import NotAllowedError, TableError
from table_controller.engine.cards import UNKNOWN_CODE

__all__ = [
    "ALERT_EVERY", "CONCEALED", "HIDDEN_CARD_CODES", "conceal", "named_cards", "names_cards", "not_in_hand",
    "outside_possible", "target_seat",
]

#: Engine refusal codes whose choice depends on where a named card lies.
HIDDEN_CARD_CODES = frozenset({"card_elsewhere", "card_not_held"})
#: The one code the dealer and the public get instead.
CONCEALED = "card_not_in_hand"
#: Refusals in one hand between two floor alerts.
ALERT_EVERY = 3
_FULL_VIEW_ROLES = frozenset({"floor"})


def named_cards(action: dict[str, Any]) -> list[str]:
    """The card codes a request names (a report's card, the cards shown or thrown), "??" left out."""
    names: list[Any] = []
    report = action.get("report")
    if isinstance(report, dict):
        names += [report.get("card"), *(report.get("cards") or [])]
    names += list(action.get("cards") or []) + list(action.get("discard") or [])
    return [n for n in names if isinstance(n, str) and n != UNKNOWN_CODE]


def names_cards(action: dict[str, Any]) -> bool:
    """A report of any kind, or an act naming cards: its refusals are journaled and counted."""
    return action.get("act") == "irregularity" or bool(named_cards(action))


def target_seat(action: dict[str, Any]) -> int | None:
    report = action.get("report")
    seat = report.get("seat") if isinstance(report, dict) else action.get("seat")
    return seat if isinstance(seat, int) else None


def not_in_hand(seat: int | None) -> NotAllowedError:
    where = f"seat {seat}'s" if seat is not None else "that seat's"
    return NotAllowedError(f"refused: a card named is not among {where} cards (the report is on record)",
                           code=CONCEALED)


def conceal(exc: TableError, action: dict[str, Any], *, role: str) -> TableError:
    """The refusal as the caller may see it: unchanged for the floor, one answer for a hidden-card code."""
    if role in _FULL_VIEW_ROLES or exc.code not in HIDDEN_CARD_CODES:
        return exc
    return not_in_hand(target_seat(action))


def outside_possible(named: Iterable[str], hole: tuple[str, ...], possible: frozenset[str] | None) -> bool:
    """A named card that cannot be in a hand of forgotten cards: neither a known card of the hand nor one of the
    cards it held when the table forgot them. ``possible`` is None when the table never knew them."""
    if possible is None or UNKNOWN_CODE not in hole:
        return False
    return any(code not in hole and code not in possible for code in named)
