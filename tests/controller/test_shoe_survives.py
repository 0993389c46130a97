"""A shoe that keeps its state across a controller crash (a real shoe, or the simulator in its own process):
after the restart the controller reads the shoe's log and takes in the cards dealt while it was down or in
flight (no card dealt twice, none lost); a shoe that shuffled since, or disagrees with the journal, stops
the hand. And the `cardtable run`/`demo` wiring: the simulator runs as a process of its own, re-attached
on the next start, and a fresh one (the old one died) voids the hand in progress and says why."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.cards import card_code
from firmware_bridge.driver import ShoeClient
from hardware_sim.shoe import PtyShoe, ShoeSimulator, SimTimings, start_pty
from table_controller.controller.demo import seat_players
from table_controller.controller.devices import DealtCard, DeckCheck, DeviceStatus
from table_controller.controller.journal_port import MemoryJournal, PortEntry
from table_controller.controller.players import SimPlayers
from table_controller.controller.runtime import close_table, open_table
from table_controller.controller.shoe_link import ShoeLink
from table_controller.controller.sim_process import STATE_NAME, process_alive
from table_controller.controller.table import TableController
from table_controller.service.settings import TableSettings


class Crash(BaseException):
    """kill -9, as far as the controller can tell: nothing after this point runs."""


class CrashingShoe:
    """A ShoeLink whose next deal reaches the shoe, and then the controller dies before it hears back."""

    def __init__(self, link: ShoeLink) -> None:
        self.link = link
        self.has_reader = link.has_reader
        self.crash_on_deal = False

    async def shuffle(self) -> None:
        await self.link.shuffle()

    async def verify(self) -> DeckCheck:
        return await self.link.verify()

    async def deal(self) -> DealtCard:
        card = await self.link.deal()
        if self.crash_on_deal:
            raise Crash
        return card

    async def burn(self) -> DealtCard:
        return await self.link.burn()

    def status(self) -> DeviceStatus:
        return self.link.status()

    async def close(self) -> None:
        await self.link.close()


@pytest.fixture
def sim() -> Iterator[PtyShoe]:
    running = start_pty(ShoeSimulator(seed=5, timings=SimTimings.fast()), speed=1.0)
    yield running
    running.stop()


async def _link(sim: PtyShoe) -> ShoeLink:
    link = ShoeLink(ShoeClient(sim.url))
    await link.connect()
    return link


async def _to_the_draw(table: TableController) -> int:
    """Play (simulated players) until a seat is to draw; returns that seat."""
    players = SimPlayers(table, rng=random.Random(3))
    for _ in range(2000):
        if table.hand is None:
            await table.start_hand()
            continue
        draw = table.full_view().draw
        if draw is not None:
            return draw.seat
        await players.step()
    raise AssertionError("no draw reached")


def _journaled_cards(journal: MemoryJournal, hand: int) -> list[str]:
    out: list[str] = []
    for e in journal.entries():
        if e.hand == hand and e.kind == "deal":
            out += e.data["codes"]
        elif e.hand == hand and e.kind == "card":
            out.append(e.data["code"])
    return out


async def _first_controller(sim: PtyShoe, players: int, shoe: Any = None) -> tuple[TableController, MemoryJournal]:
    """The controller that is about to crash: its journal, `players` seated, on `shoe` (a link to `sim`)."""
    journal = MemoryJournal()
    first = TableController(TableSettings(pace_s=0), shoe=shoe or await _link(sim), journal=journal)
    await seat_players(first, players)
    return first, journal


async def _restarted(sim: PtyShoe, journal: MemoryJournal) -> TableController:
    """The next controller on the same journal and the same shoe: recovered, then resumed."""
    second = TableController(TableSettings(pace_s=0), shoe=await _link(sim), journal=journal)
    second.recover()
    await second.resume()
    return second


async def _a_card_in_flight_at_the_crash_is_taken_from_the_shoe_log(sim: PtyShoe) -> None:
    shoe = CrashingShoe(await _link(sim))
    first, journal = await _first_controller(sim, 3, shoe)
    seat = await _to_the_draw(first)
    hole = first.hand.hole(seat) if first.hand is not None else ()
    shoe.crash_on_deal = True
    with pytest.raises(Crash):
        await first.draw(seat, discard=(hole[0],))  # burn, then the deal: dealt by the shoe, never journaled
    await shoe.close()
    hand = first.hand_no
    out = [card_code(c.face) for c in sim.control.cards_out()]
    assert len(out) == len(_journaled_cards(journal, hand)) + 1  # the shoe dealt one card the journal lacks

    second = await _restarted(sim, journal)
    assert second.hand is not None and not second.paused and not second.halted
    assert out[-1] in second.hand.hole(seat) and hole[0] not in second.hand.hole(seat)
    assert _journaled_cards(journal, hand) == out  # every card the shoe dealt, once, in its order
    assert [e for e in journal.entries() if e.data.get("from_shoe_log")]
    # The hand plays on to its end on the same shoe; chips are conserved.
    players = SimPlayers(second, rng=random.Random(4))
    for _ in range(400):
        if second.hand is None:
            break
        await players.step()
    assert second.history()[-1].hand == hand and second.history()[-1].status != "void"
    second.check_chips()
    assert len({*_journaled_cards(journal, hand)}) == len(_journaled_cards(journal, hand))
    await second.shoe.close()


async def _a_deal_cut_short_by_the_crash_is_completed_not_voided(sim: PtyShoe) -> None:
    shoe = CrashingShoe(await _link(sim))
    first, journal = await _first_controller(sim, 4, shoe)
    shoe.crash_on_deal = True  # the first card of the deal leaves the shoe; nothing of the deal is journaled
    with pytest.raises(Crash):
        await first.start_hand()
    await shoe.close()
    second = await _restarted(sim, journal)
    assert second.hand is not None and len(second.hand.seat_info()) == 4
    assert _journaled_cards(journal, second.hand_no) == [card_code(c.face) for c in sim.control.cards_out()]
    assert len(sim.control.cards_out()) == 20
    await second.shoe.close()


async def _a_shoe_that_shuffled_since_the_deck_check_asks_for_a_void(sim: PtyShoe) -> None:
    first, journal = await _first_controller(sim, 3)
    await first.start_hand()
    assert first.hand is not None
    await first.shoe.shuffle()  # someone shuffled the shoe while the controller was down
    await first.shoe.close()
    second = await _restarted(sim, journal)
    prompts = second.full_view().prompts
    assert second.paused and [p.options for p in prompts] == [("void",)]
    assert "shuffle" in prompts[0].message
    await second.answer_prompt(prompts[0].id, "void")
    assert second.history()[-1].status == "void"
    second.check_chips()
    await second.shoe.close()


async def _a_shoe_that_disagrees_with_the_journal_halts_the_table(sim: PtyShoe) -> None:
    first, journal = await _first_controller(sim, 3)
    await first.start_hand()
    await first.shoe.close()
    # The journal's deal names a card the shoe never dealt (a substituted card).
    for k, e in enumerate(journal.items):
        if e.kind == "deal":
            codes = list(e.data["codes"])
            codes[0] = next(c for c in ("As", "Ks", "Qs", "Js") if c not in codes)
            journal.items[k] = PortEntry(seq=e.seq, kind=e.kind, data={"codes": codes}, hand=e.hand)
    second = await _restarted(sim, journal)
    assert second.halted
    assert any(a.kind == "shoe_mismatch" for a in second.full_view().alerts)
    await second.shoe.close()


def _run(case: Coroutine[Any, Any, None]) -> None:
    asyncio.run(case)


def _settings(data: Path) -> TableSettings:
    return TableSettings(pace_s=0, broadcast_delay_s=0, data=data)


async def _run_wiring_reattaches_to_the_simulator_process_or_voids_with_a_fresh_one(tmp_path: Path) -> None:
    table = await open_table(_settings(tmp_path), seed=9, fast=True, camera=False, sim_process=True)
    try:
        assert table.sim_process is not None and table.sim_process.fresh and table.sim_process.pid != os.getpid()
        pid = table.sim_process.pid
        await seat_players(table.controller, 3)
        await table.controller.start_hand()
        hand = table.controller.hand_no
        assert table.controller.hand is not None
    finally:
        # The controller dies without closing the simulator (the process would be killed).
        await table.shoe.close()
        table.journal.close()
    assert process_alive(pid)

    again = await open_table(_settings(tmp_path), seed=9, fast=True, camera=False, sim_process=True)
    try:
        assert again.sim_process is not None and not again.sim_process.fresh and again.sim_process.pid == pid
        await again.controller.resume()
        assert again.controller.hand is not None and again.controller.hand_no == hand  # resumed, not void
    finally:
        await again.shoe.close()
        again.journal.close()

    os.kill(pid, signal.SIGKILL)  # now the simulator dies too (the machine restarted)
    if table.sim_process.popen is not None:
        table.sim_process.popen.wait(10)  # this process started it: reap it, as the dead controller cannot
    for _ in range(200):
        if not process_alive(pid):
            break
        await asyncio.sleep(0.01)
    third = await open_table(_settings(tmp_path), seed=9, fast=True, camera=False, sim_process=True)
    try:
        assert third.sim_process is not None and third.sim_process.fresh and third.sim_process.pid != pid
        assert third.controller.hand is None
        assert third.controller.history()[-1].status == "void"
        assert "simulator was not running" in third.controller.message
        record = third.controller.hand_record(hand)  # the voided hand is on record too
        assert record["actions"][-1]["report"]["kind"] == "void_hand"
        assert "not running" in record["actions"][-1]["report"]["reason"]
        third.controller.check_chips()
    finally:
        await close_table(third)
    assert not process_alive(third.sim_process.pid)
    assert not (tmp_path / STATE_NAME).exists()


def test_a_card_in_flight_at_the_crash_is_taken_from_the_shoe_log(sim: PtyShoe) -> None:
    _run(_a_card_in_flight_at_the_crash_is_taken_from_the_shoe_log(sim))


def test_a_deal_cut_short_by_the_crash_is_completed_not_voided(sim: PtyShoe) -> None:
    _run(_a_deal_cut_short_by_the_crash_is_completed_not_voided(sim))


def test_a_shoe_that_shuffled_since_the_deck_check_asks_for_a_void(sim: PtyShoe) -> None:
    _run(_a_shoe_that_shuffled_since_the_deck_check_asks_for_a_void(sim))


def test_a_shoe_that_disagrees_with_the_journal_halts_the_table(sim: PtyShoe) -> None:
    _run(_a_shoe_that_disagrees_with_the_journal_halts_the_table(sim))


def test_run_wiring_reattaches_to_the_simulator_process_or_voids_with_a_fresh_one(tmp_path: Path) -> None:
    _run(_run_wiring_reattaches_to_the_simulator_process_or_voids_with_a_fresh_one(tmp_path))
