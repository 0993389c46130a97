"""Scripted hands from the rule books: every record in tests/records/ replays to its expected result.

Each ``NAME.json`` is a hand record named after the rule it exercises (book code first: 000, 001, 003);
``NAME.expected.json`` holds the exit status and the parts of the result that rule decides (status, stacks,
carried pot, and where it matters the awards, the hands, the openers verdict or the events). The expected
files were checked by hand against the books' text.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.engine.record import InvalidRecordError, ReplayError, replay

RECORDS = Path(__file__).resolve().parents[1] / "records"
NAMES = sorted(p.name.removesuffix(".json") for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))


def _load(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = json.loads((RECORDS / f"{name}.json").read_text(encoding="utf-8"))
    expected = json.loads((RECORDS / f"{name}.expected.json").read_text(encoding="utf-8"))
    return record, expected


def test_every_book_has_scripted_hands() -> None:
    assert len(NAMES) >= 60
    for book in ("000_", "001_", "003_"):
        assert any(n.startswith(book) for n in NAMES), book


@pytest.mark.parametrize("name", NAMES)
def test_record_replays_to_expected_result(name: str) -> None:
    record, expected = _load(name)
    if expected["exit"] == 0:
        result = replay(record)
        for key, value in expected.items():
            if key != "exit":
                assert result[key] == value, key
        # Chips are conserved: stacks after + the pot still in play + what stays for the next deal == stacks
        # before + the carried pot.
        before = sum(s["stack"] for s in record["seats"]) + record.get("carried_pot", 0)
        assert sum(result["stacks"].values()) + result["pot"] + result["carried_pot"] == before
    elif expected["exit"] == 1:
        with pytest.raises(ReplayError) as exc:
            replay(record)
        assert exc.value.action_index == expected["error"]["action_index"]
        assert exc.value.code == expected["error"]["code"]
        assert "(" in exc.value.message or exc.value.code in ("wrong_phase", "card_elsewhere", "hand_over")
    else:
        with pytest.raises(InvalidRecordError):
            replay(record)


@pytest.mark.parametrize("name", NAMES)
def test_replaying_twice_gives_the_same_result(name: str) -> None:
    record, expected = _load(name)
    if expected["exit"] == 0:
        assert replay(record) == replay(record)


def test_record_from_the_engine_replays_identically() -> None:
    from table_controller.engine.record import parse_record, play, start_hand

    record, _ = _load("003_jackpots_open_with_jacks_or_better")
    hand = play(parse_record(record))
    again = replay(hand.to_record())
    assert again == hand.result()
    assert start_hand(parse_record(hand.to_record())).stacks() != hand.stacks()


@pytest.mark.parametrize("name,code", [("003_jackpots_open_with_jacks_or_better", 0),
                                       ("fixed_limit_cap_on_bets_and_raises", 1)])
def test_cli_replay_prints_one_json_object(name: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(RECORDS / f"{name}.json")]) == code
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    data = json.loads(out[0])
    if code == 0:
        assert data["status"] == "complete" and data["stacks"] == {"1": 112, "2": 89, "3": 99}
    else:
        assert data["error"]["code"] == "cap_reached" and data["error"]["action_index"] == 4
        assert "cap" in data["error"]["message"]


@pytest.mark.parametrize("text,problem", [
    ("{", "not JSON"),
    ('{"format": "cardtable.hand/1"}', "game"),
    (json.dumps({"format": "cardtable.hand/1", "game": {"form": "jackpots", "stakes": {"small_bet": 2, "big_bet": 4}},
                 "seats": [{"seat": 1, "stack": 5}, {"seat": 2, "stack": 5}], "button": 2,
                 "deck": ["As", "Zz"]}), "bad card code"),
    (json.dumps({"format": "cardtable.hand/1", "game": {"form": "jackpots", "stakes": {"small_bet": 2, "big_bet": 4}},
                 "seats": [{"seat": 1, "stack": 5}, {"seat": 2, "stack": 5}], "button": 2,
                 "deck": ["As", "As"]}), "twice"),
    (json.dumps({"format": "cardtable.hand/1", "game": {"form": "jackpots", "stakes": {"small_bet": 2, "big_bet": 4}},
                 "seats": [{"seat": 1, "stack": 5}, {"seat": 2, "stack": 5}], "button": 7}), "button"),
    (json.dumps({"format": "cardtable.hand/1", "game": {"form": "jackpots"},
                 "seats": [{"seat": 1, "stack": 5}, {"seat": 2, "stack": 5}], "button": 1}), "small_bet"),
    (json.dumps({"format": "cardtable.hand/1", "game": {"form": "jackpots", "stakes": {"small_bet": 2, "big_bet": 4}},
                 "seats": [{"seat": 1, "stack": 5}, {"seat": 2, "stack": 5}], "button": 1,
                 "actions": [{"seat": 2, "act": "bet"}]}), "needs 'to'"),
])
def test_cli_replay_invalid_record_exits_2_listing_problems(text: str, problem: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["error"]["code"] == "invalid_record"
    assert any(problem in p for p in data["error"]["problems"]), data


def test_cli_replay_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().out


def test_cli_replay_reads_stdin_without_traceback() -> None:
    record = (RECORDS / "003_jackpots_passed_out_pot_carries.json").read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "table_controller.cli", "replay", "-"], input=record,
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "passed_out"
    assert "Traceback" not in done.stderr


def test_cli_schema_prints_the_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "hand-record"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "HandRecord"
    assert {"format", "game", "seats", "button"} <= set(schema["required"])
