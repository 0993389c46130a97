"""Cards loaded back into the shoe's return slot, as a shoe that scans them reports them (capability RETURNS).

How it works. When the dealer feeds the muck or the discards back, the shoe reads each card and the shoe
link hands it to the table (``feed.take_returned``). A card returned while this hand's deck is out is judged against
what the table knows (:func:`judge`):

- a discard it names settles the candidates of the player who drew by a count: a card he threw is no
  longer one he may hold, and once as many candidates are left as he kept, the floor knows his hand;
- a card still in a live hand, a card never dealt from this deck, one returned twice, or more of a
  player's candidates than he threw, is a security alert and halts the hand (the floor rules);
- an unread card ("??") is noted and judges nothing.

A card returned between hands is judged against the hand just over (no hand is live any more); one scanned
before this hand's deck check (the last hand's muck, scanned before the shuffle gathered it) against the last
deck's cards. Every returned card is journaled (``shoe.returned``, ``entries.ReturnedEntry``), and replaying
the entry (``play._apply_returned``) rebuilds the same state. One returned in a hand goes on the hand's record
with its table events; one returned after the hand (its muck) is added to the record kept for the floor and to
the exports (``cardtable history export`` folds the journaled entry in). Hole cards stay secret: the floor's
log and alerts name the card; the dealer's and the public's screens never do (the halt's reason names none).

This module is the pure part (what is known, the verdict, the state kept); the controller calls
:meth:`ReturnedCards.new_hand` when a hand starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from table_controller.engine.cards import UNKNOWN_CODE

__all__ = ["LAST_DECK", "RETURNED", "THIS_DECK", "Knowledge", "ReturnedCards", "Verdict", "judge", "with_late_return"]

RETURNED = "shoe.returned"  # the journal entry's kind
THIS_DECK: Final = "this"
LAST_DECK: Final = "last"


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
    """The cards a scanning shoe read coming back: from this hand's deck, and from the last deck (its muck
    scanned before the shuffle gathered it). The table (``feed.take_returned``, ``play._apply_returned``)
    judges each card with :func:`judge` and keeps it here."""

    def __init__(self) -> None:
        self.cards: list[str] = []  # returned from this hand's deck, in order
        self.last_dealt: tuple[str, ...] = ()  # the last deck's cards, for its muck coming back late
        self.last_returned: list[str] = []
        self.alerts = 0

    def new_hand(self, dealt: Sequence[str]) -> None:
        """A hand starts: the cards of the deck just finished (``dealt``) stay known for its muck still coming
        back."""
        self.last_dealt = tuple(dealt)
        self.last_returned = self.cards
        self.cards = []

    def last_deck(self) -> Knowledge:
        """What the table knows of the last deck when its muck comes back: every card is out of play."""
        return Knowledge(dealt=self.last_dealt, live={}, candidates={}, returned=tuple(self.last_returned))


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
