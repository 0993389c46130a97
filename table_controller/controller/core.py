"""The table's state and what every part of the controller shares.

The controller is one class built in layers, each module one concern, each layer using only those below it:
``core`` (the state, the stage machine, the log, journal writes, alerts and halts, the checks on seats and
chips), ``reads`` (the views the screens and the API read), ``play`` (applying each journaled input to the
table, the same live and in a replay), ``feed`` (what the shoe delivers, and crash recovery) and ``table``
(the inputs: requests from the dealer, the floor and the camera). See ``table.py`` for how it works.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from table_controller.controller.alert_frames import AlertFrames
from table_controller.controller.devices import (
    CameraPort,
    KeepsFrames,
    ShoePort,
)
from table_controller.controller.entries import (
    AlertAckEntry,
    AlertEntry,
    Entry,
    HaltEntry,
    RequestAnswerEntry,
)
from table_controller.controller.errors import (
    NotAllowedError,
    NotFoundError,
    TableError,
    TableRequestError,
)
from table_controller.controller.hand import EngineHand
from table_controller.controller.journal_port import JournalPort, MemoryJournal
from table_controller.controller.machine import Stage, StageMachine
from table_controller.controller.returns import ReturnedCards
from table_controller.controller.views import (
    AlertView,
    Award,
    HandSummary,
    LogEntry,
    RulingView,
    TableConfig,
    TableView,
)
from table_controller.engine.books import cite
from table_controller.engine.config import GameConfig

__all__ = ["Moment", "SeatState", "TableCore"]

Listener = Callable[[TableView], None]
LOG_SIZE = 60
ANSWERS_KEPT = 5000  # idempotent requests' answers kept for retries (the journal keeps them all)
SNAPSHOTS_KEPT = 2000
HAND_SIZE = 5
R_FAULT = "device fault: the hand pauses; the dealer retries the device or voids the hand (misdeal, 000)"
CAMERA_ALERTS = frozenset({"camera_mismatch", "exposed_card"})  # alerts the camera raises from a frame


@dataclass
class SeatState:
    name: str
    stack: int = 0
    sitting_out: bool = False


@dataclass
class Prompt:
    id: str
    kind: str
    message: str
    options: tuple[str, ...]
    rule: str | None = None


@dataclass
class Deal:
    """A hand between its start and the engine's hand: shuffle, verify, then the five cards each."""

    seats: list[tuple[int, str, int]]
    button: int
    carried_pot: int
    passed_deals: int
    order: list[int]
    game: GameConfig  # the game this hand is dealt with (its hand.start entry's): kept through a restart
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
class Pending:
    """A report waiting for the shoe to deliver the cards its remedy takes."""

    action: dict[str, Any]
    kinds: list[str]
    cards: list[str] = field(default_factory=list)
    at_ms: int | None = None  # when the act was entered (an irregularity's alert keeps that time)


class TableCore:
    """The table's state (one instance per table); the layers above add what the controller does."""

    def __init__(
        self,
        settings: TableConfig,
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
        # The game new hands are dealt with, validated when the settings were loaded (the engine's own GameConfig).
        # A hand keeps the game it was dealt with (its journal entry carries it), whatever the settings say later.
        self.config = settings.game
        self.dealt_game: GameConfig | None = None  # the game the journal's latest hand was dealt with
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
        self._deal: Deal | None = None
        self._pending: Pending | None = None
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
        self._prompts: dict[str, Prompt] = {}
        self._prompt_ids = itertools.count(1)
        self._alert_ids = itertools.count(1)
        self._ruling_ids = itertools.count(1)
        self._listeners: list[Listener] = []
        self._history: list[HandSummary] = []
        self._records: dict[int, dict[str, Any]] = {}
        self._snapshots: deque[tuple[float, TableView]] = deque(maxlen=SNAPSHOTS_KEPT)
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
        self.alert_frames = AlertFrames()  # the frames camera alerts were raised on (the runtime's: on disk)
        # seat -> the cards it held before a draw entered as a count: it keeps some of them, nobody knows which
        # until they are shown (the floor sees them all as candidates; a shown card must be one of them).
        self._candidates: dict[int, tuple[str, ...]] = {}
        self.returns = ReturnedCards()  # cards a scanning shoe reads coming back (returns.py)

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
    def game_in_play(self) -> GameConfig:
        """The game of the hand in play (one begun before a restart keeps its own), else the one new hands deal."""
        if self.hand is not None:
            return self.hand.config
        if self._deal is not None:
            return self._deal.game
        return self.config

    @property
    def phase(self) -> str:
        """The hand's phase as the screens name it (under a hold: the phase the hold interrupted)."""
        stage = self.machine.underlying
        if stage in (Stage.SHUFFLING, Stage.DEALING):
            return stage.value
        if stage in (Stage.PLAYING, Stage.SERVING) and self.hand is not None:
            return self.hand.phase()
        return "complete" if self.finished is not None else "waiting"

    def log(self, text: str, *, secret: bool = False) -> None:
        self._log.append(LogEntry(seq=next(self._log_seq), hand=self.hand_no, text=cite(text), secret=secret))

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def _write(self, entry: Entry, *, hand: int | None) -> None:
        """Journal one input durably (before it is applied)."""
        self.journal.append(entry.KIND, entry.to_json(), hand=hand)

    def _table_event(self, kind: str, text: str, *, at_ms: int | None, **extra: Any) -> None:
        """Keep what happened at the table during a hand (a halt, an alert and its acknowledgement, a device
        fault and the answer, a ruling) for the hand's record, beside its acts (``table_events``)."""
        if not self._in_play():
            return
        event: dict[str, Any] = {"kind": kind, "text": text,
                                 "after_action": self.hand.acts_taken if self.hand is not None else 0}
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
        frame = False
        if e.kind in CAMERA_ALERTS:
            if not self._replaying and isinstance(self.camera, KeepsFrames):
                jpeg = self.camera.frame_jpeg()  # the frame the camera raised it on, for the floor's review
                if jpeg:
                    self.alert_frames.put(alert_id, e.at_ms, jpeg)
            frame = self.alert_frames.has(alert_id, e.at_ms)  # kept from before a restart, or just now
        alert = AlertView(id=alert_id, at=e.at_ms / 1000, level=e.level, kind=e.kind,  # type: ignore[arg-type]
                          message=cite(e.message), seat=e.seat, frame=bool(frame))
        self._alerts.append(alert)
        self._table_event("alert", e.message, at_ms=e.at_ms, level=e.level, seat=e.seat, ref=alert.id)
        self.log(f"ALERT ({e.level}): {e.message}", secret=True)

    def _prompt(self, kind: str, message: str, options: tuple[str, ...], rule: str | None = None) -> None:
        p = Prompt(id=f"p{next(self._prompt_ids)}", kind=kind, message=message, options=options, rule=rule)
        self._prompts[p.id] = p

    def _apply_alert_ack(self, e: AlertAckEntry) -> None:
        alert_id, at_ms = e.id, e.at_ms
        for i, alert in enumerate(self._alerts):
            if alert.id == alert_id:
                self._alerts[i] = replace(alert, acknowledged=True)
                self._table_event("alert_ack", f"the floor acknowledged: {alert.message}", at_ms=at_ms, by="floor",
                                  ref=alert_id)

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

    def _seated(self, seat: int) -> SeatState:
        self._seat_no(seat)
        st = self.seats.get(seat)
        if st is None:
            raise NotFoundError(f"seat {seat} is empty", code="seat_empty")
        return st

    def _name(self, seat: int) -> str:
        st = self.seats.get(seat)
        return st.name if st is not None else f"seat {seat}"

    def _ready(self) -> None:
        if self.halted:
            raise NotAllowedError("the table is halted: the floor must rule first", code="halted")
        if self.paused:
            raise NotAllowedError("the hand is paused: answer the dealer prompt first", code="paused")

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

    def _owed(self) -> str | None:
        if self._deal is not None:
            return "deal" if self._deal.verified and len(self._deal.cards) < self._deal.needed else None
        pending = self._pending
        if pending is not None:
            return pending.kinds[len(pending.cards)] if len(pending.cards) < len(pending.kinds) else None
        # The dealer's burn or service of the draw now due: the engine says which card it waits for.
        return None if self.hand is None else self.hand.owed()

    def recall_answer(self, key: str) -> tuple[str, int, str] | None:
        """The first answer to a request sent with this key: (request fingerprint, status, body)."""
        return self._answers.get(key)

    def _apply_answer(self, e: RequestAnswerEntry) -> None:
        self._answers[e.key] = (e.fingerprint, e.status, e.body)
        while len(self._answers) > ANSWERS_KEPT:
            del self._answers[next(iter(self._answers))]
