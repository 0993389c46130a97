"""The shoe simulator as a device of its own: a separate process that outlives the controller.

A real shoe keeps its deck, its event log and the cards it dealt when the controller crashes; a simulator
inside the controller's process would die with it and take the hand in progress along. So ``cardtable
run`` and ``cardtable demo`` (with no ``--shoe``) start ``cardtable sim shoe --pty --link
<data>/shoe.tty`` in a new session and note its process id and tty link in ``<data>/shoe-sim.json``.
The next start on the same data re-attaches to it when it is still alive, and starts a fresh one otherwise
(:attr:`SimProcess.fresh`: the controller then voids a hand in progress, saying why). A normal exit stops
it (SIGTERM). The simulator writes only its tty path: never the order of the cards in the shoe.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.bounded import BoundedInputError, loads, read_bounded
from table_controller.controller.errors import DeviceError

__all__ = ["LINK_NAME", "STATE_NAME", "SimProcess", "attach_or_start", "process_alive"]

STATE_NAME = "shoe-sim.json"
LINK_NAME = "shoe.tty"
LOG_NAME = "shoe-sim.log"
START_TIMEOUT_S = 20.0


def process_alive(pid: int) -> bool:
    """The process exists and is not a zombie (a killed orphan that nobody reaped yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def _is_shoe_sim(pid: int) -> bool:
    """Guards against a recycled process id: the process must be a ``sim shoe`` command."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return process_alive(pid)  # no /proc: trust the id
    return b"sim" in argv and b"shoe" in argv


@dataclass
class SimProcess:
    pid: int
    link: str
    data: Path
    fresh: bool
    popen: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return self.link

    def alive(self) -> bool:
        if self.popen is not None:
            return self.popen.poll() is None
        return process_alive(self.pid)

    def stop(self, timeout_s: float = 5.0) -> None:
        """End the simulator (the controller is closing normally) and forget it."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        end = time.monotonic() + timeout_s
        while self.alive() and time.monotonic() < end:
            time.sleep(0.02)
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        if self.popen is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(2.0)
        state = self.data / STATE_NAME
        with contextlib.suppress(OSError):
            if _read_state(state).get("pid") == self.pid:
                state.unlink()


MAX_STATE_BYTES = 4096  # a pid and a path


def _read_state(path: Path) -> dict[str, Any]:
    """The simulator's state file, read within bounds; empty when it is missing or not a JSON object (a
    file too large, too deep or garbled names no simulator to attach to, so a fresh one is started)."""
    try:
        state = loads(read_bounded(path, max_bytes=MAX_STATE_BYTES, what=str(path)), max_bytes=MAX_STATE_BYTES,
                      what=str(path))
    except BoundedInputError:
        return {}
    return state if isinstance(state, dict) else {}


def _attach(data: Path) -> SimProcess | None:
    state = _read_state(data / STATE_NAME)
    try:
        pid, link = int(state["pid"]), str(state["link"])
    except (ValueError, KeyError, TypeError):
        return None
    if not (process_alive(pid) and _is_shoe_sim(pid)):
        return None
    found = SimProcess(pid=pid, link=link, data=data, fresh=False)
    end = time.monotonic() + START_TIMEOUT_S
    while not Path(link).exists():
        # A controller killed while its simulator was still starting: no controller has used this one yet,
        # so its deck is as new as a fresh simulator's.
        found.fresh = True
        if not process_alive(pid) or time.monotonic() > end:
            found.stop()
            return None
        time.sleep(0.02)
    return found


def attach_or_start(data: Path, *, seed: int | None = None, fast: bool = False, speed: float = 1.0) -> SimProcess:
    """The simulator this data directory's table was using, if it still runs; else a new one.

    Raises :class:`DeviceError` (``shoe_unavailable``) when a new simulator does not come up."""
    data.mkdir(parents=True, exist_ok=True)
    found = _attach(data)
    if found is not None:
        return found
    link = str(data.resolve() / LINK_NAME)
    with contextlib.suppress(FileNotFoundError):
        Path(link).unlink()
    argv = [sys.executable, "-m", "table_controller.cli", "sim", "shoe", "--pty", "--link", link,
            "--speed", repr(float(speed))]
    if fast:
        argv.append("--fast")
    if seed is not None:
        argv += ["--seed", str(seed)]
    with open(data / LOG_NAME, "ab") as log:
        # A session of its own: Ctrl-C at the terminal reaches the controller, which stops it; a kill of
        # the controller leaves it running, as a real shoe keeps running.
        popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True, close_fds=True)
    sim = SimProcess(pid=popen.pid, link=link, data=data, fresh=True, popen=popen)
    # Noted at once, so a controller killed from here on leaves a simulator the next start finds.
    tmp = data / f"{STATE_NAME}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps({"pid": popen.pid, "link": link, "started": int(time.time())}))
    tmp.replace(data / STATE_NAME)
    end = time.monotonic() + START_TIMEOUT_S
    while not Path(link).exists():
        if popen.poll() is not None or time.monotonic() > end:
            sim.stop()
            raise DeviceError(f"the shoe simulator did not start (see {data / LOG_NAME})", code="shoe_unavailable")
        time.sleep(0.02)
    return sim
