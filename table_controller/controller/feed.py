"""What the shoe delivers: the shuffle and deck check, the deal, the cards an act waits for; and recovery.

Every card is journaled before the hand takes it. After a crash :meth:`ShoeFeed.recover` replays the journal
and :meth:`ShoeFeed.resume` lets the shoe deliver what the hand still waits for, first taking in, from the
log of a shoe that keeps one, the cards it dealt while the controller was down.
"""

from __future__ import annotations

from typing import Literal

from table_controller.controller.devices import (
    ShoeLog,
)
from table_controller.controller.entries import (
    CardEntry,
    DealEntry,
    DeckCheckEntry,
    DeviceFaultEntry,
    ReturnedEntry,
    parse_entry,
)
from table_controller.controller.errors import (
    DeviceError,
    TableError,
)
from table_controller.controller.journal_port import KeepsHandIndex, PortEntry
from table_controller.controller.machine import HOLDS, Stage
from table_controller.controller.play import HandPlay
from table_controller.controller.returns import LAST_DECK, THIS_DECK, Knowledge, judge
from table_controller.engine.cards import UNKNOWN_CODE, parse_card

__all__ = ["ShoeFeed"]

class ShoeFeed(HandPlay):
    async def take_returned(self, code: str | None, number: int | None = None) -> None:
        """The shoe read ``code`` (None: it could not read it) coming back into its return bin; ``number`` is
        the shoe's event number, None when it gives none (returns.py says how the card is judged)."""
        code = code or UNKNOWN_CODE
        if code != UNKNOWN_CODE:
            parse_card(code)
        async with self._lock:
            deck: Literal["this", "last"] = THIS_DECK if self._returned_from_this_deck(number) else LAST_DECK
            known = self._this_deck_known() if deck == THIS_DECK else self.returns.last_deck()
            verdict = judge(code, known)
            entry = ReturnedEntry(code=code, deck=deck, at_ms=self._now_ms(), seat=verdict.seat)
            self._write(entry, hand=self.hand_no or None)
            self._apply_returned(entry)
            if verdict.contradiction is not None:
                self.returns.alerts += 1
                self._alert("returned_card", f"hand #{self.hand_no}: the shoe read a returned card it cannot "
                            f"account for: {verdict.contradiction}", seat=verdict.seat)
                if deck == THIS_DECK and self.in_play() and not self.halted:
                    # The dealer reads the halt's reason: it names no card (the floor's alert does).
                    self._halt("a card came back to the shoe that the table cannot account for")
        self.notify()

    def _returned_from_this_deck(self, number: int | None) -> bool:
        """Whether a card the shoe scanned is from the deck of this hand (or of the hand just over): scanned
        after its deck check. One scanned while a new hand's deck is shuffled and checked, or before that
        check, is the last deck's."""
        if self._deal is not None and not self._deal.verified:
            return False
        mark = self._deck_mark
        return number is None or mark is None or number > mark

    def _this_deck_known(self) -> Knowledge:
        live: dict[int, tuple[str, ...]] = {}
        if self.hand is not None:
            live = {n: info.hole for n, info in self.hand.seat_info().items() if info.status in ("active", "all_in")}
        elif self._deal is not None:
            order = self._deal.order
            for k, code in enumerate(self._deal.cards):
                seat = order[k % len(order)]
                live[seat] = (*live.get(seat, ()), code)
        return Knowledge(dealt=tuple(self._hand_cards), live=live, candidates=dict(self._candidates),
                         returned=tuple(self.returns.cards))

    async def _run_shoe(self) -> None:
        """Have the shoe do what the hand waits for: shuffle and verify, deal, burn, serve a draw."""
        async with self._lock:
            try:
                if self._check_shoe_log:
                    await self._take_in_cards_dealt_while_down()
                deal = self._deal
                if deal is not None and self.stage is Stage.SHUFFLING:
                    await self.shoe.shuffle()
                    check = await self.shoe.verify()
                    entry = DeckCheckEntry(ok=check.ok, count=check.count, missing=check.missing,
                                           duplicates=check.duplicates, text=check.describe(), mark=check.mark)
                    self._write(entry, hand=self.hand_no)
                    self._apply_deck_check(entry)
                    if not check.ok:
                        self._alert("deck_check", f"hand #{self.hand_no}: {check.describe()}")
                    self.notify()
                if self.stage is Stage.DEALING:
                    await self._deal_round()
                while self.stage not in HOLDS:
                    kind = self._owed()
                    if kind is None:
                        break
                    dealt = await (self.shoe.burn() if kind == "burn" else self.shoe.deal())
                    card = CardEntry(kind=kind, code=dealt.code)
                    self._write(card, hand=self.hand_no)
                    self._apply_card(card)
                    self.notify()
            except DeviceError as exc:
                fault = DeviceFaultEntry(code=exc.code, message=exc.message, at_ms=self._now_ms())
                self._write(fault, hand=self.hand_no)
                self._apply_fault(fault)
            except TableError as exc:
                # The engine refused what the shoe delivered (a card twice: the deck is not what it was).
                self._alert("shoe_mismatch", f"hand #{self.hand_no}: {exc.message}")
                self._halt(exc.message)
        self.notify()

    async def _deal_round(self) -> None:
        """The five cards each. They are journaled together when the deal is complete (or stops on a fault):
        nothing acts on them before, and a deal cut short by a crash is a misdeal that the restart voids."""
        assert self._deal is not None
        codes: list[str] = []
        try:
            while len(self._deal.cards) + len(codes) < self._deal.needed:
                dealt = await self.shoe.deal()
                codes.append(dealt.code)
        finally:
            if codes:
                entry = DealEntry(codes=tuple(codes))
                self._write(entry, hand=self.hand_no)
                self._apply_deal(entry)

    async def _take_in_cards_dealt_while_down(self) -> None:
        """After a restart on a shoe that kept its state (a real shoe, or the simulator in its own process):
        the cards it dealt in this hand, from its log, against the journal. A card it dealt that the journal
        lacks (dealt while the controller was down, or its answer was in flight at the crash) is journaled and
        taken in now, so nothing is dealt twice and nothing is lost. A shoe that disagrees with the journal
        halts the table (security alert); a shoe that shuffled since raises ``shoe_needs_shuffle``."""
        mark = self._deck_mark
        if not isinstance(self.shoe, ShoeLog) or mark is None or not self._in_play():
            self._check_shoe_log = False
            return
        dealt = await self.shoe.dealt_since(mark)
        self._check_shoe_log = False
        known = self._hand_cards
        shoe_codes = [c.code for c in dealt]
        differ = [k for k, (a, b) in enumerate(zip(known, shoe_codes, strict=False))
                  if a != b and UNKNOWN_CODE not in (a, b)]
        if len(shoe_codes) < len(known) or differ:
            reason = (f"after the restart the shoe reports {len(shoe_codes)} cards dealt in this hand, the journal "
                      f"{len(known)}" + (f"; they differ at card {differ[0] + 1}" if differ else ""))
            self._alert("shoe_mismatch", f"hand #{self.hand_no}: {reason}")
            self._halt(reason)
            return
        extra = dealt[len(known):]
        if not extra:
            return
        taken = 0
        if self._deal is not None and self._deal.verified:
            room = self._deal.needed - len(self._deal.cards)
            codes = [c.code for c in extra[:room]]
            if codes:
                deal = DealEntry(codes=tuple(codes), from_shoe_log=True)
                self._write(deal, hand=self.hand_no)
                self._apply_deal(deal)
                taken += len(codes)
            extra = extra[room:]
        for card in extra:
            kind = self._owed()
            if kind is None:
                reason = "the shoe dealt a card the hand did not ask for while the controller was down"
                self._alert("shoe_mismatch", f"hand #{self.hand_no}: {reason}")
                self._halt(reason)
                break
            entry = CardEntry(kind=kind, code=card.code, from_shoe_log=True)
            self._write(entry, hand=self.hand_no)
            self._apply_card(entry)
            taken += 1
        if taken:
            self.log(f"{taken} card(s) the shoe dealt while the controller was down were taken from its log")

    def recover(self, entries: list[PortEntry] | None = None) -> int:
        """Rebuild the table from the journal's entries (all of them by default). Returns how many."""
        items = self.journal.entries() if entries is None else entries
        # Every entry is parsed before any is applied: a journal with an entry this controller cannot read
        # is refused whole, naming the entry, rather than rebuilt up to it or past it.
        parsed = [parse_entry(item.kind, item.data, seq=item.seq) for item in items]
        self._replaying = True
        try:
            for entry in parsed:
                self._replay(entry)
        finally:
            self._replaying = False
        self._check_shoe_log = self._in_play() and self._deck_mark is not None
        self._store_missing_record()
        if items:
            self.log(f"Recovered from the journal: {len(items)} entries replayed")
            self.message = (self.message + " (recovered after a restart)").strip()
        change = self.game_change()
        if change is not None:
            self.log(change[0].upper() + change[1:])
        return len(items)

    def _store_missing_record(self) -> None:
        """A crash between the entry that ended a hand and the storing of its record leaves the hand without
        one: the replay rebuilt it, so it is stored now (only the last hand can be in that state)."""
        if self._last_ended is None or not isinstance(self.journal, KeepsHandIndex):
            return
        number, record, result = self._last_ended
        if not self.journal.has_hand(number):
            self.journal.store_hand(hand=number, record=record, result=result)
            self.log(f"Hand #{number}'s record, missing after the crash, was stored from the replay")

    async def resume(self) -> None:
        """After :meth:`recover`: let the shoe deliver whatever the hand still waits for."""
        self.notify()
        if (self._check_shoe_log or self._owed() is not None
                or (self._deal is not None and not self._deal.verified)):
            await self._run_shoe()
