"""`cardtable sim camera` and `sim shoe` given numbers out of range or a place they cannot write: exit 2 and one
line on stderr (OpenCV's own lines included), never a traceback, a hang or a disk filled."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.cli import main


@pytest.mark.parametrize(("args", "needle"), [
    (["--seed", "-5"], "--seed must be 0 or more"),
    (["--fps", "nan", "--frames", "1"], "--fps must be more than 0"),
    (["--fps", "inf", "--frames", "1"], "--fps must be more than 0"),
    (["--frames", "99999999999999999999"], "--frames must be at most"),
])
def test_sim_camera_refuses_numbers_out_of_range(tmp_path: Path, args: list[str], needle: str,
                                                 capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "camera", "--out", str(tmp_path / "frames.avi"), *args]) == 2
    [line] = capfd.readouterr().err.splitlines()
    assert needle in line
    assert not (tmp_path / "frames.avi").exists()


@pytest.mark.parametrize("name", ["x.avi", "x.png"])
def test_sim_camera_into_a_missing_folder_is_one_line(tmp_path: Path, name: str,
                                                      capfd: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "no-such-folder" / name
    assert main(["sim", "camera", "--out", str(out), "--frames", "1"]) == 2
    [line] = capfd.readouterr().err.splitlines()
    assert line == f"cardtable: error: cannot write {out}: no folder {out.parent}"


@pytest.mark.parametrize("speed", ["nan", "inf", "-1", "0"])
def test_sim_shoe_refuses_a_speed_no_clock_runs_at(speed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "shoe", "--pty", "--speed", speed]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "--speed must be" in line
