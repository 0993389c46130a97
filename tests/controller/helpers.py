"""Helpers of the controller tests: a table on virtual devices and simulated players."""

from __future__ import annotations

import random

from table_controller.controller.demo import play_hands, seat_players
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.players import SimPlayers
from table_controller.controller.table import TableController
from table_controller.service.settings import TableSettings


def make_table(*, seed: int = 1, journal: MemoryJournal | None = None, shoe: VirtualShoe | None = None,
               **settings: object) -> TableController:
    return TableController(TableSettings(pace_s=0, broadcast_delay_s=0, **settings),  # type: ignore[arg-type]
                           shoe=shoe or VirtualShoe(seed=seed), journal=journal or MemoryJournal())


async def seated(table: TableController, players: int = 4, stack: int = 100) -> None:
    await seat_players(table, players, stack=stack)


async def play(table: TableController, hands: int, seed: int = 1) -> None:
    await play_hands(table, SimPlayers(table, rng=random.Random(seed)), hands=hands)
