"""The live table carries 003 False openers 2's house option "ante for all": when the opener announces
before the draw that he lacks openers and nobody takes over, the next deal's antes are all his."""

from __future__ import annotations

import asyncio

from table_controller.controller.demo import seat_players
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.engine.record import replay
from table_controller.service.settings import TableSettings, table_game


def _forced(table: TableController) -> list[tuple[int, int, str]]:
    assert table.hand is not None
    return [(d["seat"], d["amount"], d["what"]) for d in (e.to_json() for e in table.hand.hand.events)
            if d["event"] == "forced"]


def test_the_false_opener_antes_for_everyone_on_the_next_deal() -> None:
    async def run() -> None:
        game = table_game({"options": {"false_opener_penalty": "ante_for_all"}})
        for seed in range(60):
            table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0, game=game),
                                    shoe=VirtualShoe(seed=seed), journal=MemoryJournal())
            await seat_players(table, 3)
            await table.start_hand()
            assert table.hand is not None
            legal = table.hand.hand.legal_actions()
            if legal.seat is None or "bet" not in legal.acts:
                continue  # the first to speak cannot open on this deal: try another shuffle
            opener = legal.seat
            await table.act(opener, "bet", to=legal.min_to)
            await table.act(opener, "declare_no_openers")
            while table.hand is not None and not table.hand.over:
                view = table.hand.hand.legal_actions()
                assert view.seat is not None and "decline_open" in view.acts, view
                await table.act(view.seat, "decline_open")
            assert table.ante_for_all == opener
            stacks_before = {n: s.stack for n, s in table.seats.items()}
            await table.start_hand()
            assert _forced(table) == [(opener, 3, "ante_for_all")]
            assert {n: s.stack for n, s in table.seats.items()} == stacks_before  # stacks move at the end
            record = table.hand.hand.to_record() if table.hand is not None else None
            assert record is not None and record["ante_for_all"] == opener
            assert replay(record)["stacks"][str(opener)] == stacks_before[opener] - 3
            table.check_chips()
            return
        raise AssertionError("no deal in 60 shuffles let the first player open")

    asyncio.run(run())
