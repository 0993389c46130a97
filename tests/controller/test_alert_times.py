"""After a restart the floor's alerts keep the time they were raised, not the time of the replay."""

from __future__ import annotations

import asyncio

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.settings import TableSettings
from tests.controller.helpers import seated


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_recovered_alerts_keep_their_own_time() -> None:
    async def run() -> None:
        journal = MemoryJournal()
        clock = Clock(1_000_000.0)
        settings = TableSettings(pace_s=0, broadcast_delay_s=0)
        table = TableController(settings, shoe=VirtualShoe(seed=2), journal=journal, clock=clock)
        await seated(table, 4)
        await table.start_hand()
        assert table.hand is not None
        seat = table.full_view().to_act
        assert seat is not None
        await table.report_irregularity("exposed_in_deal", seat=seat, note="", by="dealer",
                                        details={"card": table.hand.hole(seat)[0]})
        clock.now += 60
        held = {c for s in (1, 2, 3, 4) for c in table.hand.hole(s)}
        await table.camera_reading(seat, next(c for c in ("Ah", "Kc", "Qd", "Js", "Th", "9c", "8s") if c not in held))
        before = [(a.kind, a.at) for a in table.full_view().alerts]
        assert [k for k, _ in before] == ["irregularity", "camera_mismatch"]
        assert before[0][1] == 1_000_000.0 and before[1][1] == 1_000_060.0

        later = Clock(2_000_000.0)  # the controller restarts much later and replays the journal
        again = TableController(settings, shoe=VirtualShoe(seed=2), journal=journal, clock=later)
        assert again.recover() == len(journal.items)
        assert [(a.kind, a.at) for a in again.full_view().alerts] == before

    asyncio.run(run())
