"""The controller on the shoe simulator through the firmware bridge's client: cards come from the shoe;
a jam that does not clear pauses the hand, and Retry after clearing it resumes."""

from __future__ import annotations

import asyncio
import random

from firmware_bridge.driver import ShoeClient
from hardware_sim.shoe import ShoeSimulator, SimTimings, start_pty
from table_controller.controller.demo import play_hands, seat_players
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.players import SimPlayers
from table_controller.controller.shoe_link import ShoeLink
from table_controller.controller.table import TableController
from table_controller.service.settings import TableSettings


def test_hands_dealt_by_the_simulated_shoe_on_a_pty() -> None:
    async def run() -> None:
        sim = start_pty(ShoeSimulator(seed=6, timings=SimTimings.fast()))
        link = ShoeLink(ShoeClient(sim.url), label=sim.url)
        try:
            await link.connect()
            table = TableController(TableSettings(pace_s=0), shoe=link, journal=MemoryJournal())
            await seat_players(table, 5)
            summary = await play_hands(table, SimPlayers(table, rng=random.Random(6)), hands=4)
            assert summary.ok and summary.decks_verified == 4
            # What the shoe says it dealt is what the hands hold: the simulator's cards out match the record.
            out = {c.face for c in sim.control.cards_out()}
            from firmware_bridge.cards import card_code

            last = table.hand_record(4)["deck"]
            assert {card_code(n) for n in out} >= {c for c in last if c != "??"}
            assert table.full_view().device.shoe == "ready"

            # A jam that does not clear: the hand pauses with a prompt; the dealer clears it and retries. The
            # simulated shoe gathers its cards back when the jam is cleared, so the hand can only be voided.
            stacks = {n: s.stack for n, s in table.seats.items()}
            sim.control.jam_next(recovers=False)
            await table.start_hand()
            view = table.full_view()
            assert view.phase == "paused" and view.prompts
            assert view.device.shoe == "fault"
            await table.answer_prompt(view.prompts[0].id, "retry")
            view = table.full_view()
            assert view.phase == "paused" and view.prompts[0].options == ("void",)
            await table.answer_prompt(view.prompts[0].id, "void")
            assert {n: s.stack for n, s in table.seats.items()} == stacks
            await table.start_hand()  # a new shuffle, verify and deal
            assert table.full_view().phase == "betting"
            assert table.hand is not None
        finally:
            await link.close()
            sim.stop()

    asyncio.run(run())
