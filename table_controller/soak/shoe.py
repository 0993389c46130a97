"""The soak's shoe: the timed shoe simulator, in the worker's process or in a process of its own.

A real shoe keeps its deck and its log when the controller is killed, so the long soak runs its simulator
as a process of its own (``python -m table_controller.soak.shoe --state FILE``), started once by the soak
runner and kept across every kill -9 of the controller: a hand in progress then resumes on the next start
instead of being voided. The worker reaches it through the simulator's control channel
(:mod:`hardware_sim.shoe.remote`), with two calls of the soak's own: ``decks`` (the cards each shuffle
dealt, in order, to compare with the journal) and ``out_at`` (when a card left the shoe, for the
dealt-to-display latency; ``time.perf_counter`` is the system's monotonic clock, the same in every process).

Both kinds are used through :class:`SoakShoe`: ``call(name, **args)`` with the names of the control table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Protocol

from hardware_sim.shoe import SimTimings, start_pty, wait_for_stop_signal
from hardware_sim.shoe.remote import CALLS, ControlServer, Extra, RemoteControl, serve_control
from table_controller.soak.timed_sim import TimedShoeSimulator

__all__ = ["LocalSoakShoe", "RemoteSoakShoe", "SoakShoe", "soak_extras", "start_shoe_process"]

START_TIMEOUT_S = 20.0


class SoakShoe(Protocol):
    url: str  # where the controller's shoe link connects

    def call(self, name: str, **args: Any) -> Any: ...


def soak_extras(sim: TimedShoeSimulator) -> dict[str, Extra]:
    def decks(args: dict[str, Any]) -> list[list[str]]:
        with sim.lock:
            return [list(d) for d in sim.decks[int(args.get("first", 0)):]]

    def out_at(args: dict[str, Any]) -> float | None:
        with sim.lock:
            return sim.last_out.get(str(args["code"]))

    def deck_count(args: dict[str, Any]) -> int:
        with sim.lock:
            return len(sim.decks)

    return {"decks": decks, "deck_count": deck_count, "out_at": out_at}


class LocalSoakShoe:
    """The simulator in this process (the tests' and the e2e stack's): the same calls, without a socket."""

    def __init__(self, sim: TimedShoeSimulator, url: str) -> None:
        self.sim = sim
        self.url = url
        self._extra = soak_extras(sim)

    def call(self, name: str, **args: Any) -> Any:
        if name in self._extra:
            return self._extra[name](args)
        return CALLS[name](self.sim.control, args)


class RemoteSoakShoe:
    """The soak's shoe process, found through its state file."""

    def __init__(self, state: Path) -> None:
        info = json.loads(state.read_text(encoding="utf-8"))
        self.url = str(info["url"])
        self.pid = int(info["pid"])
        self.control = RemoteControl(str(info["control"]))

    def call(self, name: str, **args: Any) -> Any:
        return self.control.call(name, **args)

    def close(self) -> None:
        self.control.close()


def start_shoe_process(state: Path, *, seed: int, log: Path) -> Any:
    """Start the soak's shoe process; return its ``Popen`` once its state file says it is ready."""
    import subprocess

    state.unlink(missing_ok=True)
    argv = [sys.executable, "-m", "table_controller.soak.shoe", "--state", str(state), "--seed", str(seed)]
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    end = time.monotonic() + START_TIMEOUT_S
    while not state.exists():
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            raise RuntimeError(f"the soak's shoe process did not start (see {log})")
        time.sleep(0.02)
    return proc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m table_controller.soak.shoe")
    p.add_argument("--state", required=True, help="file to write {pid, url, control} to once serving")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    sim = TimedShoeSimulator(seed=args.seed, timings=SimTimings.fast())
    running = start_pty(sim, speed=1.0)
    control: ControlServer = serve_control(sim, extra=soak_extras(sim))
    state = Path(args.state)
    tmp = state.with_name(state.name + ".tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), "url": running.url, "control": control.url}), encoding="utf-8")
    tmp.replace(state)
    try:
        wait_for_stop_signal()
    finally:
        control.stop()
        running.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
