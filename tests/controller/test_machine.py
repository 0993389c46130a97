"""The controller's transition table: the docs are generated from it, and the controller moves only through it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.entries import ENTRY_KINDS
from table_controller.controller.errors import TableError
from table_controller.controller.machine import BEFORE, HOLDS, TRANSITIONS, Stage, StageMachine, render_markdown
from table_controller.controller.table import TableController
from tests.controller.helpers import make_table, play, seated

ROOT = Path(__file__).resolve().parents[2]


def test_controller_states_doc_is_generated_from_the_table() -> None:
    doc = (ROOT / "docs" / "controller-states.md").read_text(encoding="utf-8")
    assert doc == render_markdown()


def test_every_trigger_is_a_journal_entry_kind_or_the_end_of_a_hand() -> None:
    triggers = {t.trigger for t in TRANSITIONS}
    assert triggers - set(ENTRY_KINDS) == {"hand_over"}


def test_every_stage_is_reached_and_left() -> None:
    targets = {x for t in TRANSITIONS for x in t.targets if x != BEFORE}
    assert targets == set(Stage)
    assert {t.source for t in TRANSITIONS} == set(Stage)
    # Only a hold goes back to where it was.
    assert {t.source for t in TRANSITIONS if BEFORE in t.targets} == HOLDS


def test_a_move_outside_the_table_is_refused() -> None:
    machine = StageMachine()
    with pytest.raises(TableError) as refused:
        machine.move("act", Stage.PLAYING)
    assert refused.value.code == "bad_transition"
    assert machine.stage is Stage.WAITING


def test_a_hold_returns_to_the_stage_it_interrupted() -> None:
    machine = StageMachine()
    for trigger, target in (("hand.start", Stage.SHUFFLING), ("deck.check", Stage.DEALING),
                            ("deal", Stage.PLAYING), ("act", Stage.SERVING), ("device.fault", Stage.PAUSED),
                            ("halt", Stage.HALTED)):
        machine.move(trigger, target)
    assert (machine.stage, machine.underlying) == (Stage.HALTED, Stage.SERVING)
    machine.move("card", Stage.PLAYING)  # a card from the shoe's log under the hold: the hand moves on
    assert (machine.stage, machine.underlying) == (Stage.HALTED, Stage.PLAYING)
    machine.move("ruling", BEFORE)
    assert machine.stage is Stage.PLAYING and machine.held_from is None


def test_a_table_played_and_faulted_ends_each_hand_waiting() -> None:
    async def run() -> None:
        shoe = VirtualShoe(seed=3)
        table = make_table(shoe=shoe)
        await seated(table, 4)
        await play(table, 5, seed=3)
        assert _stages(table) == (Stage.WAITING, Stage.WAITING) and table.phase == "complete"
        shoe.inject_fault("jam")
        await table.start_hand()
        assert _stages(table) == (Stage.PAUSED, Stage.SHUFFLING) and table.full_view().phase == "paused"
        shoe.inject_fault(None)
        prompt = table.full_view().prompts[0]
        await table.answer_prompt(prompt.id, "retry")
        assert _stages(table) == (Stage.PLAYING, Stage.PLAYING) and table.hand is not None

    asyncio.run(run())


def _stages(table: TableController) -> tuple[Stage, Stage]:
    return table.stage, table.machine.underlying
