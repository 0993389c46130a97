"""A reader that goes away (`cardtable ... | head`) ends the command quietly, exit 141, and costs no write.

Each test runs the real command in a subprocess with its stdout (or stderr) in a pipe whose reader takes a
line or none and closes it, as `head -1` or `head -0` does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from table_controller.cli import main
from table_controller.cli.closed_pipe import EXIT_CLOSED_PIPE
from table_controller.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120
# stdout block-buffered, as in a user's shell: what a command prints at its end then waits for the interpreter's
# last flush at exit (PYTHONUNBUFFERED, set on some CI machines, makes every write go straight to the pipe).
BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
UNBUFFERED = {**BUFFERED, "PYTHONUNBUFFERED": "1"}


def _cardtable(*argv: str) -> list[str]:
    return [sys.executable, "-m", "table_controller.cli", *argv]


def _read_then_close(cmd: list[str], *, lines: int, env: dict[str, str] = BUFFERED) -> tuple[list[str], int, str]:
    """Run ``cmd`` with its stdout in a pipe whose reader takes ``lines`` lines and then closes it; the lines
    read, the exit status and stderr."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    got = [proc.stdout.readline() for _ in range(lines)]
    proc.stdout.close()
    try:
        _, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        proc.kill()
    return got, proc.returncode, err or ""


def _with_stderr_closed(cmd: list[str]) -> tuple[int, str]:
    """Run ``cmd`` with its stderr in a pipe closed before it starts; its exit status and stdout."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=BUFFERED, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    proc.stderr.close()
    try:
        out, _ = proc.communicate(timeout=TIMEOUT_S)
    finally:
        proc.kill()
    return proc.returncode, out


def _assert_quiet(code: int, err: str) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipeError" not in err, err
    assert code == EXIT_CLOSED_PIPE, err


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The data directory of a table that played a few hands."""
    data = tmp_path_factory.mktemp("played") / "data"
    assert main(["demo", "--hands", "4", "--seed", "5", "--data", str(data), "--json"]) == 0
    yield data


def test_a_counted_demo_stops_at_the_closed_pipe_with_every_hand_it_dealt_on_record(tmp_path: Path) -> None:
    data = tmp_path / "data"
    got, code, err = _read_then_close(_cardtable("demo", "--hands", "60", "--seed", "3", "--data", str(data)),
                                      lines=1)
    _assert_quiet(code, err)
    seen = re.match(r"hand #(\d+) \((\d+)/60 of this run\)", got[0])
    assert seen is not None, got
    with Journal.open(data_dir=data, create=False) as journal:
        assert journal.verify().ok
        started = [e.hand_number for e in journal.read_all("t1") if e.kind == "hand.start"]
        recorded = [h.hand_number for h in journal.hand_records("t1")]
    # Every hand dealt was finished and recorded, the one printed among them; and the demo stopped (the reader
    # went away) rather than dealing all 60 for nobody.
    assert recorded == started == list(range(1, len(started) + 1))
    assert int(seen[1]) <= len(started) < 60


@pytest.mark.parametrize("env", [BUFFERED, UNBUFFERED], ids=["buffered", "unbuffered"])
def test_history_verify_into_a_pipe_closed_before_it_prints(played: Path, env: dict[str, str]) -> None:
    # Buffered, its two lines wait for the last flush, after main has returned (before: "Exception ignored",
    # exit 120); unbuffered, the first write finds the pipe closed (before: a traceback).
    _, code, err = _read_then_close(_cardtable("history", "verify", "--data", str(played)), lines=0, env=env)
    _assert_quiet(code, err)


def test_history_export_writes_every_file_though_nobody_reads_its_line(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "records"
    _, code, err = _read_then_close(_cardtable("history", "export", "--data", str(played), "--format", "record",
                                               "--out", str(out)), lines=0)
    _assert_quiet(code, err)
    files = sorted(out.glob("*.json"))
    assert len(files) == 4
    assert all(json.loads(f.read_text(encoding="utf-8")) for f in files)


def test_replay_and_schema_into_a_closed_pipe(played: Path, tmp_path: Path) -> None:
    out = tmp_path / "records"
    assert main(["history", "export", "--data", str(played), "--format", "record", "--out", str(out)]) == 0
    record = sorted(out.glob("*.json"))[0]
    for argv in (["replay", str(record)], ["schema", "hand-record"]):
        _, code, err = _read_then_close(_cardtable(*argv), lines=0)
        _assert_quiet(code, err)


def test_vision_identify_json_stops_at_the_closed_pipe(tmp_path: Path) -> None:
    image = tmp_path / "felt.png"
    cv2.imwrite(str(image), np.full((120, 160, 3), (40, 110, 30), dtype=np.uint8))
    got, code, err = _read_then_close(_cardtable("vision", "identify", "--json", *[str(image)] * 40), lines=1)
    _assert_quiet(code, err)
    assert json.loads(got[0])["image"] == str(image)


def test_a_closed_stderr_ends_the_command_quietly_too(tmp_path: Path) -> None:
    garbled = tmp_path / "garbled.jpg"
    garbled.write_bytes(b"\xff\xd8\xff not a picture")
    # Each unreadable image is a line on stderr; its reader has gone before the first.
    code, out = _with_stderr_closed(_cardtable("vision", "identify", *[str(garbled)] * 5))
    assert code == EXIT_CLOSED_PIPE and out == ""


def test_bench_writes_its_out_file_whole_though_nobody_reads_the_report(tmp_path: Path) -> None:
    report = tmp_path / "benchmarks.md"
    _, code, err = _read_then_close(_cardtable("bench", "--quick", "--only", "evaluator", "--out", str(report)),
                                    lines=0)
    _assert_quiet(code, err)
    text = report.read_text(encoding="utf-8")
    assert "## evaluator" in text and text.endswith("\n")


def test_a_bench_module_run_alone_into_a_closed_pipe() -> None:
    _, code, err = _read_then_close([sys.executable, "-m", "bench.evaluator", "--quick"], lines=0)
    _assert_quiet(code, err)


def _running_with(word: str) -> list[str]:
    """The command lines of the running processes that name ``word``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:  # ended while we looked
            continue
        if word.encode() in argv:
            found.append(" ".join(a.decode(errors="replace") for a in argv))
    return found


@pytest.mark.slow
def test_a_soak_whose_progress_reader_goes_away_leaves_no_controller_running(tmp_path: Path) -> None:
    data = tmp_path / "soak"
    proc = subprocess.Popen(_cardtable("soak", "--hands", "30", "--kills", "0", "--seed", "2", "--data", str(data)),
                            cwd=ROOT, env=BUFFERED, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:  # its progress is on stderr: read up to the first hand, then go away
        if "hand 1/30" in line:
            break
    proc.stderr.close()
    try:
        proc.wait(TIMEOUT_S)
    finally:
        proc.kill()
    assert proc.returncode == EXIT_CLOSED_PIPE
    assert _running_with(str(data)) == []  # the controller it had started (its worker) went with it


@pytest.mark.slow
def test_a_serving_demo_stops_when_the_reader_of_its_hands_goes_away(tmp_path: Path) -> None:
    # A shoe with near-instant mechanics, so hands (and their lines) come quickly.
    shoe = subprocess.Popen(_cardtable("sim", "shoe", "--pty", "--fast", "--seed", "1"), cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert shoe.stdout is not None
        tty = shoe.stdout.readline().strip()
        cmd = _cardtable("demo", "--port", "0", "--pace", "0", "--seed", "1", "--shoe", tty,
                         "--data", str(tmp_path / "data"))
        proc = subprocess.Popen(cmd, cwd=ROOT, env=BUFFERED, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:  # the banner, then the first hand
            if line.startswith("hand #"):
                break
        proc.stdout.close()
        try:
            _, err = proc.communicate(timeout=TIMEOUT_S)
        finally:
            proc.kill()
    finally:
        shoe.terminate()
        shoe.wait(10)
    _assert_quiet(proc.returncode, err)
    with Journal.open(data_dir=tmp_path / "data", create=False) as journal:
        assert journal.verify().ok


def test_the_reader_training_script_into_a_closed_stderr(tmp_path: Path) -> None:
    # Its one line here is an error on stderr (no data sets in this folder), whose reader has gone.
    code, out = _with_stderr_closed([sys.executable, "-m", "vision.train", "--datasets", str(tmp_path / "none")])
    assert code == EXIT_CLOSED_PIPE and out == ""
