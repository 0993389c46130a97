"""An in-memory cable between a `ShoeClient` and a `ShoeSimulator`, in one asyncio loop, no threads.

For tests that push many round trips through a noisy line: bytes reach the simulator the moment the host
writes them and its answer is collected right away; a background task advances virtual time.
"""

from __future__ import annotations

import asyncio
import contextlib

from firmware_bridge.errors import PortError
from hardware_sim.shoe.simulator import ShoeSimulator


class MemoryLink:
    """A `firmware_bridge.transport.ByteLink` wired straight to a simulator."""

    def __init__(self, sim: ShoeSimulator, *, speed: float = 1.0, tick: float = 0.001) -> None:
        self.sim = sim
        self.speed = speed
        self.tick = tick
        self._queue: asyncio.Queue[bytes | PortError] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._last = 0.0

    async def open(self) -> None:
        if not self.sim.port_present:
            raise PortError("memory port: the device is not there")
        loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        self._last = loop.time()
        self._task = loop.create_task(self._run())

    def _advance(self) -> None:
        # The loop's clock, not the wall's: on a virtual-clock loop (hardware_sim.virtual_clock) the shoe
        # lives in the same virtual time as the host's deadlines.
        now = asyncio.get_running_loop().time()
        for chunk in self.sim.process((now - self._last) * self.speed):
            self._queue.put_nowait(chunk)
        self._last = now

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            if not self.sim.port_present:
                self._queue.put_nowait(PortError("memory port vanished"))
                return
            self._advance()

    async def read(self) -> bytes:
        item = await self._queue.get()
        if isinstance(item, PortError):
            raise item
        return item

    async def write(self, data: bytes) -> None:
        if not self.sim.port_present:
            raise PortError("memory port vanished")
        self.sim.receive(data)
        self._advance()

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
