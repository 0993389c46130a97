"""Hands through every layer: the shoe simulator on a pty opened by pyserial, the firmware bridge, the
controller and rules engine, the durable journal, the HTTP API (the dealer's acts) and a WebSocket client
(the floor display), with the simulated camera read by the vision pipeline at showdown.

For every game form and betting structure: chips are conserved, every card the shoe dealt reached the
journal once and in the shoe's order and was shown on the floor display, and every hand record that
``cardtable history export`` writes replays (``cardtable replay``) to the result the table stored.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from table_controller.engine.config import Betting, GameForm
from table_controller.soak.checks import audit_data
from table_controller.soak.stack import LiveStack, StackOptions, game_for

FORMS = [f.value for f in GameForm]
BETTINGS = [b.value for b in Betting]
HANDS = 1
PLAYERS = 4


async def _play(options: StackOptions, hands: int) -> LiveStack:
    stack = LiveStack(options)
    await stack.start()
    try:
        await stack.seat_players()
        players = stack.new_players()
        for _ in range(hands):
            await stack.play_hand(players)
        await stack.settle()
        stack.table.check_chips()
    finally:
        await stack.stop()
    return stack


async def _play_all(form: str, root: Path) -> list[LiveStack]:
    # The four structures' tables play side by side (each its own shoe, pty, journal and web server): the
    # work is mostly waiting on the pty and the journal's fsync, so this halves the wall time on 2 cores.
    return list(await asyncio.gather(*(
        _play(StackOptions(data=root / betting, form=form, betting=betting, players=PLAYERS,
                           seed=FORMS.index(form) * 10 + k), HANDS)
        for k, betting in enumerate(BETTINGS))))


def _check(stack: LiveStack, tmp_path: Path) -> None:
    o = stack.options
    table = stack.table
    assert table.hands_played == HANDS
    assert not table.halted and not table.paused
    assert stack.stream.bad == 0 and stack.stream.messages > 0
    assert stack.stream.twice == 0  # no state ever showed a card in two places

    report = audit_data(o.data, game=game_for(o.form, o.betting), export_dir=tmp_path / f"export-{o.betting}")
    assert report.findings == []
    assert report.verify_ok
    assert report.completed == HANDS and report.voided == 0
    assert report.exported == HANDS and report.replayed_same == HANDS
    assert report.chips_in == report.chips_on_table == table.chips_on_table() == PLAYERS * o.stack

    # Every card the shoe dealt: in the journal once, in the shoe's order; on the floor display once.
    assert stack.sim is not None
    decks = [d for d in stack.sim.decks if d]
    assert len(decks) == HANDS
    for (number, facts), physical in zip(sorted(report.facts.items()), decks, strict=True):
        assert facts.dealt == physical
        assert len(set(facts.dealt)) == len(facts.dealt)
        record = table.hand_record(number)
        assert record["deck"][: len(facts.dealt)] == facts.dealt
        assert stack.stream.seen[number] == set(facts.dealt) - set(facts.burns)


@pytest.mark.parametrize("form", FORMS)
def test_hands_through_every_layer(form: str, tmp_path: Path) -> None:
    stacks = asyncio.run(_play_all(form, tmp_path))
    for stack in stacks:
        try:
            _check(stack, tmp_path)
        except AssertionError as exc:
            raise AssertionError(f"{form} / {stack.options.betting}: {exc}") from exc


def test_the_camera_reads_shown_hands_and_agrees_with_the_shoe(tmp_path: Path) -> None:
    """Play until the camera has read shown cards: every card it named was the one the shoe dealt that seat
    (a disagreement would halt the hand with a security alert)."""

    async def run() -> LiveStack:
        stack = LiveStack(StackOptions(data=tmp_path, seed=11, players=4))
        await stack.start()
        try:
            await stack.seat_players()
            players = stack.new_players()
            for _ in range(12):
                await stack.play_hand(players)
                if stack.camera_reads >= 5:
                    break
        finally:
            await stack.stop()
        return stack

    stack = asyncio.run(run())
    assert stack.camera is not None
    assert stack.camera_reads >= 5
    assert not stack.table.halted
    assert not [a for a in stack.table.full_view().alerts if a.kind == "camera_mismatch"]


def test_a_card_the_shoe_did_not_deal_halts_the_hand_with_an_alert(tmp_path: Path) -> None:
    """The camera sees a card in front of a seat that the shoe never dealt there: the hand halts."""

    async def run() -> LiveStack:
        stack = LiveStack(StackOptions(data=tmp_path, seed=12, players=4))
        await stack.start()
        try:
            await stack.seat_players()
            players = stack.new_players()
            assert stack.source is not None
            for _ in range(12):
                await stack.top_up()
                await stack.start_hand()
                while stack.in_play() and not stack.table.halted:
                    hand = stack.table.hand
                    if hand is not None and hand.phase() == "showdown":
                        # Cards from outside the hand appear in front of seats 1 to 4.
                        held = {c for info in hand.seat_info().values() for c in info.hole}
                        strangers = [r + s for r in "AKQJT98765432" for s in "shdc" if r + s not in held]
                        stack.source.foreign = dict(zip(range(1, 5), strangers, strict=False))
                    if not await stack.step(players):
                        break
                if stack.table.halted:
                    break
        finally:
            await stack.stop()
        return stack

    stack = asyncio.run(run())
    assert stack.table.halted
    alerts = [a for a in stack.table.full_view().alerts if a.kind == "camera_mismatch"]
    assert alerts and alerts[0].level == "security"


@pytest.mark.parametrize(("form", "betting"), [("jackpots", "fixed_limit"), ("five_card_draw", "no_limit")])
def test_a_shoe_without_a_card_reader(form: str, betting: str, tmp_path: Path) -> None:
    """Hole cards stay unknown ("??") until shown: draws are entered by count, shows name their cards, and
    the camera reads the shown hands. The same checks hold, by count where the table cannot name a card."""
    options = StackOptions(data=tmp_path / "data", form=form, betting=betting, players=PLAYERS, seed=31,
                           reader=False)
    stack = asyncio.run(_play(options, 2))
    table = stack.table
    assert table.hands_played == 2 and not table.halted and not table.paused
    report = audit_data(options.data, game=game_for(form, betting), export_dir=tmp_path / "export")
    assert report.findings == []
    assert report.exported == report.replayed_same == 2
    assert report.chips_in == report.chips_on_table == PLAYERS * options.stack
    assert stack.sim is not None
    decks = [d for d in stack.sim.decks if d]
    for (number, facts), physical in zip(sorted(report.facts.items()), decks, strict=True):
        assert set(facts.dealt) == {"??"}  # nothing on the wire or in the journal names a hole card
        assert len(facts.dealt) == len(physical)
        # What the displays showed (shown hands only) came from this hand's deck.
        assert stack.stream.seen.get(number, set()) <= set(physical)
