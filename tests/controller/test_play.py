"""Whole hands on the engine and a shoe: chips conserved, every deck verified, records replayable."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.controller.demo import play_hands, seat_players
from table_controller.controller.errors import NotAllowedError, TableRequestError
from table_controller.controller.players import SimPlayers
from table_controller.engine.record import replay
from tests.controller.helpers import make_table, seated


def test_demo_hands_conserve_chips_and_verify_every_deck() -> None:
    async def run() -> None:
        table = make_table(seed=11)
        await seat_players(table, 6)
        summary = await play_hands(table, SimPlayers(table, rng=random.Random(11)), hands=25)
        assert summary.hands == 25
        assert summary.chips_conserved and summary.ok
        assert summary.decks_verified == 25
        statuses = {h.status for h in table.history()}
        assert statuses <= {"complete", "passed_out", "carried"}
        assert "complete" in statuses
        # Each finished hand's record replays through the engine to the same stacks.
        for number, summary_row in enumerate(table.history(), start=1):
            record = table.hand_record(number)
            assert record["format"] == "cardtable.hand/2"
            result = replay(record)
            assert result["status"] == summary_row.status

    asyncio.run(run())


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 8), betting=st.sampled_from(
    ["fixed_limit", "no_limit", "pot_limit", "spread_limit"]))
def test_chips_and_cards_conserved_property(seed: int, players: int, betting: str) -> None:
    stakes = {"fixed_limit": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4},
              "no_limit": {"ante": 1, "min_bet": 2}, "pot_limit": {"ante": 1, "min_bet": 2},
              "spread_limit": {"ante": 1, "min_bet": 2, "max_bet": 10}}[betting]

    async def run() -> None:
        table = make_table(seed=seed, game={"form": "five_card_draw", "betting": betting, "stakes": stakes})
        await seated(table, players, stack=60)
        summary = await play_hands(table, SimPlayers(table, rng=random.Random(seed)), hands=4)
        assert summary.ok, (summary.halted, table.message)
        table.check_chips()
        assert table.chips_on_table() == table.chips_in
        assert table.decks_verified == 4
        for n in range(1, 5):
            deck = table.hand_record(n)["deck"]
            known = [c for c in deck if c != "??"]
            assert len(known) == len(set(known))  # no card twice in any hand

    asyncio.run(run())


def test_seat_changes_wait_for_the_hand() -> None:
    async def run() -> None:
        table = make_table()
        await seated(table, 3)
        await table.start_hand()
        assert table.hand is not None
        with pytest.raises(NotAllowedError, match="waits until the hand"):
            await table.stand_up(1)
        with pytest.raises(NotAllowedError, match="waits until the hand"):
            await table.rebuy(2, 10)
        with pytest.raises(NotAllowedError, match="still in progress"):
            await table.start_hand()

    asyncio.run(run())


def test_illegal_acts_are_refused_with_the_rule_and_change_nothing() -> None:
    async def run() -> None:
        table = make_table()
        await seated(table, 3)
        await table.start_hand()
        before = table.full_view()
        seat = before.to_act
        assert seat is not None
        other = next(s.seat for s in before.seats if s.status == "active" and s.seat != seat)
        with pytest.raises(NotAllowedError) as info:
            await table.act(other, "check")
        assert info.value.code == "not_your_turn"
        assert info.value.rule
        with pytest.raises(TableRequestError):
            await table.act(seat, "bet")  # no amount
        with pytest.raises(TableRequestError):
            await table.act(seat, "draw")
        with pytest.raises(NotAllowedError):
            await table.draw(seat, count=2)  # not the draw yet
        after = table.full_view()
        assert after.seats == before.seats and after.to_act == before.to_act

    asyncio.run(run())


def test_needs_two_players() -> None:
    async def run() -> None:
        table = make_table()
        await table.sit_down(1, "Ann", 50)
        with pytest.raises(NotAllowedError, match="at least two"):
            await table.start_hand()

    asyncio.run(run())


def test_shoe_without_a_reader_plays_on_counts_and_learns_at_showdown() -> None:
    async def run() -> None:
        from table_controller.controller.devices import VirtualShoe

        shoe = VirtualShoe(seed=19, has_reader=False)
        table = make_table(shoe=shoe, card_reader=False)
        await seat_players(table, 5)
        players = SimPlayers(table, rng=random.Random(19), truth=lambda: list(shoe.dealt))
        summary = await play_hands(table, players, hands=8)
        assert summary.ok
        shown = [a for n in range(1, 9) for a in table.hand_record(n)["actions"] if a["act"] == "show"]
        assert shown and all("??" not in a.get("cards", []) for a in shown)
        draws = [a for n in range(1, 9) for a in table.hand_record(n)["actions"] if a["act"] == "draw"]
        assert draws and all(set(a["discard"]) <= {"??"} for a in draws)  # nobody named a thrown card

    asyncio.run(run())


def test_count_only_draw_with_a_reader_forgets_which_cards_are_left() -> None:
    async def run() -> None:
        shoe_seed = 23
        table = make_table(seed=shoe_seed, game={"form": "five_card_draw", "betting": "fixed_limit",
                                                 "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}})
        await seated(table, 3)
        await table.start_hand()
        for _ in range(10):  # everyone checks to the draw
            view = table.full_view()
            if view.draw is not None:
                break
            assert view.to_act is not None
            await table.act(view.to_act, "check")
        view = table.full_view()
        assert view.draw is not None
        seat = view.draw.seat
        before = set(table.hand.hole(seat)) if table.hand else set()
        await table.draw(seat, count=2)
        hole = table.full_view().seats[seat - 1].hole
        assert hole.count("??") == 3  # which three were kept, nobody saw
        assert len([c for c in hole if c != "??"]) == 2 and not set(hole) & before  # the two served are read
        table.check_chips()

    asyncio.run(run())
