"""The demo table: simulated players seated, hands dealt one after another on the shoe.

:func:`seat_players` fills the seats; :func:`play_hands` deals and lets the simulated players act until
the number of hands asked for is played (or forever; a hand in progress recovered after a restart is
played out first and counts), topping up busted players between hands, and
returns a :class:`DemoSummary` whose checks the CLI prints: hands played, chips conserved, decks verified.
A halted or paused table stops a headless run; with ``wait_for_floor`` (the browser demo) the players wait
for the floor (or the dealer's answer to a prompt) and carry on, and ``report`` is told why it stopped and
when it goes on, for the terminal.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from table_controller.controller.errors import TableError
from table_controller.controller.players import SimPlayers
from table_controller.controller.table import TableController

__all__ = ["NAMES", "DemoSummary", "play_hands", "seat_players"]

NAMES = ("Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal")
MAX_ACTS_PER_HAND = 400


@dataclass(frozen=True, kw_only=True)
class DemoSummary:
    hands: int
    passed_out: int
    voided: int
    acts: int
    cards_dealt: int
    decks_verified: int
    chips_expected: int
    chips_on_table: int
    seconds: float
    halted: str | None = None

    @property
    def chips_conserved(self) -> bool:
        return self.chips_expected == self.chips_on_table

    @property
    def ok(self) -> bool:
        return self.chips_conserved and self.halted is None and self.decks_verified >= self.hands

    def as_dict(self) -> dict[str, object]:
        return {"hands": self.hands, "passed_out": self.passed_out, "voided": self.voided, "acts": self.acts,
                "cards_dealt": self.cards_dealt, "decks_verified": self.decks_verified,
                "chips_expected": self.chips_expected, "chips_on_table": self.chips_on_table,
                "chips_conserved": self.chips_conserved, "seconds": round(self.seconds, 2), "halted": self.halted,
                "ok": self.ok}


async def seat_players(table: TableController, count: int, *, stack: int = 100) -> None:
    for k in range(count):
        seat = k + 1
        if seat not in table.seats:
            await table.sit_down(seat, NAMES[k], stack)


async def _top_up(table: TableController, stack: int) -> None:
    for seat, st in sorted(table.seats.items()):
        if st.stack < max(table.settings.buy_in_min, 1):
            amount = min(stack - st.stack, table.settings.buy_in_max - st.stack)
            if st.stack == 0:
                await table.buy_in(seat, amount)
            else:
                await table.rebuy(seat, amount)


async def _wait_for_floor(table: TableController, report: Callable[[str], None] | None, poll_s: float) -> None:
    what = "halted" if table.halted else "paused"
    if report is not None:
        report(f"hand {table.hand_no}: table {what}: {table.message} The simulated players wait for the floor "
               "(floor screen: resume or void) or for the dealer's answer to the prompt.")
    while table.halted or table.paused:
        await asyncio.sleep(poll_s)
    if report is not None:
        report(f"hand {table.hand_no}: play goes on: {table.message}")


async def play_hands(
    table: TableController,
    players: SimPlayers,
    *,
    hands: int | None,
    pace_s: float = 0.0,
    stack: int = 100,
    progress: Callable[[int, TableController], None] | None = None,
    between_hands_s: float | None = None,
    wait_for_floor: bool = False,
    report: Callable[[str], None] | None = None,
    poll_s: float = 0.25,
) -> DemoSummary:
    """Play ``hands`` hands (None: until cancelled). A halt or a pause ends a counted run (the summary says
    why); with ``wait_for_floor`` (the live demo, where a person answers at the screens) the players wait
    until the floor or the dealer lets the hand go on, then play on."""
    started = time.monotonic()
    played = 0
    halted: str | None = None
    pause_after = between_hands_s if between_hands_s is not None else pace_s * 3
    while hands is None or played < hands:
        if not table.in_play():  # else a hand recovered after a restart: it is played out first
            if wait_for_floor and (table.halted or table.paused):
                await _wait_for_floor(table, report, poll_s)
            await _top_up(table, stack)
            await table.start_hand()
        acts = 0
        while table.hand is not None or table._deal is not None:
            if table.halted or table.paused:
                if not wait_for_floor:
                    halted = table.message
                    break
                await _wait_for_floor(table, report, poll_s)
                continue
            # Between two acts the other tasks (the camera, the screens) get their turn, paced or not.
            await asyncio.sleep(pace_s)
            if not await players.step():
                if table.hand is None and table._deal is None:
                    break
                await asyncio.sleep(0.01)
            acts += 1
            if acts > MAX_ACTS_PER_HAND:
                raise TableError(f"hand {table.hand_no} did not finish in {MAX_ACTS_PER_HAND} acts", code="stuck")
        if halted is not None:
            break
        played += 1
        if progress is not None:
            progress(played, table)
        if pause_after:
            await asyncio.sleep(pause_after)
    passed = sum(1 for h in table.history() if h.status == "passed_out")
    void = sum(1 for h in table.history() if h.status == "void")
    return DemoSummary(hands=played, passed_out=passed, voided=void, acts=players.acts, cards_dealt=table.cards_dealt,
                       decks_verified=table.decks_verified, chips_expected=table.chips_in,
                       chips_on_table=table.chips_on_table(), seconds=time.monotonic() - started, halted=halted)
