"""The journal's controller entries are typed: each kind is one class, and recovery refuses what it cannot read."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from table_controller.controller.entries import (
    ENTRY_KINDS,
    HaltEntry,
    HandStartEntry,
    SeatSitEntry,
    StartSeat,
    parse_entry,
)
from table_controller.controller.errors import JournalEntryError
from table_controller.controller.journal_port import MemoryJournal, PortEntry
from table_controller.controller.runtime import open_table
from table_controller.engine.config import config_to_json
from table_controller.journal import Journal
from table_controller.service.settings import TableSettings, table_game
from tests.controller.helpers import make_table, play, seated

ANTE_1 = {"stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}}


def _played_journal() -> MemoryJournal:
    journal = MemoryJournal()

    async def run() -> None:
        table = make_table(seed=5, journal=journal)
        await seated(table, 4)
        await play(table, 6, seed=5)
        if table.full_view().alerts:
            table.acknowledge_alert(table.full_view().alerts[0].id)

    asyncio.run(run())
    return journal


def test_every_entry_reads_back_to_the_same_json() -> None:
    """The payload a class writes is the payload it was read from: journals on disk keep their hashes."""
    journal = _played_journal()
    kinds = {e.kind for e in journal.items}
    assert {"seat.sit", "hand.start", "deck.check", "deal", "act"} <= kinds
    for item in journal.items:
        entry = parse_entry(item.kind, item.data, seq=item.seq)
        assert type(entry) is ENTRY_KINDS[item.kind]
        assert entry.to_json() == item.data


def test_entries_are_frozen_and_validated_when_built() -> None:
    sit = SeatSitEntry(seat=3, name="Ann", buy_in=200)
    with pytest.raises(ValueError, match="frozen"):
        sit.seat = 4
    with pytest.raises(ValueError):
        SeatSitEntry.model_validate({"seat": "3", "name": "Ann", "buy_in": 200})  # a string is not a seat
    assert HaltEntry(reason="deck failed").to_json() == {"reason": "deck failed"}  # unset optional: not written


def _recover(items: list[PortEntry]) -> tuple[int, str, str]:
    table = make_table(journal=MemoryJournal(items=items))
    with pytest.raises(JournalEntryError) as caught:
        table.recover()
    assert not table.seats  # nothing was applied: the journal is refused whole
    return caught.value.exit_code, caught.value.code, caught.value.message


def test_recover_refuses_an_unknown_kind_naming_the_entry() -> None:
    items = [PortEntry(seq=1, kind="seat.sit", data={"seat": 1, "name": "Ann", "buy_in": 100}),
             PortEntry(seq=2, kind="seat.teleport", data={"seat": 1})]
    code, kind, message = _recover(items)
    assert (code, kind) == (2, "unknown_entry")
    assert "#2" in message and "seat.teleport" in message


def test_recover_refuses_a_version_it_does_not_read() -> None:
    items = [PortEntry(seq=1, kind="seat.sit", data={"seat": 1, "name": "Ann", "buy_in": 100, "v": 2})]
    _, kind, message = _recover(items)
    assert kind == "unknown_entry_version" and "#1" in message and "version 2" in message


def test_recover_refuses_a_malformed_entry() -> None:
    items = [PortEntry(seq=1, kind="seat.sit", data={"seat": 1, "name": "Ann"})]
    _, kind, message = _recover(items)
    assert kind == "bad_entry" and "#1" in message and "buy_in" in message


def test_a_played_journal_recovers_to_the_same_table() -> None:
    journal = _played_journal()
    again = make_table(seed=5, journal=journal)
    assert again.recover() == len(journal.items)
    again.check_chips()
    assert again.hands_played == 6


def test_a_table_does_not_open_on_a_journal_it_cannot_replay(tmp_path: Path) -> None:
    journal = Journal.open(data_dir=tmp_path)
    writer = journal.writer("t1")
    writer.append("seat.sit", {"seat": 1, "name": "Ann", "buy_in": 100}, at=datetime.now(UTC))
    writer.append("seat.teleport", {"seat": 1}, at=datetime.now(UTC))
    writer.close()
    journal.close()
    settings = TableSettings(data=tmp_path, pace_s=0, broadcast_delay_s=0)

    async def run() -> None:
        with pytest.raises(JournalEntryError, match=r"#2 .*seat\.teleport"):
            await open_table(settings, seed=1, fast=True, virtual_shoe=True, camera=False)
        # The refused start let go of the journal: once the entry is dealt with, a table opens on it.
        again = Journal.open(data_dir=tmp_path)
        again.writer("t1").close()
        again.close()

    asyncio.run(run())


def _start(**fields: Any) -> dict[str, Any]:
    return {"hand": 1, "button": 1, "seats": [{"seat": 1, "name": "Ann", "stack": 100},
                                              {"seat": 2, "name": "Bo", "stack": 100}],
            "carried_pot": 0, "passed_deals": 0, **fields}


def test_the_hand_start_entry_carries_a_validated_game() -> None:
    game = table_game(ANTE_1)
    entry = HandStartEntry(hand=1, button=1, seats=(StartSeat(seat=1, name="Ann", stack=100),), carried_pot=0,
                           passed_deals=0, game=game)
    data = entry.to_json()
    assert data["v"] == 2 and data["game"] == config_to_json(game)
    read = parse_entry("hand.start", data, seq=1)
    assert isinstance(read, HandStartEntry) and read.game == game and read.to_json() == data
    # Version 1 (no game) is read as it was written; its hand's game is found at the replay.
    old = parse_entry("hand.start", _start(), seq=1)
    assert isinstance(old, HandStartEntry) and old.game is None and old.to_json() == _start()


@pytest.mark.parametrize(("data", "code", "needle"), [
    (_start(v=2), "bad_entry", "game: Field required"),
    (_start(v=2, game={"form": "jackpots", "betting": "no_limit"}), "bad_entry", "no_limit needs a positive"),
    (_start(v=2, game={"form": "jackpots", "stakes": {"ante": -1}}), "bad_entry", "game.stakes.ante"),
    (_start(game={"form": "jackpots", "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4}}), "unknown_entry_version",
     "version 1"),
    (_start(v=3, game=config_to_json(table_game(ANTE_1))), "unknown_entry_version", "version 3"),
])
def test_a_hand_start_entry_with_a_bad_game_is_refused_naming_it(data: dict[str, Any], code: str,
                                                                  needle: str) -> None:
    with pytest.raises(JournalEntryError) as caught:
        parse_entry("hand.start", data, seq=7)
    assert caught.value.code == code and "#7" in caught.value.message and needle in caught.value.message
