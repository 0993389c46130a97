"""The simulated shoe: a device model advanced by `process(dt)` on a virtual clock.

How it works: the physical world (cards in the shoe, cards out of it, the door) and the non-volatile
memory (event log, reply cache, resting state, latched fault) survive `restart()`; the protocol
endpoint and the operation in progress do not. Every state change goes through
`firmware_bridge.states.TRANSITIONS`: `_fire(trigger)` refuses a pair the table lacks. A command that
starts a timed operation answers IN_PROGRESS; `process(dt)` finishes it and emits the event that ends it.

Faults are planned through the model's public attributes (jams, busy time, slowness) or applied at once
(`open_door`, `restart`); `hardware_sim.shoe.control.ShoeControl` is the friendly face of both.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from dataclasses import dataclass, field

from firmware_bridge.cards import DECK_SIZE
from firmware_bridge.device import DeviceEndpoint, DeviceMemory, Identity
from firmware_bridge.frames import PROTOCOL_VERSION
from firmware_bridge.messages import (
    CAP_ALL,
    CAP_BURN,
    CAP_CONFIG,
    CAP_LOG,
    CAP_RETURNS,
    CAP_VERIFY,
    CONFIG_RANGES,
    CardDealt,
    CardReturned,
    Cleared,
    Command,
    CommandBody,
    ConfigKey,
    DeckResult,
    Door,
    Empty,
    FailCode,
    Fault,
    Jam,
    PowerRestored,
    ReplyBody,
    RestartCause,
    Result,
    ShoeEvent,
    ShuffleDone,
    StatusInfo,
)
from firmware_bridge.states import BUSY_STATES, DeviceState, Trigger, next_state


class SimulatorError(Exception):
    """The simulator was driven into something its model does not allow (a test bug)."""


class Refusal(Exception):  # noqa: N818 - an answer, not an error: the device says no
    """Why the shoe will not run a command now: the result and fail code it answers."""

    def __init__(self, result: Result, fail: FailCode = FailCode.NONE) -> None:
        super().__init__(f"{result.name} ({fail.name})")
        self.result = result
        self.fail = fail


@dataclass(frozen=True, kw_only=True)
class PhysicalCard:
    face: int  # the card's true identity, 0..51
    foreign: bool = False  # from another deck: an extra card
    readable: bool = True
    reads_as: int | None = None  # a misread: what the scanner reports instead of `face`

    def scan(self) -> int | None:
        if not self.readable:
            return None
        return self.face if self.reads_as is None else self.reads_as


def standard_deck() -> list[PhysicalCard]:
    return [PhysicalCard(face=n) for n in range(DECK_SIZE)]


@dataclass(frozen=True, kw_only=True)
class SimTimings:
    """Virtual seconds each mechanical step takes (deal at speed 5; speed 10 halves it)."""

    boot: float = 0.2
    self_test: float = 1.0
    shuffle: float = 6.0
    verify: float = 8.0
    deal: float = 0.35
    jam_recover: float = 1.0
    jam_give_up: float = 3.0
    event_resend: float = 0.2
    return_scan: float = 0.08  # one returned card through the return slot's scanner

    @classmethod
    def fast(cls) -> SimTimings:
        """Near-instant mechanics, for tests and benchmarks."""
        return cls(boot=0.002, self_test=0.002, shuffle=0.005, verify=0.005, deal=0.002, jam_recover=0.01,
                   jam_give_up=0.02, event_resend=0.02, return_scan=0.001)


_COMMAND_TRIGGER = {
    Command.SHUFFLE: Trigger.SHUFFLE, Command.VERIFY_DECK: Trigger.VERIFY, Command.DEAL_ONE: Trigger.DEAL,
    Command.BURN: Trigger.DEAL, Command.CLEAR_FAULT: Trigger.CLEAR_FAULT,
}
_COMMAND_CAPABILITY = {Command.BURN: CAP_BURN, Command.VERIFY_DECK: CAP_VERIFY, Command.GET_LOG: CAP_LOG,
                       Command.SET_CONFIG: CAP_CONFIG}
LOG_PAGE = 16
# Where the return slot's scanner works: the shoe at rest (the card path is free), as the state table says.
_SCANS_IN = frozenset(state for state in DeviceState if next_state(state, Trigger.CARD_RETURNED) is state)


@dataclass(kw_only=True)
class Operation:
    command: Command
    cmd_id: int
    remaining: float
    jam: bool | None = None  # None: no jam; True: jammed, will recover; False: jammed for good


@dataclass(kw_only=True)
class Plans:
    """Faults waiting for their moment."""

    jams: list[bool] = field(default_factory=list)  # for the next deals: recovers?
    busy_until: float = 0.0
    slow: float = 1.0
    self_test_fails: bool = False


class ShoeDevice:
    def __init__(self, *, seed: int | None = None, timings: SimTimings | None = None,
                 identity: Identity | None = None, version: int = PROTOCOL_VERSION) -> None:
        self.rng: random.Random = random.Random(seed) if seed is not None else secrets.SystemRandom()
        self.timings = timings or SimTimings()
        self.identity = identity or Identity(capabilities=CAP_ALL)
        self.version = version
        self.now = 0.0
        # the physical world
        self.shoe: list[PhysicalCard] = standard_deck()
        self.out: list[PhysicalCard] = []
        self.loaded: Counter[PhysicalCard] = Counter(self.shoe)  # what the dealer put in: conserved
        self.slot: list[PhysicalCard] = []  # cards the dealer loaded back, waiting for the scanner
        self.returned: list[PhysicalCard] = []  # the return bin: scanned, kept apart until the next shuffle
        self._scan_left = self.timings.return_scan
        self.door_open = False
        # non-volatile memory
        self.memory = DeviceMemory()
        self.rest_state = DeviceState.IDLE
        self.latched = FailCode.NONE
        self.shuffles = 0
        self.config: dict[ConfigKey, int] = {ConfigKey.DEAL_SPEED: 5, ConfigKey.JAM_RETRIES: 2,
                                             ConfigKey.EVENT_RESEND_MS: int(self.timings.event_resend * 1000)}
        # volatile
        self.plans = Plans()
        self.state = DeviceState.BOOT
        self.op: Operation | None = None
        self._boot_left = self.timings.boot
        self.endpoint = self._new_endpoint()
        self.restarts = 0

    # --- plumbing -----------------------------------------------------------------------------------

    def _new_endpoint(self) -> DeviceEndpoint:
        session = self.rng.getrandbits(32) | 1
        return DeviceEndpoint(session=session, memory=self.memory, identity=self.identity, handler=self.handle,
                              state=lambda: self.state, version=self.version,
                              resend_after=self.config[ConfigKey.EVENT_RESEND_MS] / 1000)

    def _fire(self, trigger: Trigger) -> None:
        nxt = next_state(self.state, trigger)
        if nxt is None:
            raise SimulatorError(f"{trigger.name} is not allowed in {self.state.name}")
        self.state = nxt

    def _emit(self, event: ShoeEvent) -> ShoeEvent:
        return self.endpoint.emit(event)

    def conserved(self) -> bool:
        """Every card the dealer loaded is in the shoe or out of it, once: none lost, none made up."""
        return Counter(self.shoe) + Counter(self.out) + Counter(self.slot) + Counter(self.returned) == self.loaded

    @property
    def scans_returns(self) -> bool:
        return bool(self.identity.capabilities & CAP_RETURNS)

    def status(self) -> StatusInfo:
        return StatusInfo(state=self.state, fault=self.latched, cards_in_shoe=len(self.shoe),
                          cards_dealt=min(255, len(self.out)), door_open=self.door_open, shuffles=self.shuffles,
                          last_event=self.memory.last_event, unacked=min(0xFFFF, self.memory.unacked),
                          deal_speed=self.config[ConfigKey.DEAL_SPEED])

    # --- commands -----------------------------------------------------------------------------------

    def verify_command(self, command: Command) -> None:
        """Raise `Refusal` with the exact answer when the shoe cannot run `command` now."""
        need = _COMMAND_CAPABILITY.get(command, 0)
        if need and not self.identity.capabilities & need:
            raise Refusal(Result.UNSUPPORTED, FailCode.BAD_COMMAND)
        if command in (Command.STATUS, Command.GET_LOG, Command.SET_CONFIG):
            return
        if self.state in (DeviceState.BOOT, DeviceState.SELF_TEST) or self.now < self.plans.busy_until:
            raise Refusal(Result.BUSY)
        if self.door_open:
            raise Refusal(Result.DENIED, FailCode.DOOR_OPEN)
        if self.slot and command in (Command.SHUFFLE, Command.VERIFY_DECK):
            raise Refusal(Result.BUSY)  # returned cards still wait for the scanner: none is shuffled unreported
        if next_state(self.state, _COMMAND_TRIGGER[command]) is None:
            if self.state in BUSY_STATES:
                raise Refusal(Result.BUSY)
            raise Refusal(Result.DENIED, self._why_denied(command))

    def can_command(self, command: Command) -> bool:
        try:
            self.verify_command(command)
        except Refusal:
            return False
        return True

    def handle(self, cmd_id: int, body: CommandBody) -> ReplyBody:
        """Run one new command (the endpoint has already answered repeats from its reply cache)."""
        command = body.command
        try:
            self.verify_command(command)
        except Refusal as refusal:
            return ReplyBody(command=command, result=refusal.result, fail=refusal.fail)
        if command is Command.STATUS:
            return ReplyBody(command=command, result=Result.OK, status=self.status())
        if command is Command.GET_LOG:
            log = self.endpoint.log_since(body.first, min(body.limit, LOG_PAGE))
            return ReplyBody(command=command, result=Result.OK, log=log)
        if command is Command.SET_CONFIG:
            return self._set_config(body)
        trigger = _COMMAND_TRIGGER[command]
        if command is Command.CLEAR_FAULT:
            fault = self.latched
            self._fire(trigger)
            self.latched = FailCode.NONE
            self.rest_state = DeviceState.IDLE
            event = self._emit(Cleared(number=0, cmd=cmd_id, fault=fault))
            return ReplyBody(command=command, result=Result.OK, event=event.number)
        self._fire(trigger)
        self.op = Operation(command=command, cmd_id=cmd_id, remaining=self._duration(command))
        return ReplyBody(command=command, result=Result.IN_PROGRESS)

    def _why_denied(self, command: Command) -> FailCode:
        if self.state is DeviceState.FAULT:
            return FailCode.FAULT_LATCHED
        if self.state is DeviceState.EMPTY:
            return FailCode.SHOE_EMPTY
        if self.state is DeviceState.IDLE and command in (Command.DEAL_ONE, Command.BURN):
            return FailCode.NOT_SHUFFLED
        return FailCode.WRONG_STATE

    def _set_config(self, body: CommandBody) -> ReplyBody:
        assert body.key is not None
        low, high = CONFIG_RANGES[body.key]
        if not low <= body.value <= high:
            return ReplyBody(command=body.command, result=Result.INVALID, fail=FailCode.BAD_VALUE)
        self.config[body.key] = body.value
        if body.key is ConfigKey.EVENT_RESEND_MS:
            self.endpoint.resend_after = body.value / 1000
        return ReplyBody(command=body.command, result=Result.OK)

    def _duration(self, command: Command) -> float:
        t = self.timings
        if command is Command.SHUFFLE:
            base = t.shuffle
        elif command is Command.VERIFY_DECK:
            base = t.verify
        else:
            base = t.deal * 5 / self.config[ConfigKey.DEAL_SPEED]
        return base * self.plans.slow

    # --- time ---------------------------------------------------------------------------------------

    def process(self, dt: float) -> None:
        self.now += dt
        if self.state is DeviceState.BOOT:
            self._boot_left -= dt
            if self._boot_left <= 0:
                self._fire(Trigger.BOOTED)
                self._boot_left = self.timings.self_test
        elif self.state is DeviceState.SELF_TEST:
            self._boot_left -= dt
            if self._boot_left <= 0:
                self._resume()
        elif self.op is not None:
            self.op.remaining -= dt
            if self.op.remaining <= 0:
                self._step_operation(self.op)
        elif self.slot and self.state in _SCANS_IN:
            self._scan_left -= dt
            if self._scan_left <= 0:
                self._scan_returned()
        self.endpoint.poll(self.now)

    def _scan_returned(self) -> None:
        """One card from the return slot past the scanner into the return bin, reported as it reads."""
        card = self.slot.pop(0)
        self._fire(Trigger.CARD_RETURNED)
        self.returned.append(card)
        self._scan_left = self.timings.return_scan
        self._emit(CardReturned(number=0, card=card.scan(), held=min(255, len(self.returned))))

    def _resume(self) -> None:
        if self.door_open or self.latched is not FailCode.NONE or self.plans.self_test_fails:
            self._fire(Trigger.SELF_TEST_FAILED)
            if self.latched is FailCode.NONE:
                self.latched = FailCode.DOOR if self.door_open else FailCode.SELF_TEST
                self._emit(Fault(number=0, fault=self.latched))
            return
        trigger = {DeviceState.READY: Trigger.RESUME_READY, DeviceState.EMPTY: Trigger.RESUME_EMPTY}.get(
            self.rest_state, Trigger.RESUME_IDLE)
        self._fire(trigger)

    def _step_operation(self, op: Operation) -> None:
        if op.command is Command.SHUFFLE:
            self._gather_and_shuffle()
            self._fire(Trigger.SHUFFLE_DONE)
            self._finish(op, ShuffleDone(number=0, cmd=op.cmd_id, count=len(self.shoe)))
        elif op.command is Command.VERIFY_DECK:
            self._gather_and_shuffle()
            result = self._deck_result(op.cmd_id)
            self._fire(Trigger.VERIFY_DONE)
            self._finish(op, result)
        elif op.jam is None and self.plans.jams:
            # A jam that could clear by itself still latches when automatic re-feeds are switched off.
            op.jam = self.plans.jams.pop(0) and self.config[ConfigKey.JAM_RETRIES] > 0
            self._fire(Trigger.JAM)
            self._emit(Jam(number=0, cmd=op.cmd_id, recovering=True))
            op.remaining = self.timings.jam_recover if op.jam else self.timings.jam_give_up
        elif op.jam is True:
            self._fire(Trigger.JAM_CLEARED)
            self._emit(Cleared(number=0, fault=FailCode.JAM))
            op.jam = None
            op.remaining = self._duration(op.command)
        elif op.jam is False:
            self._fire(Trigger.JAM_STUCK)
            self.latched = FailCode.JAM
            self.rest_state = DeviceState.IDLE
            self._emit(Jam(number=0, cmd=op.cmd_id, recovering=False))
            self._fail(op, Fault(number=0, cmd=op.cmd_id, fault=FailCode.JAM), FailCode.JAM)
        else:
            card = self.shoe.pop(0)
            self.out.append(card)
            last = not self.shoe
            self._fire(Trigger.LAST_CARD_OUT if last else Trigger.CARD_OUT)
            self.rest_state = DeviceState.EMPTY if last else DeviceState.READY
            self._finish(op, CardDealt(number=0, cmd=op.cmd_id, card=card.scan(), left=len(self.shoe),
                                       burn=op.command is Command.BURN))
            if last:
                self._emit(Empty(number=0))

    def _finish(self, op: Operation, event: ShoeEvent) -> None:
        self.op = None
        numbered = self._emit(event)
        self.endpoint.complete(op.cmd_id, numbered)

    def _fail(self, op: Operation, event: ShoeEvent, code: FailCode) -> None:
        self.op = None
        numbered = self._emit(event)
        self.endpoint.complete(op.cmd_id, numbered, result=Result.FAILED, fail=code)

    def _gather_and_shuffle(self) -> None:
        """The dealer loads every card back; the shuffle uses the OS CSPRNG unless a seed was given."""
        self.shoe.extend(self.out + self.returned + self.slot)
        self.out.clear()
        self.returned.clear()
        self.slot.clear()
        self.rng.shuffle(self.shoe)
        self.rest_state = DeviceState.READY
        self.shuffles += 1

    def _deck_result(self, cmd_id: int) -> DeckResult:
        seen: Counter[int] = Counter()
        extra: list[int] = []
        unreadable = 0
        for card in self.shoe:
            read = card.scan()
            if read is None:
                unreadable += 1
            elif card.foreign:
                extra.append(read)
            else:
                seen[read] += 1
        return DeckResult(number=0, cmd=cmd_id, count=min(255, len(self.shoe)), unreadable=min(255, unreadable),
                          missing=frozenset(n for n in range(DECK_SIZE) if seen[n] == 0),
                          duplicate=frozenset(n for n, k in seen.items() if k > 1), extra=tuple(sorted(extra)))

    # --- faults applied at once ---------------------------------------------------------------------

    def open_door(self) -> None:
        if self.door_open:
            return
        self.door_open = True
        self._emit(Door(number=0, open=True))
        if next_state(self.state, Trigger.DOOR_OPENED) is None:
            return  # booting: the self-test will find the door open
        op = self.op
        self._fire(Trigger.DOOR_OPENED)
        if self.latched is FailCode.NONE:
            self.latched = FailCode.DOOR
        self.rest_state = DeviceState.IDLE
        if op is not None:
            self._fail(op, Fault(number=0, cmd=op.cmd_id, fault=FailCode.DOOR), FailCode.DOOR)
        else:
            self._emit(Fault(number=0, fault=FailCode.DOOR))

    def close_door(self) -> None:
        if self.door_open:
            self.door_open = False
            self._emit(Door(number=0, open=False))

    def restart(self, cause: RestartCause) -> None:
        """Reboot or power loss: volatile state is gone, an operation in progress is abandoned."""
        was, op = self.state, self.op
        self.op = None
        if op is not None and op.command in (Command.SHUFFLE, Command.VERIFY_DECK):
            self.rest_state = DeviceState.IDLE  # a half-shuffled deck must be shuffled again
        self._fire(Trigger.POWER_LOSS)
        self._boot_left = self.timings.boot
        self.plans = Plans()
        self.restarts += 1
        self.endpoint = self._new_endpoint()
        event = PowerRestored(number=0, cmd=op.cmd_id if op else 0, cause=cause, was=was)
        if op is not None:
            self._fail(op, event, FailCode.POWER_LOST)
        else:
            self._emit(event)

    def return_cards(self, cards: list[PhysicalCard]) -> None:
        """The dealer loads cards back into the return slot (the muck, the discards). A card that never left
        the shoe (one from another deck, or palmed from an earlier deal) is one the dealer brought in: it
        is counted as loaded, so conservation still holds. A shoe that does not scan returns (capability
        off) takes them straight into its bin, unreported."""
        for card in cards:
            if card in self.out:
                self.out.remove(card)
            else:
                self.loaded[card] += 1
            (self.slot if self.scans_returns else self.returned).append(card)
        if len(self.slot) == len(cards):
            self._scan_left = self.timings.return_scan

    def load(self, cards: list[PhysicalCard]) -> None:
        """The dealer replaces the whole deck (for faults of the deck itself)."""
        self.shoe = list(cards)
        self.out = []
        self.slot = []
        self.returned = []
        self.loaded = Counter(self.shoe)
        if next_state(self.state, Trigger.DECK_LOADED) is not None:
            self._fire(Trigger.DECK_LOADED)
        elif self.state not in (DeviceState.BOOT, DeviceState.SELF_TEST):  # booting resumes from rest_state
            raise SimulatorError(f"the deck cannot be changed while the shoe is {self.state.name}")
        self.rest_state = DeviceState.IDLE
