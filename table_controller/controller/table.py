"""The per-table controller: seats and chips between hands, and the live hand on the devices.

How it works. The controller is the only writer of a table's state. Every input (a seat change, a card the
shoe delivered, a player's act entered by the dealer, a draw, an irregularity, a ruling) goes through one
async method that (1) checks it, (2) journals it, (3) applies it to the seats or to the rules engine's hand,
then (4) pumps the shoe: while the engine waits for a card (deal, burn, draw) the controller has the shoe
deal one and hands it over, journaling each card first. Listeners (the stream hub) get the full state after
each change; views for each role are cut from it in ``table_controller.service.views``.

Before each deal the shoe shuffles and verifies the deck (52 cards, none missing, none twice); a failed
verification halts the table with a security alert. A device fault pauses the hand with a prompt for the
dealer: retry the device, or void the hand (every chip goes back where it was before the hand). A camera
reading that contradicts what the shoe dealt halts the hand with a security alert for the floor.

Replaying the journal's entries through :meth:`TableController.recover` rebuilds the table after a crash:
cards come from the journal instead of the shoe, and the hand resumes where it stood.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from table_controller.controller.devices import DeviceStatus, ShoePort
from table_controller.controller.errors import (
    NotAllowedError,
    NotFoundError,
    TableRequestError,
)
from table_controller.controller.hand import IRREGULARITIES, LiveHand
from table_controller.controller.journal_port import JournalPort, MemoryJournal
from table_controller.service.models import (
    AlertView,
    Award,
    DeviceView,
    FloorSeat,
    FloorView,
    GameView,
    HandSummary,
    IrregularityOption,
    LogEntry,
    PromptView,
    RulingRequest,
    RulingView,
    TableSummary,
)
from table_controller.service.settings import TableSettings

__all__ = ["SeatState", "TableController"]

Listener = Callable[[FloorView], None]
LOG_SIZE = 40
SNAPSHOTS_KEPT = 600


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


class TableController:
    def __init__(
        self,
        settings: TableSettings,
        *,
        shoe: ShoePort,
        journal: JournalPort | None = None,
        camera: Any | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.table_id = settings.table_id
        self.shoe = shoe
        self.camera = camera
        self.journal: JournalPort = journal if journal is not None else MemoryJournal()
        self.clock = clock
        self.broadcast_delay_s = settings.broadcast_delay_s
        self.seats: dict[int, SeatState] = {}
        self.button: int | None = None
        self.hand_no = 0
        self.carried_pot = 0
        self.passed_deals = 0
        self.hand: LiveHand | None = None
        self.phase = "waiting"
        self.message = "Seat players and start a hand."
        self.halted = False
        self.paused = False
        self.cards_verified = 0
        self.chips_in = 0  # every chip bought in, minus every chip taken away on standing up
        self._log: deque[LogEntry] = deque(maxlen=LOG_SIZE)
        self._log_seq = itertools.count(1)
        self._alerts: list[AlertView] = []
        self._rulings: list[RulingView] = []
        self._prompts: dict[str, _Prompt] = {}
        self._prompt_ids = itertools.count(1)
        self._alert_ids = itertools.count(1)
        self._listeners: list[Listener] = []
        self._history: list[HandSummary] = []
        self._records: dict[int, dict[str, Any]] = {}
        self._snapshots: deque[tuple[float, FloorView]] = deque(maxlen=SNAPSHOTS_KEPT)
        self._lock = asyncio.Lock()
        self._replaying = False
        self._replay_cards: deque[str] = deque()
        self._device_status = DeviceStatus(state="ready")
        self.last_awards: tuple[Award, ...] = ()

    # Listeners and views ----------------------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def notify(self) -> None:
        if self._replaying:
            return
        full = self.full_view()
        self._snapshots.append((self.clock(), full))
        for listener in list(self._listeners):
            listener(full)

    def log(self, text: str, *, secret: bool = False) -> None:
        self._log.append(LogEntry(seq=next(self._log_seq), text=text, secret=secret))

    def game_view(self) -> GameView:
        g = self.settings.game
        return GameView(form=g.form, betting=g.betting, stakes=dict(g.stakes))

    def full_view(self) -> FloorView:
        hand = self.hand
        seats: list[FloorSeat] = []
        hand_seats = hand.seat_info() if hand is not None else {}
        to_act = hand.to_act() if hand is not None and not self.paused and not self.halted else None
        for n in range(1, self.settings.seats + 1):
            st = self.seats.get(n)
            info = hand_seats.get(n)
            if st is None and info is None:
                seats.append(FloorSeat(seat=n))
                continue
            name = st.name if st is not None else (info.name if info is not None else None)
            if info is not None:
                seats.append(FloorSeat(
                    seat=n, name=name, stack=info.stack, bet=info.bet, status=info.status, cards=len(info.hole),
                    shown=info.shown, drew=info.drew, hole=info.hole, button=n == self.button,
                    to_act=n == to_act, opener=info.opener,
                ))
            else:
                assert st is not None
                seats.append(FloorSeat(
                    seat=n, name=name, stack=st.stack, status="sitting_out" if st.sitting_out else "waiting",
                    button=n == self.button,
                ))
        legal = hand.legal() if hand is not None and not self.paused and not self.halted else ()
        draw = hand.draw_entry() if hand is not None and not self.paused and not self.halted else None
        pots = hand.pots() if hand is not None else ()
        status = self.shoe.status()
        reader = self.shoe.has_reader
        camera_state, camera_detail = ("none", "no camera") if self.camera is None else self.camera.status()
        phase = "halted" if self.halted else "paused" if self.paused else self.phase
        return FloorView(
            view="floor",
            table_id=self.table_id,
            name=self.settings.table_name,
            game=self.game_view(),
            hand=self.hand_no,
            phase=phase,  # type: ignore[arg-type]
            message=self.message,
            button=self.button,
            to_act=to_act,
            pots=tuple(pots),
            pot_total=sum(p.amount for p in pots),
            carried_pot=self.carried_pot if hand is None else hand.carried_in,
            seats=tuple(seats),
            awards=self.last_awards,
            log=tuple(self._log),
            paused=self.paused or self.halted,
            draw_counts_public=self.settings.public_draw_counts,
            legal=tuple(legal),
            draw=draw,
            irregularities=self.irregularity_options(),
            device=DeviceView(shoe=status.state, shoe_detail=status.detail, cards_left=status.cards_left,
                              reader=reader, camera=camera_state, camera_detail=camera_detail),
            prompts=tuple(PromptView(id=p.id, kind=p.kind, message=p.message, rule=p.rule, options=p.options)
                          for p in self._prompts.values()),
            alerts=tuple(self._alerts),
            rulings=tuple(self._rulings),
        )

    def delayed_view(self, delay_s: float) -> FloorView:
        """The full state as it stood ``delay_s`` seconds ago (the broadcast's hole cards lag the table)."""
        cutoff = self.clock() - delay_s
        chosen: FloorView | None = None
        for at, view in self._snapshots:
            if at <= cutoff:
                chosen = view
            else:
                break
        if chosen is None:
            return FloorView(view="floor", table_id=self.table_id, name=self.settings.table_name,
                             game=self.game_view(), message="broadcast delay: nothing to show yet")
        return chosen

    def summary(self) -> TableSummary:
        full = self.full_view()
        return TableSummary(table_id=self.table_id, name=self.settings.table_name, game=full.game,
                            hand=self.hand_no, phase=full.phase, players=len(self.seats))

    def irregularity_options(self) -> tuple[IrregularityOption, ...]:
        if self.hand is None:
            return ()
        return tuple(IrregularityOption(kind=k, label=v.label, rule=v.rule, needs_seat=v.needs_seat)
                     for k, v in IRREGULARITIES.items())

    def history(self) -> list[HandSummary]:
        return list(self._history)

    def hand_record(self, hand: int) -> dict[str, Any]:
        record = self._records.get(hand)
        if record is None:
            raise NotFoundError(f"no finished hand {hand} at this table")
        return record

    def audit_hole_cards(self, *, role: str, client: str, hand: int, via: str) -> None:
        self.journal.append("audit.hole_cards", {"role": role, "client": client, "hand": hand, "via": via,
                                                 "at": self.clock()})

    def camera_frame_jpeg(self) -> bytes | None:
        if self.camera is None:
            return None
        frame: bytes | None = self.camera.frame_jpeg()
        return frame

    def camera_detections(self) -> list[dict[str, Any]]:
        if self.camera is None:
            return []
        found: list[dict[str, Any]] = self.camera.detections()
        return found

    def acknowledge_alert(self, alert_id: str) -> None:
        for i, alert in enumerate(self._alerts):
            if alert.id == alert_id:
                self._alerts[i] = alert.model_copy(update={"acknowledged": True})
                self.journal.append("alert.ack", {"id": alert_id})
                self.notify()
                return
        raise NotFoundError(f"no alert {alert_id!r}")

    def raise_alert(self, kind: str, message: str, *, level: str = "security", seat: int | None = None) -> None:
        alert = AlertView(id=f"a{next(self._alert_ids)}", at=self.clock(), level=level,  # type: ignore[arg-type]
                          kind=kind, message=message, seat=seat)
        self._alerts.append(alert)
        self.journal.append("alert", alert.model_dump())
        self.log(f"ALERT: {message}", secret=True)

    # Seats ------------------------------------------------------------------------------------------------

    def _seat_no(self, seat: int) -> int:
        if not 1 <= seat <= self.settings.seats:
            raise TableRequestError(f"seat {seat} does not exist: seats are 1 to {self.settings.seats}",
                                    code="bad_seat")
        return seat

    def _between_hands(self, what: str) -> None:
        if self.hand is not None:
            raise NotAllowedError(f"{what} waits until the hand in progress is over", code="hand_in_progress",
                             rule="players join and leave between deals (issue 3, Seats)")

    def _check_buy(self, amount: int, *, stack: int) -> None:
        s = self.settings
        if amount <= 0:
            raise TableRequestError("a buy-in must be a positive number of chips", code="bad_amount")
        if stack + amount > s.buy_in_max:
            raise NotAllowedError(f"a stack may hold at most {s.buy_in_max} chips after buying in "
                             f"(has {stack}, asked {amount})", code="over_max")
        if stack + amount < s.buy_in_min:
            raise NotAllowedError(f"a stack needs at least {s.buy_in_min} chips to play (has {stack}, asked {amount})",
                             code="under_min")

    async def sit_down(self, seat: int, name: str, buy_in: int = 0) -> None:
        async with self._lock:
            self._seat_no(seat)
            if seat in self.seats:
                raise NotAllowedError(f"seat {seat} is taken by {self.seats[seat].name}", code="seat_taken")
            if self.hand is not None and seat in self.hand.seat_info():
                raise NotAllowedError(f"seat {seat} is still in the hand", code="seat_taken")
            name = name.strip()
            if not name:
                raise TableRequestError("a player needs a name", code="bad_name")
            if buy_in:
                self._check_buy(buy_in, stack=0)
            self.journal.append("seat.sit", {"seat": seat, "name": name, "buy_in": buy_in})
            self._apply_sit(seat, name, buy_in)
        self.notify()

    def _apply_sit(self, seat: int, name: str, buy_in: int) -> None:
        self.seats[seat] = SeatState(name=name, stack=buy_in)
        self.chips_in += buy_in
        self.log(f"{name} sits in seat {seat}" + (f" with {buy_in}" if buy_in else ""))

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
            self.journal.append(f"seat.{kind}", {"seat": seat, "amount": amount})
            self._apply_chips(seat, amount, kind)
        self.notify()

    def _apply_chips(self, seat: int, amount: int, kind: str) -> None:
        st = self.seats[seat]
        st.stack += amount
        self.chips_in += amount
        self.log(f"{st.name} ({'buys in' if kind == 'buy_in' else 'rebuys'}) {amount}")

    async def stand_up(self, seat: int) -> None:
        async with self._lock:
            self._seated(seat)
            self._between_hands("standing up")
            self.journal.append("seat.stand", {"seat": seat})
            self._apply_stand(seat)
        self.notify()

    def _apply_stand(self, seat: int) -> None:
        st = self.seats.pop(seat)
        self.chips_in -= st.stack
        self.log(f"{st.name} leaves seat {seat} with {st.stack}")
        if self.button == seat:
            # The button stays on the empty seat's position; the next hand moves it on from there.
            pass

    def chips_on_table(self) -> int:
        """Every chip at the table now: stacks, chips in the hand and any carried pot."""
        if self.hand is not None:
            return self.hand.chips_total() + sum(st.stack for n, st in self.seats.items()
                                                 if n not in self.hand.seat_info())
        return sum(st.stack for st in self.seats.values()) + self.carried_pot

    def chips_expected(self) -> int:
        return self.chips_in + self._ruled_chips

    _ruled_chips = 0

    # Prompts ----------------------------------------------------------------------------------------------

    def _prompt(self, kind: str, message: str, options: tuple[str, ...], rule: str | None = None) -> _Prompt:
        p = _Prompt(id=f"p{next(self._prompt_ids)}", kind=kind, message=message, options=options, rule=rule)
        self._prompts[p.id] = p
        return p

    def open_prompts(self) -> list[PromptView]:
        return [PromptView(id=p.id, kind=p.kind, message=p.message, rule=p.rule, options=p.options)
                for p in self._prompts.values()]

    # Hands: implemented in the hand lifecycle mixin below ------------------------------------------------

    async def start_hand(self) -> None:
        raise NotAllowedError("hands are not available in this build", code="unavailable")

    async def act(self, seat: int, act: str, to: int | None) -> None:
        raise NotAllowedError("no hand in progress", code="no_hand")

    async def draw(self, seat: int, *, count: int | None, discard: tuple[str, ...] | None) -> None:
        raise NotAllowedError("no hand in progress", code="no_hand")

    async def report_irregularity(self, kind: str, *, seat: int | None, note: str, by: str) -> None:
        raise NotAllowedError("no hand in progress", code="no_hand")

    async def answer_prompt(self, prompt_id: str, choice: str) -> None:
        raise NotFoundError(f"no open prompt {prompt_id!r}")

    async def floor_ruling(self, ruling: RulingRequest) -> None:
        raise NotAllowedError("no hand in progress", code="no_hand")

