"""The simulated cable and the device's UART: every fault of the line itself, in both directions.

How it works: bytes from the host pass `LineFaults.to_device` (byte faults, then frame faults on whole
0x00-delimited frames) before the device's protocol endpoint sees them; frames from the device pass
frame faults, byte faults, then the write shaping (split or merged writes) on their way out. Everything
random here uses the simulator's own `random.Random` (seeded or not): these faults model noise, not play.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from firmware_bridge.messages import FrameType


@dataclass(kw_only=True)
class ByteFaults:
    """Per-byte probabilities, knowing nothing of the protocol."""

    drop: float = 0.0
    flip: float = 0.0  # one random bit flipped
    duplicate: float = 0.0
    junk: float = 0.0  # a burst of 1..8 random bytes (0x00 included) inserted after this byte
    swap: float = 0.0  # this byte and the next change places (reordered bytes)

    def active(self) -> bool:
        return bool(self.drop or self.flip or self.duplicate or self.junk or self.swap)

    def apply(self, data: bytes, rng: random.Random) -> bytes:
        if not self.active():
            return data
        out = bytearray()
        for original in data:
            r = rng.random()
            if r < self.drop:
                continue
            byte = original ^ (1 << rng.randrange(8)) if r < self.drop + self.flip else original
            out.append(byte)
            if rng.random() < self.duplicate:
                out.append(byte)
            if rng.random() < self.junk:
                out += bytes(rng.choice((0, rng.randrange(256))) for _ in range(rng.randint(1, 8)))
        if self.swap:
            for i in range(len(out) - 1):
                if rng.random() < self.swap:
                    out[i], out[i + 1] = out[i + 1], out[i]
        return bytes(out)


@dataclass(kw_only=True)
class FrameFaults:
    """Counted, one-shot faults on whole frames. `only` limits them to one frame type (device side)."""

    drop: int = 0
    duplicate: int = 0
    reorder: int = 0  # hold a frame back and send it after the next one
    only: FrameType | None = None
    delay: float = 0.0  # late frames: held this many seconds (with `delay_count`)
    delay_count: int = 0


@dataclass(kw_only=True)
class LineFaults:
    to_device: ByteFaults = field(default_factory=ByteFaults)
    to_host: ByteFaults = field(default_factory=ByteFaults)
    incoming: FrameFaults = field(default_factory=FrameFaults)
    outgoing: FrameFaults = field(default_factory=FrameFaults)
    split_writes: bool = False  # each frame written in several small pieces
    merge_writes: bool = False  # frames held and written together
    silent: bool = False  # the device neither hears nor speaks


class Line:
    """Applies `LineFaults` to the traffic of one simulated device."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.faults = LineFaults()
        self._incoming = bytearray()
        self._held_in: bytes | None = None
        self._held_out: bytes | None = None
        self._late: list[tuple[float, bytes]] = []
        self._merged = bytearray()
        self.injected: list[bytes] = []  # raw bytes to send as they are (junk bursts, crafted frames)

    # --- host -> device -----------------------------------------------------------------------------

    def inbound(self, data: bytes) -> bytes:
        """Bytes from the host as the device's UART receives them."""
        f = self.faults
        if f.silent:
            return b""
        data = f.to_device.apply(data, self.rng)
        ff = f.incoming
        if not (ff.drop or ff.duplicate or ff.reorder):
            return data
        out = bytearray()
        self._incoming += data
        while True:
            start = self._incoming.find(0)
            if start < 0:
                break
            end = self._incoming.find(0, start + 1)
            if end < 0:
                break
            frame = bytes(self._incoming[start:end + 1])
            del self._incoming[:end + 1]
            out += self._frame_faults(frame, ff, incoming=True)
        return bytes(out)

    # --- device -> host -----------------------------------------------------------------------------

    def outbound(self, frames: list[tuple[FrameType, bytes]], now: float) -> list[bytes]:
        """Frames from the device as writes to the port (already faulted and shaped)."""
        f = self.faults
        chunks: list[bytes] = list(self.injected)
        self.injected.clear()
        if f.silent:
            return []
        ready: list[bytes] = []
        for ftype, data in frames:
            ff = f.outgoing
            if ff.only is not None and ftype is not ff.only:
                ready.append(data)
                continue
            if ff.delay_count:
                ff.delay_count -= 1
                self._late.append((now + ff.delay, data))
                continue
            ready.append(self._frame_faults(data, ff, incoming=False))
        due = [d for t, d in self._late if t <= now]
        self._late = [(t, d) for t, d in self._late if t > now]
        for frame in [*ready, *due]:
            if not frame:
                continue
            data = f.to_host.apply(frame, self.rng)
            if f.split_writes and len(data) > 2:
                cuts = sorted(self.rng.sample(range(1, len(data)), min(3, len(data) - 1)))
                chunks += [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
            else:
                chunks.append(data)
        if f.merge_writes:
            self._merged += b"".join(chunks)
            if len(self._merged) < 64 and frames:
                return []
            chunks, self._merged = [bytes(self._merged)], bytearray()
        return [c for c in chunks if c]

    def _frame_faults(self, frame: bytes, ff: FrameFaults, *, incoming: bool) -> bytes:
        held = self._held_in if incoming else self._held_out
        if ff.drop:
            ff.drop -= 1
            return b""
        out = frame
        if ff.duplicate:
            ff.duplicate -= 1
            out = frame + frame
        if ff.reorder and held is None:
            ff.reorder -= 1
            if incoming:
                self._held_in = frame
            else:
                self._held_out = frame
            return b""
        if held is not None:
            out = out + held
            if incoming:
                self._held_in = None
            else:
                self._held_out = None
        return out
