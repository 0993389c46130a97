"""The device state machine: exact (state, trigger, next) rows, refusals, and the generated diagram."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge.diagram import render
from firmware_bridge.states import TRANSITIONS, DeviceState, Trigger, next_state

S, T = DeviceState, Trigger
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("state", "trigger", "target"), [
    (S.BOOT, T.BOOTED, S.SELF_TEST),
    (S.SELF_TEST, T.RESUME_READY, S.READY),
    (S.SELF_TEST, T.SELF_TEST_FAILED, S.FAULT),
    (S.IDLE, T.SHUFFLE, S.SHUFFLING),
    (S.SHUFFLING, T.SHUFFLE_DONE, S.READY),
    (S.READY, T.DEAL, S.DEALING),
    (S.DEALING, T.CARD_OUT, S.READY),
    (S.DEALING, T.LAST_CARD_OUT, S.EMPTY),
    (S.DEALING, T.JAM, S.JAMMED),
    (S.JAMMED, T.JAM_CLEARED, S.DEALING),
    (S.JAMMED, T.JAM_STUCK, S.FAULT),
    (S.DEALING, T.DOOR_OPENED, S.FAULT),
    (S.FAULT, T.CLEAR_FAULT, S.IDLE),
    (S.EMPTY, T.SHUFFLE, S.SHUFFLING),
    (S.READY, T.VERIFY, S.VERIFYING),
    (S.VERIFYING, T.VERIFY_DONE, S.READY),
])
def test_transition_rows(state: DeviceState, trigger: Trigger, target: DeviceState) -> None:
    assert next_state(state, trigger) is target


@pytest.mark.parametrize(("state", "trigger"), [
    (S.IDLE, T.DEAL), (S.EMPTY, T.DEAL), (S.FAULT, T.DEAL), (S.SHUFFLING, T.DEAL), (S.DEALING, T.DEAL),
    (S.FAULT, T.SHUFFLE), (S.READY, T.CLEAR_FAULT), (S.BOOT, T.SHUFFLE), (S.JAMMED, T.CLEAR_FAULT),
])
def test_refused_pairs(state: DeviceState, trigger: Trigger) -> None:
    assert next_state(state, trigger) is None


def test_power_loss_from_everywhere_and_fault_left_only_by_clear_or_power() -> None:
    for state in DeviceState:
        assert next_state(state, T.POWER_LOSS) is S.BOOT
    exits = {trigger for (state, trigger), target in TRANSITIONS.items() if state is S.FAULT and target is not S.FAULT}
    assert exits == {T.CLEAR_FAULT, T.POWER_LOSS}


def test_every_state_is_reachable_from_boot() -> None:
    seen, frontier = {S.BOOT}, [S.BOOT]
    while frontier:
        state = frontier.pop()
        for (source, _), target in TRANSITIONS.items():
            if source is state and target not in seen:
                seen.add(target)
                frontier.append(target)
    assert seen == set(DeviceState)


def test_docs_diagram_is_generated_from_the_table() -> None:
    doc = ROOT / "docs" / "shoe-states.md"
    assert doc.read_text(encoding="utf-8") == render(), "run: python -m firmware_bridge.diagram > docs/shoe-states.md"
