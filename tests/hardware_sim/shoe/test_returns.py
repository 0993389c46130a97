"""The return slot's scanner (capability RETURNS): each card loaded back is reported as the scanner reads it,
on the virtual clock; a shoe without it takes the cards in silently; the host sees the capability and the
events, and works the same without them."""

from __future__ import annotations

import asyncio

import pytest

from firmware_bridge.cards import card_code, card_number
from firmware_bridge.errors import PayloadError, UsageError
from firmware_bridge.frames import Frame, decode_frame, frame_bytes
from firmware_bridge.messages import (
    CAP_RETURNS,
    CardDealt,
    CardReturned,
    Command,
    CommandBody,
    Result,
    ShoeEvent,
    decode_event,
    encode_event,
)
from firmware_bridge.states import DeviceState, Trigger, next_state
from hardware_sim.shoe import ShoeSimulator, SimTimings
from hardware_sim.shoe.remote import answer
from tests.firmware_bridge._support import memory_client, run, settle

SCAN = 0.05


def _sim(*, scan_returns: bool = True) -> ShoeSimulator:
    return ShoeSimulator(seed=5, timings=SimTimings(boot=0.01, self_test=0.01, shuffle=0.1, verify=0.1, deal=0.02,
                                                    return_scan=SCAN), scan_returns=scan_returns)


def _run_until(sim: ShoeSimulator, pred: object, limit: float = 5.0, step: float = 0.005) -> None:
    t = 0.0
    while not pred():  # type: ignore[operator]
        sim.process(step)
        t += step
        assert t < limit, "the simulated shoe did not get there"


def _dealt(sim: ShoeSimulator, n: int) -> list[str]:
    dev = sim.device
    _run_until(sim, lambda: dev.state is DeviceState.IDLE)
    cmd = 1
    for command in (Command.SHUFFLE, Command.DEAL_ONE):
        for _ in range(1 if command is Command.SHUFFLE else n):
            assert dev.handle(cmd, CommandBody(command=command)).result is Result.IN_PROGRESS
            _run_until(sim, lambda: dev.op is None)
            cmd += 1
    return [card_code(c.face) for c in dev.out]


def _returned(sim: ShoeSimulator) -> list[CardReturned]:
    return [e for e in sim.device.memory.log.values() if isinstance(e, CardReturned)]


def test_the_event_is_framed_validated_and_round_trips() -> None:
    for event in (CardReturned(number=9, card=51, held=1), CardReturned(number=10, card=None, held=255)):
        assert decode_event(encode_event(event), event.number) == event
        frame = Frame(body=event, session=7, seq=event.number)
        assert decode_frame(frame_bytes(frame)[1:-1]) == frame
    assert CardReturned(number=1, card=card_number("Kh"), held=2).code == "Kh"
    with pytest.raises(UsageError):
        CardReturned(number=1, card=52, held=1)
    with pytest.raises(UsageError):
        CardReturned(number=1, card=3, held=0)
    raw = encode_event(CardReturned(number=1, card=3, held=1))
    with pytest.raises(PayloadError):
        decode_event(raw[:-2] + bytes([0x40, 1]), 1)  # a card byte that is neither 0..51 nor 0xFF
    with pytest.raises(PayloadError):
        decode_event(raw[:-1] + bytes([0]), 1)  # nothing in the bin after a card went in
    with pytest.raises(PayloadError):
        decode_event(raw + b"\x00", 1)


def test_returns_are_scanned_only_at_rest_per_the_state_table() -> None:
    rests = {s for s in DeviceState if next_state(s, Trigger.CARD_RETURNED) is not None}
    assert rests == {DeviceState.IDLE, DeviceState.READY, DeviceState.EMPTY}
    assert all(next_state(s, Trigger.CARD_RETURNED) is s for s in rests)


def test_each_returned_card_is_reported_on_the_virtual_clock_and_a_shuffle_waits_for_them() -> None:
    sim = _sim()
    dev = sim.device
    dealt = _dealt(sim, 6)
    thrown = [dealt[4], dealt[1], dealt[2]]
    sim.control.return_cards(thrown)
    assert dev.conserved() and len(dev.slot) == 3
    # A shuffle now would gather cards the host was never told about: the shoe answers BUSY.
    assert dev.handle(50, CommandBody(command=Command.SHUFFLE)).result is Result.BUSY
    sim.process(SCAN * 0.6)
    assert _returned(sim) == []  # the first card is still on its way past the scanner
    sim.process(SCAN * 0.6)
    assert [e.code for e in _returned(sim)] == thrown[:1]
    for _ in range(4):
        sim.process(SCAN)
    events = _returned(sim)
    assert [e.code for e in events] == thrown
    assert [e.held for e in events] == [1, 2, 3]
    assert all(e.cmd == 0 for e in events)
    assert dev.state is DeviceState.READY and dev.conserved()
    assert [card_code(c.face) for c in sim.control.cards_returned()] == thrown
    assert [card_code(c.face) for c in sim.control.cards_out()] == [c for c in dealt if c not in thrown]
    # The bin is kept apart from the stub: the next deal is not a returned card; the next shuffle takes it all.
    assert dev.handle(51, CommandBody(command=Command.DEAL_ONE)).result is Result.IN_PROGRESS
    _run_until(sim, lambda: dev.op is None)
    last = [e for e in dev.memory.log.values() if isinstance(e, CardDealt)][-1]
    assert last.code not in thrown
    assert dev.handle(52, CommandBody(command=Command.SHUFFLE)).result is Result.IN_PROGRESS
    _run_until(sim, lambda: dev.op is None)
    assert len(dev.shoe) == 52 and not dev.returned and not dev.out and dev.conserved()


def test_the_scanner_waits_while_the_shoe_deals() -> None:
    sim = _sim()
    dev = sim.device
    dealt = _dealt(sim, 2)
    assert dev.handle(70, CommandBody(command=Command.DEAL_ONE)).result is Result.IN_PROGRESS
    sim.control.return_cards(dealt[:1])
    sim.process(0.01)
    assert dev.state is DeviceState.DEALING and _returned(sim) == []  # the card path is busy: not scanned yet
    _run_until(sim, lambda: bool(_returned(sim)))
    assert dev.op is None and [e.code for e in _returned(sim)] == dealt[:1]


def test_a_card_from_elsewhere_is_reported_as_read_and_still_conserved() -> None:
    sim = _sim()
    dealt = _dealt(sim, 2)
    stranger = next(card_code(n) for n in range(52) if card_code(n) not in dealt)
    sim.control.return_cards([stranger])
    _run_until(sim, lambda: bool(_returned(sim)))
    assert [e.code for e in _returned(sim)] == [stranger]
    assert sim.device.conserved()
    with pytest.raises(ValueError):
        sim.control.return_cards(["Zz"])


def test_a_shoe_without_the_scanner_takes_returns_silently() -> None:
    sim = _sim(scan_returns=False)
    assert not sim.device.identity.capabilities & CAP_RETURNS
    dealt = _dealt(sim, 3)
    sim.control.return_cards(dealt[:2])
    for _ in range(20):
        sim.process(SCAN)
    assert _returned(sim) == [] and len(sim.device.returned) == 2 and sim.device.conserved()
    assert sim.device.handle(9, CommandBody(command=Command.SHUFFLE)).result is Result.IN_PROGRESS


def test_the_host_sees_the_capability_and_each_returned_card_once() -> None:
    async def body(scan: bool) -> tuple[bool, list[ShoeEvent], list[str | None]]:
        sim = ShoeSimulator(seed=3, timings=SimTimings.fast(), scan_returns=scan)
        client = memory_client(sim)
        info = await client.connect()
        try:
            await client.shuffle()
            dealt = [(await client.deal_one()).card for _ in range(4)]
            sim.control.return_cards([c for c in dealt[:3] if c is not None])
            await asyncio.sleep(0.05)  # virtual: the scanner reads the three cards meanwhile
            events = await settle(client, sim)
            return info.scans_returns, events, dealt
        finally:
            await client.close()

    scans, events, dealt = run(body(True))
    assert scans
    assert [e.code for e in events if isinstance(e, CardReturned)] == dealt[:3]
    scans, events, _ = run(body(False))
    assert not scans
    assert not [e for e in events if isinstance(e, CardReturned)]


def test_the_remote_control_returns_cards_and_switches_the_scanner() -> None:
    sim = _sim()
    dealt = _dealt(sim, 2)
    reply = answer(sim.control, {}, b'{"call": "return_cards", "args": {"codes": ["%s"]}}' % dealt[0].encode())
    assert reply == {"ok": True, "result": None}
    _run_until(sim, lambda: bool(_returned(sim)))
    assert answer(sim.control, {}, b'{"call": "cards_returned"}')["result"] == [dealt[0]]
    bad = answer(sim.control, {}, b'{"call": "return_cards", "args": {"codes": ["1x"]}}')
    assert bad["error"]["code"] == "bad_args"
    assert answer(sim.control, {}, b'{"call": "scan_returns", "args": {"on": false}}')["ok"]
    assert not sim.device.scans_returns and not sim.device.endpoint.identity.capabilities & CAP_RETURNS
