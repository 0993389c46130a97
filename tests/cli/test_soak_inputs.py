"""`cardtable soak` given a data folder it cannot make or a count of kills no memory holds: one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.cli import main


def test_soak_into_a_folder_it_cannot_make_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["soak", "--hands", "1", "--kills", "0", "--data", str(blocker / "data")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"cardtable: error: cannot create --data {blocker / 'data'}: ")


def test_soak_refuses_a_count_of_kills_it_cannot_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soak", "--hands", "1", "--kills", "99999999999999999999"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "--kills must be at most" in line
