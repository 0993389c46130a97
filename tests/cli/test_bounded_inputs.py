"""`cardtable replay` on hostile files: bounded size, depth and integer length; exit 2, one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.cli import main


@pytest.mark.parametrize(("content", "why"), [
    ("[" * 100_000 + "]" * 100_000, "nested more than"),
    ('{"format": "cardtable.hand/1", "button": ' + "7" * 5000 + "}", "digits"),
    ('{"a": NaN}', "not JSON"),
    ("\xff\xfe not text", "not"),
])
def test_replay_refuses_a_hostile_file_with_one_line(tmp_path: Path, content: str, why: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(content.encode("latin-1") if content.startswith("\xff") else content.encode("utf-8"))
    assert main(["replay", str(path)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1
    error = json.loads(out[0])["error"]
    assert error["code"] == "invalid_record" and why in " ".join(error["problems"])


def test_replay_of_an_endless_device_stops_at_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero on this system")
    assert main(["replay", "/dev/zero"]) == 2
    [line] = capsys.readouterr().out.splitlines()
    assert "larger than" in line


@pytest.mark.parametrize(("content", "why"), [
    ("[" * 100_000 + "]" * 100_000, "nested more than"),
    ("\xff\xfe", "not"),
])
def test_a_hostile_config_file_stops_the_start_with_one_line(tmp_path: Path, content: str, why: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.json"
    path.write_bytes(content.encode("latin-1"))
    assert main(["demo", "--hands", "1", "--config", str(path), "--data", str(tmp_path / "data")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert why in line
