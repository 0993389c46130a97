"""The bodies of shoe-link frames: enums, frozen message classes, and their byte layouts.

Every integer is big-endian. Each frame type has exactly one body class; `encode_body` and
`decode_body` are inverse, and `decode_body` raises only `FrameError` subclasses. No body carries the
order of undealt cards: DECK_RESULT gives counts and sets (bitmaps), STATUS gives counts, GET_LOG gives
only events that already happened.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeVar

from firmware_bridge.cards import DECK_SIZE, UNREADABLE, bitmap_to_cards, card_code, cards_to_bitmap
from firmware_bridge.errors import PayloadError, UnknownTypeError, UsageError
from firmware_bridge.states import DeviceState

U32 = 0xFFFFFFFF


class FrameType(IntEnum):
    HELLO = 1
    HELLO_REPLY = 2
    COMMAND = 3
    REPLY = 4
    EVENT = 5
    ACK = 6
    PING = 7
    PONG = 8
    RESYNC = 9


class Command(IntEnum):
    STATUS = 1
    SHUFFLE = 2
    VERIFY_DECK = 3
    DEAL_ONE = 4
    BURN = 5
    CLEAR_FAULT = 6
    SET_CONFIG = 7
    GET_LOG = 8


class Result(IntEnum):
    OK = 0
    IN_PROGRESS = 1
    BUSY = 2
    DENIED = 3
    INVALID = 4
    UNSUPPORTED = 5
    FAILED = 6


class FailCode(IntEnum):
    """Why a command was refused or an operation stopped. The high byte is the class."""

    NONE = 0x0000
    # 0x01xx: refused in this state; fix the state, then send a new command
    WRONG_STATE = 0x0101
    SHOE_EMPTY = 0x0102
    DOOR_OPEN = 0x0103
    FAULT_LATCHED = 0x0104
    QUEUE_FULL = 0x0105
    NOT_SHUFFLED = 0x0106
    # 0x02xx: mechanical; a person must look at the shoe
    JAM = 0x0201
    DOOR = 0x0202
    SELF_TEST = 0x0203
    # 0x03xx: power
    POWER_LOST = 0x0301
    # 0x04xx: bad arguments
    BAD_KEY = 0x0401
    BAD_VALUE = 0x0402
    BAD_COMMAND = 0x0403


class EventKind(IntEnum):
    CARD_DEALT = 1
    SHUFFLE_DONE = 2
    DECK_RESULT = 3
    JAM = 4
    DOOR = 5
    EMPTY = 6
    POWER_RESTORED = 7
    FAULT = 8
    CLEARED = 9
    CARD_RETURNED = 10  # only from a shoe announcing CAP_RETURNS


class ConfigKey(IntEnum):
    DEAL_SPEED = 1  # 1 (slowest) .. 10 (fastest)
    JAM_RETRIES = 2  # automatic re-feeds before a jam latches, 0..5
    EVENT_RESEND_MS = 3  # how long an unacknowledged event waits before it is sent again, 10..10000


CONFIG_RANGES: dict[ConfigKey, tuple[int, int]] = {
    ConfigKey.DEAL_SPEED: (1, 10),
    ConfigKey.JAM_RETRIES: (0, 5),
    ConfigKey.EVENT_RESEND_MS: (10, 10_000),
}


class RestartCause(IntEnum):
    REBOOT = 0
    POWER_LOSS = 1


# Capability bits announced in HELLO_REPLY.
CAP_BURN = 1 << 0
CAP_VERIFY = 1 << 1
CAP_LOG = 1 << 2
CAP_CONFIG = 1 << 3
# The shoe scans the cards a dealer loads back into its return slot (the muck, the discards) and reports each
# one (CARD_RETURNED). Optional: a host must work with a shoe that lacks it (no such event ever comes).
CAP_RETURNS = 1 << 4
CAP_ALL = CAP_BURN | CAP_VERIFY | CAP_LOG | CAP_CONFIG | CAP_RETURNS


_E = TypeVar("_E", bound=IntEnum)


def _enum(cls: type[_E], value: int, what: str) -> _E:
    try:
        return cls(value)
    except ValueError:
        raise UnknownTypeError(f"unknown {what} {value:#x}") from None


def _check_u(value: int, bits: int, name: str) -> None:
    if not 0 <= value < 1 << bits:
        raise UsageError(f"{name}={value} does not fit in {bits} bits")


# --- bodies -----------------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Hello:
    """Host -> device: open (or reopen) a conversation. Answered by HELLO_REPLY."""

    version: int

    def __post_init__(self) -> None:
        _check_u(self.version, 8, "version")


@dataclass(frozen=True, kw_only=True)
class HelloReply:
    """Device -> host: who the device is, its session (in the header) and where its event log stands."""

    version: int
    state: DeviceState
    capabilities: int
    first_unacked: int
    last_event: int
    model: str
    serial: str
    firmware: str

    def __post_init__(self) -> None:
        _check_u(self.version, 8, "version")
        _check_u(self.capabilities, 32, "capabilities")
        _check_u(self.first_unacked, 32, "first_unacked")
        _check_u(self.last_event, 32, "last_event")
        for name in ("model", "serial", "firmware"):
            if len(getattr(self, name).encode()) > 255:
                raise UsageError(f"{name} is longer than 255 bytes")


@dataclass(frozen=True, kw_only=True)
class CommandBody:
    """Host -> device: run `command`; the header's correlation field is its command id."""

    command: Command
    key: ConfigKey | None = None  # SET_CONFIG
    value: int = 0  # SET_CONFIG
    first: int = 0  # GET_LOG: first event number wanted
    limit: int = 0  # GET_LOG: at most this many entries

    def __post_init__(self) -> None:
        if self.command is Command.SET_CONFIG and self.key is None:
            raise UsageError("SET_CONFIG needs a key")
        _check_u(self.value, 32, "value")
        _check_u(self.first, 32, "first")
        _check_u(self.limit, 8, "limit")


@dataclass(frozen=True, kw_only=True)
class StatusInfo:
    state: DeviceState
    fault: FailCode
    cards_in_shoe: int
    cards_dealt: int
    door_open: bool
    shuffles: int
    last_event: int
    unacked: int
    deal_speed: int


@dataclass(frozen=True, kw_only=True)
class ShoeEvent:
    """A numbered device event. `cmd` is the command id that caused it (0 if none)."""

    number: int
    cmd: int = 0

    def __post_init__(self) -> None:
        _check_u(self.number, 32, "number")
        _check_u(self.cmd, 32, "cmd")


@dataclass(frozen=True, kw_only=True)
class CardDealt(ShoeEvent):
    card: int | None  # 0..51, None when the scanner could not read it
    left: int
    burn: bool = False

    @property
    def code(self) -> str | None:
        return None if self.card is None else card_code(self.card)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.card is not None and not 0 <= self.card < DECK_SIZE:
            raise UsageError(f"card {self.card} is not 0..51")
        _check_u(self.left, 8, "left")


@dataclass(frozen=True, kw_only=True)
class CardReturned(ShoeEvent):
    """A card the dealer loaded back into the return slot, as the scanner read it on its way into the return
    bin (held apart from the stub until the next shuffle). Only a shoe with CAP_RETURNS sends it; `cmd` is 0
    (a person's act, not a command). Returned cards are cards already dealt: their order leaks nothing."""

    card: int | None  # 0..51, None when the scanner could not read it
    held: int  # cards in the return bin, this one included

    @property
    def code(self) -> str | None:
        return None if self.card is None else card_code(self.card)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.card is not None and not 0 <= self.card < DECK_SIZE:
            raise UsageError(f"card {self.card} is not 0..51")
        _check_u(self.held, 8, "held")
        if self.held == 0:
            raise UsageError("a returned card is in the bin: held is at least 1")


@dataclass(frozen=True, kw_only=True)
class ShuffleDone(ShoeEvent):
    count: int


@dataclass(frozen=True, kw_only=True)
class DeckResult(ShoeEvent):
    count: int
    unreadable: int
    missing: frozenset[int] = field(default_factory=frozenset)
    duplicate: frozenset[int] = field(default_factory=frozenset)
    extra: tuple[int, ...] = ()  # identities of cards foreign to the deck, sorted (a multiset)

    def __post_init__(self) -> None:
        super().__post_init__()
        if tuple(sorted(self.extra)) != self.extra:
            raise UsageError("extra cards must be sorted: their order would leak the deck's order")
        if len(self.extra) > 255:
            raise UsageError("more than 255 extra cards")

    @property
    def ok(self) -> bool:
        return (self.count == DECK_SIZE and not self.missing and not self.duplicate and not self.extra
                and self.unreadable == 0)


@dataclass(frozen=True, kw_only=True)
class Jam(ShoeEvent):
    recovering: bool


@dataclass(frozen=True, kw_only=True)
class Door(ShoeEvent):
    open: bool


@dataclass(frozen=True, kw_only=True)
class Empty(ShoeEvent):
    pass


@dataclass(frozen=True, kw_only=True)
class PowerRestored(ShoeEvent):
    cause: RestartCause
    was: DeviceState


@dataclass(frozen=True, kw_only=True)
class Fault(ShoeEvent):
    fault: FailCode


@dataclass(frozen=True, kw_only=True)
class Cleared(ShoeEvent):
    fault: FailCode


@dataclass(frozen=True, kw_only=True)
class ReplyBody:
    """Device -> host: the answer to the command whose id is in the correlation field."""

    command: Command
    result: Result
    fail: FailCode = FailCode.NONE
    event: int = 0  # the event that completed the command, 0 while none has
    status: StatusInfo | None = None  # STATUS
    log: tuple[ShoeEvent, ...] = ()  # GET_LOG


@dataclass(frozen=True, kw_only=True)
class Pong:
    state: DeviceState
    last_event: int


class ResyncReason(IntEnum):
    UNKNOWN_SESSION = 1
    NO_SESSION = 2


@dataclass(frozen=True, kw_only=True)
class Resync:
    """Device -> host: the frame named a session this device does not have (it rebooted): say HELLO."""

    reason: ResyncReason


@dataclass(frozen=True, kw_only=True)
class Ack:
    pass


@dataclass(frozen=True, kw_only=True)
class Ping:
    pass


Body = Hello | HelloReply | CommandBody | ReplyBody | ShoeEvent | Pong | Resync | Ack | Ping


# --- byte layouts -----------------------------------------------------------------------------------

class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise PayloadError(f"payload ends {self.pos + n - len(self.data)} bytes early")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        value: int = struct.unpack(">H", self.take(2))[0]
        return value

    def u32(self) -> int:
        value: int = struct.unpack(">I", self.take(4))[0]
        return value

    def text(self) -> str:
        raw = self.take(self.u8())
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PayloadError("text field is not UTF-8") from None

    def card_set(self) -> frozenset[int]:
        cards = bitmap_to_cards(self.take(7))
        if any(c >= DECK_SIZE for c in cards):
            raise PayloadError("card bitmap names a card beyond 51")
        return cards

    def end(self) -> None:
        if self.pos != len(self.data):
            raise PayloadError(f"{len(self.data) - self.pos} bytes left over after the payload")


def _text(value: str) -> bytes:
    raw = value.encode("utf-8")
    return bytes([len(raw)]) + raw


_EVENT_KIND: dict[type[ShoeEvent], EventKind] = {
    CardDealt: EventKind.CARD_DEALT, ShuffleDone: EventKind.SHUFFLE_DONE, DeckResult: EventKind.DECK_RESULT,
    Jam: EventKind.JAM, Door: EventKind.DOOR, Empty: EventKind.EMPTY, PowerRestored: EventKind.POWER_RESTORED,
    Fault: EventKind.FAULT, Cleared: EventKind.CLEARED, CardReturned: EventKind.CARD_RETURNED,
}


def event_kind(event: ShoeEvent) -> EventKind:
    try:
        return _EVENT_KIND[type(event)]
    except KeyError:
        raise UsageError(f"{type(event).__name__} is not a wire event") from None


def encode_event(event: ShoeEvent) -> bytes:
    """Kind, command id, then the kind's fields. The event number travels in the header's sequence."""
    head = struct.pack(">BI", event_kind(event), event.cmd)
    if isinstance(event, CardDealt):
        card = UNREADABLE if event.card is None else event.card
        return head + bytes([card, event.left, int(event.burn)])
    if isinstance(event, CardReturned):
        return head + bytes([UNREADABLE if event.card is None else event.card, event.held])
    if isinstance(event, ShuffleDone):
        return head + bytes([event.count])
    if isinstance(event, DeckResult):
        return (head + bytes([event.count, event.unreadable]) + cards_to_bitmap(event.missing)
                + cards_to_bitmap(event.duplicate) + bytes([len(event.extra)]) + bytes(event.extra))
    if isinstance(event, Jam):
        return head + bytes([int(event.recovering)])
    if isinstance(event, Door):
        return head + bytes([int(event.open)])
    if isinstance(event, Empty):
        return head
    if isinstance(event, PowerRestored):
        return head + bytes([event.cause, event.was])
    if isinstance(event, Fault | Cleared):
        return head + struct.pack(">H", event.fault)
    raise UsageError(f"{type(event).__name__} is not a wire event")


def _flag(value: int) -> bool:
    if value > 1:
        raise PayloadError(f"flag byte {value} is not 0 or 1")
    return bool(value)


def _card_byte(r: _Reader) -> int | None:
    card = r.u8()
    if card != UNREADABLE and card >= DECK_SIZE:
        raise PayloadError(f"card byte {card:#x} is neither 0..51 nor 0xFF")
    return None if card == UNREADABLE else card


def _decode_event_fields(r: _Reader, number: int) -> ShoeEvent:
    kind = _enum(EventKind, r.u8(), "event kind")
    cmd = r.u32()
    event: ShoeEvent
    try:
        if kind is EventKind.CARD_DEALT:
            card = _card_byte(r)
            event = CardDealt(number=number, cmd=cmd, card=card, left=r.u8(), burn=_flag(r.u8()))
        elif kind is EventKind.CARD_RETURNED:
            event = CardReturned(number=number, cmd=cmd, card=_card_byte(r), held=r.u8())
        elif kind is EventKind.SHUFFLE_DONE:
            event = ShuffleDone(number=number, cmd=cmd, count=r.u8())
        elif kind is EventKind.DECK_RESULT:
            count, unreadable = r.u8(), r.u8()
            missing, duplicate = r.card_set(), r.card_set()
            extra = tuple(r.take(r.u8()))
            if tuple(sorted(extra)) != extra:
                raise PayloadError("extra cards are not sorted")
            event = DeckResult(number=number, cmd=cmd, count=count, unreadable=unreadable, missing=missing,
                               duplicate=duplicate, extra=extra)
        elif kind is EventKind.JAM:
            event = Jam(number=number, cmd=cmd, recovering=_flag(r.u8()))
        elif kind is EventKind.DOOR:
            event = Door(number=number, cmd=cmd, open=_flag(r.u8()))
        elif kind is EventKind.EMPTY:
            event = Empty(number=number, cmd=cmd)
        elif kind is EventKind.POWER_RESTORED:
            event = PowerRestored(number=number, cmd=cmd, cause=_enum(RestartCause, r.u8(), "restart cause"),
                                  was=_enum(DeviceState, r.u8(), "state"))
        elif kind is EventKind.FAULT:
            event = Fault(number=number, cmd=cmd, fault=_enum(FailCode, r.u16(), "fail code"))
        else:
            event = Cleared(number=number, cmd=cmd, fault=_enum(FailCode, r.u16(), "fail code"))
    except UsageError as exc:  # a field out of range for the message class
        raise PayloadError(str(exc)) from None
    return event


def decode_event(payload: bytes, number: int) -> ShoeEvent:
    r = _Reader(payload)
    event = _decode_event_fields(r, number)
    r.end()
    return event


def _encode_status(s: StatusInfo) -> bytes:
    return struct.pack(">BHBBBIIHB", s.state, s.fault, s.cards_in_shoe, s.cards_dealt, int(s.door_open), s.shuffles,
                       s.last_event, s.unacked, s.deal_speed)


def _decode_status(r: _Reader) -> StatusInfo:
    state = _enum(DeviceState, r.u8(), "state")
    fault = _enum(FailCode, r.u16(), "fail code")
    return StatusInfo(state=state, fault=fault, cards_in_shoe=r.u8(), cards_dealt=r.u8(), door_open=_flag(r.u8()),
                      shuffles=r.u32(), last_event=r.u32(), unacked=r.u16(), deal_speed=r.u8())


def encode_body(body: Body) -> tuple[FrameType, bytes]:
    if isinstance(body, Hello):
        return FrameType.HELLO, bytes([body.version])
    if isinstance(body, HelloReply):
        return FrameType.HELLO_REPLY, (struct.pack(">BBIII", body.version, body.state, body.capabilities,
                                                   body.first_unacked, body.last_event)
                                       + _text(body.model) + _text(body.serial) + _text(body.firmware))
    if isinstance(body, CommandBody):
        out = bytes([body.command])
        if body.command is Command.SET_CONFIG:
            assert body.key is not None
            out += struct.pack(">BI", body.key, body.value)
        elif body.command is Command.GET_LOG:
            out += struct.pack(">IB", body.first, body.limit)
        return FrameType.COMMAND, out
    if isinstance(body, ReplyBody):
        out = struct.pack(">BBHI", body.command, body.result, body.fail, body.event)
        if body.status is not None:
            out += b"\x01" + _encode_status(body.status)
        elif body.log:
            out += b"\x02" + bytes([len(body.log)])
            for event in body.log:
                raw = encode_event(event)
                out += struct.pack(">IB", event.number, len(raw)) + raw
        else:
            out += b"\x00"
        return FrameType.REPLY, out
    if isinstance(body, ShoeEvent):
        return FrameType.EVENT, encode_event(body)
    if isinstance(body, Pong):
        return FrameType.PONG, struct.pack(">BI", body.state, body.last_event)
    if isinstance(body, Resync):
        return FrameType.RESYNC, bytes([body.reason])
    if isinstance(body, Ack):
        return FrameType.ACK, b""
    return FrameType.PING, b""


def decode_body(ftype: FrameType, payload: bytes, seq: int) -> Body:
    """Parse a payload of frame type `ftype`; `seq` is the header's sequence (an EVENT's number)."""
    if ftype is FrameType.EVENT:
        return decode_event(payload, seq)
    r = _Reader(payload)
    body: Body
    try:
        if ftype is FrameType.HELLO:
            body = Hello(version=r.u8())
        elif ftype is FrameType.HELLO_REPLY:
            version = r.u8()
            state = _enum(DeviceState, r.u8(), "state")
            body = HelloReply(version=version, state=state, capabilities=r.u32(), first_unacked=r.u32(),
                              last_event=r.u32(), model=r.text(), serial=r.text(), firmware=r.text())
        elif ftype is FrameType.COMMAND:
            command = _enum(Command, r.u8(), "command")
            if command is Command.SET_CONFIG:
                key = _enum(ConfigKey, r.u8(), "config key")
                body = CommandBody(command=command, key=key, value=r.u32())
            elif command is Command.GET_LOG:
                body = CommandBody(command=command, first=r.u32(), limit=r.u8())
            else:
                body = CommandBody(command=command)
        elif ftype is FrameType.REPLY:
            command = _enum(Command, r.u8(), "command")
            result = _enum(Result, r.u8(), "result")
            fail = _enum(FailCode, r.u16(), "fail code")
            event_no = r.u32()
            extra = r.u8()
            status: StatusInfo | None = None
            log: list[ShoeEvent] = []
            if extra == 1:
                status = _decode_status(r)
            elif extra == 2:
                for _ in range(r.u8()):
                    number = r.u32()
                    log.append(decode_event(r.take(r.u8()), number))
            elif extra != 0:
                raise PayloadError(f"reply data kind {extra} is not 0, 1 or 2")
            body = ReplyBody(command=command, result=result, fail=fail, event=event_no, status=status,
                             log=tuple(log))
        elif ftype is FrameType.PONG:
            body = Pong(state=_enum(DeviceState, r.u8(), "state"), last_event=r.u32())
        elif ftype is FrameType.RESYNC:
            body = Resync(reason=_enum(ResyncReason, r.u8(), "resync reason"))
        elif ftype is FrameType.ACK:
            body = Ack()
        else:
            body = Ping()
    except UsageError as exc:
        raise PayloadError(str(exc)) from None
    r.end()
    return body
