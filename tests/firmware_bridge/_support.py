"""Shared helpers: a client wired to a simulator, fast timings, and the exactly-once checks.

A client on the in-memory cable runs on a virtual clock (`hardware_sim.virtual_clock`): the simulator is
advanced by the loop's clock, which jumps to the next timer when nothing is ready, so deadlines, heartbeats
and the tests' own waits take no real time. A client on a pty, TCP or ser2net waits on real I/O and runs on
the real clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from firmware_bridge.driver import ClientConfig, ShoeClient
from firmware_bridge.messages import CardDealt, ShoeEvent
from firmware_bridge.transport import ByteLink
from hardware_sim.shoe import MemoryLink, ShoeSimulator, SimTimings
from hardware_sim.virtual_clock import run_virtual

T = TypeVar("T")

FAST = ClientConfig(turnaround=0.01, call_deadline=3.0, deal_deadline=5.0, shuffle_deadline=5.0,
                    verify_deadline=5.0, connect_deadline=3.0, heartbeat_interval=0.05, link_down_after=0.3,
                    reconnect_interval=0.02, busy_backoff=0.005)


def run(coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """Run a test on the in-memory cable on the virtual clock; `timeout` is virtual seconds."""
    return run_virtual(coro, timeout=timeout)


def run_real(coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """Run a test that talks over real I/O (a pty, a socket) on the real clock."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


def new_sim(seed: int = 7) -> ShoeSimulator:
    return ShoeSimulator(seed=seed, timings=SimTimings.fast())


def memory_client(sim: ShoeSimulator, config: ClientConfig = FAST) -> ShoeClient:
    def factory() -> ByteLink:
        return MemoryLink(sim)

    return ShoeClient(factory, config=config, first_cmd_id=1000)


async def with_client(sim: ShoeSimulator, body: Callable[[ShoeClient], Awaitable[T]],
                      config: ClientConfig = FAST) -> T:
    client = memory_client(sim, config)
    await client.connect()
    try:
        return await body(client)
    finally:
        await client.close()


def assert_exactly_once(sim: ShoeSimulator, host_cards: list[str | None], events: list[ShoeEvent]) -> None:
    """What the host got is exactly what the shoe dealt, in order; no card or event lost or repeated."""
    from firmware_bridge.cards import card_code

    device = sim.device
    shoe_cards = [None if c.scan() is None else card_code(c.scan() or 0) for c in device.out]
    assert host_cards == shoe_cards
    assert device.conserved()
    numbers = [e.number for e in events]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))) if numbers else True
    dealt_events = [e for e in events if isinstance(e, CardDealt)]
    assert len({e.number for e in dealt_events}) == len(dealt_events)


async def settle(client: ShoeClient, sim: ShoeSimulator, timeout: float = 3.0) -> list[ShoeEvent]:
    """Wait until the host has every event the device logged; return the events drained."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        with sim.lock:
            last = sim.device.memory.last_event
        if client._ep.delivered >= last:
            break
        await asyncio.sleep(0.005)
    return client.drain_events()


@dataclass
class Session:
    """One connected client and what it was told: the cards its deals returned and the events it drained."""

    sim: ShoeSimulator
    client: ShoeClient
    cards: list[str | None] = field(default_factory=list)
    events: list[ShoeEvent] = field(default_factory=list)

    async def deal(self, n: int = 1) -> list[str | None]:
        got = [(await self.client.deal_one()).card for _ in range(n)]
        self.cards += got
        return got

    async def settle(self, timeout: float = 3.0) -> list[ShoeEvent]:
        got = await settle(self.client, self.sim, timeout)
        self.events += got
        return got


def session(sim: ShoeSimulator, body: Callable[[Session], Awaitable[object]], *, config: ClientConfig = FAST,
            client: ShoeClient | None = None, shuffle: bool = True, settle_timeout: float = 3.0,
            timeout: float = 60.0) -> Session:
    """The scaffold of a fault test: connect (and shuffle), run `body`, wait for every event the shoe logged,
    close, and check exactly-once over the whole session. `client` replaces the in-memory one (pty, TCP), and
    the session then runs on the real clock."""

    async def whole() -> Session:
        s = Session(sim=sim, client=client or memory_client(sim, config))
        await s.client.connect()
        try:
            if shuffle:
                await s.client.shuffle()
            await body(s)
            await s.settle(settle_timeout)
        finally:
            await s.client.close()
        assert_exactly_once(sim, s.cards, s.events)
        return s

    return (run(whole(), timeout) if client is None else run_real(whole(), timeout))


def later(seconds: float, action: Callable[[], object]) -> asyncio.Task[None]:
    """Run `action` after `seconds`, while the test goes on (a fault that ends, or starts, mid-command)."""

    async def wait_then_act() -> None:
        await asyncio.sleep(seconds)
        action()

    return asyncio.create_task(wait_then_act())
