"""The real shoe behind the controller's :class:`ShoePort`: the firmware bridge's ``ShoeClient``.

The same class drives a shoe on a serial port (``--shoe /dev/ttyUSB0``, any pyserial URL such as
``rfc2217://host:port`` or ``socket://host:port``) and the shoe simulator on a pty or TCP port: the
controller cannot tell them apart. Every bridge error becomes a :class:`DeviceError` (the hand pauses and
the dealer is prompted); a latched fault (a jam, the door) is cleared before the next operation, when the
dealer taps Retry after fixing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable
from typing import TypeVar

from firmware_bridge.cards import card_code
from firmware_bridge.driver import DealtCard as ShoeDealt
from firmware_bridge.driver import ShoeClient
from firmware_bridge.errors import BridgeError, CommandRefusedError, DeviceFaultError, LinkDownError
from firmware_bridge.messages import CardDealt, CardReturned, DeckResult, FailCode, PowerRestored, ShuffleDone
from firmware_bridge.states import BUSY_STATES, DeviceState
from table_controller.controller.devices import UNKNOWN, DealtCard, DeckCheck, DeviceStatus
from table_controller.controller.errors import DeviceError

__all__ = ["ShoeLink"]

T = TypeVar("T")
# Told of each card the shoe's return slot read: its code (None unread) and the shoe's event number.
ReturnListener = Callable[[str | None, int], Awaitable[None]]


class ShoeLink:
    def __init__(self, client: ShoeClient, *, has_reader: bool = True, label: str = "") -> None:
        self.client = client
        self.has_reader = has_reader
        self.label = label
        self._state = "offline"
        self._detail = "not connected"
        self._left: int | None = None
        self._fault_latched = False
        # The true faces dealt since the last deck check, as the shoe's scanner read them ("??" unread),
        # kept even when ``has_reader`` is off: simulated players at a simulated shoe see their own cards.
        self.faces: list[str] = []
        self._events: asyncio.Task[None] | None = None
        self.listener_errors: list[str] = []

    @property
    def scans_returns(self) -> bool:
        """The shoe reads the cards loaded back into its return slot (capability RETURNS)."""
        info = self.client.info
        return info is not None and info.scans_returns

    def listen_returns(self, listener: ReturnListener) -> None:
        """Pass every card the return slot reads to ``listener``, in the shoe's order, from now on (the events
        that came before are in the client's queue: none is lost). A shoe without the scanner sends none."""
        if self._events is None:
            self._events = asyncio.get_running_loop().create_task(self._pump(listener))

    async def _pump(self, listener: ReturnListener) -> None:
        async for event in self.client.events():
            if not isinstance(event, CardReturned):
                continue
            try:
                await listener(event.code, event.number)
            except Exception as exc:  # one bad card must not stop the next being heard; the error is kept
                self.listener_errors.append(f"{type(exc).__name__}: {exc}")
                del self.listener_errors[:-20]

    async def connect(self) -> None:
        info = await self._guard(self.client.connect)
        self._state = "ready"
        self._detail = (f"{info.model} {info.serial}, firmware {info.firmware}"
                        + (", scans returned cards" if info.scans_returns else "")
                        + (f" on {self.label}" if self.label else ""))

    async def _guard(self, call: Callable[[], Awaitable[T]]) -> T:
        try:
            if self._fault_latched:
                with contextlib.suppress(BridgeError):
                    await self.client.clear_fault()
                self._fault_latched = False
            result = await call()
        except DeviceFaultError as exc:
            self._fault_latched = True
            self._state, self._detail = "fault", str(exc)
            raise DeviceError(f"shoe fault: {exc}", code="shoe_fault") from exc
        except CommandRefusedError as exc:
            self._state, self._detail = "fault", str(exc)
            if exc.fail_code in (FailCode.DOOR_OPEN, FailCode.FAULT_LATCHED, FailCode.JAM, FailCode.DOOR):
                # Refused while a fault is latched (the door was open): once the dealer fixes it, the next
                # operation must clear the fault first or the shoe keeps refusing.
                self._fault_latched = True
                raise DeviceError(f"shoe fault: {exc}", code="shoe_fault") from exc
            if exc.fail_code == FailCode.NOT_SHUFFLED:
                # The shoe gathered its cards back (a cleared jam, a reboot): the cards dealt are gone from
                # its order, so this hand cannot go on from the shoe.
                raise DeviceError("the shoe lost its place in the deck and must shuffle again: the hand must be "
                                  "void", code="shoe_needs_shuffle") from exc
            raise DeviceError(f"shoe refused: {exc}", code="shoe_refused") from exc
        except LinkDownError as exc:
            self._state, self._detail = "offline", str(exc)
            raise DeviceError(f"shoe link down: {exc}", code="shoe_link_down") from exc
        except BridgeError as exc:
            self._state, self._detail = "fault", str(exc)
            raise DeviceError(f"shoe error: {exc}", code="shoe_error") from exc
        if self._state != "ready":
            self._state = "ready"
            self._detail = "ready" + (f" on {self.label}" if self.label else "")
        return result

    async def shuffle(self) -> None:
        await self._guard(self.client.shuffle)

    async def verify(self) -> DeckCheck:
        result = await self._guard(self.client.verify_deck)
        self._left = result.count
        self.faces = []
        return DeckCheck(ok=result.ok, count=result.count,
                         missing=tuple(card_code(n) for n in sorted(result.missing)),
                         duplicates=tuple(card_code(n) for n in sorted(result.duplicate)),
                         mark=result.number)

    async def _card(self, call: Callable[[], Awaitable[ShoeDealt]]) -> DealtCard:
        dealt = await self._guard(call)
        card, left = dealt.card, dealt.left
        self._left = left
        self.faces.append(card if card is not None else UNKNOWN)
        return DealtCard(code=card if (card is not None and self.has_reader) else UNKNOWN, left=left)

    async def deal(self) -> DealtCard:
        return await self._card(self.client.deal_one)

    async def burn(self) -> DealtCard:
        return await self._card(self.client.burn)

    async def dealt_since(self, mark: int, *, settle_s: float = 10.0) -> list[DealtCard]:
        """The cards the shoe dealt after its event ``mark`` (a deck check), in order, from its log.

        Waits (up to ``settle_s``) for an operation still running to end, so a deal in flight is counted.
        Raises :class:`DeviceError` with code ``shoe_needs_shuffle`` when the shoe shuffled, checked the
        deck again or lost an operation to a restart since ``mark``, or no longer holds that part of its log
        (this deck is gone), and the usual device codes when the link fails."""
        loop = asyncio.get_running_loop()
        end = loop.time() + settle_s
        while True:
            status = await self._guard(self.client.status)
            if status.state not in BUSY_STATES or loop.time() >= end:
                break
            await asyncio.sleep(0.05)
        last = status.last_event
        events: list[object] = []
        first = mark + 1
        while first <= last:
            page = await self._guard(functools.partial(self.client.get_log, first, 16))
            if not page:
                break
            if page[0].number != first:
                raise DeviceError(f"the shoe's log no longer holds event {first}: the cards dealt since the deck "
                                  "check cannot be accounted for", code="shoe_needs_shuffle")
            events.extend(page)
            first = page[-1].number + 1
        if first <= last:
            raise DeviceError(f"the shoe's log ends at event {first - 1}, not {last}", code="shoe_error")
        cards: list[DealtCard] = []
        faces: list[str] = []
        for event in events:
            if isinstance(event, ShuffleDone | DeckResult):
                raise DeviceError("the shoe shuffled again since this hand's deck check: the hand must be void",
                                  code="shoe_needs_shuffle")
            if isinstance(event, PowerRestored) and event.cmd and self._lost_deck(event):
                raise DeviceError("the shoe restarted while shuffling: the hand must be void",
                                  code="shoe_needs_shuffle")
            if isinstance(event, CardDealt):
                face = event.code or UNKNOWN
                faces.append(face)
                cards.append(DealtCard(code=face if self.has_reader else UNKNOWN, left=event.left))
        self.faces = faces
        if cards:
            self._left = cards[-1].left
        return cards

    @staticmethod
    def _lost_deck(event: PowerRestored) -> bool:
        return event.was in (DeviceState.SHUFFLING, DeviceState.VERIFYING)

    def status(self) -> DeviceStatus:
        if self._state == "ready" and not self.client.link_up:
            return DeviceStatus(state="offline", detail="link down, reconnecting", cards_left=self._left)
        return DeviceStatus(state=self._state, detail=self._detail, cards_left=self._left)

    async def close(self) -> None:
        with contextlib.suppress(BridgeError):
            await self.client.close()
        if self._events is not None:
            self._events.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._events
