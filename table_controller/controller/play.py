"""Applying each journaled input to the table: the synchronous ``_apply_*`` methods.

They touch no device and read no clock (times come in the entries), so the same methods serve live play and
the replay of the journal after a crash (:meth:`HandPlay._replay`). Each moves the table's stage through
the transition table of ``machine.py``.
"""

from __future__ import annotations

import secrets
from typing import Any

from pydantic import ValidationError

from table_controller.controller.core import (
    R_FAULT,
    Deal,
    Pending,
    SeatState,
)
from table_controller.controller.entries import (
    ActEntry,
    AlertAckEntry,
    AlertEntry,
    CardEntry,
    DealEntry,
    DeckCheckEntry,
    DeviceFaultEntry,
    Entry,
    HaltEntry,
    HandStartEntry,
    PromptAnswerEntry,
    RefusedEntry,
    RequestAnswerEntry,
    ReturnedEntry,
    RulingEntry,
    SeatBuyInEntry,
    SeatRebuyEntry,
    SeatSitEntry,
    SeatStandEntry,
    VoidEntry,
)
from table_controller.controller.errors import (
    DeviceError,
    JournalEntryError,
    TableError,
)
from table_controller.controller.hand import IRREGULARITIES, EngineHand
from table_controller.controller.journal_port import KeepsHandIndex
from table_controller.controller.machine import BEFORE, Stage
from table_controller.controller.reads import TableReads
from table_controller.controller.returns import LAST_DECK, with_late_return
from table_controller.controller.views import (
    Award,
    HandSummary,
    RulingView,
)
from table_controller.engine.cards import UNKNOWN_CODE, parse_card
from table_controller.engine.config import GameConfig
from table_controller.engine.errors import ConfigError
from table_controller.engine.events import Event
from table_controller.engine.record import GameModel, config_from_model

__all__ = ["HandPlay"]

class HandPlay(TableReads):
    def _replay(self, e: Entry) -> None:
        """Apply one journaled entry (its class says which input it was)."""
        match e:
            case SeatSitEntry():
                self._apply_sit(e)
            case SeatBuyInEntry() | SeatRebuyEntry():
                self._apply_chips(e)
            case SeatStandEntry():
                self._apply_stand(e)
            case HandStartEntry():
                self._apply_hand_start(e)
            case DeckCheckEntry():
                self._apply_deck_check(e)
            case CardEntry():
                self._apply_card(e)
            case DealEntry():
                self._apply_deal(e)
            case ActEntry() if e.action.get("act") == "reshuffle":
                self._perform(dict(e.action))
            case ActEntry():
                self._apply_act(e)
            case DeviceFaultEntry():
                self._apply_fault(e)
            case PromptAnswerEntry():
                self._apply_prompt_answer(e)
            case RulingEntry():
                self._apply_ruling(e)
            case AlertEntry():
                self._apply_alert(e)
            case AlertAckEntry():
                self._apply_alert_ack(e)
            case HaltEntry():
                self._apply_halt(e)
            case VoidEntry():
                self._apply_void(e)
            case RefusedEntry():
                self._apply_refused(e)
            case RequestAnswerEntry():
                self._apply_answer(e)
            case ReturnedEntry():
                self._apply_returned(e)
            case _:
                raise JournalEntryError(f"no replay for journal entry kind {e.KIND!r}", code="unknown_entry")

    def _apply_sit(self, e: SeatSitEntry) -> None:
        self.seats[e.seat] = SeatState(name=e.name, stack=e.buy_in)
        self.chips_in += e.buy_in
        self.log(f"{e.name} sits in seat {e.seat}" + (f" with {e.buy_in}" if e.buy_in else ""))

    def _apply_chips(self, e: SeatBuyInEntry | SeatRebuyEntry) -> None:
        st = self.seats[e.seat]
        st.stack += e.amount
        self.chips_in += e.amount
        self.log(f"{st.name} {'buys in' if isinstance(e, SeatBuyInEntry) else 'rebuys'} for {e.amount}")

    def _apply_stand(self, e: SeatStandEntry) -> None:
        st = self.seats.pop(e.seat)
        self.chips_in -= st.stack
        self.log(f"{st.name} leaves seat {e.seat} with {st.stack}")

    def _next_button(self, seats: list[int]) -> int:
        if self.button is None:
            return seats[0]
        later = [s for s in seats if s > self.button]
        return later[0] if later else seats[0]

    def _apply_hand_start(self, e: HandStartEntry) -> None:
        # The hand is dealt, and replayed after a restart, with its own game: settings changed since then deal
        # only the hands that start after them.
        game = e.game if e.game is not None else self._game_not_journaled(e.hand)
        self.dealt_game = game
        seats = [(s.seat, s.name, s.stack) for s in e.seats]
        self.hand_no = e.hand
        self.button = e.button
        self.finished = None
        self.last_awards = ()
        self._start_stacks = {n: stack for n, _, stack in seats}
        self._deck_mark = None
        self.returns.new_hand(self._hand_cards)
        self._hand_cards = []
        self._refused_in_hand = 0
        self._hand_events = []
        self._candidates = {}
        order = EngineHand.deal_order([n for n, _, _ in seats], e.button)
        self.machine.move("hand.start", Stage.SHUFFLING)
        self._deal = Deal(seats=seats, button=e.button, carried_pot=e.carried_pot,
                           passed_deals=e.passed_deals, order=order, ante_for_all=e.ante_for_all, game=game)
        self.message = f"Hand #{self.hand_no}: the shoe shuffles and verifies the deck."
        self.log(f"Hand #{self.hand_no} begins; button at seat {self.button}")

    def _game_not_journaled(self, hand: int) -> GameConfig:
        """The game of a hand whose start was journaled before games were (``hand.start`` version 1): its stored
        record's; for a hand without one (it was in play at the stop), the game the journal's hand before it was
        dealt with (a session deals one game, and that controller refused to start with another than its journal's);
        for the journal's first hand, the settings'."""
        stored = self.journal.stored_game(hand) if isinstance(self.journal, KeepsHandIndex) else None
        if stored is not None:
            try:
                return config_from_model(GameModel.model_validate(stored))
            except (ValidationError, ConfigError) as exc:
                first = exc.errors()[0] if isinstance(exc, ValidationError) else None
                why = f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}" if first else str(exc)
                self.log(f"Hand #{hand}'s stored record names a game this controller cannot read ({why}): it is "
                         "replayed with the game of the hand before it")
        return self.dealt_game if self.dealt_game is not None else self.config

    def _apply_deck_check(self, e: DeckCheckEntry) -> None:
        assert self._deal is not None
        if e.ok:
            self._deck_mark = e.mark
            self._deal.verified = True
            self.decks_verified += 1
            self.machine.move("deck.check", Stage.DEALING)
            self.message = f"Hand #{self.hand_no}: {e.text}. Dealing."
            self.log(e.text)
        else:
            self._apply_halt(HaltEntry(reason=e.text))

    def _apply_deal(self, e: DealEntry) -> None:
        for code in e.codes:
            self._apply_card(CardEntry(kind="deal", code=code))

    def _apply_card(self, e: CardEntry) -> None:
        code = e.code
        if code != UNKNOWN_CODE:
            parse_card(code)  # a bad code from a device is a device error, caught before it is journaled
        self.cards_dealt += 1
        self._hand_cards.append(code)
        if self._deal is not None:
            deal = self._deal
            deal.cards.append(code)
            if len(deal.cards) < deal.needed:
                self.machine.move("deal", Stage.DEALING)
            else:
                self.hand = EngineHand(config=deal.game, seats=deal.seats, button=deal.button,
                                       carried_pot=deal.carried_pot, passed_deals=deal.passed_deals,
                                       deck=deal.cards, ante_for_all=deal.ante_for_all)
                self._deal = None
                self.machine.move("deal", Stage.PLAYING)
                self.message = f"Hand #{self.hand_no}: dealt. Betting."
                self.log(f"Dealt five cards each to seats {', '.join(str(s) for s in deal.order)}")
                for n in deal.order:
                    self.log(f"Seat {n} holds {' '.join(self.hand.hole(n))}", secret=True)
                self._after_act()
            return
        pending = self._pending
        if pending is not None:  # a report waiting for the cards its remedy takes: applied when they have come
            assert self.hand is not None
            self.hand.take_card(code)
            pending.cards.append(code)
            if len(pending.cards) < len(pending.kinds):
                self.machine.move("card", Stage.SERVING)
                return
            self._pending = None
            self.machine.move("card", Stage.PLAYING)
            self._perform(pending.action, at_ms=pending.at_ms)
            return
        if self.hand is None or self.hand.owed() is None:
            raise DeviceError("the shoe delivered a card nobody asked for", code="unexpected_card")
        # The dealer's burn or service of the draw: the engine takes it as soon as its cards have come.
        events = self.hand.take_card(code)
        self._settle("card", events, {})

    def _apply_fault(self, e: DeviceFaultEntry) -> None:
        self._table_event("device_fault", f"the hand paused: {e.message}", at_ms=e.at_ms)
        self.machine.move("device.fault", Stage.HALTED if self.halted else Stage.PAUSED)
        self.message = f"PAUSED: {e.message}. Clear the fault, then Retry; or Void the hand."
        self.log(f"Device fault: {e.message}")
        if e.code == "camera_lost":
            self._prompt("device_fault", f"{e.message}. Fix it and Retry; or Continue without the camera's "
                         "cross-check; or Void the hand.", ("retry", "continue", "void"), R_FAULT)
            return
        if e.code == "shoe_needs_shuffle":
            self._prompt("device_fault", f"{e.message}. Tap Void: every chip goes back, then deal again.",
                         ("void",), R_FAULT)
            return
        self._prompt("device_fault", f"{e.message}. Clear the fault and tap Retry, or Void the hand.",
                     ("retry", "void"), R_FAULT)

    def _apply_act(self, e: ActEntry) -> None:
        if e.forget is not None and self.hand is not None:
            seat = e.forget
            self._candidates[seat] = tuple(c for c in self.hand.hole(seat) if c != UNKNOWN_CODE)
            self.hand.forget(seat)
        if e.kinds:  # a report whose remedy takes cards from the shoe: it waits for them
            self.machine.move("act", Stage.SERVING)
            self._pending = Pending(action=dict(e.action), kinds=list(e.kinds), at_ms=e.at_ms)
            self.message = "Dealing the cards the ruling takes from the shoe."
            return
        self._perform(dict(e.action), at_ms=e.at_ms)

    def _perform(self, action: dict[str, Any], *, at_ms: int | None = None) -> None:
        """Apply an act (and the dealer's acts it makes due whose cards have come, a stand-pat's service)."""
        assert self.hand is not None
        events = self.hand.act(action)
        if action.get("act") != "show":  # a show is logged with its cards below
            self.log(_describe_act(action, self.hand))
        self._settle("act", events, action, at_ms=at_ms)

    def _settle(self, trigger: str, events: list[Event], action: dict[str, Any], *, at_ms: int | None = None) -> None:
        """After an act or a card: the stage (serving while the dealer's act due waits for the shoe), the events
        on the log, and what comes next."""
        assert self.hand is not None
        serving = self.hand.owed() is not None
        self.machine.move(trigger, Stage.SERVING if serving else Stage.PLAYING)
        self._log_events(events, action, at_ms=at_ms)
        if serving:
            due = "burns a card, then serves" if self.hand.dealer_due() == "burn" else "serves"
            self.message = f"Hand #{self.hand_no}: the shoe {due} the draw."
            return
        self._after_act()

    def _log_events(self, events: list[Event], action: dict[str, Any], *, at_ms: int | None) -> None:
        for ev in events:
            data = ev.to_json()
            if data.get("event") == "draw":
                thrown = " ".join(data["discards"]) or "nothing"
                before = self._candidates.get(data["seat"])
                if before and UNKNOWN_CODE in data["discards"]:
                    thrown = f"{len(data['discards'])} of {' '.join(before)} (not named)"
                self.log(f"Seat {data['seat']} threw {thrown}, served {' '.join(data['served']) or 'nothing'}",
                         secret=True)
            elif data.get("event") == "irregularity":
                where = f" at seat {data['seat']}" if data.get("seat") is not None else ""
                label = IRREGULARITIES.get(data["irregularity"])
                what = label.label if label is not None else data["irregularity"].replace("_", " ")
                self._note = f"{what}{where}: {data['remedy']} ({data['rule']})."
                self.log(self._note)
                self._apply_alert(AlertEntry(
                    kind="irregularity", level="warning", seat=data.get("seat"),
                    at_ms=at_ms if at_ms is not None else self._now_ms(),
                    message=f"{what}{where}: {data['remedy']} "
                    f"({data['rule']}; reported by the {(action.get('report') or {}).get('by', 'dealer')})"))
            elif data.get("event") == "show":
                self.log(f"{self._name(data['seat'])} (seat {data['seat']}) shows {' '.join(data['cards'])}: "
                         f"{data['description']}")

    def _after_act(self) -> None:
        hand = self.hand
        if hand is None:
            return
        pool = hand.needs_reshuffle()
        if pool is not None:
            # The stub ran out mid-draw (001 IV 2): the burn and earlier discards are shuffled by the
            # controller's CSPRNG, journaled (the order is an input) and served on.
            order = list(pool)
            secrets.SystemRandom().shuffle(order)
            if not self._replaying:
                self._write(ActEntry(action={"act": "reshuffle", "order": order}, kinds=()), hand=self.hand_no)
                self._perform({"act": "reshuffle", "order": order})
            return
        if hand.over:
            self._finish_hand()
            return
        seat = hand.to_act()
        if seat is not None:
            name = hand.seat_info()[seat].name
            what = "to draw" if self.phase == "drawing" else "to show" if self.phase == "showdown" else "to act"
            self.message = f"Hand #{self.hand_no}: {name} (seat {seat}) {what}."
        if self._note:
            self.message = f"{self._note} {self.message}"
            self._note = ""

    def _finish_hand(self) -> None:
        hand = self.hand
        assert hand is not None
        for seat, stack in hand.stacks().items():
            if seat in self.seats:
                self.seats[seat].stack = stack
        self.carried_pot = hand.carried_out
        status = hand.status
        self.passed_deals = self.passed_deals + 1 if status == "passed_out" else 0
        self.ante_for_all = hand.ante_for_all_next()
        self.last_awards = hand.awards()
        self._store_record(hand)
        self._history.append(HandSummary(hand=self.hand_no, status=status, awards=self.last_awards,
                                         pot_total=sum(a.amount for a in self.last_awards)))
        self.hands_played += 1
        self.finished = hand
        self.hand = None
        self.machine.move("hand_over", Stage.WAITING)
        if self.last_awards:
            text = "; ".join(f"{self._name(a.seat)} wins {a.amount}" + (f" with {a.hand}" if a.hand else "")
                             for a in self.last_awards)
        elif status == "passed_out":
            text = f"nobody opened: the pot of {self.carried_pot} stays for the next deal"
        else:
            text = f"{status}; {self.carried_pot} stays for the next deal"
        self.message = f"Hand #{self.hand_no} over: {text}."
        self.log(self.message)
        if self._note:
            self.message = f"{self._note} {self.message}"
            self._note = ""
        self.check_chips()

    def _apply_prompt_answer(self, e: PromptAnswerEntry) -> None:
        prompt = self._prompts.pop(e.prompt)
        self._table_event("prompt_answer", f"the dealer answered {e.choice} to: {prompt.message}",
                          at_ms=e.at_ms, by="dealer")
        self.log(f"Dealer answered '{prompt.message}' with {e.choice}")
        if prompt.kind == "device_fault":
            if e.choice == "void" and self._in_play():
                self._apply_void(VoidEntry(reason="the dealer voided it after a device fault", by="dealer"))
                return
            self.machine.move("prompt.answer", BEFORE if self.paused else Stage.HALTED)
            if e.choice == "continue":
                self.message = f"Hand #{self.hand_no}: play goes on without the camera's cross-check."
            else:
                self.message = f"Hand #{self.hand_no}: resuming after the fault."

    def _apply_void(self, e: VoidEntry) -> None:
        if not self._in_play():
            return
        self._record_void(by=e.by or "controller", reason=e.floor_reason or e.reason)
        for seat, stack in self._start_stacks.items():
            if seat in self.seats:
                self.seats[seat].stack = stack
        self.hand = None
        self._deal = None
        self._pending = None
        self.machine.move("void", Stage.WAITING)
        for pid in [p.id for p in self._prompts.values() if p.kind == "device_fault"]:
            self._prompts.pop(pid)
        self._history.append(HandSummary(hand=self.hand_no, status="void"))
        self.message = f"Hand #{self.hand_no} void ({e.reason}): every chip is back. Shuffle and deal again."
        self.log(self.message)

    def _store_record(self, hand: EngineHand) -> None:
        """Keep the ended hand's record (and journal it, unless replaying): every hand that ends has one."""
        record = hand.record()
        if self._hand_events:
            record = {**record, "table_events": [dict(e) for e in self._hand_events]}
        result = hand.result()
        self._records[self.hand_no] = record
        self._last_ended = (self.hand_no, record, result)
        if not self._replaying:
            self.journal.store_hand(hand=self.hand_no, record=record, result=result)

    def _engine_for_record(self) -> EngineHand | None:
        """The engine's hand to end on record: the live one, or, for a deal not finished, one built from the
        cards dealt so far, the cards the deal never gave written as "??"."""
        if self.hand is not None:
            return self.hand
        deal = self._deal
        if deal is None:
            return None
        known = [c for c in deal.cards[:deal.needed]]
        for deck in (known + [UNKNOWN_CODE] * (deal.needed - len(known)), [UNKNOWN_CODE] * deal.needed):
            try:
                return EngineHand(config=deal.game, seats=deal.seats, button=deal.button,
                                  carried_pot=deal.carried_pot, passed_deals=deal.passed_deals, deck=deck,
                                  ante_for_all=deal.ante_for_all)
            except TableError:
                continue  # the shoe delivered a card twice (the table halted): the faces are not kept
        return None

    def _record_void(self, *, by: str, reason: str) -> None:
        """The void as the engine's floor ruling ``void_hand`` (docs/irregularities.md): the record replays to
        every chip put in this deal going back, the carried pot staying, status ``void``."""
        try:
            hand = self._engine_for_record()
            if hand is None:
                return
            hand.act({"act": "floor_ruling", "report": {"kind": "void_hand", "by": by[:40] or "controller",
                                                        "reason": reason[:500] or "void"}})
        except TableError as exc:
            self.log(f"Hand #{self.hand_no}: the void could not be put on the hand's record: {exc}")
            return
        self._store_record(hand)

    def _apply_refused(self, e: RefusedEntry) -> None:
        self.refused_reports += 1
        self._refused_in_hand += 1

    def _apply_ruling(self, e: RulingEntry) -> None:
        kind = e.kind
        detail = kind.replace("_", " ")
        ruling_id = f"r{next(self._ruling_ids)}"
        # On the hand's record before the ruling acts: a void or an award ends the hand and stores its record.
        self._table_event("ruling", f"{detail}: {e.reason}", at_ms=e.at_ms, by=e.by, seat=e.seat,
                          ref=ruling_id)
        if kind == "void_hand":
            self._apply_void(VoidEntry(reason=f"floor ruling by {e.by}: {e.reason}", by=e.by,
                                       floor_reason=e.reason))
            detail = f"hand #{self.hand_no} void"
        elif kind == "resume":
            self.machine.move("ruling", BEFORE)
            self._prompts = {k: p for k, p in self._prompts.items() if p.kind != "device_fault"}
            self.message = f"Resumed by the floor ({e.by})."
            detail = "play resumes"
        elif kind == "award_pot" and e.seat is not None:
            seat = e.seat
            if self.hand is not None:
                pot = self.hand.chips_total() - sum(self.hand.stacks().values())
                for n, stack in self.hand.stacks().items():
                    if n in self.seats:
                        self.seats[n].stack = stack
                self.seats[seat].stack += pot
                try:
                    self.hand.act({"act": "floor_ruling", "report": {"kind": "award_pot", "seats": [seat],
                                                                     "by": e.by, "reason": e.reason}})
                    self._store_record(self.hand)
                except TableError as exc:
                    self.log(f"Hand #{self.hand_no}: the award could not be put on the hand's record: {exc}")
                self.finished = self.hand
                self.hand = None
                self._pending = None
                self.machine.move("ruling", Stage.WAITING)
                self.carried_pot = 0
                self._history.append(HandSummary(hand=self.hand_no, status="ruled", pot_total=pot,
                                                 awards=(Award(seat=seat, amount=pot),)))
                self.last_awards = (Award(seat=seat, amount=pot),)
            else:
                pot = self.carried_pot
                self.seats[seat].stack += pot
                self.carried_pot = 0
            detail = f"pot of {pot} to seat {seat}"
        elif kind == "move_chips" and e.seat is not None and e.amount is not None:
            amount = e.amount
            self.seats[e.seat].stack += amount
            self.carried_pot -= amount
            detail = f"{abs(amount)} chips {'from the pot to' if amount > 0 else 'to the pot from'} seat {e.seat}"
        self._rulings.append(RulingView(id=ruling_id, at=e.at_ms / 1000, by=e.by, kind=kind,
                                        detail=detail, reason=e.reason))
        self.log(f"Floor ruling by {e.by}: {detail} ({e.reason})")

    def _apply_returned(self, e: ReturnedEntry) -> None:
        """A card the shoe read coming back (returns.py), live or replayed: it settles a count-drawer's
        candidates, and goes on the hand's record (or on the record of the hand just over, as its muck)."""
        if e.deck == LAST_DECK:
            self.returns.last_returned.append(e.code)
            self.log(f"The shoe read {e.code} coming back (from the last deck)", secret=True)
            return
        self.returns.cards.append(e.code)
        text = f"the shoe read {e.code} coming back"
        if e.seat is not None and e.code in self._candidates.get(e.seat, ()):
            left = tuple(c for c in self._candidates[e.seat] if c != e.code)
            self._candidates[e.seat] = left
            kept = self.hand.hole(e.seat).count(UNKNOWN_CODE) if self.hand is not None else 0
            held = f"it holds {' '.join(left)} and the cards it was served" if kept == len(left) else \
                f"it keeps {kept} of {' '.join(left)}"
            text += f": seat {e.seat} threw it; {held}"
        if self.in_play():
            self._table_event("returned", text, at_ms=e.at_ms, card=e.code, seat=e.seat)
        else:
            record = self._records.get(self.hand_no)  # the hand just over: its muck coming back is on its record
            if record is not None:
                self._records[self.hand_no] = with_late_return(record, e.to_json())
            text = f"after hand #{self.hand_no}, {text}"
        self.log(text[0].upper() + text[1:], secret=True)


def _describe_act(action: dict[str, Any], hand: EngineHand) -> str:
    act = action.get("act", "")
    seat = action.get("seat")
    who = f"Seat {seat}"
    if seat is not None:
        for spec in hand.specs:
            if spec.seat == seat:
                who = f"{spec.name} (seat {seat})"
    if act in ("bet", "raise"):
        return f"{who} {'bets' if act == 'bet' else 'raises to'} {action.get('to')}"
    if act == "draw":
        n = len(action.get("discard", []))
        return f"{who} {'stands pat' if n == 0 else f'draws {n}'}"
    if act == "show":
        return f"{who} shows"
    if act == "reshuffle":
        return "The stub ran out: the burn and earlier discards are reshuffled (001 IV 2)"
    return f"{who} {act}s" if not act.endswith("s") else f"{who} {act}"
