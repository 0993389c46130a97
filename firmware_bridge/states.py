"""The shoe's state machine: every transition in one table.

How it works: the device is always in exactly one `DeviceState`. Things that happen to it (a command it
accepted, a sensor, a timer, the power) are `Trigger`s. `TRANSITIONS[(state, trigger)]` is the next
state; a pair missing from the table is not allowed in that state, and the device refuses the command
(BUSY while a timed operation runs, DENIED otherwise). A latched fault (FAULT) is left only by
CLEAR_FAULT, and only once its cause is gone (door closed). Power loss from any state goes to BOOT; the
self-test then resumes the resting state the non-volatile memory holds (IDLE, READY or EMPTY).
docs/shoe-states.md is generated from this table (`python -m firmware_bridge.diagram`).
"""

from __future__ import annotations

from enum import IntEnum


class DeviceState(IntEnum):
    BOOT = 0
    SELF_TEST = 1
    IDLE = 2
    SHUFFLING = 3
    VERIFYING = 4
    READY = 5
    DEALING = 6
    JAMMED = 7
    EMPTY = 8
    FAULT = 9


class Trigger(IntEnum):
    BOOTED = 1
    SELF_TEST_FAILED = 2
    RESUME_IDLE = 3
    RESUME_READY = 4
    RESUME_EMPTY = 5
    SHUFFLE = 6
    SHUFFLE_DONE = 7
    VERIFY = 8
    VERIFY_DONE = 9
    DEAL = 10
    CARD_OUT = 11
    LAST_CARD_OUT = 12
    JAM = 13
    JAM_CLEARED = 14
    JAM_STUCK = 15
    DOOR_OPENED = 16
    CLEAR_FAULT = 17
    POWER_LOSS = 18
    DECK_LOADED = 19  # a person put a new deck in: whatever order it had is unknown, shuffle again
    CARD_RETURNED = 20  # the scanner read one card from the return slot into the return bin (CAP_RETURNS)


S = DeviceState
T = Trigger

# (state, trigger) -> next state
TRANSITIONS: dict[tuple[DeviceState, Trigger], DeviceState] = {
    (S.BOOT, T.BOOTED): S.SELF_TEST,
    (S.SELF_TEST, T.SELF_TEST_FAILED): S.FAULT,
    (S.SELF_TEST, T.RESUME_IDLE): S.IDLE,
    (S.SELF_TEST, T.RESUME_READY): S.READY,
    (S.SELF_TEST, T.RESUME_EMPTY): S.EMPTY,
    (S.IDLE, T.SHUFFLE): S.SHUFFLING,
    (S.READY, T.SHUFFLE): S.SHUFFLING,
    (S.EMPTY, T.SHUFFLE): S.SHUFFLING,
    (S.SHUFFLING, T.SHUFFLE_DONE): S.READY,
    (S.IDLE, T.VERIFY): S.VERIFYING,
    (S.READY, T.VERIFY): S.VERIFYING,
    (S.EMPTY, T.VERIFY): S.VERIFYING,
    (S.VERIFYING, T.VERIFY_DONE): S.READY,
    (S.READY, T.DEAL): S.DEALING,
    (S.DEALING, T.CARD_OUT): S.READY,
    (S.DEALING, T.LAST_CARD_OUT): S.EMPTY,
    (S.DEALING, T.JAM): S.JAMMED,
    (S.JAMMED, T.JAM_CLEARED): S.DEALING,
    (S.JAMMED, T.JAM_STUCK): S.FAULT,
    (S.FAULT, T.CLEAR_FAULT): S.IDLE,
    (S.IDLE, T.DECK_LOADED): S.IDLE,
    (S.READY, T.DECK_LOADED): S.IDLE,
    (S.EMPTY, T.DECK_LOADED): S.IDLE,
    # Returned cards are scanned only while the shoe rests (the card path is free); a shuffle waits for them.
    (S.IDLE, T.CARD_RETURNED): S.IDLE,
    (S.READY, T.CARD_RETURNED): S.READY,
    (S.EMPTY, T.CARD_RETURNED): S.EMPTY,
}
for _state in (S.IDLE, S.SHUFFLING, S.VERIFYING, S.READY, S.DEALING, S.JAMMED, S.EMPTY, S.FAULT):
    TRANSITIONS[(_state, T.DOOR_OPENED)] = S.FAULT
for _state in DeviceState:
    TRANSITIONS[(_state, T.POWER_LOSS)] = S.BOOT

# States in which a timed operation runs: a refused command there is BUSY (retry later), not DENIED.
BUSY_STATES = frozenset({S.BOOT, S.SELF_TEST, S.SHUFFLING, S.VERIFYING, S.DEALING, S.JAMMED})


def next_state(state: DeviceState, trigger: Trigger) -> DeviceState | None:
    """The state after `trigger`, or None when the table does not allow it in `state`."""
    return TRANSITIONS.get((state, trigger))
