"""The PHH (TOML) and plain-text writers."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from table_controller.engine.phh import to_phh
from table_controller.engine.record import replay
from table_controller.engine.text import to_text

RECORDS = Path(__file__).resolve().parents[1] / "records"
COMPLETE = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json")
                  and json.loads(p.with_suffix(".expected.json").read_text(encoding="utf-8"))["exit"] == 0)


def test_phh_of_a_jackpots_hand() -> None:
    record = json.loads((RECORDS / "003_jackpots_open_with_jacks_or_better.json").read_text(encoding="utf-8"))
    doc = tomllib.loads(to_phh(record))
    assert doc["variant"] == "F5CD"
    assert doc["antes"] == [1, 1, 1] and doc["small_bet"] == 2 and doc["big_bet"] == 4
    assert doc["players"] == ["Ann", "Bo", "Cy"] and doc["starting_stacks"] == [100, 100, 100]
    assert doc["actions"][:4] == ["d dh p1 JsJd4c7h9s", "d dh p2 KsQd8c8h2s", "d dh p3 3c5d6hTcAh", "p1 cbr 2"]
    assert "p1 sd 4c7h9s" in doc["actions"] and "d dh p1 Jh4s7d" in doc["actions"]
    assert doc["finishing_stacks"] == [112, 89, 99]
    assert doc["_form"] == "jackpots" and doc["_burned"] == ["2d"] and doc["_openers_proved"] is True


@pytest.mark.parametrize("path", COMPLETE, ids=lambda p: p.stem)
def test_every_complete_record_writes_valid_phh_and_text(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    result = replay(record)
    doc = tomllib.loads(to_phh(record))
    order = doc["seats"]
    assert doc["finishing_stacks"] == [result["stacks"][str(s)] for s in order]
    assert doc["variant"].endswith("5CD") and doc["_status"] == result["status"]
    text = to_text(record, result)
    assert f"Result: {result['status']}" in text
    for seat in record["seats"]:
        assert f"(seat {seat['seat']}): {result['stacks'][str(seat['seat'])]} chips" in text


def test_text_names_the_winner_and_the_draws() -> None:
    record = json.loads((RECORDS / "003_jackpots_open_with_jacks_or_better.json").read_text(encoding="utf-8"))
    text = to_text(record, replay(record))
    assert "Ann (seat 1) opens for 2" in text
    assert "Ann (seat 1) draws 3 and keeps his discards under his chips" in text
    assert "Ann (seat 1) wins 23 from the pot: three of a kind, jacks" in text
