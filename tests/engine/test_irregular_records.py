"""Scripted irregularities: every record in tests/records/irregularities/ replays to its expected result.

Each ``NAME.json`` is a hand record named after the rule (book code first; ``common_practice_`` and
``floor_ruling_`` where the books are silent) with one remedy or one house option; ``NAME.expected.json`` holds
the exit status and what the rule decides: status, stacks, carried pot, the rules the engine cited (each
``irregularity`` event's ``rule`` must start with the listed text, in order), and where it matters the hands,
the next deal's consequences, the short hands or the false-opener case. The expected results were worked out
by hand from the books (docs/irregularities.md walks through them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.engine.record import InvalidRecordError, ReplayError, replay

RECORDS = Path(__file__).resolve().parents[1] / "records" / "irregularities"
NAMES = sorted(p.name.removesuffix(".json") for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))


def _load(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = json.loads((RECORDS / f"{name}.json").read_text(encoding="utf-8"))
    expected = json.loads((RECORDS / f"{name}.expected.json").read_text(encoding="utf-8"))
    return record, expected


def test_every_book_and_every_option_has_a_scripted_irregularity() -> None:
    assert len(NAMES) >= 50
    for prefix in ("000_", "001_", "003_", "floor_ruling_"):
        assert any(n.startswith(prefix) for n in NAMES), prefix
    options = {key for name in NAMES for key in _load(name)[0]["game"].get("options", {})}
    assert options >= {"exposed_draw_card", "short_deal", "late_draw_miscount", "out_of_turn_discarded",
                       "dealer_short_draw", "draw_count_info", "misdeal_antes", "misdeal_deal_passes",
                       "false_opener_penalty", "misdeal_call", "uncalled_false_opener", "mixed_cards_shuffle"}


@pytest.mark.parametrize("name", NAMES)
def test_irregularity_record_replays_to_expected_result(name: str) -> None:
    record, expected = _load(name)
    if expected["exit"] == 2:  # bad input: the problem names the field
        with pytest.raises(InvalidRecordError) as bad:
            replay(record)
        assert any(f"'{expected['field']}'" in problem for problem in bad.value.problems), bad.value.problems
        return
    if expected["exit"] == 1:
        with pytest.raises(ReplayError) as exc:
            replay(record)
        assert exc.value.action_index == expected["error"]["action_index"]
        assert exc.value.code == expected["error"]["code"]
        assert "(" in exc.value.message or exc.value.code == "not_your_turn"  # the rule is named
        return
    result = replay(record)
    for key, value in expected.items():
        if key == "exit":
            continue
        if key == "rules":
            cited = [e["rule"] for e in result["events"] if e["event"] == "irregularity"]
            assert len(cited) == len(value), cited
            for got, want in zip(cited, value, strict=True):
                assert got.startswith(want), (got, want)
        else:
            assert result[key] == value, key
    before = sum(s["stack"] for s in record["seats"]) + record.get("carried_pot", 0)
    assert sum(result["stacks"].values()) + result["pot"] + result["carried_pot"] == before
    assert replay(record) == result


_CLI_NAMES = [n for n in NAMES if n.startswith(("000_foul", "003_incorrect_dealing_in_the_draw_1", "floor_ruling_void"))
              or n.endswith("_bad_input")]


@pytest.mark.parametrize("name", _CLI_NAMES)
def test_cli_replays_irregularity_records(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    record, expected = _load(name)
    code = main(["replay", str(RECORDS / f"{name}.json")])
    out = json.loads(capsys.readouterr().out)
    assert code == expected["exit"]
    if code == 0:
        assert out == replay(record)
        assert out["status"] == expected["status"]
    if code == 2:
        assert out["error"]["code"] == "invalid_record"
        assert any(f"'{expected['field']}'" in problem for problem in out["error"]["problems"])
