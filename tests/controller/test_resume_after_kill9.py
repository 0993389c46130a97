"""kill -9 of `cardtable demo` in the middle of a hand (after the deal, in the betting or the draw), then a
restart on the same data: the shoe simulator is a process of its own that outlived the controller, so the
new controller re-attaches to it and the hand resumes where it stood and finishes (it is not voided).
Chips are conserved, every card is dealt once, the journal verifies and every exported record replays to
its stored result; a normal exit stops the simulator."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_controller.controller.sim_process import STATE_NAME, process_alive
from table_controller.journal import Journal, JournalEntry

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "table_controller.cli"]


def _demo(data: Path, hands: int, seed: int, *extra: str) -> list[str]:
    return [*CLI, "demo", "--hands", str(hands), "--seed", str(seed), "--players", "3", "--data", str(data),
            "--json", *extra]


def _sim_pid(data: Path) -> int | None:
    try:
        return int(json.loads((data / STATE_NAME).read_text())["pid"])
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture
def data(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "data"
    pid = _sim_pid(tmp_path / "data")  # a failed test must not leave a simulator behind
    if pid is not None and process_alive(pid):
        os.kill(pid, signal.SIGTERM)


def _mid_hand(data: Path) -> int | None:
    """The hand in progress when it is past its deal with at least two acts taken, else None."""
    if not (data / "journal.sqlite3").exists():
        return None
    with Journal.open(data_dir=data) as j:
        entries = list(j.read_all("t1"))
    hand, dealt, acts, done = None, False, 0, False
    for e in entries:
        if e.kind == "hand.start":
            hand, dealt, acts, done = e.hand_number, False, 0, False
        elif e.kind == "deal":
            dealt = True
        elif e.kind == "act":
            acts += 1
        elif e.kind in ("hand.completed", "void"):
            done = True
    return hand if hand and dealt and acts >= 2 and not done else None


def _cards_by_hand(entries: list[JournalEntry]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for e in entries:
        if e.kind == "deal" and e.hand_number is not None:
            out.setdefault(e.hand_number, []).extend(e.payload["codes"])
        elif e.kind == "card" and e.hand_number is not None:
            out.setdefault(e.hand_number, []).append(e.payload["code"])
    return out


def test_kill_9_mid_hand_resumes_the_hand_on_the_surviving_simulator(data: Path, tmp_path: Path) -> None:
    killed_in: int | None = None
    for attempt in range(3):  # again if the hand happened to end between the look and the kill (a rare race)
        proc = subprocess.Popen(_demo(data, 1000, 7 + attempt, "--pace", "0.12"), cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 25
            while time.monotonic() < deadline and proc.poll() is None:
                killed_in = _mid_hand(data)
                if killed_in is not None:
                    break
                time.sleep(0.05)
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        assert killed_in is not None, "no hand got past its deal in time"
        if _mid_hand(data) == killed_in:
            break
    assert killed_in is not None and _mid_hand(data) == killed_in
    sim = _sim_pid(data)
    assert sim is not None and process_alive(sim), "the shoe simulator must outlive the killed controller"
    with Journal.open(data_dir=data) as j:
        assert j.verify().ok
        assert killed_in not in {r.hand_number for r in j.hand_records("t1")}

    done = subprocess.run(_demo(data, 1, 8), check=False, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["hands"] == 1 and summary["ok"] and summary["chips_conserved"]
    assert summary["voided"] == 0 and summary["chips_on_table"] == summary["chips_expected"] == 300
    assert not process_alive(sim), "a normal exit stops the simulator"
    assert not (data / STATE_NAME).exists()

    with Journal.open(data_dir=data) as j:
        assert j.verify().ok
        entries = list(j.read_all("t1"))
        records = {r.hand_number or 0: r for r in j.hand_records("t1")}
    assert not [e for e in entries if e.kind == "void"], "the resumed hand must not be voided"
    # The killed hand finished on the restart: its record is stored after the restart and it was the only
    # hand of the second run.
    assert killed_in in records and max(records) == killed_in
    for number, cards in _cards_by_hand(entries).items():
        assert len(cards) == len(set(cards)), f"hand {number}: a card dealt twice {cards}"
        assert len(cards) <= 52
    # The finished record names exactly the cards the shoe delivered in that hand.
    served = [c for ev in records[killed_in].result["events"] if ev["event"] in ("draw",) for c in ev["served"]]
    assert set(served) <= set(_cards_by_hand(entries)[killed_in])

    assert subprocess.run([*CLI, "history", "verify", "--data", str(data)], check=False, cwd=ROOT,
                          capture_output=True,
                          timeout=60).returncode == 0
    out = tmp_path / "records"
    exported = subprocess.run([*CLI, "history", "export", "--data", str(data), "--format", "record", "--out",
                               str(out)], check=False, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert exported.returncode == 0, exported.stderr
    files = sorted(out.glob("*.json"))
    assert len(files) == len(records)
    for path in files:
        number = int(path.stem.rsplit("h", 1)[1])
        replayed = subprocess.run([*CLI, "replay", str(path)], check=False, cwd=ROOT, capture_output=True, text=True,
                                  timeout=60)
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert json.loads(replayed.stdout) == records[number].result
