"""`verify_action` refuses exactly what `apply_action` refuses, with the same code, and changes nothing.

Checked at every act of every scripted hand record (the legal ones, and the illegal act that ends the
records expected to exit 1), so every act name of the record format goes through both paths."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from table_controller.engine.errors import IllegalActionError
from table_controller.engine.hand import Hand
from table_controller.engine.record import ActionModel, apply_action, parse_record, start_hand, verify_action

RECORDS = Path(__file__).resolve().parents[1] / "records"
PATHS = sorted(p for p in RECORDS.rglob("*.json") if not p.name.endswith(".expected.json")
               and json.loads(p.with_suffix(".expected.json").read_text(encoding="utf-8"))["exit"] != 2)  # bad input


def _code(step: Callable[[Hand, ActionModel], None], hand: Hand, action: ActionModel) -> str | None:
    try:
        step(hand, action)
    except IllegalActionError as exc:
        return exc.code
    return None


def test_every_act_name_is_covered() -> None:
    acts = {a.act for p in PATHS for a in parse_record(json.loads(p.read_text(encoding="utf-8"))).actions}
    assert {"check", "bet", "call", "raise", "fold", "draw", "show", "muck", "irregularity", "floor_ruling",
            "declare_no_openers", "straddle"} <= acts


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_verify_agrees_with_apply_and_changes_nothing(path: Path) -> None:
    record = parse_record(json.loads(path.read_text(encoding="utf-8")))
    hand = start_hand(record)
    trial = start_hand(record)  # one act ahead: each act is applied to it first, then (when legal) to the hand
    for action in record.actions:
        if hand.is_over:
            break
        before = hand.to_record()
        verdict = _code(verify_action, hand, action)
        assert hand.to_record() == before
        assert _code(apply_action, trial, action) == verdict
        if verdict is not None:
            break
        apply_action(hand, action)
