"""Cards loaded back into the shoe's return slot, as a shoe that scans them reports them (capability RETURNS).

How it works. When the dealer feeds the muck or the discards back, the shoe reads each card and the shoe
link hands it to :meth:`ReturnedCards.take`. A card returned while this hand's deck is out is judged against
what the table knows (:func:`judge`):

- a discard it names settles the candidates of the player who drew by a count: a card he threw is no
  longer one he may hold, and once as many candidates are left as he kept, the floor knows his hand;
- a card still in a live hand, a card never dealt from this deck, one returned twice, or more of a
  player's candidates than he threw, is a security alert and halts the hand (the floor rules);
- an unread card ("??") is noted and judges nothing.

A card returned between hands is judged against the hand just over (no hand is live any more); one scanned
before this hand's deck check (the last hand's muck, scanned before the shuffle gathered it) against the
last deck's cards. Every returned card is journaled (``shoe.returned``), and replaying the entry through
:meth:`ReturnedCards.apply` rebuilds the same state. One returned in a hand goes on the hand's record with
its table events; one returned after the hand (its muck) is added to the record kept for the floor and to
the exports (``cardtable history export`` folds the journaled entry in). Hole cards stay secret: the
floor's log and alerts name the card; the dealer's and the public's screens never do (the halt's reason
names none).

The module uses the controller's journal, alert and halt primitives; the controller calls :meth:`new_hand`
when a hand starts and :meth:`apply` when replaying; the shoe link calls :meth:`take`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from table_controller.engine.cards import UNKNOWN_CODE, parse_card

if TYPE_CHECKING:
    from table_controller.controller.table import TableController

__all__ = ["RETURNED", "THIS_DECK", "Knowledge", "ReturnedCards", "Verdict", "judge", "with_late_return"]

RETURNED = "shoe.returned"  # the journal entry's kind
THIS_DECK = "this"
LAST_DECK = "last"


@dataclass(frozen=True, kw_only=True)
class Knowledge:
    """What the table knows of the deck in play when a card comes back."""

    dealt: tuple[str, ...]  # every card the shoe delivered from this deck ("??" unread)
    live: Mapping[int, tuple[str, ...]]  # seats still in the hand -> their hole ("??" where not known)
    candidates: Mapping[int, tuple[str, ...]]  # seats that drew by a count -> the cards they may still hold
    returned: tuple[str, ...] = ()  # the cards returned from this deck before


@dataclass(frozen=True, kw_only=True)
class Verdict:
    seat: int | None = None  # the seat whose candidate the card was (it threw it)
    contradiction: str | None = None  # for the floor: why the card cannot be coming back


def judge(code: str, known: Knowledge) -> Verdict:
    """Whether ``code`` may come back to the shoe now, and whose discard it names."""
    if code == UNKNOWN_CODE:
        return Verdict()
    if code in known.returned:
        return Verdict(contradiction=f"{code} came back a second time")
    for seat, hole in known.live.items():
        if code in hole:
            return Verdict(contradiction=f"{code} is in seat {seat}'s live hand")
    for seat, cands in known.candidates.items():
        if code not in cands:
            continue
        live = known.live.get(seat)
        if live is None:
            return Verdict(seat=seat)  # the seat is out of the hand: its cards are in the muck
        kept = live.count(UNKNOWN_CODE)
        left = [c for c in cands if c != code and c not in known.returned]
        if len(left) < kept:
            return Verdict(contradiction=f"seat {seat} threw {len(cands) - kept} of {' '.join(cands)}, and {code} "
                           f"is one more of them coming back")
        return Verdict(seat=seat)
    if code not in known.dealt:
        unread = known.dealt.count(UNKNOWN_CODE)
        strangers = sum(1 for c in known.returned if c not in known.dealt)
        if strangers >= unread:
            return Verdict(contradiction=f"{code} was never dealt from this deck")
    return Verdict()


class ReturnedCards:
    def __init__(self, table: TableController) -> None:
        self._table = table
        self.cards: list[str] = []  # returned from this hand's deck, in order
        self._last_dealt: tuple[str, ...] = ()  # the last deck's cards, for its muck coming back late
        self._last_returned: list[str] = []
        self.alerts = 0

    def new_hand(self) -> None:
        """A hand starts: the cards of the deck just finished stay known for its muck still coming back."""
        self._last_dealt = tuple(self._table._hand_cards)
        self._last_returned = self.cards
        self.cards = []

    def _this_deck(self, number: int | None) -> bool:
        """Whether a card the shoe scanned (``number``: its event number, None when the shoe gives none) is
        from the deck of this hand (or of the hand just over): scanned after its deck check. A card scanned
        while a new hand's deck is shuffled and checked, or before that check, is the last deck's."""
        t = self._table
        if t._deal is not None and not t._deal.verified:
            return False
        mark = t._deck_mark
        return number is None or mark is None or number > mark

    def _knowledge(self, deck: str) -> Knowledge:
        t = self._table
        if deck == LAST_DECK:
            return Knowledge(dealt=self._last_dealt, live={}, candidates={}, returned=tuple(self._last_returned))
        live: dict[int, tuple[str, ...]] = {}
        if t.hand is not None:
            live = {n: info.hole for n, info in t.hand.seat_info().items() if info.status in ("active", "all_in")}
        elif t._deal is not None:
            order = t._deal.order
            for k, code in enumerate(t._deal.cards):
                seat = order[k % len(order)]
                live[seat] = (*live.get(seat, ()), code)
        return Knowledge(dealt=tuple(t._hand_cards), live=live, candidates=dict(t._candidates),
                         returned=tuple(self.cards))

    async def take(self, code: str | None, number: int | None = None) -> None:
        """The shoe read ``code`` (None: it could not read it) coming back into its return bin."""
        t = self._table
        code = code or UNKNOWN_CODE
        if code != UNKNOWN_CODE:
            parse_card(code)
        async with t._lock:
            deck = THIS_DECK if self._this_deck(number) else LAST_DECK
            verdict = judge(code, self._knowledge(deck))
            entry: dict[str, Any] = {"code": code, "deck": deck, "at_ms": t._now_ms()}
            if verdict.seat is not None:
                entry["seat"] = verdict.seat
            t.journal.append(RETURNED, entry, hand=t.hand_no or None)
            self.apply(entry)
            if verdict.contradiction is not None:
                self.alerts += 1
                t._alert("returned_card", f"hand #{t.hand_no}: the shoe read a returned card it cannot account "
                         f"for: {verdict.contradiction}", seat=verdict.seat)
                if deck == THIS_DECK and t.in_play() and not t.halted:
                    # The dealer reads the halt's reason: it names no card (the floor's alert does).
                    halt = {"reason": "a card came back to the shoe that the table cannot account for",
                            "at_ms": t._now_ms()}
                    t.journal.append("halt", halt, hand=t.hand_no)
                    t._apply_halt(halt)
        t.notify()

    def apply(self, e: dict[str, Any]) -> None:
        """A journaled returned card (live, or replayed after a restart)."""
        t = self._table
        code = e["code"]
        if e["deck"] == LAST_DECK:
            self._last_returned.append(code)
            t.log(f"The shoe read {code} coming back (from the last deck)", secret=True)
            return
        self.cards.append(code)
        seat = e.get("seat")
        text = f"the shoe read {code} coming back"
        if seat is not None and code in t._candidates.get(seat, ()):
            left = tuple(c for c in t._candidates[seat] if c != code)
            t._candidates[seat] = left
            kept = _unknown_count(t, seat)
            held = f"it holds {' '.join(left)} and the cards it was served" if kept == len(left) else \
                f"it keeps {kept} of {' '.join(left)}"
            text += f": seat {seat} threw it; {held}"
        if t.in_play():
            t._table_event("returned", text, at_ms=e.get("at_ms"), card=code, seat=seat)
        else:
            record = t._records.get(t.hand_no)  # the hand just over: its muck coming back is on its record
            if record is not None:
                t._records[t.hand_no] = with_late_return(record, e)
            text = f"after hand #{t.hand_no}, {text}"
        t.log(text[0].upper() + text[1:], secret=True)


def late_return_event(e: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """The table event of a card that came back after its hand's record was stored (a journaled entry)."""
    event: dict[str, Any] = {"kind": "returned", "text": f"after the hand, the shoe read {e['code']} coming back",
                             "after_action": len(record.get("actions", ())), "card": e["code"]}
    if e.get("at_ms") is not None:
        event["at_ms"] = e["at_ms"]
    if e.get("seat") is not None:
        event["seat"] = e["seat"]
    return event


def with_late_return(record: dict[str, Any], e: dict[str, Any]) -> dict[str, Any]:
    """The hand's record with a card that came back after it was stored, among its table events."""
    return {**record, "table_events": [*record.get("table_events", ()), late_return_event(e, record)]}


def _unknown_count(table: TableController, seat: int) -> int:
    hand = table.hand
    if hand is None:
        return 0
    try:
        return hand.hole(seat).count(UNKNOWN_CODE)
    except Exception:
        return 0
