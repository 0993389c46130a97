"""Every hand that ends has a hand record, voided and floor-ruled ones included: the void is the engine's
floor ruling ``void_hand`` and a floor award its ``award_pot`` (docs/irregularities.md), so each record
replays to the result stored, and `cardtable history export` writes one file per hand in every format."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.controller.demo import seat_players
from table_controller.controller.devices import DealtCard, VirtualShoe
from table_controller.controller.durable import DurableJournal
from table_controller.controller.errors import DeviceError
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.players import SimPlayers
from table_controller.controller.table import TableController
from table_controller.engine.cards import UNKNOWN_CODE
from table_controller.engine.events import DrawServed
from table_controller.engine.irregular import Report
from table_controller.engine.record import replay
from table_controller.journal import Journal
from table_controller.service.models import RulingRequest
from table_controller.service.settings import TableSettings


class FailingShoe(VirtualShoe):
    """A virtual shoe that jams on its ``fail_at``-th deal (counting from 1) and on every deal after."""

    def __init__(self, *, seed: int, fail_at: int) -> None:
        super().__init__(seed=seed)
        self.fail_at = fail_at
        self.deals = 0

    async def deal(self) -> DealtCard:
        self.deals += 1
        if self.deals >= self.fail_at:
            raise DeviceError("shoe fault: JAM", code="shoe_fault")
        return await super().deal()


def _table(shoe: VirtualShoe, journal: Any = None) -> TableController:
    return TableController(TableSettings(pace_s=0, broadcast_delay_s=0), shoe=shoe,
                           journal=journal if journal is not None else MemoryJournal())


def _stored(table: TableController, hand: int) -> dict[str, Any]:
    journal = table.journal
    assert isinstance(journal, MemoryJournal)
    stored: dict[str, Any] = journal.hands[hand]
    return stored


def _check(table: TableController, hand: int, status: str) -> dict[str, Any]:
    """The hand's record is stored and replays to its stored result, whose stacks are the table's."""
    stored = _stored(table, hand)
    assert table.hand_record(hand) == stored["record"]
    result = replay(stored["record"])
    assert result == stored["result"]
    assert result["status"] == status
    for seat, stack in result["stacks"].items():
        assert table.seats[int(seat)].stack == stack
    assert result["carried_pot"] == table.carried_pot
    table.check_chips()
    return stored


def test_a_hand_voided_by_the_dealer_during_the_deal_has_a_record() -> None:
    async def run() -> None:
        table = _table(FailingShoe(seed=4, fail_at=7))
        await seat_players(table, 3)
        await table.start_hand()  # six cards out, then the shoe jams: the hand pauses with a prompt
        assert table.paused
        prompt = table.full_view().prompts[0]
        await table.answer_prompt(prompt.id, "void")
        stored = _check(table, 1, "void")
        deck = stored["record"]["deck"]
        assert deck[:6] == [c for c in deck[:6] if c != UNKNOWN_CODE] and set(deck[6:]) == {UNKNOWN_CODE}
        ruling = stored["record"]["actions"][-1]
        assert ruling["act"] == "floor_ruling" and ruling["report"]["kind"] == "void_hand"
        assert ruling["report"]["by"] == "dealer"

    asyncio.run(run())


def test_a_misdeal_called_before_the_deal_is_complete_has_a_record() -> None:
    async def run() -> None:
        table = _table(FailingShoe(seed=5, fail_at=3))
        await seat_players(table, 2)
        await table.start_hand()
        await table.report_irregularity("misdeal", seat=1, note="two cards flashed", by="dealer")
        stored = _check(table, 1, "void")
        assert "misdeal" in stored["record"]["actions"][-1]["report"]["reason"]

    asyncio.run(run())


@pytest.mark.parametrize("acts", [0, 3])
def test_a_floor_void_mid_hand_has_a_record_with_the_acts(acts: int) -> None:
    async def run() -> None:
        table = _table(VirtualShoe(seed=8))
        await seat_players(table, 4)
        players = SimPlayers(table, rng=random.Random(2))
        await table.start_hand()
        for _ in range(acts):
            await players.step()
        assert table.hand is not None
        before = dict(table._start_stacks)
        await table.floor_ruling(RulingRequest(kind="void_hand", by="Floor: Kim", reason="wrong deck in play"))
        stored = _check(table, 1, "void")
        assert {int(s): v for s, v in stored["result"]["stacks"].items()} == before
        record = stored["record"]
        assert record["actions"][0] == {"act": "deal"}  # the dealer's deal, then the players' acts and the void
        assert len(record["actions"]) == acts + 2
        assert record["actions"][-1]["report"] == {"kind": "void_hand", "by": "Floor: Kim",
                                                   "reason": "wrong deck in play"}
        assert UNKNOWN_CODE not in record["deck"][:20]
        # The table plays on, and the next hand has its own record.
        await table.start_hand()
        while table.hand is not None:
            await players.step()
        assert replay(_stored(table, 2)["record"]) == _stored(table, 2)["result"]

    asyncio.run(run())


def test_a_pot_awarded_by_the_floor_has_a_record() -> None:
    async def run() -> None:
        table = _table(VirtualShoe(seed=11))
        await seat_players(table, 3)
        players = SimPlayers(table, rng=random.Random(5))
        await table.start_hand()
        await players.step()
        await players.step()
        assert table.hand is not None
        await table.floor_ruling(RulingRequest(kind="award_pot", by="Floor: Kim", reason="angle shot", seat=2))
        stored = _check(table, 1, "complete")
        assert stored["record"]["actions"][-1]["report"]["kind"] == "award_pot"
        assert [a["seats"] for a in stored["result"]["awards"]][-1] == [2]
        assert table.history()[-1].status == "ruled"

    asyncio.run(run())


def test_export_writes_every_hand_in_every_format_and_each_record_replays(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"

    async def run() -> None:
        journal = DurableJournal.open("t1", data_dir=data)
        table = _table(VirtualShoe(seed=3), journal)
        try:
            await seat_players(table, 3)
            players = SimPlayers(table, rng=random.Random(9))
            await table.start_hand()  # hand 1: played out
            while table.hand is not None:
                await players.step()
            await table.start_hand()  # hand 2: voided by the floor
            await table.floor_ruling(RulingRequest(kind="void_hand", by="Floor", reason="dealer error"))
            await table.start_hand()  # hand 3: the pot awarded by the floor
            await players.step()
            await table.floor_ruling(RulingRequest(kind="award_pot", by="Floor", reason="ruling", seat=1))
            await table.start_hand()  # hand 4: a misdeal called by the dealer, then voided
            await table.void_in_play("the dealer called a misdeal", by="dealer")
        finally:
            journal.close()

    asyncio.run(run())
    with Journal.open(data_dir=data) as j:
        stored = {r.hand_number or 0: r for r in j.hand_records("t1")}
    assert sorted(stored) == [1, 2, 3, 4]
    for fmt in ("record", "phh", "text"):
        out = tmp_path / fmt
        assert main(["history", "export", "--data", str(data), "--format", fmt, "--out", str(out)]) == 0
        assert len([p for p in out.iterdir() if p.is_file()]) == 4, fmt
    capsys.readouterr()
    for path in sorted((tmp_path / "record").iterdir()):
        number = int(path.stem.rsplit("h", 1)[1])
        assert main(["replay", str(path)]) == 0
        assert json.loads(capsys.readouterr().out) == stored[number].result
    assert stored[2].result["status"] == "void" and stored[4].result["status"] == "void"


def test_a_record_lost_to_a_crash_after_the_void_is_stored_on_restart() -> None:
    async def run() -> None:
        journal = MemoryJournal()
        shoe = VirtualShoe(seed=6)
        table = _table(shoe, journal)
        await seat_players(table, 3)
        await table.start_hand()
        await table.floor_ruling(RulingRequest(kind="void_hand", by="Floor", reason="marked cards"))
        stored = journal.hands.pop(1)  # kill -9 between the ruling's entry and the record's
        again = _table(shoe, journal)
        again.recover()
        assert journal.hands[1] == stored
        assert replay(stored["record"]) == stored["result"]
        third = _table(shoe, journal)  # a record already stored is not stored twice
        third.recover()
        assert list(journal.hands) == [1]

    asyncio.run(run())


def test_the_new_reports_are_offered_named_by_book_and_go_on_record() -> None:
    """A draw card seen before discarding (Draw Poker Rules Info, Other rules governing the draw 6) and a player
    leaving his chips in a false opener's pot (Draw Poker Rules, False Openers) are offered to the dealer, named
    by book title, not file number, and each report goes on the hand's record."""
    async def run() -> None:
        table = _table(VirtualShoe(seed=8))
        await seat_players(table, 3)
        players = SimPlayers(table, rng=random.Random(2))
        await table.start_hand()
        offered = {o.kind: o for o in table.irregularity_options()}
        assert offered["draw_card_seen"].rule.startswith("Draw Poker Rules Info · Other rules governing the draw 6")
        assert offered["leave_in_pot"].rule.startswith("Draw Poker Rules · False Openers")
        reported: list[str] = []
        for _ in range(60):
            hand = table.hand
            if hand is None or hand.hand.is_over:
                break
            engine = hand.hand
            record = engine.to_record()
            drawn = [e.seat for e in engine.events if isinstance(e, DrawServed) and e.served]
            opener = engine.opener
            if "leave_in_pot" not in reported and opener is not None:
                for seat in (s.seat for s in engine.seats):
                    if seat != opener and engine.can_irregularity(Report(kind="leave_in_pot", seat=seat)):
                        await table.report_irregularity("leave_in_pot", seat=seat, note="", by="dealer")
                        reported.append("leave_in_pot")
                        break
            if "draw_card_seen" not in reported and drawn and len(record["actions"]) > 0 and \
                    engine.can_irregularity(Report(kind="draw_card_seen", seat=drawn[-1])):
                await table.report_irregularity("draw_card_seen", seat=drawn[-1], note="peeked", by="dealer")
                reported.append("draw_card_seen")
            if not await players.step():
                break
        assert reported == ["leave_in_pot", "draw_card_seen"]
        stored = _stored(table, 1)
        kinds = [a["report"]["kind"] for a in stored["record"]["actions"] if a["act"] == "irregularity"]
        assert kinds == reported
        assert replay(stored["record"]) == stored["result"]

    asyncio.run(run())
