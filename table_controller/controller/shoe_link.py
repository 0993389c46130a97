"""The real shoe behind the controller's :class:`ShoePort`: the firmware bridge's ``ShoeClient``.

The same class drives a shoe on a serial port (``--shoe /dev/ttyUSB0``, any pyserial URL such as
``rfc2217://host:port`` or ``socket://host:port``) and the shoe simulator on a pty or TCP port: the
controller cannot tell them apart. Every bridge error becomes a :class:`DeviceError` (the hand pauses and
the dealer is prompted); a latched fault (a jam, the door) is cleared before the next operation, when the
dealer taps Retry after fixing it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

from firmware_bridge.cards import card_code
from firmware_bridge.driver import ShoeClient
from firmware_bridge.errors import BridgeError, CommandRefusedError, DeviceFaultError, LinkDownError
from firmware_bridge.messages import FailCode
from table_controller.controller.devices import UNKNOWN, DealtCard, DeckCheck, DeviceStatus
from table_controller.controller.errors import DeviceError

__all__ = ["ShoeLink"]

T = TypeVar("T")


class ShoeLink:
    def __init__(self, client: ShoeClient, *, has_reader: bool = True, label: str = "") -> None:
        self.client = client
        self.has_reader = has_reader
        self.label = label
        self._state = "offline"
        self._detail = "not connected"
        self._left: int | None = None
        self._fault_latched = False

    async def connect(self) -> None:
        info = await self._guard(self.client.connect)
        self._state = "ready"
        self._detail = f"{info.model} {info.serial}, firmware {info.firmware}" + (f" on {self.label}" if self.label
                                                                                   else "")

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
        return DeckCheck(ok=result.ok, count=result.count,
                         missing=tuple(card_code(n) for n in sorted(result.missing)),
                         duplicates=tuple(card_code(n) for n in sorted(result.duplicate)))

    async def _card(self, call: Callable[[], Awaitable[object]]) -> DealtCard:
        dealt = await self._guard(call)
        card = getattr(dealt, "card", None)
        left = int(getattr(dealt, "left", 0))
        self._left = left
        return DealtCard(code=card if (card is not None and self.has_reader) else UNKNOWN, left=left)

    async def deal(self) -> DealtCard:
        return await self._card(self.client.deal_one)

    async def burn(self) -> DealtCard:
        return await self._card(self.client.burn)

    def status(self) -> DeviceStatus:
        if self._state == "ready" and not self.client.link_up:
            return DeviceStatus(state="offline", detail="link down, reconnecting", cards_left=self._left)
        return DeviceStatus(state=self._state, detail=self._detail, cards_left=self._left)

    async def close(self) -> None:
        with contextlib.suppress(BridgeError):
            await self.client.close()
