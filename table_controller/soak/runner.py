"""The fault soak: the controller process killed (kill -9) at random points and started again on its data.

How it works. :func:`run_soak` starts the controller process (:mod:`table_controller.soak.worker`) on a data
directory and reads the line it prints after each hand. Before the run it draws, from the seed, the hand
counts after which it will kill the process and, for each, a random extra delay (so the kill lands at any
point: mid-shuffle, mid-deal, mid-draw, between a journal write and the act it records, between hands). It
sends SIGKILL, waits for the process to die, and starts a new one on the same data, which replays the
journal and resumes the hand the dead one left: the simulated shoe is a process of its own
(:mod:`table_controller.soak.shoe`), started once for the whole soak, which keeps its deck and its log
across the kills as a real shoe does, and takes its faults through its control channel. When the table's history
holds the hands asked for, the worker exits by itself and the soak audits the data directory
(:func:`table_controller.soak.checks.audit_data`): the journal verifies, every exported record replays to
its stored result, chips are conserved, every hand but the last completed or was voided, and no hand's
cards were delivered twice. Each worker also checks, hand by hand, that the cards journaled are exactly
the cards that left its shoe, in order.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from table_controller.soak.checks import audit_data
from table_controller.soak.shoe import start_shoe_process
from table_controller.soak.stack import game_for

__all__ = ["SoakSummary", "run_soak"]

STALL_S = 180.0  # no line from the worker for this long: it is stuck (a finding)


@dataclass
class SoakSummary:
    hands: int = 0
    kills: int = 0
    starts: int = 0
    voided_at_restart: int = 0
    resumed_at_restart: int = 0  # hands a killed controller left in play that the next one finished
    completed: int = 0
    voided: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    prompts: int = 0
    retries: int = 0
    dealer_voids: int = 0
    camera_dropouts: int = 0
    camera_misreads: int = 0
    unexpected_voids: int = 0
    journal_entries: int = 0
    chips_in: int = 0
    chips_on_table: int = 0
    replayed_same: int = 0
    exported: int = 0
    verify_ok: bool = False
    seconds: float = 0.0
    data: str = ""
    findings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def as_dict(self) -> dict[str, Any]:
        out = dict(vars(self))
        out["ok"] = self.ok
        return out


def _reader(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _worker_cmd(data: Path, *, until: int, seed: int, garble: float, fault_rate: float, camera: bool,
                camera_dropout: float, shoe_state: Path) -> list[str]:
    cmd = [sys.executable, "-m", "table_controller.soak.worker", "--data", str(data), "--until", str(until),
           "--seed", str(seed), "--garble", str(garble), "--fault-rate", str(fault_rate),
           "--camera-dropout", str(camera_dropout), "--shoe-state", str(shoe_state)]
    if not camera:
        cmd.append("--no-camera")
    return cmd


def _add_stats(summary: SoakSummary, stats: dict[str, Any]) -> None:
    for kind, n in stats.get("faults", {}).items():
        summary.faults[kind] = summary.faults.get(kind, 0) + int(n)
    summary.prompts += int(stats.get("prompts", 0))
    summary.retries += int(stats.get("retries", 0))
    summary.dealer_voids += int(stats.get("voids_by_dealer", 0))
    summary.camera_dropouts += int(stats.get("camera_dropouts", 0))
    summary.camera_misreads += int(stats.get("camera_misreads", 0))
    summary.unexpected_voids += int(stats.get("unexpected_voids", 0))
    summary.findings.extend(str(f) for f in stats.get("findings", []))


def run_soak(*, hands: int, kills: int, data: Path, seed: int | None = None, garble: float = 0.01,
             fault_rate: float = 0.3, camera: bool = True, camera_dropout: float = 0.2,
             progress: Callable[[str], None] | None = None) -> SoakSummary:
    """Play ``hands`` hands with ``kills`` kill -9s of the controller; audit the data afterwards."""
    if hands < 1 or kills < 0:
        raise ValueError("need hands >= 1 and kills >= 0")
    started = time.monotonic()
    rng = random.Random(seed)
    base_seed = rng.randrange(1 << 30)
    # Kill after the history holds k hands (k drawn with repeats allowed), plus a random delay into the next.
    plan = sorted(rng.randrange(0, hands) for _ in range(kills))
    delays = [rng.uniform(0.0, 2.5) for _ in plan]
    summary = SoakSummary(hands=hands, data=str(data))
    say = progress or (lambda text: None)
    done = False
    history = 0
    data.mkdir(parents=True, exist_ok=True)
    shoe_state = data / "soak-shoe.json"
    shoe = start_shoe_process(shoe_state, seed=base_seed, log=data / "soak-shoe.log")
    proc: subprocess.Popen[str] | None = None
    try:
        while not done:
            summary.starts += 1
            cmd = _worker_cmd(data, until=hands, seed=base_seed + summary.starts, garble=garble, fault_rate=fault_rate,
                              camera=camera, camera_dropout=camera_dropout, shoe_state=shoe_state)
            err_path = data / f"worker-{summary.starts}.stderr"
            data.mkdir(parents=True, exist_ok=True)
            with open(err_path, "w", encoding="utf-8") as err:
                proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
                assert proc.stdout is not None
                lines: queue.Queue[str | None] = queue.Queue()
                threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
                kill_at: float | None = None
                last_stats: dict[str, Any] = {}
                last_line = time.monotonic()
                killed = False
                while True:
                    if kill_at is None and plan and history >= plan[0]:
                        plan.pop(0)
                        kill_at = time.monotonic() + delays.pop(0)
                    if kill_at is not None and time.monotonic() >= kill_at:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(proc.pid, signal.SIGKILL)
                        killed = True
                        break
                    timeout = 0.05 if kill_at is not None else 1.0
                    try:
                        line = lines.get(timeout=timeout)
                    except queue.Empty:
                        if time.monotonic() - last_line > STALL_S:
                            summary.findings.append(f"worker {summary.starts} stalled for {STALL_S:.0f} s")
                            proc.kill()
                            done = True
                            break
                        continue
                    if line is None:
                        break
                    last_line = time.monotonic()
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    if msg.get("started"):
                        summary.voided_at_restart += bool(msg.get("recovered_void"))
                        summary.resumed_at_restart += msg.get("resumed") is not None
                        history = int(msg.get("history", history))
                    if "stats" in msg:
                        last_stats = msg["stats"]
                    if "hand" in msg:
                        history = int(msg["history"])
                        say(f"hand {history}/{hands}: {msg.get('status')}")
                    if msg.get("done"):
                        done = True
                code = proc.wait()
            _add_stats(summary, last_stats)
            if killed:
                summary.kills += 1
                say(f"kill -9 #{summary.kills} of the controller (pid {proc.pid}) after {history} hands")
                continue
            if not done:
                tail = err_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
                summary.findings.append(f"worker {summary.starts} exited with {code}: {' | '.join(tail)}")
                done = True
    finally:
        if proc is not None and proc.poll() is None:
            # An exception left the loop with a controller running (Ctrl-C, a progress line to a reader that went
            # away): it goes too, not on playing alone. Its journal takes a kill -9, which is what the soak tests.
            proc.kill()
            proc.wait()
        shoe.terminate()
        try:
            shoe.wait(10)
        except subprocess.TimeoutExpired:
            shoe.kill()
            shoe.wait(10)
    say("auditing the data directory")
    report = audit_data(data, game=game_for("jackpots", "fixed_limit"))
    summary.findings.extend(report.findings)
    summary.completed = report.completed
    summary.voided = report.voided
    summary.journal_entries = report.entries
    summary.chips_in = report.chips_in
    summary.chips_on_table = report.chips_on_table
    summary.replayed_same = report.replayed_same
    summary.exported = report.exported
    summary.verify_ok = report.verify_ok
    if report.completed + report.voided < hands:
        summary.findings.append(f"only {report.completed + report.voided} of {hands} hands completed or voided")
    summary.seconds = time.monotonic() - started
    return summary
