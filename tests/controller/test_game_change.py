"""A table changes its game (stakes, house rules) between sessions on one journal: every hand is replayed with the
game it was dealt with, a hand in play is finished or voided with its own, and new hands deal the settings' game."""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.errors import NotFoundError
from table_controller.controller.journal_port import MemoryJournal, PortEntry
from table_controller.controller.players import SimPlayers
from table_controller.controller.runtime import close_table, open_table
from table_controller.controller.table import TableController
from table_controller.engine.config import GameConfig, config_to_json
from table_controller.journal import Journal
from table_controller.service.settings import TableSettings, table_game
from tests.controller.helpers import play, seated

ANTE_1 = {"stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}}
ANTE_5 = {"stakes": {"ante": 5, "small_bet": 2, "big_bet": 4, "cap": 4}}


def _table(game: dict[str, Any], journal: MemoryJournal, shoe: VirtualShoe | None = None) -> TableController:
    settings = TableSettings(pace_s=0, broadcast_delay_s=0, game=table_game(game))
    return TableController(settings, shoe=shoe or VirtualShoe(seed=1), journal=journal)


def _chips(table: TableController) -> dict[str, Any]:
    """Where every chip is, and what the table has on record."""
    return {"stacks": {n: s.stack for n, s in table.seats.items()}, "carried": table.carried_pot,
            "chips_in": table.chips_in, "on_table": table.chips_on_table(),
            "history": [asdict(h) for h in table.history()], "records": _records(table)}


def _records(table: TableController) -> dict[int, dict[str, Any]]:
    out = {}
    for n in range(1, table.hand_no + 1):
        with contextlib.suppress(NotFoundError):  # a hand in play has none yet
            out[n] = table.hand_record(n)
    return out


def _ante(record: dict[str, Any]) -> int:
    return int(record["game"]["stakes"]["ante"])


def _old_format(journal: MemoryJournal) -> MemoryJournal:
    """The same journal as a controller wrote it before games were journaled: hand.start version 1, no game."""
    items = [PortEntry(seq=e.seq, kind=e.kind, hand=e.hand,
                       data={k: v for k, v in e.data.items() if k not in ("game", "v")} if e.kind == "hand.start"
                       else e.data)
             for e in journal.items]
    return MemoryJournal(items=items, hands=dict(journal.hands))


async def _played(hands: int, game: dict[str, Any] = ANTE_1) -> tuple[MemoryJournal, dict[str, Any]]:
    journal = MemoryJournal()
    table = _table(game, journal)
    await seated(table, 4)
    await play(table, hands, seed=3)
    return journal, _chips(table)


@pytest.mark.parametrize("old_format", [False, True], ids=["journaled game", "version 1 entries"])
def test_hands_at_ante_1_replay_at_ante_1_after_a_restart_at_ante_5_and_the_next_hand_posts_5(
        old_format: bool) -> None:
    async def run() -> None:
        journal, before = await _played(5)
        if old_format:  # each hand's game is then its stored record's
            journal = _old_format(journal)
        again = _table(ANTE_5, journal)
        again.recover()
        assert _chips(again) == before  # not a chip moved: the hands kept their ante of 1
        assert [_ante(again.hand_record(n)) for n in range(1, 6)] == [1] * 5
        change = again.game_change()
        assert change is not None and "'ante': 1" in change.split("; new hands deal ")[0]
        assert "'ante': 5" in change.split("; new hands deal ")[1]
        assert any("was dealt as" in line.text for line in again.full_view().log)
        assert again.full_view().game.stakes["ante"] == 5  # between hands the screens show the game new hands deal

        stacks = {n: s.stack for n, s in again.seats.items()}
        await again.start_hand()
        assert again.hand is not None and again.hand.config.stakes.ante == 5
        assert again.hand.stacks() == {n: stack - 5 for n, stack in stacks.items()}  # each antes 5
        await play(again, 1, seed=4)
        assert _ante(again.hand_record(6)) == 5
        assert again.game_change() is None
        again.check_chips()

    asyncio.run(run())


def _steps(table: TableController, players: SimPlayers, count: int) -> Any:
    async def run() -> None:
        for _ in range(count):
            if table.hand is None and table._deal is None:
                await table.start_hand()
            else:
                await players.step()
    return run()


@pytest.mark.parametrize("old_format", [False, True], ids=["journaled game", "version 1 entries"])
def test_a_hand_in_play_at_the_stop_finishes_with_its_own_game(old_format: bool) -> None:
    """The reference table plays on at ante 1 without a stop; the stopped one restarts at ante 5 in the middle of
    hand 4 (on the same shoe, a device that outlives the controller): hand 4 ends the same, at ante 1. A version 1
    hand 4 has no record yet: it takes the game of hand 3's."""

    async def run() -> None:
        ref_journal, shoe_ref = MemoryJournal(), VirtualShoe(seed=9)
        ref = _table(ANTE_1, ref_journal, shoe_ref)
        journal, shoe = MemoryJournal(), VirtualShoe(seed=9)
        first = _table(ANTE_1, journal, shoe)
        for t in (ref, first):
            await seated(t, 4)
        ref_players, players = SimPlayers(ref, rng=random.Random(9)), SimPlayers(first, rng=random.Random(9))
        while first.hand_no < 4 or first.hand is None or first.hand.acts_taken < 3:
            await _steps(ref, ref_players, 1)
            await _steps(first, players, 1)
        assert first.hand_no == 4
        second = _table(ANTE_5, _old_format(journal) if old_format else journal, shoe)
        second.recover()
        assert second.hand is not None and second.hand.config.stakes.ante == 1
        assert second.full_view().game.stakes["ante"] == 1  # the screens show the game of the hand in play
        players.table = second
        while ref.hand is not None or second.hand is not None:
            if ref.hand is not None:
                await ref_players.step()
            if second.hand is not None:
                await players.step()
        assert _chips(second)["stacks"] == _chips(ref)["stacks"]
        assert second.history() == ref.history()
        assert second.hand_record(4) == ref.hand_record(4)
        second.check_chips()
        await second.start_hand()
        assert second.hand is not None and second.hand.config.stakes.ante == 5

    asyncio.run(run())


def test_a_hand_in_play_at_the_stop_is_voided_on_its_own_record() -> None:
    async def run() -> None:
        journal = MemoryJournal()
        first = _table(ANTE_1, journal)
        await seated(first, 3)
        await play(first, 2, seed=2)
        await first.start_hand()
        start = {n: s.stack for n, s in first.seats.items()}
        second = _table(ANTE_5, journal)
        second.recover()
        await second.void_in_play("the shoe restarted with a new deck")
        assert {n: s.stack for n, s in second.seats.items()} == start  # every chip back
        record = second.hand_record(3)
        assert record["game"] == config_to_json(table_game(ANTE_1)) and journal.hands[3]["record"] == record
        second.check_chips()

    asyncio.run(run())


def test_a_version_1_journal_without_any_record_is_replayed_with_the_settings_game() -> None:
    """The first hand of an old journal, in play at the stop, has no record and no hand before it: the settings'
    game is all that tells it (as before games were journaled)."""

    async def run() -> None:
        journal = MemoryJournal()
        first = _table(ANTE_1, journal)
        await seated(first, 3)
        await first.start_hand()
        second = _table(ANTE_5, _old_format(journal))
        second.recover()
        assert second.hand is not None and second.hand.config.stakes.ante == 5
        assert second.game_change() is None
        second.check_chips()

    asyncio.run(run())


def test_a_version_1_hand_whose_record_names_an_unreadable_game_takes_the_hand_before_its() -> None:
    async def run() -> None:
        journal, before = await _played(3)
        old = _old_format(journal)
        old.hands[2] = {**old.hands[2], "record": {**old.hands[2]["record"], "game": {"form": "strip_poker"}}}
        again = _table(ANTE_5, old)
        again.recover()
        assert _chips(again)["stacks"] == before["stacks"]
        assert any("Hand #2's stored record names a game" in line.text for line in again.full_view().log)

    asyncio.run(run())


# Games a table might change to between sessions: form, betting structure, stakes.
_STAKES = {"fixed_limit": {"small_bet": 2, "big_bet": 4, "cap": 4}, "spread_limit": {"min_bet": 2, "max_bet": 10},
           "pot_limit": {"min_bet": 2}, "no_limit": {"min_bet": 2}}
games = st.builds(
    lambda form, betting, ante, blind: {"form": form, "betting": betting,
                                        "stakes": {**_STAKES[betting], "ante": ante,
                                                   **({"blind": blind} if form == "blind_and_straddle" else {})}},
    st.sampled_from(["jackpots", "five_card_draw", "open_on_anything", "blind_and_straddle"]),
    st.sampled_from(sorted(_STAKES)), st.integers(0, 6), st.integers(1, 3))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions=st.lists(st.tuples(games, st.integers(0, 80)), min_size=2, max_size=4), seed=st.integers(0, 999))
def test_any_game_changes_between_restarts_move_no_chip(sessions: list[tuple[dict[str, Any], int]],
                                                        seed: int) -> None:
    """Sessions on one journal and one shoe, each with its own game, each stopped after some steps (in a hand or
    between two): every restart rebuilds the table exactly as it stood (no chip moves), chips are conserved at
    every step, and every hand's record is of the game it was dealt with."""

    async def run() -> None:
        journal, shoe = MemoryJournal(), VirtualShoe(seed=seed)
        dealt: dict[int, dict[str, Any]] = {}
        before: dict[str, Any] | None = None
        in_play: GameConfig | None = None
        rng = random.Random(seed)
        for game, steps in sessions:
            table = _table(game, journal, shoe)
            table.recover()
            if before is None:
                await seated(table, 4)
            else:
                assert _chips(table) == before
                assert table.game_in_play == (in_play or table.config)
            players = SimPlayers(table, rng=rng)
            for _ in range(steps):
                if table.halted or table.paused:
                    break
                if not table.in_play():
                    for n, seat in sorted(table.seats.items()):
                        if seat.stack < 20:
                            await (table.rebuy(n, 100 - seat.stack) if seat.stack else table.buy_in(n, 100))
                    await table.start_hand()
                    dealt[table.hand_no] = config_to_json(table.config)
                elif not await players.step():
                    break
                table.check_chips()
            before = _chips(table)
            in_play = table.game_in_play if table.in_play() else None
        assert before is not None
        for hand, record in before["records"].items():
            assert record["game"] == dealt[hand], hand

    asyncio.run(run())


def test_a_durable_version_1_journal_opens_at_other_stakes_with_its_hands_as_they_were(tmp_path: Path) -> None:
    """The journal on disk as a controller wrote it before games were journaled (hand.start version 1, the games
    only in the stored records): the table opens on it with settings at ante 5, through the runtime as `cardtable
    run` does, and every hand replays with the game of its stored record."""
    played, old = tmp_path / "played", tmp_path / "old"

    async def run() -> None:
        settings = TableSettings(pace_s=0, broadcast_delay_s=0, data=played, game=table_game(ANTE_1))
        table = await open_table(settings, seed=4, fast=True, virtual_shoe=True, camera=False)
        await seated(table.controller, 4)
        await play(table.controller, 4, seed=4)
        before = _chips(table.controller)
        await close_table(table)
        with Journal.open(data_dir=played) as source, Journal.open(data_dir=old) as target:
            writer = target.writer("t1")
            for e in source.read_all("t1"):
                payload = dict(e.payload)
                if e.kind == "hand.start":
                    del payload["game"], payload["v"]
                writer.append(e.kind, payload, at=datetime.fromisoformat(e.at), hand_id=e.hand_id,
                              hand_number=e.hand_number)
            writer.close()
        again = await open_table(settings.model_copy(update={"data": old, "game": table_game(ANTE_5)}), seed=5,
                                 fast=True, virtual_shoe=True, camera=False)
        try:
            assert _chips(again.controller) == before
            assert again.controller.game_change() is not None
        finally:
            await close_table(again)

    asyncio.run(run())
