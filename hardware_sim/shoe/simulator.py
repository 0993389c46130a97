"""One simulated shoe: the device model, its line, a lock, and the control interface for faults.

Adapters (pty, TCP, in-memory) call `receive(bytes)` with what the host wrote and `process(dt)` with the
virtual time that passed; `process` returns the writes to make. Tests and the CLI inject faults through
`ShoeControl` from any thread.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import replace

from firmware_bridge.cards import card_number
from firmware_bridge.device import Identity
from firmware_bridge.errors import UsageError
from firmware_bridge.frames import PROTOCOL_VERSION, raw_frame_bytes
from firmware_bridge.messages import CAP_ALL, CAP_RETURNS, Cleared, FailCode, FrameType, Jam, RestartCause
from firmware_bridge.states import DeviceState
from hardware_sim.shoe.line import ByteFaults, Line, LineFaults
from hardware_sim.shoe.model import PhysicalCard, ShoeDevice, SimTimings


class ShoeSimulator:
    """``scan_returns``: the shoe scans the cards loaded back into its return slot (capability RETURNS); on
    by default, off to stand for a shoe without that scanner. An explicit ``identity`` decides instead."""

    def __init__(self, *, seed: int | None = None, timings: SimTimings | None = None,
                 identity: Identity | None = None, version: int = PROTOCOL_VERSION, scan_returns: bool = True) -> None:
        default = Identity(capabilities=CAP_ALL if scan_returns else CAP_ALL & ~CAP_RETURNS)
        self.device = ShoeDevice(seed=seed, timings=timings, identity=identity or default, version=version)
        self.line = Line(random.Random(None if seed is None else seed + 1))
        self.lock = threading.RLock()
        self.port_present = True
        self.vanish_hook: Callable[[], None] | None = None
        self.reappear_hook: Callable[[], None] | None = None
        self.control = ShoeControl(self)
        self.received_bytes = 0
        self.sent_bytes = 0

    def receive(self, data: bytes) -> None:
        with self.lock:
            self.received_bytes += len(data)
            heard = self.line.inbound(data)
            if heard:
                self.device.endpoint.receive(heard, self.device.now)

    def process(self, dt: float) -> list[bytes]:
        with self.lock:
            self.device.process(dt)
            frames = [(o.type, o.data) for o in self.device.endpoint.take_output()]
            chunks = self.line.outbound(frames, self.device.now)
            self.sent_bytes += sum(map(len, chunks))
            return chunks


class ShoeControl:
    """Every fault the simulator can inject. Thread-safe; each method takes effect at once."""

    def __init__(self, sim: ShoeSimulator) -> None:
        self._sim = sim

    @property
    def device(self) -> ShoeDevice:
        return self._sim.device

    @property
    def faults(self) -> LineFaults:
        return self._sim.line.faults

    # --- the line -----------------------------------------------------------------------------------

    def garble(self, rate: float, *, direction: str = "both", drop_share: float = 0.5) -> None:
        """Flip a bit in, or drop, `rate` of the bytes (drop_share of them dropped)."""
        faults = ByteFaults(drop=rate * drop_share, flip=rate * (1 - drop_share))
        self.set_byte_faults(faults, direction=direction)

    def set_byte_faults(self, faults: ByteFaults, *, direction: str = "both") -> None:
        _check_direction(direction, ("both", "to_device", "to_host"))
        with self._sim.lock:
            if direction in ("both", "to_device"):
                self.faults.to_device = ByteFaults(**vars(faults))
            if direction in ("both", "to_host"):
                self.faults.to_host = ByteFaults(**vars(faults))

    def clean_line(self) -> None:
        with self._sim.lock:
            self._sim.line.faults = LineFaults()

    def junk_burst(self, length: int = 32, *, with_zero: bool = True) -> bytes:
        with self._sim.lock:
            rng = self._sim.line.rng
            junk = bytearray(rng.randrange(1, 256) for _ in range(length))
            if with_zero:
                junk[rng.randrange(length)] = 0
            self._sim.line.injected.append(bytes(junk))
            return bytes(junk)

    def drop_frames(self, count: int = 1, *, direction: str = "to_host", only: FrameType | None = None) -> None:
        _check_direction(direction, ("to_device", "to_host"))
        with self._sim.lock:
            side = self.faults.outgoing if direction == "to_host" else self.faults.incoming
            side.drop += count
            side.only = only

    def duplicate_frames(self, count: int = 1, *, direction: str = "to_host") -> None:
        _check_direction(direction, ("to_device", "to_host"))
        with self._sim.lock:
            (self.faults.outgoing if direction == "to_host" else self.faults.incoming).duplicate += count

    def reorder_frames(self, count: int = 1, *, direction: str = "to_host") -> None:
        _check_direction(direction, ("to_device", "to_host"))
        with self._sim.lock:
            (self.faults.outgoing if direction == "to_host" else self.faults.incoming).reorder += count

    def lose_next_reply(self) -> None:
        """The command runs, but its reply never reaches the host."""
        self.drop_frames(1, only=FrameType.REPLY)

    def delay_replies(self, seconds: float, count: int = 1) -> None:
        """The next `count` replies arrive `seconds` (virtual) late."""
        with self._sim.lock:
            self.faults.outgoing.only = FrameType.REPLY
            self.faults.outgoing.delay = seconds
            self.faults.outgoing.delay_count = count

    def split_writes(self, on: bool = True) -> None:
        with self._sim.lock:
            self.faults.split_writes = on

    def merge_writes(self, on: bool = True) -> None:
        with self._sim.lock:
            self.faults.merge_writes = on

    def silent(self, on: bool = True) -> None:
        with self._sim.lock:
            self.faults.silent = on

    def send_raw(self, data: bytes) -> None:
        with self._sim.lock:
            self._sim.line.injected.append(data)

    def send_bad_length_frame(self) -> None:
        """A frame with a good CRC whose length field disagrees with its payload."""
        with self._sim.lock:
            ep = self.device.endpoint
            self.send_raw(raw_frame_bytes(version=ep.version, ftype=FrameType.PONG, session=ep.session, seq=0, ack=0,
                                          corr=0, length=40, payload=b"\x02\x00\x00\x00\x01"))

    def send_unknown_type_frame(self) -> None:
        """A frame with a good CRC and a frame type nobody defined."""
        with self._sim.lock:
            ep = self.device.endpoint
            self.send_raw(raw_frame_bytes(version=ep.version, ftype=0x7E, session=ep.session, seq=0, ack=0, corr=0,
                                          length=3, payload=b"abc"))

    def set_version(self, version: int) -> None:
        """The device speaks another protocol version from now on."""
        with self._sim.lock:
            self.device.version = version
            self.device.endpoint.version = version

    # --- the device ---------------------------------------------------------------------------------

    def busy_for(self, seconds: float) -> None:
        with self._sim.lock:
            self.device.plans.busy_until = self.device.now + seconds

    def slow(self, factor: float) -> None:
        with self._sim.lock:
            self.device.plans.slow = factor

    def reboot(self) -> None:
        with self._sim.lock:
            self.device.restart(RestartCause.REBOOT)

    def power_loss(self) -> None:
        with self._sim.lock:
            self.device.restart(RestartCause.POWER_LOSS)

    def jam_next(self, *, recovers: bool) -> None:
        with self._sim.lock:
            self.device.plans.jams.append(recovers)

    def open_door(self) -> None:
        with self._sim.lock:
            self.device.open_door()

    def close_door(self) -> None:
        with self._sim.lock:
            self.device.close_door()

    def load_deck(self, cards: list[PhysicalCard]) -> None:
        with self._sim.lock:
            self.device.load(cards)

    def return_cards(self, codes: list[str]) -> None:
        """The dealer loads these cards ("Kh", ...) back into the return slot, in this order. Each is taken from
        the cards dealt; a code no dealt card has stands for a card brought in from elsewhere."""
        with self._sim.lock:
            device = self.device
            out = list(device.out)
            cards: list[PhysicalCard] = []
            for code in codes:
                try:
                    face = card_number(code)
                except UsageError as exc:
                    raise ValueError(str(exc)) from None
                match = next((c for c in out if c.face == face), None)
                if match is not None:
                    out.remove(match)
                cards.append(match if match is not None else PhysicalCard(face=face, foreign=True))
            device.return_cards(cards)

    def scan_returns(self, on: bool = True) -> None:
        """Switch the return slot's scanner (capability RETURNS) on or off; a host learns it at its next HELLO."""
        with self._sim.lock:
            device = self.device
            caps = device.identity.capabilities
            device.identity = replace(device.identity, capabilities=caps | CAP_RETURNS if on else caps & ~CAP_RETURNS)
            device.endpoint.identity = device.identity
            if not on:
                device.returned.extend(device.slot)
                device.slot.clear()

    def flood(self, pairs: int) -> None:
        """A chattering card-path sensor: `pairs` JAM-and-CLEARED pairs as fast as the device can log them."""
        with self._sim.lock:
            for _ in range(pairs):
                self.device.endpoint.emit(Jam(number=0, recovering=True))
                self.device.endpoint.emit(Cleared(number=0, fault=FailCode.JAM))

    def vanish(self) -> None:
        """The port disappears (USB adapter pulled / TCP server gone)."""
        with self._sim.lock:
            self._sim.port_present = False
        if self._sim.vanish_hook is not None:
            self._sim.vanish_hook()

    def reappear(self) -> None:
        with self._sim.lock:
            self._sim.port_present = True
        if self._sim.reappear_hook is not None:
            self._sim.reappear_hook()

    # --- what the tests check -----------------------------------------------------------------------

    def state(self) -> DeviceState:
        with self._sim.lock:
            return self.device.state

    def cards_out(self) -> list[PhysicalCard]:
        with self._sim.lock:
            return list(self.device.out)

    def cards_in_shoe(self) -> int:
        with self._sim.lock:
            return len(self.device.shoe)

    def cards_returned(self) -> list[PhysicalCard]:
        """The return bin, in the order the cards went in (already dealt, so public to the simulator's user)."""
        with self._sim.lock:
            return list(self.device.returned)


def _check_direction(direction: str, allowed: tuple[str, ...]) -> None:
    # A misspelt direction would otherwise inject nothing, and a test would pass without its fault.
    if direction not in allowed:
        raise ValueError(f"direction must be {' or '.join(allowed)}, not {direction!r}")
