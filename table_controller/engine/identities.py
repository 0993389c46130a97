"""Which card is at which shoe position: cards named by the table mapped onto positions (learning the unread ones),
the shoe's cards as it delivers them, and a seat's cards forgotten when the dealer saw only how many were thrown.

Cards are tracked by position in the shoe's order (``HandState.ident[p]``, None for one not identified), so these
are the only places a card's identity is learnt or forgotten; the invariant check proves the known identities
distinct after each (``HandState.learnt``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from table_controller.engine import irregular as _irregular
from table_controller.engine.acts import actions_of
from table_controller.engine.cards import UNKNOWN_CODE, Card, card_str, parse_card
from table_controller.engine.deck import CARD_OF, card_int, card_or_unknown
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import CardsDelivered, CardsForgotten, Event
from table_controller.engine.hand_state import CardLike, HandState
from table_controller.engine.piles import DECK_SIZE

__all__ = [
    "deliver", "find_held", "forget", "forgettable", "named_in_acts", "resolve_cards", "verify_deliver",
    "verify_forget",
]


def find_held(hand: HandState, positions: Sequence[int], cards: Sequence[CardLike]) -> list[int] | None:
    """The common case of :func:`resolve_cards`: the positions of ``cards`` when each is a known code found in
    ``positions`` and none is named twice (nothing to learn, nothing to refuse); None for any other case."""
    ident = hand.ident
    at = {ident[p]: p for p in positions}
    found: list[int] = []
    for item in cards:
        card = CARD_OF.get(item) if type(item) is str else None
        pos = None if card is None else at.get(card)
        if pos is None or pos in found:
            return None
        found.append(pos)
    return found


def resolve_cards(hand: HandState, positions: Sequence[int], cards: Sequence[CardLike], what: str) -> list[int]:
    """Map card codes onto positions (of a hand or pile); '??' or None takes an unidentified one.

    A code not yet known anywhere is learnt onto an unidentified position of ``positions``.
    """
    found = find_held(hand, positions, cards)
    if found is not None:
        return found
    parsed: list[Card | None] = []
    for item in cards:
        if item is None or item == UNKNOWN_CODE:
            parsed.append(None)
            continue
        try:
            if isinstance(item, str):
                card = CARD_OF.get(item)
                parsed.append(card if card is not None else parse_card(item))
            else:
                parsed.append(Card(card_int(item)))
        except ValueError as exc:
            raise IllegalActionError("bad_card", f"{what}: {exc}") from None
    known_codes = [c for c in parsed if c is not None]
    if len(set(known_codes)) != len(known_codes):
        raise IllegalActionError("duplicate_card", f"{what}: a card is named twice")
    result: list[int | None] = [None] * len(parsed)
    to_learn: list[int] = []
    for k, card in enumerate(parsed):
        if card is None:
            continue
        pos = next((p for p in positions if hand.ident[p] == card), None)
        if pos is not None:
            result[k] = pos
        elif card in hand.ident:
            _irregular.refuse_taking_back(hand, positions, card, what)  # a discard named as held (003 Other 3)
            raise IllegalActionError("card_elsewhere", f"{what}: {card_str(card)} is known to be elsewhere")
        else:
            to_learn.append(k)
    taken = {p for p in result if p is not None}
    unknown = [p for p in positions if hand.ident[p] is None and p not in taken]
    needed = len(to_learn) + sum(1 for c in parsed if c is None)
    if needed > len(unknown):
        raise IllegalActionError("card_not_held", f"{what}: the cards named are not all there")
    for k in to_learn:
        pos = unknown.pop(0)
        hand.ident[pos] = parsed[k]
        hand.learnt = True
        result[k] = pos
    for k, card in enumerate(parsed):
        if card is None:
            result[k] = unknown.pop(0)
    return [p for p in result if p is not None]


def verify_deliver(hand: HandState, cards: Sequence[CardLike]) -> None:
    """The shoe's next cards, in its order ("??" or None for a card it could not read)."""
    if len(cards) > DECK_SIZE - hand.delivered:
        raise IllegalActionError("pack_exhausted", f"the shoe has {DECK_SIZE - hand.delivered} cards left to "
                                 f"deliver, not {len(cards)}")
    seen: set[Card] = set()
    for pos, item in enumerate(cards, start=hand.delivered):
        card = card_or_unknown(item, "the shoe delivers")
        if card is None:
            continue
        if card in seen:
            raise IllegalActionError("duplicate_card", f"the shoe delivered {card_str(card)} twice")
        seen.add(card)
        known = hand.ident[pos]
        if (known is None and card in hand.ident) or (known is not None and known != card):
            raise IllegalActionError("card_elsewhere", f"the shoe delivered {card_str(card)}, which is known "
                                     "to be elsewhere")


def deliver(hand: HandState, cards: Sequence[CardLike]) -> list[Event]:
    """Learn the shoe's next cards as it delivers them (a live shoe deals one card at a time). Cards are
    positions in the shoe's order, so a card delivered is the identity of the next position: the hand needs
    no other change. Not an act of the record: its deck lists the cards delivered."""
    verify_deliver(hand, cards)
    before = len(hand.events)
    first = hand.delivered
    for pos, item in enumerate(cards, start=first):
        card = card_or_unknown(item, "the shoe delivers")
        if card is not None:
            hand.ident[pos] = card
            hand.learnt = True
        hand.deck_codes[pos] = UNKNOWN_CODE if card is None else card_str(card)
    hand.delivered += len(cards)
    hand.emit(CardsDelivered(first=first, cards=tuple(hand.deck_codes[first:hand.delivered])))
    return hand.done(before)


def verify_forget(hand: HandState, seat: int) -> None:
    hand.index_of(seat)
    if hand.is_over:
        raise IllegalActionError("hand_over", "the hand is already over")


def forget(hand: HandState, seat: int) -> list[Event]:
    """No longer know which cards the seat holds (the dealer saw only how many he threw, so nobody knows
    which are left): each becomes "??", in the hand and in the record's deck, and is learnt again when shown.
    A card some act of the hand named (an exposed card) stays known: everyone saw it."""
    verify_forget(hand, seat)
    before = len(hand.events)
    named = named_in_acts(hand)
    forgotten = 0
    for pos in hand.hands[hand.index_of(seat)]:
        card = hand.ident[pos]
        if card is not None and card not in named:
            hand.ident[pos] = None
            hand.deck_codes[pos] = UNKNOWN_CODE
            forgotten += 1
    hand.emit(CardsForgotten(seat=seat, count=forgotten))
    return hand.done(before)


def forgettable(hand: HandState, seat: int) -> int:
    """How many of the seat's cards :func:`forget` would make unknown, with those already unknown: the cards of a
    draw entered as a count (``??`` each) are found among these."""
    named = named_in_acts(hand)
    return sum(1 for pos in hand.hands[hand.index_of(seat)] if hand.ident[pos] is None or hand.ident[pos] not in named)


def named_in_acts(hand: HandState) -> set[Card]:
    """The cards the acts so far named (a report's exposed card, a shown hand, a reshuffled stub)."""
    codes: list[Any] = []
    for act in actions_of(hand.events):
        codes += act.cards or ()
        report = act.report.to_json() if act.report is not None else {}
        codes += [report.get("card"), *(report.get("cards") or ()), *(report.get("order") or ())]
    return {CARD_OF[c] for c in codes if isinstance(c, str) and c in CARD_OF}
