"""The examples in docs/irregularities.md replay to the results printed beside them, and the document covers
every report kind, every house option and every scripted irregularity record."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.engine.config import HouseOptions
from table_controller.engine.irregular import FLOOR_KINDS, REPORT_KINDS
from table_controller.engine.record import ReplayError, replay

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "irregularities.md"
RECORDS = ROOT / "tests" / "records" / "irregularities"
_BLOCK = re.compile(r"<!-- (example|result): (\w+) -->\s*```json\n(.*?)```", re.S)
IRREGULARITY_OPTIONS = ("exposed_draw_card", "short_deal", "late_draw_miscount", "out_of_turn_discarded",
                        "dealer_short_draw", "draw_count_info", "misdeal_antes", "misdeal_deal_passes",
                        "false_opener_penalty", "misdeal_call", "uncalled_false_opener", "mixed_cards_shuffle")


def _blocks() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for kind, name, body in _BLOCK.findall(DOC.read_text(encoding="utf-8")):
        found.setdefault(name, {})[kind] = json.loads(body)
    return found


EXAMPLES = _blocks()


def test_the_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 4
    assert all(set(v) == {"example", "result"} for v in EXAMPLES.values())


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_doc_example_replays_as_documented(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record, expected = EXAMPLES[name]["example"], EXAMPLES[name]["result"]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code = main(["replay", str(path)])  # as an auditor would: `cardtable replay FILE`
    printed = json.loads(capsys.readouterr().out)
    if "error" in expected:
        assert code == 1
        assert printed == expected
        with pytest.raises(ReplayError):
            replay(record)
        return
    assert code == 0
    for key, value in expected.items():
        assert printed[key] == value, key


def test_the_doc_names_every_kind_option_and_record() -> None:
    text = DOC.read_text(encoding="utf-8")
    for kind in (*REPORT_KINDS, *FLOOR_KINDS):
        assert f"`{kind}`" in text, kind
    names = {f.name for f in fields(HouseOptions)}
    for option in IRREGULARITY_OPTIONS:
        assert option in names and f"`{option}`" in text, option
    # Each record is named in full, or by its family (`PREFIX_*`), or as `..._SUFFIX` after a sibling.
    tokens = set(re.findall(r"`([^`\n]+)`", text))
    families = [t.removesuffix("*") for t in tokens if t.endswith("_*")]
    suffixes = [t.removeprefix("...") for t in tokens if t.startswith("...")]
    for path in RECORDS.glob("*.expected.json"):
        name = path.name.removesuffix(".expected.json")
        assert name in tokens or any(name.startswith(f) for f in families) or \
            any(name.endswith(x) for x in suffixes), name
