"""The examples of docs/operations.md: the settings file loads; the calibration snippet writes a file the
camera can use."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from table_controller.service.settings import load_settings
from vision.calibration import TableCalibration

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_settings_example_loads(tmp_path: Path) -> None:
    (example,) = _blocks("json")
    path = tmp_path / "table7.json"
    path.write_text(example)
    s = load_settings(path)
    assert (s.table_id, s.shoe, s.camera, s.port) == ("t7", "/dev/ttyUSB0", "0", 8000)
    assert s.game.stakes.small_bet == 2
    assert s.game.options.burn_before_draw is json.loads(example)["game"]["options"]["burn_before_draw"]


def test_calibration_snippet_writes_a_calibration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (snippet,) = _blocks("python")
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet, str(DOC), "exec"), {})  # the documented code, as a technician runs it
    assert os.path.exists("table-calibration.json")
    cal = TableCalibration.load("table-calibration.json")
    assert [z.name for z in cal.seat_zones()] == ["seat 1", "seat 2", "seat 3"]
    x, y = cal.to_table(102, 655)
    assert abs(x) < 1 and abs(y) < 1
