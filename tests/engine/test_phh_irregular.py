"""PHH export of irregular hands: replacement cards are dealt in the actions, and every irregularity and
floor ruling is carried in the underscore fields with the rule it applied."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from table_controller.engine.phh import to_phh
from table_controller.engine.record import parse_record, play

RECORDS = Path(__file__).resolve().parents[1] / "records" / "irregularities"
PLAYABLE = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json")
                  and json.loads(p.with_suffix(".expected.json").read_text(encoding="utf-8"))["exit"] == 0)


def _events(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [e.to_json() for e in play(parse_record(record)).events]


def test_there_are_irregular_hands_with_replacements() -> None:
    kinds = {e["event"] for p in PLAYABLE for e in _events(json.loads(p.read_text(encoding="utf-8")))}
    assert {"irregularity", "replacement", "floor_ruling"} <= kinds


@pytest.mark.parametrize("path", PLAYABLE, ids=lambda p: p.stem)
def test_irregular_hand_phh_carries_every_remedy(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    events = _events(record)
    doc = tomllib.loads(to_phh(record))
    players = {seat: f"p{k + 1}" for k, seat in enumerate(doc["seats"])}
    for e in events:
        if e["event"] == "replacement" and e["cards"]:
            assert f"d dh {players[e['seat']]} {''.join(e['cards'])}" in doc["actions"]
    ruled = [e for e in events if e["event"] in ("irregularity", "mixed_shuffle", "draw_count")]
    assert len(doc.get("_irregularities", [])) == len(ruled)
    assert [i.get("rule") for i in doc.get("_irregularities", [])] == [e.get("rule") for e in ruled]
    rulings = [e for e in events if e["event"] == "floor_ruling"]
    assert [(r["ruling"], r["by"]) for r in doc.get("_floor_rulings", [])] == [(e["ruling"], e["by"]) for e in rulings]
