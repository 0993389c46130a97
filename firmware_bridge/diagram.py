"""Generate docs/shoe-states.md from `firmware_bridge.states.TRANSITIONS`.

    python -m firmware_bridge.diagram > docs/shoe-states.md

A test holds the committed file equal to this output, so the diagram cannot drift from the code.
"""

from __future__ import annotations

import sys

from firmware_bridge.states import BUSY_STATES, TRANSITIONS, DeviceState, Trigger


def render() -> str:
    lines = [
        "# Shoe device states",
        "",
        "Generated from `firmware_bridge/states.py` by `python -m firmware_bridge.diagram`; do not edit by hand.",
        "A (state, trigger) pair not listed is refused: BUSY in a state where a timed operation runs "
        f"({', '.join(s.name for s in sorted(BUSY_STATES))}), DENIED otherwise.",
        "",
        "```mermaid",
        "stateDiagram-v2",
        "    [*] --> BOOT",
    ]
    # POWER_LOSS leads from every state to BOOT; drawn once as a note to keep the diagram readable.
    for (state, trigger), target in TRANSITIONS.items():
        if trigger is Trigger.POWER_LOSS:
            continue
        lines.append(f"    {state.name} --> {target.name}: {trigger.name}")
    lines += [
        "    note right of BOOT: POWER_LOSS from any state leads here",
        "```",
        "",
        "| state | trigger | next state |",
        "|---|---|---|",
    ]
    for state in DeviceState:
        for trigger in Trigger:
            after = TRANSITIONS.get((state, trigger))
            if after is not None:
                lines.append(f"| {state.name} | {trigger.name} | {after.name} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
