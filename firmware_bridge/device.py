"""The device side of the link, sans-IO: reply cache, numbered event queue, sessions. Bytes in, bytes out.

A firmware engineer ports this; the simulator runs it as is. The endpoint knows nothing of cards: it
calls `handler(cmd_id, command)` once per new command id and frames what comes back.

- Idempotence: every executed command's reply is kept in `DeviceMemory.replies` under its command id.
  A command id seen before is answered from there and never runs twice; when a timed operation ends its
  cached reply becomes OK with the number of the event that ended it. BUSY answers are not cached (the
  command did not run), so a retry may run it later.
- Events: numbered from 1 and kept until the host acknowledges them (the `ack` header field of any host
  frame: "I hold every event up to here"). Go-back-N: at most `window` unacknowledged events are on the
  line; when no acknowledgement comes within `resend_after` seconds they are all sent again.
- `DeviceMemory` is what a real shoe keeps in non-volatile memory (FRAM): it survives a reboot and a
  power loss, so neither a retried command nor an unacknowledged event is lost across one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from firmware_bridge.errors import FrameError, VersionError
from firmware_bridge.frames import PROTOCOL_VERSION, Frame, FrameDecoder, frame_bytes
from firmware_bridge.messages import (
    Ack,
    Body,
    Command,
    CommandBody,
    FailCode,
    FrameType,
    Hello,
    HelloReply,
    Ping,
    Pong,
    ReplyBody,
    Result,
    Resync,
    ResyncReason,
    ShoeEvent,
)
from firmware_bridge.states import DeviceState

REPLY_CACHE_SIZE = 64
EVENT_QUEUE_CAPACITY = 1024
LOG_CAPACITY = 4096
# Commands that end in an event: refused with BUSY/QUEUE_FULL while the event queue is full.
EVENTFUL = frozenset({Command.SHUFFLE, Command.VERIFY_DECK, Command.DEAL_ONE, Command.BURN, Command.CLEAR_FAULT})


@dataclass(kw_only=True)
class DeviceMemory:
    """Non-volatile state: survives reboots and power loss."""

    next_event: int = 1
    acked: int = 0  # every event up to this number has been acknowledged
    log: OrderedDict[int, ShoeEvent] = field(default_factory=OrderedDict)  # number -> event, acked or not
    replies: OrderedDict[int, ReplyBody] = field(default_factory=OrderedDict)  # command id -> reply

    @property
    def last_event(self) -> int:
        return self.next_event - 1

    @property
    def unacked(self) -> int:
        return self.last_event - self.acked

    def remember_reply(self, cmd_id: int, reply: ReplyBody) -> None:
        self.replies[cmd_id] = reply
        self.replies.move_to_end(cmd_id)
        while len(self.replies) > REPLY_CACHE_SIZE:
            self.replies.popitem(last=False)


@dataclass(frozen=True, kw_only=True)
class Identity:
    model: str = "CT-SHOE-1"
    serial: str = "SIM-0001"
    firmware: str = "1.0.0"
    capabilities: int = 0


@dataclass(frozen=True, kw_only=True)
class Outgoing:
    """One frame to send; the type lets a fault injector pick frames (for example, lose a reply)."""

    type: FrameType
    data: bytes


Handler = Callable[[int, CommandBody], ReplyBody]


class DeviceEndpoint:
    def __init__(self, *, session: int, memory: DeviceMemory, identity: Identity, handler: Handler,
                 state: Callable[[], DeviceState], version: int = PROTOCOL_VERSION, window: int = 8,
                 resend_after: float = 0.2) -> None:
        self.session = session
        self.memory = memory
        self.identity = identity
        self.version = version
        self.window = window
        self.resend_after = resend_after
        self._handler = handler
        self._state = state
        self._decoder = FrameDecoder()
        self._out: list[Outgoing] = []
        self._sent_upto = memory.acked  # highest event number sent in this round
        self._last_progress = 0.0
        self._now = 0.0
        self.frame_errors: list[FrameError] = []

    # --- input ------------------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> None:
        self._now = now
        for item in self._decoder.feed(data):
            if isinstance(item, VersionError):
                # Another version: answer with our HELLO_REPLY so the host learns what we speak.
                self._send(self._hello_reply(), corr=0)
            if isinstance(item, FrameError):
                self.frame_errors.append(item)
                del self.frame_errors[:-32]
                continue
            self._on_frame(item)

    def _on_frame(self, frame: Frame) -> None:
        body = frame.body
        if isinstance(body, Hello):
            self._take_ack(frame.ack)
            self._send(self._hello_reply(), corr=frame.corr)
            self._sent_upto = self.memory.acked
            self._send_window()
            return
        if not isinstance(body, CommandBody | Ack | Ping):
            return  # device-to-host frame types arriving here are noise
        if frame.session != self.session:
            reason = ResyncReason.NO_SESSION if frame.session == 0 else ResyncReason.UNKNOWN_SESSION
            self._send(Resync(reason=reason), corr=frame.corr)
            return
        self._take_ack(frame.ack)
        if isinstance(body, Ping):
            self._send(Pong(state=self._state(), last_event=self.memory.last_event), corr=frame.corr)
            if frame.ack < self.memory.last_event:
                # The host is missing events (a PING doubles as a NAK): go back to the first unacknowledged.
                self._last_progress = self._now
                self._sent_upto = self.memory.acked
                self._send_window()
        elif isinstance(body, CommandBody):
            self._send(self._run(frame.corr, body), corr=frame.corr)

    def _run(self, cmd_id: int, body: CommandBody) -> ReplyBody:
        cached = self.memory.replies.get(cmd_id)
        if cached is not None:
            return cached
        if body.command in EVENTFUL and self.memory.unacked >= EVENT_QUEUE_CAPACITY:
            return ReplyBody(command=body.command, result=Result.BUSY, fail=FailCode.QUEUE_FULL)
        reply = self._handler(cmd_id, body)
        if reply.result is not Result.BUSY:
            self.memory.remember_reply(cmd_id, reply)
        return reply

    def _take_ack(self, ack: int) -> None:
        if self.memory.acked < ack <= self.memory.last_event:
            self.memory.acked = ack
            self._last_progress = self._now
            self._sent_upto = max(self._sent_upto, ack)
            self._send_window()

    # --- from the device model ----------------------------------------------------------------------

    def emit(self, event: ShoeEvent) -> ShoeEvent:
        """Number `event` (its `number` is ignored), log it, and send it when the window allows."""
        mem = self.memory
        numbered = replace(event, number=mem.next_event)
        mem.log[mem.next_event] = numbered
        mem.next_event += 1
        while len(mem.log) > LOG_CAPACITY and next(iter(mem.log)) <= mem.acked:
            mem.log.popitem(last=False)
        if mem.unacked == 1:
            self._last_progress = self._now
        self._send_window()
        return numbered

    def complete(self, cmd_id: int, event: ShoeEvent, *, result: Result = Result.OK,
                 fail: FailCode = FailCode.NONE) -> None:
        """A timed operation ended with `event`: a retry of its command now gets this answer."""
        cached = self.memory.replies.get(cmd_id)
        command = cached.command if cached is not None else Command.STATUS
        self.memory.remember_reply(cmd_id, ReplyBody(command=command, result=result, fail=fail, event=event.number))

    def poll(self, now: float) -> None:
        """Time passed: send unacknowledged events again if no acknowledgement came for a while."""
        self._now = now
        if self.memory.unacked and now - self._last_progress >= self.resend_after:
            self._last_progress = now
            self._sent_upto = self.memory.acked
            self._send_window()

    def take_output(self) -> list[Outgoing]:
        out, self._out = self._out, []
        return out

    def log_since(self, first: int, limit: int) -> tuple[ShoeEvent, ...]:
        """Past events only, from `first`: the log holds what happened, never what is still in the shoe."""
        out = []
        for number, event in self.memory.log.items():
            if number >= first:
                out.append(event)
                if len(out) >= limit:
                    break
        return tuple(out)

    # --- output -------------------------------------------------------------------------------------

    def _send_window(self) -> None:
        mem = self.memory
        limit = min(mem.last_event, mem.acked + self.window)
        while self._sent_upto < limit:
            self._sent_upto += 1
            event = mem.log.get(self._sent_upto)
            if event is not None:
                self._send(event, corr=0, seq=event.number)

    def _hello_reply(self) -> HelloReply:
        mem = self.memory
        return HelloReply(version=self.version, state=self._state(), capabilities=self.identity.capabilities,
                          first_unacked=mem.acked + 1, last_event=mem.last_event, model=self.identity.model,
                          serial=self.identity.serial, firmware=self.identity.firmware)

    def _send(self, body: Body, *, corr: int, seq: int = 0) -> None:
        frame = Frame(body=body, session=self.session, seq=seq, ack=0, corr=corr, version=self.version)
        self._out.append(Outgoing(type=frame.type, data=frame_bytes(frame)))
