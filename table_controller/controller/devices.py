"""The devices as the controller sees them: a shoe that shuffles, verifies and deals, and a camera.

Each optional capability of a device is its own ``Protocol`` (a shoe that keeps a log, a camera that keeps
its frames, reads a hand laid face up, or can be asked to look again): the controller asks
``isinstance(device, Capability)`` and a device without it is served without that feature.

:class:`ShoePort` is what the controller calls; ``table_controller.controller.shoe_link`` adapts the
firmware bridge's driver (a real shoe on a serial port, or the simulator on a pty) to it.
:class:`VirtualShoe` is an in-process deck for running the engine with no shoe at all (tests, and the
engine-only demo): shuffled by the OS CSPRNG, or by a seeded generator when a seed is given.

A shoe without a card reader deals cards whose faces it cannot read: ``DealtCard.code`` is ``"??"``.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from table_controller.controller.errors import DeviceError
from table_controller.engine.cards import FULL_DECK, card_str

__all__ = [
    "CameraPort",
    "DealtCard",
    "DeckCheck",
    "DeviceStatus",
    "KeepsFrames",
    "ReadsShownHands",
    "Rechecks",
    "ShoeLog",
    "ShoePort",
    "VirtualShoe",
]

UNKNOWN = "??"


@dataclass(frozen=True, kw_only=True)
class DealtCard:
    code: str  # "As", or "??" when the shoe has no reader or could not read the face
    left: int


@dataclass(frozen=True, kw_only=True)
class DeckCheck:
    ok: bool
    count: int
    missing: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    mark: int | None = None  # the shoe's event number for this check (a shoe that keeps a log), else None

    def describe(self) -> str:
        if self.ok:
            return f"deck verified: {self.count} cards, none missing, none twice"
        parts = [f"{self.count} cards"]
        if self.missing:
            parts.append("missing " + " ".join(self.missing))
        if self.duplicates:
            parts.append("twice " + " ".join(self.duplicates))
        return "deck FAILED verification: " + ", ".join(parts)


@dataclass(frozen=True, kw_only=True)
class DeviceStatus:
    state: str  # "ready", "dealing", "fault", "offline", ...
    detail: str = ""
    cards_left: int | None = None


class ShoePort(Protocol):
    has_reader: bool

    async def shuffle(self) -> None: ...

    async def verify(self) -> DeckCheck: ...

    async def deal(self) -> DealtCard: ...

    async def burn(self) -> DealtCard: ...

    def status(self) -> DeviceStatus: ...

    async def close(self) -> None: ...


@runtime_checkable
class ShoeLog(Protocol):
    """A shoe that keeps a log of its events (a real shoe, the simulator in its own process)."""

    async def dealt_since(self, mark: int) -> list[DealtCard]:
        """The cards dealt since the deck check numbered ``mark``, in order."""
        ...


class CameraPort(Protocol):
    """Every camera: its state ("live", "lost", "starting"...) and a line of detail."""

    def status(self) -> tuple[str, str]: ...


@runtime_checkable
class KeepsFrames(Protocol):
    """A camera that keeps its latest frame (JPEG) and what it found in it, for the floor's screens."""

    def frame_jpeg(self) -> bytes | None: ...

    def detections(self) -> list[dict[str, Any]]: ...


@runtime_checkable
class ReadsShownHands(Protocol):
    """A camera that reads a hand laid face up at a seat (the showdown on a shoe without a reader)."""

    def shown_cards(self, seat: int, hand: int) -> tuple[str, ...] | None: ...


@runtime_checkable
class Rechecks(Protocol):
    """A camera that can be told, after the dealer's Retry, to count a frame still missing as a new loss."""

    def recheck(self) -> None: ...


class VirtualShoe:
    """A deck held in memory, for running without a shoe. Deals from the top; ``burn`` is a deal face down."""

    def __init__(self, *, seed: int | None = None, has_reader: bool = True) -> None:
        self.has_reader = has_reader
        self._rng: random.Random = random.Random(seed) if seed is not None else secrets.SystemRandom()
        self._stub: list[str] = []
        self.dealt: list[str] = []  # the true faces, in order (what a simulator knows; tests read it)
        self._fault: str | None = None
        self.shuffles = 0

    def inject_fault(self, detail: str | None) -> None:
        """Tests: make the next operations fail as a jammed shoe would (None clears it)."""
        self._fault = detail

    def _check(self) -> None:
        if self._fault is not None:
            raise DeviceError(f"shoe fault: {self._fault}", code="shoe_fault")

    async def shuffle(self) -> None:
        self._check()
        self._stub = [card_str(c) for c in FULL_DECK]
        self._rng.shuffle(self._stub)
        self.dealt = []
        self.shuffles += 1

    async def verify(self) -> DeckCheck:
        self._check()
        seen = set(self._stub)
        missing = tuple(card_str(c) for c in FULL_DECK if card_str(c) not in seen)
        dups = tuple(sorted({c for c in self._stub if self._stub.count(c) > 1}))
        return DeckCheck(ok=not missing and not dups and len(self._stub) == 52, count=len(self._stub),
                         missing=missing, duplicates=dups)

    async def deal(self) -> DealtCard:
        self._check()
        if not self._stub:
            raise DeviceError("shoe is empty", code="shoe_empty")
        code = self._stub.pop(0)
        self.dealt.append(code)
        return DealtCard(code=code if self.has_reader else UNKNOWN, left=len(self._stub))

    async def burn(self) -> DealtCard:
        return await self.deal()

    def status(self) -> DeviceStatus:
        if self._fault is not None:
            return DeviceStatus(state="fault", detail=self._fault, cards_left=len(self._stub))
        return DeviceStatus(state="ready", detail="virtual shoe (no device)", cards_left=len(self._stub))

    async def close(self) -> None:
        return None
