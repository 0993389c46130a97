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
comes; the engine's hand is built from them. An act that takes cards (a draw, with the burn) is tried on a
copy of the hand first, so only a legal act makes the shoe deal. A device fault pauses the hand with a
prompt for the dealer: retry, or void the hand (every chip back where it was when the hand began). Between
hands the controller checks that chips are conserved: stacks + carried pot = chips bought in - chips taken
away + chips moved by floor rulings.

Listeners (the stream hub) get the full state after each change; each role's view is cut from it in
``table_controller.service.views``.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from table_controller.controller.devices import (
    CameraPort,
    KeepsFrames,
    ReadsShownHands,
    Rechecks,
    ShoeLog,
    ShoePort,
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
    RulingEntry,
    SeatBuyInEntry,
    SeatRebuyEntry,
    SeatSitEntry,
    SeatStandEntry,
    StartSeat,
    VoidEntry,
    parse_entry,
)
from table_controller.controller.errors import (
    DeviceError,
    JournalEntryError,
    NotAllowedError,
    NotFoundError,
    TableError,
    TableRequestError,
)
from table_controller.controller.hand import IRREGULARITIES, EngineHand, game_config
from table_controller.controller.journal_port import JournalPort, KeepsHandIndex, MemoryJournal, PortEntry
from table_controller.controller.machine import BEFORE, HOLDS, Stage, StageMachine
from table_controller.controller.secrecy import (
    ALERT_EVERY,
    conceal,
    named_cards,
    names_cards,
    not_in_hand,
    outside_possible,
    target_seat,
)
from table_controller.engine.books import cite
from table_controller.engine.cards import UNKNOWN_CODE, parse_card
from table_controller.service.models import (
    AlertView,
    Award,
    DeviceView,
    FloorSeat,
    FloorView,
    GameView,
    HandSummary,
    IrregularityOption,
    LegalAction,
    LogEntry,
    PromptView,
    RulingRequest,
    RulingView,
    SeatStatus,
    TableSummary,
)
from table_controller.service.settings import TableSettings

__all__ = ["Moment", "SeatState", "TableController"]

Listener = Callable[[FloorView], None]
LOG_SIZE = 60
ANSWERS_KEPT = 5000  # idempotent requests' answers kept for retries (the journal keeps them all)
SNAPSHOTS_KEPT = 2000
HAND_SIZE = 5
R_FAULT = "device fault: the hand pauses; the dealer retries the device or voids the hand (misdeal, 000)"
CAMERA_ALERTS = frozenset({"camera_mismatch", "exposed_card"})  # alerts the camera raises from a frame
ALERT_FRAMES_KEPT = 50  # the frames behind the latest camera alerts, kept in memory for the floor


@dataclass
class SeatState:
    name: str
    stack: int = 0
    sitting_out: bool = False


@dataclass
class _Prompt:
    id: str
    kind: str
    message: str
    options: tuple[str, ...]
    rule: str | None = None


@dataclass
class _Deal:
    """A hand between its start and the engine's hand: shuffle, verify, then the five cards each."""

    seats: list[tuple[int, str, int]]
    button: int
    carried_pot: int
    passed_deals: int
    order: list[int]
    verified: bool = False
    ante_for_all: int | None = None  # 003 False openers 2 (house option): last deal's false opener antes for all
    cards: list[str] = field(default_factory=list)

    @property
    def needed(self) -> int:
        return HAND_SIZE * len(self.seats)


@dataclass(frozen=True, kw_only=True)
class Moment:
    """The table as a camera frame found it: the hand, its phase and each seat's cards when it was taken. A
    reading is judged against the moment its frame was taken, never against a later hand or phase."""

    hand: int
    phase: str
    holes: dict[int, tuple[str, ...]]


@dataclass
class _Pending:
    """An act waiting for the shoe to deliver the cards it takes."""

    action: dict[str, Any]
    kinds: list[str]
    cards: list[str] = field(default_factory=list)
    at_ms: int | None = None  # when the act was entered (an irregularity's alert keeps that time)


class TableController:
    def __init__(
        self,
        settings: TableSettings,
        *,
        shoe: ShoePort,
        journal: JournalPort | None = None,
        camera: CameraPort | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """``clock``: wall time, for the times on record; ``monotonic``: for delays (the broadcast's), which a
        wall clock stepped forward must not shorten."""
        self.settings = settings
        self.table_id = settings.table_id
        g = settings.game
        self.config = game_config(g.form, g.betting, dict(g.stakes), dict(g.options))
        self.shoe = shoe
        self.camera = camera
        self.journal: JournalPort = journal if journal is not None else MemoryJournal()
        self.clock = clock
        self.monotonic = monotonic
        self.broadcast_delay_s = settings.broadcast_delay_s
        self.seats: dict[int, SeatState] = {}
        self.button: int | None = None
        self.hand_no = 0
        self.carried_pot = 0
        self.passed_deals = 0
        self.ante_for_all: int | None = None
        self.hand: EngineHand | None = None
        self.finished: EngineHand | None = None
        self._deal: _Deal | None = None
        self._pending: _Pending | None = None
        self._start_stacks: dict[int, int] = {}
        self.machine = StageMachine()  # the table's stage (machine.py): the one place play state is kept
        self.message = "Seat players and start a hand."
        self.hands_played = 0
        self.decks_verified = 0
        self.cards_dealt = 0
        self.chips_in = 0  # chips bought in, less chips taken away on standing up, plus floor moves
        self.last_awards: tuple[Award, ...] = ()
        self._log: deque[LogEntry] = deque(maxlen=LOG_SIZE)
        self._log_seq = itertools.count(1)
        self._alerts: list[AlertView] = []
        self._rulings: list[RulingView] = []
        self._prompts: dict[str, _Prompt] = {}
        self._prompt_ids = itertools.count(1)
        self._alert_ids = itertools.count(1)
        self._ruling_ids = itertools.count(1)
        self._listeners: list[Listener] = []
        self._history: list[HandSummary] = []
        self._records: dict[int, dict[str, Any]] = {}
        self._snapshots: deque[tuple[float, FloorView]] = deque(maxlen=SNAPSHOTS_KEPT)
        self._lock = asyncio.Lock()
        self._replaying = False
        self._note = ""
        self._deck_mark: int | None = None  # the shoe's event number for this hand's deck check
        self._hand_cards: list[str] = []  # every card the shoe delivered in this hand, in order
        self._check_shoe_log = False  # after a restart: take in the cards the shoe dealt while we were down
        self._last_ended: tuple[int, dict[str, Any], dict[str, Any]] | None = None  # the last hand on record
        self.refused_reports = 0  # reports and card-naming acts refused (secrecy.py), all hands
        self._answers: dict[str, tuple[str, int, str]] = {}  # Idempotency-Key -> (fingerprint, status, body)
        self._refused_in_hand = 0
        self._hand_events: list[dict[str, Any]] = []  # this hand's halts, alerts, faults, rulings (its record)
        self._alert_frames: dict[str, bytes] = {}  # alert id -> the JPEG frame the camera raised it on
        # seat -> the cards it held before a draw entered as a count: it keeps some of them, nobody knows which
        # until they are shown (the floor sees them all as candidates; a shown card must be one of them).
        self._candidates: dict[int, tuple[str, ...]] = {}

    # -- the stage ------------------------------------------------------------------------------------------

    @property
    def stage(self) -> Stage:
        return self.machine.stage

    @property
    def halted(self) -> bool:
        """The floor must rule (resume or void) before play goes on."""
        return self.machine.stage is Stage.HALTED

    @property
    def paused(self) -> bool:
        """A device fault: the dealer's prompt must be answered before play goes on."""
        return self.machine.stage is Stage.PAUSED

    @property
    def phase(self) -> str:
        """The hand's phase as the screens name it (under a hold: the phase the hold interrupted)."""
        stage = self.machine.underlying
        if stage in (Stage.SHUFFLING, Stage.DEALING):
            return stage.value
        if stage in (Stage.PLAYING, Stage.SERVING) and self.hand is not None:
            return self.hand.phase()
        return "complete" if self.finished is not None else "waiting"

    # -- listeners and views -------------------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def notify(self) -> None:
        if self._replaying or not self._listeners:
            return
        full = self.full_view()
        self._snapshots.append((self.monotonic(), full))
        for listener in list(self._listeners):
            listener(full)

    def log(self, text: str, *, secret: bool = False) -> None:
        self._log.append(LogEntry(seq=next(self._log_seq), hand=self.hand_no, text=cite(text), secret=secret))

    def game_view(self) -> GameView:
        g = self.settings.game
        return GameView(form=g.form, betting=g.betting, stakes=dict(g.stakes))

    def _seat_views(self, to_act: int | None) -> list[FloorSeat]:
        out: list[FloorSeat] = []
        hand_seats = self.hand.seat_info() if self.hand is not None else {}
        dealt: dict[int, list[str]] = {}
        if self._deal is not None:
            for k, code in enumerate(self._deal.cards):
                dealt.setdefault(self._deal.order[k % len(self._deal.order)], []).append(code)
        finished = self.finished.seat_info() if self.finished is not None and self.hand is None else {}
        in_deal = {n for n, _, _ in self._deal.seats} if self._deal is not None else set()
        for n in range(1, self.settings.seats + 1):
            st = self.seats.get(n)
            info = hand_seats.get(n)
            button = n == self.button
            if info is not None:
                out.append(FloorSeat(
                    seat=n, name=info.name, stack=info.stack, bet=info.bet, status=info.status, cards=len(info.hole),
                    shown=info.shown, drew=info.drew, hole=info.hole, button=button, to_act=n == to_act,
                    opener=info.opener, candidates=self._candidates.get(n, ()) if UNKNOWN_CODE in info.hole else (),
                ))
            elif st is None:
                out.append(FloorSeat(seat=n))
            elif n in in_deal:
                cards = tuple(dealt.get(n, ()))
                out.append(FloorSeat(seat=n, name=st.name, stack=st.stack, status="active", cards=len(cards),
                                     hole=cards, button=button))
            else:
                done = finished.get(n)
                shown = done.shown if done is not None else ()
                status: SeatStatus = "sitting_out" if st.sitting_out else "waiting"
                out.append(FloorSeat(seat=n, name=st.name, stack=st.stack, status=status, cards=len(shown),
                                     shown=shown, drew=done.drew if done is not None else None, button=button))
        return out

    def full_view(self) -> FloorView:
        hand = self.hand
        live = hand is not None and self.stage is Stage.PLAYING
        to_act = hand.to_act() if live and hand is not None else None
        pots = hand.pots() if hand is not None else ()
        status = self.shoe.status()
        camera_state, camera_detail = ("none", "no camera") if self.camera is None else self.camera.status()
        phase = "halted" if self.halted else "paused" if self.paused else self.phase
        return FloorView(
            view="floor",
            table_id=self.table_id,
            name=self.settings.table_name,
            game=self.game_view(),
            hand=self.hand_no,
            phase=phase,  # type: ignore[arg-type]
            message=cite(self.message),
            button=self.button,
            to_act=to_act,
            pots=pots,
            pot_total=sum(p.amount for p in pots) if pots else (self.carried_pot if hand is None else 0),
            carried_pot=self.carried_pot if hand is None else hand.carried_in,
            seats=tuple(self._seat_views(to_act)),
            awards=self.last_awards,
            log=tuple(self._log),
            paused=self.stage in HOLDS,
            draw_counts_public=self.settings.public_draw_counts,
            legal=self._legal(hand, to_act) if live and hand is not None else (),
            draw=hand.draw_entry() if live and hand is not None else None,
            irregularities=self.irregularity_options(),
            device=DeviceView(shoe=status.state, shoe_detail=status.detail, cards_left=status.cards_left,
                              reader=self.shoe.has_reader, camera=camera_state, camera_detail=camera_detail),
            prompts=tuple(PromptView(id=p.id, kind=p.kind, message=cite(p.message), rule=cite(p.rule or "") or None,
                                     options=p.options) for p in self._prompts.values()),
            alerts=tuple(self._alerts),
            rulings=tuple(self._rulings),
        )

    def _legal(self, hand: EngineHand, seat: int | None) -> tuple[LegalAction, ...]:
        acts = hand.legal()
        if seat is None or not any(a.needs_cards for a in acts) or not self._camera_reads_shows(seat):
            return acts
        # A live camera reads the hand laid face up: the dealer confirms "hand shown" with one tap, and the
        # camera's reading (checked against what the seat may hold) is used, not 5 taps out of 52. Until it
        # has read the hand the cards are still needed (a client may name them); once read, they are not.
        read = self._cards_from_camera(seat) is not None
        label = "(read by the camera)" if read else "· camera reads it"
        return tuple(a.model_copy(update={"needs_cards": not read, "label": a.label.replace(
            "(enter the cards)", label).replace("Show hand", "Hand shown")}) if a.needs_cards else a for a in acts)

    def delayed_view(self, delay_s: float) -> FloorView:
        """The full state as it stood ``delay_s`` seconds ago (the broadcast's hole cards lag the table)."""
        cutoff = self.monotonic() - delay_s
        chosen: FloorView | None = None
        for at, view in self._snapshots:
            if at > cutoff:
                break
            chosen = view
        if chosen is None:
            return FloorView(view="floor", table_id=self.table_id, name=self.settings.table_name,
                             game=self.game_view(), hand=0, message="broadcast delay: nothing to show yet")
        return chosen

    def summary(self) -> TableSummary:
        full = self.full_view()
        return TableSummary(table_id=self.table_id, name=self.settings.table_name, game=full.game,
                            hand=self.hand_no, phase=full.phase, players=len(self.seats))

    def irregularity_options(self) -> tuple[IrregularityOption, ...]:
        if self.hand is None and self._deal is None:
            return ()
        return tuple(IrregularityOption(kind=k, label=v.label, rule=cite(v.rule), needs_seat=v.needs_seat,
                                        needs=v.needs) for k, v in IRREGULARITIES.items())

    def history(self) -> list[HandSummary]:
        return list(self._history)

    def hand_record(self, hand: int) -> dict[str, Any]:
        record = self._records.get(hand)
        if record is None:
            raise NotFoundError(f"no finished hand {hand} at this table")
        return record

    def alert_frame_jpeg(self, alert_id: str) -> bytes:
        """The camera frame a camera alert was raised on (kept in memory for the latest alerts)."""
        frame = self._alert_frames.get(alert_id)
        if frame is None:
            known = any(a.id == alert_id for a in self._alerts)
            raise NotFoundError(f"no camera frame kept for alert {alert_id!r}" if known else f"no alert {alert_id!r}",
                                code="no_frame")
        return frame

    def hand_story(self, hand: int) -> str:
        """A finished hand as the plain-text history (the acts, and the table's halts, alerts and rulings)."""
        record = self.hand_record(hand)
        from table_controller.engine.phh import to_text
        from table_controller.engine.record import replay

        try:
            return to_text(record, replay(record))
        except Exception as exc:  # a record the engine cannot replay: say so, the raw record is still there
            raise NotAllowedError(f"hand {hand}'s record does not replay: {exc}", code="bad_record") from exc

    def audit_hole_cards(self, *, role: str, client: str, hand: int, via: str) -> None:
        self.journal.audit(role=role, who=client or "unknown", why=f"{role} view via {via}", hand=hand or None)

    def camera_frame_jpeg(self) -> bytes | None:
        return self.camera.frame_jpeg() if isinstance(self.camera, KeepsFrames) else None

    def camera_detections(self) -> list[dict[str, Any]]:
        return self.camera.detections() if isinstance(self.camera, KeepsFrames) else []

    def chips_on_table(self) -> int:
        """Every chip at the table now: stacks (in and out of the hand), the pot and the carried pot."""
        if self.hand is not None:
            in_hand = set(self.hand.stacks())
            return self.hand.chips_total() + sum(st.stack for n, st in self.seats.items() if n not in in_hand)
        return sum(st.stack for st in self.seats.values()) + self.carried_pot

    def check_chips(self) -> None:
        """Money is conserved: every chip on the table was bought in (or moved in by a floor ruling)."""
        on_table = self.chips_on_table()
        if on_table != self.chips_in:
            raise TableError(f"chips not conserved: {on_table} on the table, {self.chips_in} accounted for",
                             code="chips_not_conserved")

    # -- idempotent requests (service.idempotency) -------------------------------------------------------------

    def recall_answer(self, key: str) -> tuple[str, int, str] | None:
        """The first answer to a request sent with this key: (request fingerprint, status, body)."""
        return self._answers.get(key)

    def remember_answer(self, key: str, fingerprint: str, status: int, body: str) -> None:
        """Journal the answer to a keyed request, so a retry after a restart gets it too."""
        entry = RequestAnswerEntry(key=key, fingerprint=fingerprint, status=status, body=body)
        self._write(entry, hand=self.hand_no or None)
        self._apply_answer(entry)

    def _apply_answer(self, e: RequestAnswerEntry) -> None:
        self._answers[e.key] = (e.fingerprint, e.status, e.body)
        while len(self._answers) > ANSWERS_KEPT:
            del self._answers[next(iter(self._answers))]

    # -- alerts, prompts, rulings -----------------------------------------------------------------------------

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def _write(self, entry: Entry, *, hand: int | None) -> None:
        """Journal one input durably (before it is applied)."""
        self.journal.append(entry.KIND, entry.to_json(), hand=hand)

    def acknowledge_alert(self, alert_id: str) -> None:
        if not any(a.id == alert_id for a in self._alerts):
            raise NotFoundError(f"no alert {alert_id!r}")
        at_ms = self._now_ms()
        entry = AlertAckEntry(id=alert_id, at_ms=at_ms)
        self._write(entry, hand=self.hand_no)
        self._apply_alert_ack(entry)
        self.notify()

    def _apply_alert_ack(self, e: AlertAckEntry) -> None:
        alert_id, at_ms = e.id, e.at_ms
        for i, alert in enumerate(self._alerts):
            if alert.id == alert_id:
                self._alerts[i] = alert.model_copy(update={"acknowledged": True})
                self._table_event("alert_ack", f"the floor acknowledged: {alert.message}", at_ms=at_ms, by="floor",
                                  ref=alert_id)

    def _table_event(self, kind: str, text: str, *, at_ms: int | None, **extra: Any) -> None:
        """Keep what happened at the table during a hand (a halt, an alert and its acknowledgement, a device
        fault and the answer, a ruling) for the hand's record, beside its acts (``table_events``)."""
        if not self._in_play():
            return
        event: dict[str, Any] = {"kind": kind, "text": text,
                                 "after_action": len(self.hand.hand.actions) if self.hand is not None else 0}
        if at_ms is not None:
            event["at_ms"] = at_ms
        event.update({k: v for k, v in extra.items() if v is not None})
        self._hand_events.append(event)

    def _alert(self, kind: str, message: str, *, level: str = "security", seat: int | None = None,
               at_ms: int | None = None) -> None:
        """Journal and raise a floor alert (called from async paths only; replay uses _apply_alert)."""
        entry = AlertEntry(kind=kind, message=message, level=level, seat=seat,
                           at_ms=at_ms if at_ms is not None else self._now_ms())
        self._write(entry, hand=self.hand_no)
        self._apply_alert(entry)

    def _apply_alert(self, e: AlertEntry) -> None:
        alert_id = f"a{next(self._alert_ids)}"
        frame = None
        if not self._replaying and isinstance(self.camera, KeepsFrames) and e.kind in CAMERA_ALERTS:
            frame = self.camera.frame_jpeg()  # the frame the camera raised it on, for the floor's review
            if frame:
                self._alert_frames[alert_id] = frame
                while len(self._alert_frames) > ALERT_FRAMES_KEPT:
                    self._alert_frames.pop(next(iter(self._alert_frames)))
        alert = AlertView(id=alert_id, at=e.at_ms / 1000, level=e.level, kind=e.kind,  # type: ignore[arg-type]
                          message=cite(e.message), seat=e.seat, frame=bool(frame))
        self._alerts.append(alert)
        self._table_event("alert", e.message, at_ms=e.at_ms, level=e.level, seat=e.seat, ref=alert.id)
        self.log(f"ALERT ({e.level}): {e.message}", secret=True)

    def _prompt(self, kind: str, message: str, options: tuple[str, ...], rule: str | None = None) -> None:
        p = _Prompt(id=f"p{next(self._prompt_ids)}", kind=kind, message=message, options=options, rule=rule)
        self._prompts[p.id] = p

    # -- seats ------------------------------------------------------------------------------------------------

    def _seat_no(self, seat: int) -> int:
        if not 1 <= seat <= self.settings.seats:
            raise TableRequestError(f"seat {seat} does not exist: seats are 1 to {self.settings.seats}",
                                    code="bad_seat")
        return seat

    def _in_play(self) -> bool:
        return self.machine.underlying is not Stage.WAITING

    def in_play(self) -> bool:
        """A hand has begun and is not over (dealing, or in the engine)."""
        return self._in_play()

    async def void_in_play(self, reason: str, *, by: str = "controller") -> None:
        """Void the hand in progress (journaled): every chip goes back to where it was when it began."""
        async with self._lock:
            if not self._in_play():
                return
            entry = VoidEntry(reason=reason, by=by)
            self._write(entry, hand=self.hand_no)
            self._apply_void(entry)
        self.notify()

    def _between_hands(self, what: str) -> None:
        if self._in_play():
            raise NotAllowedError(f"{what} waits until the hand in progress is over", code="hand_in_progress",
                                  rule="players join and leave, and buy chips, between deals")

    def _check_buy(self, amount: int, *, stack: int) -> None:
        s = self.settings
        if amount <= 0:
            raise TableRequestError("a buy-in must be a positive number of chips", code="bad_amount")
        if stack + amount > s.buy_in_max:
            raise NotAllowedError(f"a stack may hold at most {s.buy_in_max} chips after buying in "
                                  f"(has {stack}, asked {amount})", code="over_max")
        if stack + amount < s.buy_in_min:
            raise NotAllowedError(f"a stack needs at least {s.buy_in_min} chips to play (has {stack}, asked "
                                  f"{amount})", code="under_min")

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

    def _apply_sit(self, e: SeatSitEntry) -> None:
        self.seats[e.seat] = SeatState(name=e.name, stack=e.buy_in)
        self.chips_in += e.buy_in
        self.log(f"{e.name} sits in seat {e.seat}" + (f" with {e.buy_in}" if e.buy_in else ""))

    def _seated(self, seat: int) -> SeatState:
        self._seat_no(seat)
        st = self.seats.get(seat)
        if st is None:
            raise NotFoundError(f"seat {seat} is empty", code="seat_empty")
        return st

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

    def _apply_chips(self, e: SeatBuyInEntry | SeatRebuyEntry) -> None:
        st = self.seats[e.seat]
        st.stack += e.amount
        self.chips_in += e.amount
        self.log(f"{st.name} {'buys in' if isinstance(e, SeatBuyInEntry) else 'rebuys'} for {e.amount}")

    async def stand_up(self, seat: int) -> None:
        async with self._lock:
            self._seated(seat)
            self._between_hands("standing up")
            entry = SeatStandEntry(seat=seat)
            self._write(entry, hand=None)
            self._apply_stand(entry)
        self.notify()

    def _apply_stand(self, e: SeatStandEntry) -> None:
        st = self.seats.pop(e.seat)
        self.chips_in -= st.stack
        self.log(f"{st.name} leaves seat {e.seat} with {st.stack}")

    # -- the hand: start, shuffle, verify, deal ----------------------------------------------------------------

    def _next_button(self, seats: list[int]) -> int:
        if self.button is None:
            return seats[0]
        later = [s for s in seats if s > self.button]
        return later[0] if later else seats[0]

    def _ready(self) -> None:
        if self.halted:
            raise NotAllowedError("the table is halted: the floor must rule first", code="halted")
        if self.paused:
            raise NotAllowedError("the hand is paused: answer the dealer prompt first", code="paused")

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
                                   ante_for_all=ante_for_all)
            self._write(entry, hand=self.hand_no + 1)
            self._apply_hand_start(entry)
        self.notify()
        await self._run_shoe()

    def _apply_hand_start(self, e: HandStartEntry) -> None:
        seats = [(s.seat, s.name, s.stack) for s in e.seats]
        self.hand_no = e.hand
        self.button = e.button
        self.finished = None
        self.last_awards = ()
        self._start_stacks = {n: stack for n, _, stack in seats}
        self._deck_mark = None
        self._hand_cards = []
        self._refused_in_hand = 0
        self._hand_events = []
        self._candidates = {}
        order = EngineHand.deal_order([n for n, _, _ in seats], e.button)
        self.machine.move("hand.start", Stage.SHUFFLING)
        self._deal = _Deal(seats=seats, button=e.button, carried_pot=e.carried_pot,
                           passed_deals=e.passed_deals, order=order, ante_for_all=e.ante_for_all)
        self.message = f"Hand #{self.hand_no}: the shoe shuffles and verifies the deck."
        self.log(f"Hand #{self.hand_no} begins; button at seat {self.button}")

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

    def _apply_deal(self, e: DealEntry) -> None:
        for code in e.codes:
            self._apply_card(CardEntry(kind="deal", code=code))

    def _owed(self) -> str | None:
        if self._deal is not None:
            return "deal" if self._deal.verified and len(self._deal.cards) < self._deal.needed else None
        if self._pending is not None and len(self._pending.cards) < len(self._pending.kinds):
            return self._pending.kinds[len(self._pending.cards)]
        return None

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

    def _halt(self, reason: str) -> None:
        """Journal and apply a halt (the floor must rule)."""
        halt = HaltEntry(reason=reason, at_ms=self._now_ms())
        self._write(halt, hand=self.hand_no)
        self._apply_halt(halt)

    def _apply_halt(self, e: HaltEntry) -> None:
        self._table_event("halt", f"the table halted: {e.reason}", at_ms=e.at_ms)
        self.machine.move("halt", Stage.HALTED)
        self.message = f"HALTED: {e.reason}. The floor must rule (resume or void the hand)."
        self.log(f"Table halted: {e.reason}", secret=True)  # the public hears only that the floor was called
        self.log("Floor called, hand paused")

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
                self.hand = EngineHand(config=self.config, seats=deal.seats, button=deal.button,
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
        if pending is None:
            raise DeviceError("the shoe delivered a card nobody asked for", code="unexpected_card")
        pending.cards.append(code)
        if len(pending.cards) < len(pending.kinds):
            self.machine.move("card", Stage.SERVING)
        else:
            self._pending = None
            self.machine.move("card", Stage.PLAYING)
            self._perform(pending.action, pending.cards, at_ms=pending.at_ms)

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

    # -- the hand: acts ------------------------------------------------------------------------------------------

    def _live_hand(self) -> EngineHand:
        self._ready()
        if self.hand is None:
            if self._deal is not None:
                raise NotAllowedError("the deal is not finished yet", code="dealing")
            raise NotAllowedError("no hand in progress: start one first", code="no_hand")
        if self._pending is not None:
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

    def _camera_reads_shows(self, seat: int) -> bool:
        """Whether the dealer's one tap "hand shown" stands for the camera's reading of the seat's hand."""
        hand = self.hand
        if hand is None or not isinstance(self.camera, ReadsShownHands):
            return False
        try:
            return UNKNOWN_CODE in hand.hole(seat) and self.camera.status()[0] == "live"
        except Exception:
            return False

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

    def _cards_from_camera(self, seat: int) -> tuple[str, ...] | None:
        """A shown hand the table could not read from the shoe, as the camera read it face up (if it did)."""
        hand = self.hand
        camera = self.camera
        if hand is None or not isinstance(camera, ReadsShownHands):
            return None
        try:
            unread = UNKNOWN_CODE in hand.hole(seat)
        except Exception:
            return None
        if not unread:
            return None
        return camera.shown_cards(seat, self.hand_no)

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
                probe = hand
                if forget is not None:
                    probe = copy.deepcopy(hand)
                    probe.forget(forget)
                if role != "floor":
                    self._guard_forgotten(hand, action)
                kinds = probe.cards_for(action)  # the engine's refusal surfaces here, before anything is dealt
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

    def _apply_refused(self, e: RefusedEntry) -> None:
        self.refused_reports += 1
        self._refused_in_hand += 1

    def _apply_act(self, e: ActEntry) -> None:
        if e.forget is not None and self.hand is not None:
            seat = e.forget
            self._candidates[seat] = tuple(c for c in self.hand.hole(seat) if c != UNKNOWN_CODE)
            self.hand.forget(seat)
        if e.kinds:
            self.machine.move("act", Stage.SERVING)
            self._pending = _Pending(action=dict(e.action), kinds=list(e.kinds), at_ms=e.at_ms)
            self.message = "Serving the draw from the shoe."
            return
        self.machine.move("act", Stage.PLAYING)
        self._perform(dict(e.action), [], at_ms=e.at_ms)

    def _perform(self, action: dict[str, Any], cards: list[str], *, at_ms: int | None = None) -> None:
        assert self.hand is not None
        events = self.hand.act(action, cards)
        if action.get("act") != "show":  # a show is logged with its cards below
            self.log(_describe_act(action, self.hand))
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
                    f"({data['rule']}; reported by the {action['report'].get('by', 'dealer')})"))
            elif data.get("event") == "show":
                self.log(f"{self._name(data['seat'])} (seat {data['seat']}) shows {' '.join(data['cards'])}: "
                         f"{data['description']}")
        self._after_act()

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
                self._perform({"act": "reshuffle", "order": order}, [])
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

    def _name(self, seat: int) -> str:
        st = self.seats.get(seat)
        return st.name if st is not None else f"seat {seat}"

    # -- prompts, faults, void -----------------------------------------------------------------------------------

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
                return EngineHand(config=self.config, seats=deal.seats, button=deal.button,
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
                                                        "reason": reason[:500] or "void"}}, [])
        except TableError as exc:
            self.log(f"Hand #{self.hand_no}: the void could not be put on the hand's record: {exc}")
            return
        self._store_record(hand)

    # -- irregularities and rulings -------------------------------------------------------------------------

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

    async def floor_ruling(self, ruling: RulingRequest) -> None:
        async with self._lock:
            entry = RulingEntry(**ruling.model_dump(), at_ms=self._now_ms())
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
                                                                     "by": e.by, "reason": e.reason}}, [])
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

    # -- camera cross-check ---------------------------------------------------------------------------------

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

    def moment(self) -> Moment:
        """Now, as a camera frame taken now will be judged (see :meth:`camera_reading`)."""
        holes: dict[int, tuple[str, ...]] = {}
        if self.hand is not None:
            holes = {n: info.hole for n, info in self.hand.seat_info().items()}
        return Moment(hand=self.hand_no, phase=self.phase, holes=holes)

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

    # -- crash recovery ---------------------------------------------------------------------------------------

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
                self._perform(dict(e.action), [])
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
            case _:
                raise JournalEntryError(f"no replay for journal entry kind {e.KIND!r}", code="unknown_entry")

    async def resume(self) -> None:
        """After :meth:`recover`: let the shoe deliver whatever the hand still waits for."""
        self.notify()
        if (self._check_shoe_log or self._owed() is not None
                or (self._deal is not None and not self._deal.verified)):
            await self._run_shoe()

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
