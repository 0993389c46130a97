"""Crash recovery: a new controller replaying the journal stands exactly where the old one stood."""

from __future__ import annotations

import asyncio
import random
from dataclasses import asdict
from pathlib import Path

import pytest

from table_controller.controller.demo import play_hands, seat_players
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.durable import DurableJournal
from table_controller.controller.errors import NotAllowedError
from table_controller.controller.journal_port import MemoryJournal, PortEntry
from table_controller.controller.players import SimPlayers
from table_controller.controller.table import TableController
from table_controller.journal import Journal
from table_controller.service.settings import TableSettings


def _state(table: TableController) -> dict[str, object]:
    view = table.full_view()
    return {
        "hand": view.hand, "phase": view.phase, "to_act": view.to_act, "button": view.button,
        "pot": view.pot_total, "carried": view.carried_pot, "seats": [asdict(s) for s in view.seats],
        "legal": [asdict(a) for a in view.legal], "draw": view.draw, "prompts": len(view.prompts),
        "history": [asdict(h) for h in table.history()], "chips_in": table.chips_in,
    }


@pytest.mark.parametrize("crash_after", [3, 17, 40, 71, 95])
def test_replay_resumes_exactly_and_the_hand_finishes_the_same(crash_after: int) -> None:
    async def run() -> None:
        settings = TableSettings(pace_s=0)
        # The reference: no crash.
        ref = TableController(settings, shoe=VirtualShoe(seed=21), journal=MemoryJournal())
        await seat_players(ref, 5)
        ref_players = SimPlayers(ref, rng=random.Random(21))
        # The crashing run: same shoe seed, same players; the shoe object outlives the controller (a device).
        shoe = VirtualShoe(seed=21)
        journal = MemoryJournal()
        first = TableController(settings, shoe=shoe, journal=journal)
        await seat_players(first, 5)
        players = SimPlayers(first, rng=random.Random(21))
        steps = 0
        while steps < crash_after:
            for t, p in ((ref, ref_players), (first, players)):
                if t.hand is None:
                    await t.start_hand()
                else:
                    await p.step()
            steps += 1
        snapshot = _state(first)
        # kill -9: the first controller is gone; a new one replays the same journal.
        second = TableController(settings, shoe=shoe, journal=journal)
        assert second.recover() == len(journal.entries())
        assert _state(second) == snapshot
        players.table = second
        for _ in range(400):  # finish the hand on both and compare
            if ref.hand is None and second.hand is None:
                break
            if ref.hand is not None:
                await ref_players.step()
            if second.hand is not None:
                await players.step()
        assert {n: s.stack for n, s in second.seats.items()} == {n: s.stack for n, s in ref.seats.items()}
        assert second.history() == ref.history()
        second.check_chips()

    asyncio.run(run())


def test_durable_journal_survives_a_restart(tmp_path: Path) -> None:
    async def run() -> None:
        settings = TableSettings(pace_s=0, data=tmp_path)
        shoe = VirtualShoe(seed=8)
        journal = DurableJournal.open("t1", data_dir=tmp_path)
        first = TableController(settings, shoe=shoe, journal=journal)
        await seat_players(first, 4)
        players = SimPlayers(first, rng=random.Random(8))
        for _ in range(3):
            await first.start_hand()
            while first.hand is not None:
                await players.step()
        await first.start_hand()
        for _ in range(3):
            await players.step()
        first.audit_hole_cards(role="floor", client="test", hand=first.hand_no, via="rest")
        snapshot = _state(first)
        journal.close()

        journal2 = DurableJournal.open("t1", data_dir=tmp_path)
        second = TableController(settings, shoe=shoe, journal=journal2)
        second.recover()
        assert _state(second) == snapshot
        players.table = second
        while second.hand is not None:
            await players.step()
        second.check_chips()
        journal2.close()

        with Journal.open(data_dir=tmp_path) as j:
            report = j.verify()
            assert report.ok
            records = list(j.hand_records("t1"))
            assert [r.hand_number for r in records] == [1, 2, 3, 4]
            assert all(r.record["format"] == "cardtable.hand/2" for r in records)
            kinds = [e.kind for e in j.read_all("t1")]
            assert "hole_cards.read" in kinds

    asyncio.run(run())


def test_replay_after_a_count_only_draw() -> None:
    async def run() -> None:
        settings = TableSettings(pace_s=0, game={"form": "five_card_draw", "betting": "fixed_limit",  # type: ignore[arg-type]
                                                 "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}})
        shoe = VirtualShoe(seed=23)
        journal = MemoryJournal()
        first = TableController(settings, shoe=shoe, journal=journal)
        await seat_players(first, 3)
        await first.start_hand()
        while first.full_view().draw is None:
            seat = first.full_view().to_act
            assert seat is not None
            await first.act(seat, "check")
        draw = first.full_view().draw
        assert draw is not None
        await first.draw(draw.seat, count=3)
        snapshot = _state(first)
        second = TableController(settings, shoe=shoe, journal=journal)
        second.recover()
        assert _state(second) == snapshot

    asyncio.run(run())


def test_the_shoes_cards_feed_the_dealers_burn_and_service_as_they_come() -> None:
    """A draw is applied when it is entered; the burn is taken as soon as its card is journaled, the service once
    its cards are: a controller that replays the journal cut after any card of the draw stands exactly there
    (the hand never replayed, the dealer's act due waiting for the card the engine names)."""

    async def run() -> None:
        journal = MemoryJournal()
        table = TableController(TableSettings(pace_s=0), shoe=VirtualShoe(seed=5), journal=journal)
        await seat_players(table, 4)
        players = SimPlayers(table, rng=random.Random(5))
        for _ in range(600):  # hand after hand, until a draw that threw cards has been served
            entries = journal.entries()
            acts = [k for k, e in enumerate(entries) if e.kind == "act" and e.data["action"].get("act") == "draw"
                    and e.data["action"]["discard"]]
            if acts and len(entries) > acts[0] + 3:
                break
            if table.hand is None:
                await table.start_hand()
            else:
                await players.step()
        assert acts, "no draw threw a card"
        entries = journal.entries()
        draw = acts[0]
        assert entries[draw].data["kinds"] == []  # the draw asks for no card: its dealer's acts do
        burn, first = entries[draw + 1], entries[draw + 2]
        assert (burn.kind, burn.data["kind"]) == ("card", "burn") and first.kind == "card"
        # Cut just after the draw: the hand waits for the burn card.
        cut = TableController(TableSettings(pace_s=0), shoe=VirtualShoe(seed=5), journal=MemoryJournal())
        cut.recover(entries[:draw + 1])
        assert cut.hand is not None and cut.stage.value == "serving"
        assert cut.hand.dealer_due() == "burn" and cut._owed() == "burn"
        # Cut after the burn card: the burn is taken, the service waits for its cards.
        cut = TableController(TableSettings(pace_s=0), shoe=VirtualShoe(seed=5), journal=MemoryJournal())
        cut.recover(entries[:draw + 2])
        assert cut.hand is not None
        assert [a["act"] for a in cut.hand.record()["actions"]][-2:] == ["draw", "burn"]
        assert cut.hand.dealer_due() == "serve" and cut._owed() == "deal" and cut.stage.value == "serving"
        with pytest.raises(NotAllowedError):  # nobody acts while the shoe serves
            await cut.act(1, "check")

    asyncio.run(run())


def test_a_journal_that_lists_a_draws_cards_with_the_draw_recovers_to_the_same_table() -> None:
    """Journals written before the burn and the service were the dealer's acts list a draw's cards in its act entry
    (the draw waited for them): replayed, the draw is applied once they have come, and the table stands where the
    same journal written today leaves it."""

    async def run() -> None:
        journal = MemoryJournal()
        table = TableController(TableSettings(pace_s=0), shoe=VirtualShoe(seed=9), journal=journal)
        await seat_players(table, 4)
        await play_hands(table, SimPlayers(table, rng=random.Random(9)), hands=3)
        await table.start_hand()
        players = SimPlayers(table, rng=random.Random(9))
        while table.hand is not None and table.hand.hand.interval != "final":  # a hand live past its draw
            await players.step()
        entries = journal.entries()
        older: list[PortEntry] = []
        draws = 0
        for k, entry in enumerate(entries):
            data = entry.data
            if entry.kind == "act" and data["action"].get("act") == "draw":
                cards = []
                for later in entries[k + 1:]:
                    if later.kind != "card":
                        break
                    cards.append(later.data["kind"])
                data = {**data, "kinds": cards}
                draws += bool(cards)
            older.append(PortEntry(seq=entry.seq, kind=entry.kind, data=data, hand=entry.hand))
        assert draws >= 3
        today = TableController(TableSettings(pace_s=0), shoe=VirtualShoe(seed=9), journal=MemoryJournal())
        today.recover(entries)
        before = TableController(TableSettings(pace_s=0), shoe=VirtualShoe(seed=9), journal=MemoryJournal())
        before.recover(older)
        assert _state(before) == _state(today) == _state(table)
        if table.hand is not None:
            assert before.hand is not None and today.hand is not None
            assert before.hand.record() == today.hand.record() == table.hand.record()

    asyncio.run(run())
