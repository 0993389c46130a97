"""Golden event stream: a seeded shoe through a scripted session emits exactly the committed events.

After a deliberate protocol change, write the file again with `python -m tests.firmware_bridge.test_golden`
and review the diff: every changed line is a change of what the table service sees. The test itself only
reads the file, so it fails when the file is missing.
"""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from pathlib import Path
from typing import Any

from firmware_bridge.messages import Command, CommandBody, RestartCause, ShoeEvent
from hardware_sim.shoe import ShoeDevice, SimTimings

GOLDEN = Path(__file__).parent / "golden" / "shoe_session.json"


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def _event(event: ShoeEvent) -> dict[str, Any]:
    row: dict[str, Any] = {"event": type(event).__name__}
    row.update({f.name: _plain(getattr(event, f.name)) for f in dataclasses.fields(event)})
    return row


def session() -> list[dict[str, Any]]:
    dev = ShoeDevice(seed=42, timings=SimTimings.fast())
    answers: list[dict[str, Any]] = []
    cmd_id = 0

    def step(n: int = 5) -> None:
        for _ in range(n):
            dev.process(0.004)

    def send(command: Command) -> None:
        nonlocal cmd_id
        cmd_id += 1
        reply = dev.handle(cmd_id, CommandBody(command=command))
        answers.append({"cmd": cmd_id, "command": command.name, "result": reply.result.name, "fail": reply.fail.name})
        step()

    step()
    send(Command.DEAL_ONE)  # not shuffled: DENIED
    send(Command.SHUFFLE)
    send(Command.VERIFY_DECK)
    for _ in range(3):
        send(Command.DEAL_ONE)
    dev.plans.jams.append(True)
    send(Command.DEAL_ONE)
    step(10)
    send(Command.BURN)
    dev.plans.jams.append(False)
    send(Command.DEAL_ONE)
    step(10)
    send(Command.DEAL_ONE)  # latched: DENIED
    dev.open_door()
    send(Command.CLEAR_FAULT)  # door open: DENIED
    dev.close_door()
    send(Command.CLEAR_FAULT)
    send(Command.SHUFFLE)
    send(Command.DEAL_ONE)
    dev.restart(RestartCause.POWER_LOSS)
    step()
    send(Command.DEAL_ONE)
    events = [_event(e) for e in dev.memory.log.values()]
    return [*answers, *events]


def test_event_stream_matches_golden_file() -> None:
    assert session() == json.loads(GOLDEN.read_text(encoding="utf-8"))


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(session(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
