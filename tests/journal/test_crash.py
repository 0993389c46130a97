"""kill -9 a writer at random moments: what is on disk is always a valid, verifiable prefix.

Each round starts the writer on the same data directory (it resumes at the head, as a restarted
controller does), lets it append for a random few milliseconds and SIGKILLs it. After every kill
the journal must verify, hold every entry the writer reported as durable, at most one more (the one
whose commit had finished when the kill landed before its report line), and each entry must hold
exactly what the writer meant to write: nothing torn, nothing half-written.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.journal.crash_writer import TABLE, expected_payload
from tests.journal.helpers import Target

REPO = Path(__file__).resolve().parents[2]
#: Kills per backend: PostgreSQL rounds cost more (a server session per start), so fewer.
KILLS = {"sqlite": 20, "postgres": 5}


def _start(where: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, str(Path(__file__).with_name("crash_writer.py")), where],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)


@pytest.mark.slow
def test_kill_9_leaves_a_valid_prefix(target: Target) -> None:
    rng = random.Random(20261130)
    kills = KILLS[target.kind]
    reported = 0
    killed_mid_run = 0
    for round_no in range(kills):
        proc = _start(target.url or str(target.data_dir))
        assert proc.stdout is not None
        ready = proc.stdout.readline()
        assert ready.startswith("ready "), (ready, proc.stderr.read() if proc.stderr else "")
        resumed_at = int(ready.split()[1])
        assert resumed_at >= reported
        # Most kills land mid-append (after a few entries, then a random extra moment); every fifth
        # lands right after the writer took the table.
        seen: list[int] = []
        if round_no % 5:
            for _ in range(rng.randint(1, 5)):
                line = proc.stdout.readline()
                if not line:
                    break
                seen.append(int(line))
            time.sleep(rng.uniform(0.0, 0.02))
        os.kill(proc.pid, signal.SIGKILL)
        # Read the rest through the same buffered stream as readline (communicate() would bypass
        # what readline already buffered).
        out = proc.stdout.read()
        err = proc.stderr.read() if proc.stderr else ""
        assert proc.wait(timeout=30) == -signal.SIGKILL, err
        proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
        lines = seen + [int(x) for x in out.split()]
        assert lines == list(range(resumed_at + 1, resumed_at + 1 + len(lines)))
        if lines:
            killed_mid_run += 1
            reported = lines[-1]

        with target.open(create=False) as journal:
            report = journal.verify()
            assert report.ok, report.first_break
            entries = list(journal.read_all(TABLE))
        head = entries[-1].seq if entries else 0
        assert reported <= head <= reported + 1, (reported, head)
        assert [e.seq for e in entries] == list(range(1, head + 1))
        for entry in entries:
            assert entry.payload == expected_payload(entry.seq)
        reported = head  # the next round resumes here
    assert killed_mid_run >= kills - (kills + 4) // 5
