"""`cardtable run` and `demo` given a data folder, journal URL, shoe port or camera they cannot use: exit 2
and one line, as `cardtable shoe` and `history` answer the same input (1 is for a finding)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from table_controller.cli import main
from tests.hostile_files import hostile_file


def _garbage(tmp_path: Path) -> Path:
    path = tmp_path / "garbage.bin"
    path.write_bytes(bytes(range(256)) * 16)
    return path


CASES: list[tuple[str, Callable[[Path], list[str]], str]] = [
    ("data is a file", lambda t: ["demo", "--hands", "1", "--data", str(_garbage(t))], "cannot create data directory"),
    ("db URL", lambda t: ["demo", "--hands", "1", "--data", str(t / "d"), "--db", "bogus://x"],
     "unsupported journal URL"),
    ("db not a database", lambda t: ["demo", "--hands", "1", "--data", str(t / "d"), "--db",
                                     f"sqlite:///{_garbage(t)}"], "not a database"),
    ("shoe port", lambda t: ["demo", "--hands", "1", "--data", str(t / "d"), "--shoe", str(t / "no-such-tty")],
     "cannot open"),
    ("shoe URL", lambda t: ["demo", "--hands", "1", "--data", str(t / "d"), "--shoe", "bogus://x"],
     "protocol 'bogus' not known"),
    ("camera source", lambda t: ["run", "--port", "0", "--data", str(t / "d"), "--camera", str(t / "none.mp4")],
     "no such file"),
]


@pytest.mark.parametrize(("argv", "needle"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_a_table_that_cannot_start_on_its_input_exits_2_with_one_line(
        tmp_path: Path, argv: Callable[[Path], list[str]], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv(tmp_path)) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("cardtable: error: ") and needle in line


def test_a_journal_plays_on_with_another_game_each_hand_on_record_with_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A card room changes the game between sessions on one table's journal: the start says so, the hands already
    played are replayed with their own game (no chip moves), and new hands deal the new one."""
    from table_controller.journal import Journal

    data = tmp_path / "data"
    assert main(["demo", "--hands", "2", "--seed", "3", "--data", str(data)]) == 0
    capsys.readouterr()
    assert main(["demo", "--hands", "1", "--seed", "3", "--data", str(data), "--betting", "no_limit"]) == 0
    out = capsys.readouterr().out
    [change] = [line for line in out.splitlines() if "was dealt as" in line]
    dealt, new = change.split("; new hands deal ")
    assert "jackpots, fixed_limit, stakes {'ante': 1" in dealt and new.startswith("jackpots, no_limit")
    assert "chips conserved: yes" in out
    with Journal.open(data_dir=data, create=False) as journal:
        assert journal.verify().ok
        games = {h.hand_number: h.record["game"]["betting"] for h in journal.hand_records("t1")}
    assert games == {1: "fixed_limit", 2: "fixed_limit", 3: "no_limit"}
    assert main(["demo", "--hands", "1", "--seed", "3", "--data", str(data), "--betting", "no_limit"]) == 0
    assert "was dealt as" not in capsys.readouterr().out  # the same game plays on: nothing to say


@pytest.mark.parametrize(("content", "needle"), [
    (None, "calibration file larger than"),  # /dev/zero
    ("[" * 100_000 + "]" * 100_000, "calibration file nested too deeply"),
    ('{"format": "cardtable-table-calibration", "version": 1, "image_size": [' + "9" * 5000 + ", 2]}",
     "unreadable calibration file"),
])
def test_a_hostile_camera_calibration_is_refused_with_one_line(tmp_path: Path, content: str | None, needle: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "table.avi"
    assert main(["sim", "camera", "--out", str(video), "--frames", "2"]) == 0
    calibration = hostile_file(tmp_path / "calibration.json", None if content is None else content.encode())
    config = tmp_path / "table.json"
    config.write_text(f'{{"camera_calibration": "{calibration}"}}')
    capsys.readouterr()
    assert main(["run", "--port", "0", "--data", str(tmp_path / "d"), "--camera", str(video),
                 "--config", str(config)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert f"{calibration}: {needle}" in line
