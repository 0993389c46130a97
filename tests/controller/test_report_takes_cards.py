"""A report whose remedy takes cards from the pack: the controller asks the engine's dry run how many
(``Hand.shoe_cards_for_report``), has the shoe deal them, then applies the report to the same live hand."""

from __future__ import annotations

import asyncio
import random

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.players import SimPlayers
from table_controller.engine.cards import UNKNOWN_CODE
from table_controller.engine.events import DrawServed
from table_controller.engine.irregular import ReplacementServed, Report
from table_controller.engine.machine import Phase
from table_controller.engine.record import replay
from tests.controller.helpers import make_table, seated


def test_a_seen_excess_card_is_dealt_by_the_shoe_and_goes_with_the_foul_hand() -> None:
    """Too many cards dealt, seen (000 Incorrect hand): the excess is the shoe's next card; the hand is foul."""
    async def run() -> None:
        journal = MemoryJournal()
        table = make_table(shoe=VirtualShoe(seed=11), journal=journal)
        await seated(table, 3)
        await table.start_hand()
        live = table.hand
        assert live is not None
        engine = live.hand
        dealt = engine.delivered
        report = Report(kind="too_many_in_deal", seat=2, count=1, looked="all")
        assert engine.shoe_cards_for_report("irregularity", report) == ("deal",)
        assert engine.delivered == dealt  # the dry run dealt nothing
        await table.report_irregularity("too_many_in_deal", seat=2, note="six cards", by="dealer",
                                        details={"count": 1, "looked": "all"})
        assert table.hand is live and live.hand is engine  # the same hand, fed the card: never rebuilt
        assert engine.delivered == dealt + 1
        assert engine.deck_codes[dealt] != UNKNOWN_CODE
        assert engine.hole_cards(2) == () and dealt in engine.muck_pile
        players = SimPlayers(table, rng=random.Random(4))
        for _ in range(80):
            if table.hand is None or table.hand.hand.is_over or not await players.step():
                break
        stored = journal.hands[1]
        assert stored["record"]["deck"][dealt] == engine.deck_codes[dealt]
        assert replay(stored["record"]) == stored["result"]

    asyncio.run(run())


def test_a_card_exposed_to_the_last_drawer_is_replaced_by_the_shoe_at_once() -> None:
    """A card exposed as the last drawer is served (003 Incorrect dealing in the draw 1): every other player has
    drawn, so it is replaced from the top now; the shoe deals the replacement before the report is applied, and
    the report still follows the draw it is about."""
    async def run() -> None:
        for seed in range(1, 40):
            table = make_table(shoe=VirtualShoe(seed=seed))
            await seated(table, 3)
            await table.start_hand()
            players = SimPlayers(table, rng=random.Random(seed))
            live = table.hand
            assert live is not None
            engine = live.hand
            while not engine.is_over and engine.phase is not Phase.FINAL_BETTING and await players.step():
                pass
            last = next((e for e in reversed(engine.events) if isinstance(e, DrawServed)), None)
            if engine.is_over or last is None or len(last.served) < 2 or engine.phase is not Phase.FINAL_BETTING:
                continue  # no second draw card to expose in this deal (the first may be kept): try another
            card = last.served[-1]
            report = Report(kind="exposed_in_draw", seat=last.seat, card=card)
            assert engine.shoe_cards_for_report("irregularity", report) == ("deal",)
            dealt = engine.delivered
            await table.report_irregularity("exposed_in_draw", seat=last.seat, note="flipped", by="dealer",
                                            details={"card": card})
            assert engine.delivered == dealt + 1
            replaced = [e for e in engine.events if isinstance(e, ReplacementServed)]
            assert [(e.seat, e.cards) for e in replaced] == [(last.seat, (engine.deck_codes[dealt],))]
            assert card not in engine.hole_cards(last.seat)
            return
        raise AssertionError("no seed gave a last drawer a card to expose")

    asyncio.run(run())
