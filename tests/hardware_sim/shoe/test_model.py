"""The simulated shoe as a device model: cards are conserved through any mix of commands and faults."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.messages import CardDealt, Command, CommandBody, FailCode, RestartCause, Result
from firmware_bridge.states import DeviceState
from hardware_sim.shoe import ShoeDevice, SimTimings

ACTIONS = st.sampled_from([
    "shuffle", "verify", "deal", "deal", "deal", "burn", "clear", "wait", "wait", "jam_ok", "jam_stuck",
    "door_open", "door_close", "reboot", "power_loss", "return", "return",
])


@given(st.lists(ACTIONS, max_size=60), st.integers(min_value=0, max_value=2**16))
@settings(max_examples=150, deadline=None)
def test_cards_are_conserved_and_every_dealt_card_is_reported_once(actions: list[str], seed: int) -> None:
    dev = ShoeDevice(seed=seed, timings=SimTimings.fast())
    commands = {"shuffle": Command.SHUFFLE, "verify": Command.VERIFY_DECK, "deal": Command.DEAL_ONE,
                "burn": Command.BURN, "clear": Command.CLEAR_FAULT}
    for cmd_id, action in enumerate(actions, start=1):
        if action in commands:
            reply = dev.handle(cmd_id, CommandBody(command=commands[action]))
            assert reply.result in (Result.OK, Result.IN_PROGRESS, Result.BUSY, Result.DENIED)
        elif action == "jam_ok":
            dev.plans.jams.append(True)
        elif action == "jam_stuck":
            dev.plans.jams.append(False)
        elif action == "door_open":
            dev.open_door()
        elif action == "door_close":
            dev.close_door()
        elif action == "reboot":
            dev.restart(RestartCause.REBOOT)
        elif action == "power_loss":
            dev.restart(RestartCause.POWER_LOSS)
        elif action == "return":
            dev.return_cards(dev.out[:2])  # the dealer loads the first two dealt cards back
        for _ in range(3):
            dev.process(0.004)
        assert dev.conserved()
        assert dev.state in DeviceState
        if dev.door_open:
            assert dev.state in (DeviceState.FAULT, DeviceState.BOOT, DeviceState.SELF_TEST)
    # Every card that left the shoe since the last gathering is in the log once, in order.
    dealt = [e for e in dev.memory.log.values() if isinstance(e, CardDealt)]
    if dev.out and "return" not in actions:
        assert [e.card for e in dealt[-len(dev.out):]] == [c.face for c in dev.out]
        assert [e.left for e in dealt[-len(dev.out):]] == list(range(51, 51 - len(dev.out), -1))


def test_seeded_shuffles_repeat_and_unseeded_ones_use_the_os_csprng() -> None:
    import secrets

    a, b = ShoeDevice(seed=3), ShoeDevice(seed=3)
    for dev in (a, b):
        dev.rng.shuffle(dev.shoe)
    assert a.shoe == b.shoe
    assert isinstance(ShoeDevice().rng, secrets.SystemRandom)


def _device_in(state: DeviceState) -> ShoeDevice:
    dev = ShoeDevice(seed=1, timings=SimTimings.fast())
    plans: dict[DeviceState, list[str | Command]] = {
        DeviceState.BOOT: [],
        DeviceState.IDLE: ["boot"],
        DeviceState.SHUFFLING: ["boot", Command.SHUFFLE],
        DeviceState.READY: ["boot", Command.SHUFFLE, "finish"],
        DeviceState.DEALING: ["boot", Command.SHUFFLE, "finish", Command.DEAL_ONE],
        DeviceState.FAULT: ["boot", "door"],
    }
    steps = plans[state]
    for i, step in enumerate(steps, start=1):
        if step == "boot":
            dev.process(0.01)
            dev.process(0.01)
        elif step == "finish":
            dev.process(1.0)
        elif step == "door":
            dev.open_door()
            dev.close_door()
        elif isinstance(step, Command):
            dev.handle(i, CommandBody(command=step))
    assert dev.state is state
    return dev


@pytest.mark.parametrize(("state", "command", "result", "fail"), [
    (DeviceState.BOOT, Command.STATUS, Result.OK, FailCode.NONE),
    (DeviceState.BOOT, Command.SHUFFLE, Result.BUSY, FailCode.NONE),
    (DeviceState.IDLE, Command.DEAL_ONE, Result.DENIED, FailCode.NOT_SHUFFLED),
    (DeviceState.IDLE, Command.SHUFFLE, Result.IN_PROGRESS, FailCode.NONE),
    (DeviceState.IDLE, Command.CLEAR_FAULT, Result.DENIED, FailCode.WRONG_STATE),
    (DeviceState.SHUFFLING, Command.DEAL_ONE, Result.BUSY, FailCode.NONE),
    (DeviceState.READY, Command.DEAL_ONE, Result.IN_PROGRESS, FailCode.NONE),
    (DeviceState.READY, Command.BURN, Result.IN_PROGRESS, FailCode.NONE),
    (DeviceState.DEALING, Command.DEAL_ONE, Result.BUSY, FailCode.NONE),
    (DeviceState.FAULT, Command.DEAL_ONE, Result.DENIED, FailCode.FAULT_LATCHED),
    (DeviceState.FAULT, Command.SHUFFLE, Result.DENIED, FailCode.FAULT_LATCHED),
    (DeviceState.FAULT, Command.CLEAR_FAULT, Result.OK, FailCode.NONE),
])
def test_command_answers_by_state(state: DeviceState, command: Command, result: Result, fail: FailCode) -> None:
    dev = _device_in(state)
    assert dev.can_command(command) is (result not in (Result.BUSY, Result.DENIED))
    reply = dev.handle(99, CommandBody(command=command))
    assert (reply.result, reply.fail) == (result, fail)


def test_no_automatic_refeed_makes_every_jam_latch() -> None:
    from firmware_bridge.messages import ConfigKey

    dev = _device_in(DeviceState.READY)
    assert dev.handle(50, CommandBody(command=Command.SET_CONFIG, key=ConfigKey.JAM_RETRIES, value=0)).result \
        is Result.OK
    dev.plans.jams.append(True)
    dev.handle(51, CommandBody(command=Command.DEAL_ONE))
    for _ in range(10):
        dev.process(0.01)
    assert dev.state is DeviceState.FAULT and dev.latched is FailCode.JAM
    assert dev.conserved() and len(dev.shoe) == 52
