"""The host side of the link, sans-IO: builds frames, decodes bytes, delivers each event exactly once.

`HostEndpoint.feed(bytes)` returns what arrived, already sorted out:

- `Reply` for a command reply (matched later by command id, so a late reply to an old command can
  never be mistaken for the answer to a new one);
- `Delivered` for an event the host has not seen, strictly in number order; repeats and events past a
  gap are dropped (the device sends them again), so every event is delivered once and none is skipped;
- `Handshake` for HELLO_REPLY (`rebooted` when the session changed), `NeedHello` for RESYNC,
  `Alive` for PONG, and `Garbled` for each frame the decoder had to drop (a `FrameError`).

`delivered` (the acknowledgement the host sends in every frame) survives reconnections, because the
device numbers events across its own reboots.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.errors import FrameError
from firmware_bridge.frames import PROTOCOL_VERSION, Frame, FrameDecoder, frame_bytes
from firmware_bridge.messages import (
    Ack,
    CommandBody,
    Hello,
    HelloReply,
    Ping,
    Pong,
    ReplyBody,
    Resync,
    ShoeEvent,
)


@dataclass(frozen=True, kw_only=True)
class Reply:
    cmd_id: int
    body: ReplyBody


@dataclass(frozen=True, kw_only=True)
class Delivered:
    event: ShoeEvent


@dataclass(frozen=True, kw_only=True)
class Handshake:
    reply: HelloReply
    session: int
    rebooted: bool


@dataclass(frozen=True, kw_only=True)
class NeedHello:
    pass


@dataclass(frozen=True, kw_only=True)
class Alive:
    pong: Pong


@dataclass(frozen=True, kw_only=True)
class Garbled:
    error: FrameError


Inbound = Reply | Delivered | Handshake | NeedHello | Alive | Garbled


class HostEndpoint:
    def __init__(self) -> None:
        self.session = 0  # 0 until the first handshake
        self.delivered = 0  # every event up to this number has been delivered
        self.duplicates = 0
        self.gaps = 0
        self.garbled = 0
        self._decoder = FrameDecoder()
        self._owe_ack = False

    def reset_decoder(self) -> None:
        """A new connection: bytes half-received on the old one mean nothing."""
        self._decoder = FrameDecoder()

    # --- frames to send -----------------------------------------------------------------------------

    def hello(self) -> bytes:
        return self._frame(Hello(version=PROTOCOL_VERSION))

    def command(self, cmd_id: int, body: CommandBody) -> bytes:
        return self._frame(body, corr=cmd_id)

    def ping(self) -> bytes:
        return self._frame(Ping())

    def ack(self) -> bytes:
        return self._frame(Ack())

    def take_owed_ack(self) -> bytes | None:
        """An ACK frame if events arrived since the last frame sent, else None."""
        return self.ack() if self._owe_ack else None

    def _frame(self, body: CommandBody | Hello | Ping | Ack, *, corr: int = 0) -> bytes:
        self._owe_ack = False
        return frame_bytes(Frame(body=body, session=self.session, ack=self.delivered, corr=corr))

    # --- bytes received -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Inbound]:
        out: list[Inbound] = []
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError):
                self.garbled += 1
                out.append(Garbled(error=item))
            else:
                out.extend(self._on_frame(item))
        return out

    def _on_frame(self, frame: Frame) -> list[Inbound]:
        body = frame.body
        if isinstance(body, HelloReply):
            rebooted = self.session not in (0, frame.session)
            self.session = frame.session
            if body.last_event < self.delivered or self.delivered < body.first_unacked - 1:
                # A first connection, another host acknowledged events meanwhile, or a replaced device:
                # take the log from where it stands (GET_LOG still has what came before).
                self.delivered = body.first_unacked - 1
            self._owe_ack = True
            return [Handshake(reply=body, session=frame.session, rebooted=rebooted)]
        if isinstance(body, Resync):
            return [NeedHello()]
        if frame.session != self.session:
            return []  # from a session we have left (a late frame from before a reboot)
        if isinstance(body, ReplyBody):
            return [Reply(cmd_id=frame.corr, body=body)]
        if isinstance(body, ShoeEvent):
            self._owe_ack = True
            if body.number == self.delivered + 1:
                self.delivered = body.number
                return [Delivered(event=body)]
            if body.number <= self.delivered:
                self.duplicates += 1
            else:
                self.gaps += 1
            return []
        if isinstance(body, Pong):
            if body.last_event > self.delivered:
                self._owe_ack = True  # prompts the device to resend what we are missing
            return [Alive(pong=body)]
        return []
