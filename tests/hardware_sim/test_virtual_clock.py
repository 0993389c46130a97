"""The virtual-clock loop: time moves only to the next timer, deadlines fire at their virtual instant, real
wake-ups from threads still arrive, and the shoe simulator on the in-memory cable lives in that time."""

from __future__ import annotations

import asyncio
import threading

import pytest

from firmware_bridge.driver import ClientConfig, ShoeClient
from hardware_sim.shoe import MemoryLink, ShoeSimulator, SimTimings
from hardware_sim.virtual_clock import run_virtual


def test_sleeps_move_the_clock_by_exactly_their_length() -> None:
    async def main() -> list[float]:
        loop = asyncio.get_running_loop()
        seen = [loop.time()]
        await asyncio.sleep(3600)
        seen.append(loop.time())
        await asyncio.gather(asyncio.sleep(2), asyncio.sleep(5))
        seen.append(loop.time())
        return seen

    assert run_virtual(main(), timeout=4000.0) == [0.0, 3600.0, 3605.0]


def test_a_deadline_fires_at_its_virtual_instant() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.Event().wait(), 5.0)
        return loop.time()

    assert run_virtual(main()) == pytest.approx(5.0)


def test_the_run_itself_is_bounded_in_virtual_time() -> None:
    with pytest.raises(TimeoutError):
        run_virtual(asyncio.Event().wait(), timeout=30.0)


def test_with_no_timer_the_loop_waits_for_a_thread_to_wake_it() -> None:
    async def main() -> tuple[str, float]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[str] = loop.create_future()
        threading.Thread(target=lambda: loop.call_soon_threadsafe(done.set_result, "woken")).start()
        return await done, loop.time()

    assert run_virtual(main()) == ("woken", 0.0)


def test_the_in_memory_shoe_advances_on_the_loops_clock() -> None:
    sim = ShoeSimulator(seed=5, timings=SimTimings.fast())
    config = ClientConfig(heartbeat_interval=0.05, link_down_after=0.3)

    async def main() -> tuple[float, float, str | None]:
        loop = asyncio.get_running_loop()
        client = ShoeClient(lambda: MemoryLink(sim), config=config)
        await client.connect()
        try:
            await client.shuffle()
            await asyncio.sleep(10.0)  # ten virtual seconds of heartbeats: the link stays up
            card = (await client.deal_one()).card
        finally:
            await client.close()
        return loop.time(), sim.device.now, card

    host_time, shoe_time, card = run_virtual(main())
    assert host_time > 10.0 and shoe_time == pytest.approx(host_time, abs=0.01)
    assert card is not None and sim.control.cards_in_shoe() == 51
