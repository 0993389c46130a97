"""The per-table controller: seats and chips between hands, and the live hand on the devices.

How it works. The controller is the only writer of a table's state. Every input goes through one async
method that (1) checks it, (2) journals it, (3) applies it with a synchronous ``_apply_*`` method. The
``_apply_*`` methods touch no device, so replaying the journal's entries through them
(:meth:`TableController.recover`) rebuilds the table exactly after a crash. Inputs are: seat changes, the
start of a hand, the shoe's deck check, each card the shoe delivered (its code, or "??" from a shoe without
a reader), each act the dealer entered (or a simulated player took), device faults and the dealer's answers,
irregularity reports, camera cross-check alerts and floor rulings.

A hand: the shoe shuffles and verifies the deck (52 cards, none missing, none twice; a failure halts the
table with a security alert), then deals five cards to each player one at a time, each journaled as it
comes; the engine's hand is built from them and takes the dealer's deal. Every act is verified by the engine
before it is journaled, so only a legal act makes the shoe deal: a draw is applied at once, and the shoe then
delivers the cards of the dealer's burn and service, each fed to the engine as it comes; a report whose remedy
takes cards waits for the ones the engine names. A device
fault pauses the hand with a prompt for the dealer: retry, or void the hand (every chip back where it was when
the hand began). Between hands the controller checks that chips are conserved: stacks + carried pot = chips
bought in - chips taken away + chips moved by floor rulings.

Listeners (the stream hub) get the full state after each change; each role's view is cut from it in
``table_controller.service.views``.

The stages of the table and the moves between them are one transition table (``machine.py``); the
controller is built in layers, one module each (``core``, ``reads``, ``play``, ``feed``, then this module:
the inputs as requests arrive).
"""

from __future__ import annotations

from typing import Any

from table_controller.controller.core import (
    Moment,
    SeatState,
)
from table_controller.controller.devices import (
    Rechecks,
)
from table_controller.controller.entries import (
    ActEntry,
    AlertAckEntry,
    DeviceFaultEntry,
    HandStartEntry,
    PromptAnswerEntry,
    RefusedEntry,
    RequestAnswerEntry,
    RulingEntry,
    SeatBuyInEntry,
    SeatRebuyEntry,
    SeatSitEntry,
    SeatStandEntry,
    StartSeat,
    VoidEntry,
)
from table_controller.controller.errors import (
    DeviceError,
    NotAllowedError,
    NotFoundError,
    TableError,
    TableRequestError,
)
from table_controller.controller.feed import ShoeFeed
from table_controller.controller.hand import IRREGULARITIES, EngineHand
from table_controller.controller.machine import Stage
from table_controller.controller.secrecy import (
    ALERT_EVERY,
    conceal,
    named_cards,
    names_cards,
    not_in_hand,
    outside_possible,
    target_seat,
)
from table_controller.controller.views import (
    RulingAsked,
)
from table_controller.engine.cards import UNKNOWN_CODE

__all__ = ["Moment", "SeatState", "TableController"]

class TableController(ShoeFeed):
    """One table: every input to it goes through this class (see the module docstring)."""

    def remember_answer(self, key: str, fingerprint: str, status: int, body: str) -> None:
        """Journal the answer to a keyed request, so a retry after a restart gets it too."""
        entry = RequestAnswerEntry(key=key, fingerprint=fingerprint, status=status, body=body)
        self._write(entry, hand=self.hand_no or None)
        self._apply_answer(entry)

    def acknowledge_alert(self, alert_id: str) -> None:
        if not any(a.id == alert_id for a in self._alerts):
            raise NotFoundError(f"no alert {alert_id!r}")
        at_ms = self._now_ms()
        entry = AlertAckEntry(id=alert_id, at_ms=at_ms)
        self._write(entry, hand=self.hand_no)
        self._apply_alert_ack(entry)
        self.notify()

    async def void_in_play(self, reason: str, *, by: str = "controller") -> None:
        """Void the hand in progress (journaled): every chip goes back to where it was when it began."""
        async with self._lock:
            if not self._in_play():
                return
            entry = VoidEntry(reason=reason, by=by)
            self._write(entry, hand=self.hand_no)
            self._apply_void(entry)
        self.notify()

    async def sit_down(self, seat: int, name: str, buy_in: int = 0) -> None:
        async with self._lock:
            self._seat_no(seat)
            if seat in self.seats:
                raise NotAllowedError(f"seat {seat} is taken by {self.seats[seat].name}", code="seat_taken")
            name = name.strip()
            if not name:
                raise TableRequestError("a player needs a name", code="bad_name")
            if buy_in:
                self._check_buy(buy_in, stack=0)
            entry = SeatSitEntry(seat=seat, name=name, buy_in=buy_in)
            self._write(entry, hand=None)
            self._apply_sit(entry)
        self.notify()

    async def buy_in(self, seat: int, amount: int) -> None:
        await self._add_chips(seat, amount, kind="buy_in")

    async def rebuy(self, seat: int, amount: int) -> None:
        await self._add_chips(seat, amount, kind="rebuy")

    async def _add_chips(self, seat: int, amount: int, *, kind: str) -> None:
        async with self._lock:
            st = self._seated(seat)
            self._between_hands("buying chips")
            if kind == "buy_in" and st.stack > 0:
                raise NotAllowedError(f"seat {seat} has already bought in ({st.stack} chips): use rebuy",
                                      code="already_bought_in")
            if kind == "rebuy" and st.stack == 0:
                raise NotAllowedError(f"seat {seat} has not bought in yet: use buy-in", code="not_bought_in")
            self._check_buy(amount, stack=st.stack)
            entry = (SeatBuyInEntry if kind == "buy_in" else SeatRebuyEntry)(seat=seat, amount=amount)
            self._write(entry, hand=None)
            self._apply_chips(entry)
        self.notify()

    async def stand_up(self, seat: int) -> None:
        async with self._lock:
            self._seated(seat)
            self._between_hands("standing up")
            entry = SeatStandEntry(seat=seat)
            self._write(entry, hand=None)
            self._apply_stand(entry)
        self.notify()

    async def start_hand(self) -> None:
        async with self._lock:
            self._ready()
            if self._in_play():
                raise NotAllowedError(f"hand {self.hand_no} is still in progress", code="hand_in_progress")
            players = [(n, st.name, st.stack) for n, st in sorted(self.seats.items())
                       if st.stack > 0 and not st.sitting_out]
            if len(players) < 2:
                raise NotAllowedError("a deal needs at least two seated players with chips", code="not_enough_players")
            button = self._next_button([n for n, _, _ in players])
            ante_for_all = self.ante_for_all if self.ante_for_all in {n for n, _, _ in players} else None
            entry = HandStartEntry(hand=self.hand_no + 1, button=button,
                                   seats=tuple(StartSeat(seat=n, name=name, stack=stack) for n, name, stack in players),
                                   carried_pot=self.carried_pot, passed_deals=self.passed_deals,
                                   game=self.config, ante_for_all=ante_for_all)
            self._write(entry, hand=self.hand_no + 1)
            self._apply_hand_start(entry)
        self.notify()
        await self._run_shoe()

    def _live_hand(self) -> EngineHand:
        self._ready()
        if self.hand is None:
            if self._deal is not None:
                raise NotAllowedError("the deal is not finished yet", code="dealing")
            raise NotAllowedError("no hand in progress: start one first", code="no_hand")
        if self._pending is not None or self.hand.owed() is not None:
            raise NotAllowedError("waiting for the shoe to deliver cards", code="dealing")
        return self.hand

    async def act(self, seat: int, act: str, to: int | None = None, cards: tuple[str, ...] | None = None, *,
                  role: str = "dealer") -> None:
        """A player's act as the dealer entered it: check, bet, call, raise, fold, straddle, show, muck.
        ``role``: who entered it; a refusal that depends on hidden cards is answered as that role may learn."""
        if act in ("draw", "announce", "reshuffle"):
            raise TableRequestError(f"'{act}' is not entered as an act: use the draw entry", code="bad_act")
        action: dict[str, Any] = {"seat": seat, "act": act}
        if to is not None and act in ("bet", "raise"):
            action["to"] = to
        elif act in ("bet", "raise"):
            raise TableRequestError(f"'{act}' needs 'to': the player's total in this betting interval",
                                    code="amount_missing")
        read_by_camera = act == "show" and not cards
        if read_by_camera:
            cards = self._cards_from_camera(seat)
            if cards is None and self._camera_reads_shows(seat):
                raise NotAllowedError(f"the camera has not read seat {seat}'s hand yet: lay the five cards face up "
                                      "in front of the seat, then tap again", code="not_read_yet",
                                      rule="every player who has not dropped shows his full hand (000 Final betting "
                                      "and showdown)")
        if act == "show" and cards:
            action["cards"] = list(cards)
            # A card the camera read that the seat cannot hold halts the hand. One the dealer typed is judged by
            # the engine like any named card: the dealer's answer must not depend on where it lies (secrecy.py).
            if read_by_camera and await self._halt_on_foreign_show(seat, tuple(cards)):
                return
        await self._submit(action, role=role)

    async def _halt_on_foreign_show(self, seat: int, cards: tuple[str, ...]) -> bool:
        """A shown card the seat cannot hold (neither among its candidates after a draw nobody named, nor a card
        it is known to hold) halts the hand with a security alert. True when it did."""
        async with self._lock:
            candidates = self._candidates.get(seat)
            hand = self.hand
            if candidates is None or hand is None or self.halted:
                return False
            known = {c for c in hand.hole(seat) if c != UNKNOWN_CODE}
            foreign = [c for c in cards if c not in known and c not in candidates]
            if not foreign:
                return False
            self._alert("shown_card_mismatch", f"hand #{self.hand_no}: seat {seat} showed {' '.join(foreign)}, which "
                        f"the seat was never dealt nor served (it may hold {' '.join(sorted(set(candidates)))} and "
                        f"{' '.join(sorted(known)) or 'nothing else'})", seat=seat)
            self._halt(f"a card shown at seat {seat} is not one the seat could hold")
        self.notify()
        return True

    async def draw(self, seat: int, *, count: int | None = None, discard: tuple[str, ...] | None = None,
                   role: str = "dealer") -> None:
        """The player throws ``discard`` (codes), or ``count`` cards nobody named, and is served.

        A count alone is what the dealer knows. With a shoe that read the cards the controller then forgets
        which of the seat's cards are which (the floor sees "??" for them until they are shown): the record
        must not claim to know which cards were thrown when nobody saw them."""
        if discard is None and count is None:
            raise TableRequestError("a draw needs 'count' or 'discard'", code="draw_missing")
        forget = False
        if discard is not None:
            if count is not None and count != len(discard):
                raise TableRequestError(f"count {count} but {len(discard)} cards listed", code="draw_mismatch")
            thrown = list(discard)
        else:
            assert count is not None
            thrown, forget = self._discards_for_count(seat, count)
        await self._submit({"seat": seat, "act": "draw", "discard": thrown}, forget=seat if forget else None,
                           role=role)

    def _discards_for_count(self, seat: int, count: int) -> tuple[list[str], bool]:
        hand = self._live_hand()
        try:
            hole = hand.hole(seat)
        except Exception as exc:
            raise NotAllowedError(f"seat {seat} is not in this hand", code="unknown_seat") from exc
        if count == 0:
            return [], False
        return [UNKNOWN_CODE] * count, any(c != UNKNOWN_CODE for c in hole)

    async def _submit(self, action: dict[str, Any], *, forget: int | None = None, role: str = "dealer") -> None:
        async with self._lock:
            try:
                hand = self._live_hand()
                if role != "floor":
                    self._guard_forgotten(hand, action)
                # The engine's refusal surfaces here, before anything is dealt. A draw entered as a count is
                # answered as if the seat's cards were forgotten ("??" discards resolve only onto cards nobody
                # knows), without forgetting them: that cannot be undone if the act is refused.
                kinds = hand.cards_for(action, forget=forget)
            except TableError as exc:
                if not names_cards(action) or isinstance(exc, DeviceError):
                    raise
                raise self._refused(action, exc, role) from None
            # An irregularity's alert keeps the time it was reported when the journal is replayed.
            entry = ActEntry(action=action, kinds=tuple(kinds), forget=forget,
                             at_ms=self._now_ms() if action.get("act") == "irregularity" else None)
            self._write(entry, hand=self.hand_no)
            self._apply_act(entry)
        self.notify()
        if self._owed() is not None:
            await self._run_shoe()

    @staticmethod
    def _guard_forgotten(hand: EngineHand, action: dict[str, Any]) -> None:
        """A seat whose cards were forgotten: a named card it cannot hold is refused before the engine, which
        would otherwise tell a card known elsewhere from one still in the stub (secrecy.py)."""
        seat = target_seat(action)
        named = named_cards(action)
        if seat is None or not named:
            return
        try:
            hole = hand.hole(seat)
        except TableError:
            return
        if outside_possible(named, hole, hand.possible(seat)):
            raise not_in_hand(seat)

    def _refused(self, action: dict[str, Any], exc: TableError, role: str) -> TableError:
        """Journal and count a refused report or card-naming act; answer as ``role`` may learn."""
        answer = conceal(exc, action, role=role)
        entry = RefusedEntry(action=action, by=role, code=exc.code, answered=answer.code)
        self._write(entry, hand=self.hand_no)
        self._apply_refused(entry)
        if self._refused_in_hand % ALERT_EVERY == 0:
            self._alert("refused_reports",
                        f"hand #{self.hand_no}: {self._refused_in_hand} reports or named cards refused in this hand "
                        f"(last from the {role}: {action.get('act')} naming "
                        f"{' '.join(named_cards(action)) or 'no card'} at seat {target_seat(action)}, {exc.code}); "
                        "someone may be probing for hole cards")
            self.notify()
        return answer

    async def answer_prompt(self, prompt_id: str, choice: str) -> None:
        async with self._lock:
            prompt = self._prompts.get(prompt_id)
            if prompt is None:
                raise NotFoundError(f"no open prompt {prompt_id!r}")
            if choice not in prompt.options:
                raise TableRequestError(f"answer one of {', '.join(prompt.options)}, not {choice!r}",
                                        code="bad_choice")
            entry = PromptAnswerEntry(prompt=prompt_id, choice=choice, at_ms=self._now_ms())
            self._write(entry, hand=self.hand_no)
            self._apply_prompt_answer(entry)
        self.notify()
        if choice == "retry":
            if isinstance(self.camera, Rechecks):
                self.camera.recheck()  # a camera still lost pauses the hand again on its next frame
            await self._run_shoe()

    async def report_irregularity(self, kind: str, *, seat: int | None, note: str, by: str,
                                  details: dict[str, Any] | None = None) -> None:
        """A report from the dealer (or the camera). The engine applies the book's remedy and names the rule;
        a misdeal before the deal is complete voids the hand here. ``by``: the role that reported it. Every
        refused report is journaled and counted (secrecy.py)."""
        irr = IRREGULARITIES.get(kind)
        report: dict[str, Any] = {"kind": kind, "by": by}
        if seat is not None and (irr is None or irr.needs_seat):
            report["seat"] = seat
        if note:
            report["reason"] = note[:500]
        for key, value in (details or {}).items():
            if value is not None and not (key == "looked" and value == "none"):
                report[key] = list(value) if isinstance(value, tuple) else value
        action = {"act": "irregularity", "report": report}
        try:
            if irr is None:
                raise TableRequestError(f"unknown irregularity {kind!r}; known: {', '.join(IRREGULARITIES)}",
                                        code="bad_irregularity")
            if irr.needs_seat:
                if seat is None:
                    raise TableRequestError(f"'{kind}' needs the seat it happened at", code="seat_missing")
                self._seat_no(seat)
            if not self._in_play():
                raise NotAllowedError("no hand in progress", code="no_hand")
            if self.hand is None and kind != "misdeal":
                raise NotAllowedError("the deal is not complete yet: only a misdeal can be called now",
                                      code="dealing")
        except TableRequestError as exc:
            raise self._refused(action, exc, by) from None
        if self.hand is None:
            await self.void_in_play(f"misdeal called by the {by}" + (f": {note}" if note else ""), by=by)
            return
        await self._submit(action, role=by)

    async def floor_ruling(self, ruling: RulingAsked) -> None:
        async with self._lock:
            entry = RulingEntry(kind=ruling.kind, by=ruling.by, reason=ruling.reason, seat=ruling.seat,
                                amount=ruling.amount, at_ms=self._now_ms())
            self._check_ruling(entry)
            self._write(entry, hand=self.hand_no)
            self._apply_ruling(entry)
        self.notify()
        if ruling.kind == "resume" and self._owed() is not None:
            await self._run_shoe()

    def _check_ruling(self, e: RulingEntry) -> None:
        kind = e.kind
        if kind == "void_hand" and not self._in_play():
            raise NotAllowedError("no hand in progress to void", code="no_hand")
        if kind == "resume" and not (self.halted or self.paused):
            raise NotAllowedError("the table is not halted", code="not_halted")
        if kind in ("award_pot", "move_chips"):
            seat = e.seat
            if seat is None:
                raise TableRequestError(f"'{kind}' needs a seat", code="seat_missing")
            self._seated(seat)
        if kind == "award_pot" and self._in_play() and self.hand is None:
            raise NotAllowedError("the deal is not finished: void the hand instead", code="dealing")
        if kind == "move_chips":
            self._between_hands("moving chips")
            amount = e.amount
            if not amount:
                raise TableRequestError("'move_chips' needs a non-zero amount", code="amount_missing")
            if amount > self.carried_pot:
                raise NotAllowedError(f"the pot holds only {self.carried_pot}", code="over_pot")
            stack = self._seated(e.seat if e.seat is not None else 0).stack
            if -amount > stack:
                raise NotAllowedError(f"seat {e.seat} holds only {stack}", code="over_stack")

    async def camera_lost(self, detail: str) -> None:
        """The camera stopped giving frames: the floor is told and, during a hand, the hand pauses until the
        dealer continues without the cross-check (or voids the hand)."""
        async with self._lock:
            self._alert("camera_lost", f"camera lost ({detail}): cards are not cross-checked until it is back",
                        level="warning")
            if self._in_play() and not self.paused and not self.halted:
                entry = DeviceFaultEntry(code="camera_lost", message=f"camera lost ({detail})", at_ms=self._now_ms())
                self._write(entry, hand=self.hand_no)
                self._apply_fault(entry)
        self.notify()

    async def camera_reading(self, seat: int, code: str, *, where: str = "exposed", seen: Moment | None = None) -> None:
        """The camera read ``code`` face up in front of ``seat`` in a frame taken at ``seen`` (now if None).

        A card the shoe dealt to that seat neither when the frame was taken nor now halts the hand with a
        security alert; one of the seat's own cards seen face up before the showdown is reported as an
        exposed card (an irregularity, for the dealer and the floor). A frame of another hand (taken before
        this one was shuffled, and reported after the lock let it through) is not judged at all."""
        async with self._lock:
            hand = self.hand
            if hand is None or code == UNKNOWN_CODE or self.halted:
                return
            if seen is not None and seen.hand != self.hand_no:
                return
            try:
                info = hand.seat_info().get(seat)
            except Exception:
                info = None
            hole = info.hole if info is not None else ()
            then = seen.holes.get(seat, ()) if seen is not None else hole
            if code not in hole and code in then:
                return  # the seat held it when the frame was taken and has thrown it since
            if (UNKNOWN_CODE in hole or UNKNOWN_CODE in then) and code not in hole:
                candidates = self._candidates.get(seat)
                if candidates is None or code in candidates:
                    return  # an unread card (no reader), or one the seat may still hold: the camera teaches
            if code in hole:
                taken_in = seen.phase if seen is not None else self.phase
                if (info is not None and code not in info.shown and self.phase in ("betting", "drawing")
                        and taken_in == self.phase):
                    self._camera_exposure(hand, seat, code)
                return
            reason = (f"camera read {code} {where} at seat {seat}, but the shoe dealt that seat "
                      f"{' '.join(hole) or 'nothing'}")
            self._alert("camera_mismatch", f"hand #{self.hand_no}: {reason}", seat=seat)
            # The halt's reason is read by the dealer: it names no card (the floor's alert above does), also
            # when the journal is replayed after a restart.
            self._halt(f"camera and shoe disagree at seat {seat}")
        self.notify()

    def _camera_exposure(self, hand: EngineHand, seat: int, code: str) -> None:
        kind = "exposed_in_deal" if self.phase == "betting" else "exposed_in_draw"
        self._alert("exposed_card", f"camera saw {code} face up at seat {seat}", level="warning", seat=seat)
        report = {"kind": kind, "seat": seat, "card": code, "by": "camera", "reason": f"camera saw {code} face up"}
        action = {"act": "irregularity", "report": report}
        try:
            kinds = hand.cards_for(action)
        except TableError:
            kinds = None  # the engine has no remedy here (already dealt with): the alert stands
        if kinds == [] and self.stage is Stage.PLAYING:  # not while the shoe serves an act: the alert stands
            entry = ActEntry(action=action, kinds=(), at_ms=self._now_ms())
            self._write(entry, hand=self.hand_no)
            self._apply_act(entry)
        self.notify()
