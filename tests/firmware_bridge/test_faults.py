"""Every fault the simulator injects: the host's reaction, and no card or event lost or repeated.

Each test drives a `ShoeClient` against a `ShoeSimulator` through the in-memory cable (fast, one loop),
injects one fault, and ends with `assert_exactly_once`: the cards the host was told about are exactly
the cards the shoe pushed out, in order, and the events it delivered are numbered without gap or repeat.
"""

from __future__ import annotations

import asyncio
import zlib
from dataclasses import replace

import pytest

from firmware_bridge.cards import card_code
from firmware_bridge.driver import ShoeClient
from firmware_bridge.errors import (
    CommandRefusedError,
    DeadlineError,
    DeviceFaultError,
    LinkDownError,
    VersionMismatchError,
)
from firmware_bridge.messages import (
    CardDealt,
    Cleared,
    DeckResult,
    Door,
    Empty,
    FailCode,
    Fault,
    Jam,
    PowerRestored,
    ShoeEvent,
    StatusInfo,
)
from firmware_bridge.states import DeviceState
from hardware_sim.shoe import ByteFaults, PhysicalCard, ShoeSimulator, standard_deck
from tests.firmware_bridge._support import (
    FAST,
    Session,
    assert_exactly_once,
    later,
    memory_client,
    new_sim,
    run,
    session,
)


async def when_state(sim: ShoeSimulator, state: DeviceState, action: str) -> None:
    """Run the control's `action` as soon as the shoe is in `state` (not after a guessed delay)."""
    while sim.control.state() is not state:
        await asyncio.sleep(0.001)
    getattr(sim.control, action)()


def scenario(sim: ShoeSimulator, before: int, fault: str, after: int) -> list[str | None]:
    """Shuffle, deal `before`, inject `fault` via the control, deal `after`; check exactly-once."""

    async def body(s: Session) -> None:
        await s.deal(before)
        getattr(sim.control, fault)()
        await s.deal(after)

    return session(sim, body).cards


LINE_FAULTS = {
    "dropped bytes": ByteFaults(drop=0.02),
    "flipped bits": ByteFaults(flip=0.02),
    "duplicated bytes": ByteFaults(duplicate=0.02),
    "reordered bytes": ByteFaults(swap=0.02),
    "junk bursts with 0x00": ByteFaults(junk=0.01),
}


@pytest.mark.parametrize("direction", ["to_device", "to_host", "both"])
@pytest.mark.parametrize("name", list(LINE_FAULTS))
def test_byte_faults_each_direction(name: str, direction: str) -> None:
    sim = new_sim(seed=zlib.crc32(f"{name} {direction}".encode()) % 1000)

    async def body(s: Session) -> None:
        sim.control.set_byte_faults(LINE_FAULTS[name], direction=direction)
        await s.deal(12)
        sim.control.clean_line()

    s = session(sim, body)
    assert len(s.cards) == 12 and len(set(s.cards)) == 12
    # The fault really bit, on one side or the other.
    stats = s.client.stats
    assert stats.garbled_frames + stats.retransmissions + len(sim.device.endpoint.frame_errors) > 0


@pytest.mark.parametrize("direction", ["to_host", "to_device"])
@pytest.mark.parametrize("fault", ["drop_frames", "duplicate_frames", "reorder_frames"])
def test_frame_faults_each_direction(fault: str, direction: str) -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        for _ in range(10):
            getattr(sim.control, fault)(2, direction=direction)
            await s.deal(2)

    assert len(session(sim, body).cards) == 20


def test_split_and_merged_writes() -> None:
    sim = new_sim()
    sim.control.split_writes()
    cards = scenario(sim, 3, "merge_writes", 10)
    assert len(cards) == 13


def test_junk_burst_between_frames() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        for _ in range(5):
            sim.control.junk_burst(40, with_zero=True)
            await s.deal(2)

    assert session(sim, body).client.stats.garbled_frames >= 5


def test_reply_lost_after_the_deal_ran_deals_once() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        for _ in range(3):
            sim.control.lose_next_reply()
            before = sim.control.cards_in_shoe()
            await s.deal()
            assert sim.control.cards_in_shoe() == before - 1  # the retry was answered from the reply cache

    assert session(sim, body).client.stats.retransmissions >= 3


def test_late_reply_is_not_taken_for_the_next_command() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        sim.control.delay_replies(0.15, count=1)  # longer than one attempt's timeout
        status = await s.client.status()
        assert status.state is DeviceState.READY
        await s.deal(4)
        await asyncio.sleep(0.2)

    stats = session(sim, body).client.stats
    assert stats.retransmissions >= 1
    assert stats.stale_replies >= 1  # the late answer arrived and was recognised as stale


def test_busy_is_retried_until_the_shoe_is_free() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        sim.control.busy_for(0.1)
        await s.deal()

    assert session(sim, body).client.stats.busy >= 1


def test_slow_operation_past_its_deadline_still_delivers_the_card_as_an_event() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        sim.control.slow(250.0)  # a deal now takes 0.5 s
        with pytest.raises(DeadlineError):
            await s.client.deal_one()
        while not any(isinstance(e, CardDealt) for e in s.events):
            s.events.append(await asyncio.wait_for(anext(aiter(s.client.events())), 5))
        await s.settle()
        dealt = [e for e in s.events if isinstance(e, CardDealt)]
        assert len(dealt) == 1  # the outcome was not lost: it came through events()
        s.cards.append(dealt[0].code)
        sim.control.slow(1.0)
        await s.deal()

    session(sim, body, config=replace(FAST, deal_deadline=0.05))


def test_reboot_mid_session_resyncs_without_duplicate() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        first = s.client.info
        await s.deal(5)
        sim.control.reboot()
        await s.deal(5)
        assert first is not None and s.client.info is not None and s.client.info.session != first.session

    s = session(sim, body)
    assert s.client.stats.resyncs + s.client.stats.reconnects >= 1
    restarts = [e for e in s.events if isinstance(e, PowerRestored)]
    assert len(restarts) == 1 and restarts[0].cmd == 0


def test_reboot_with_a_reply_lost_then_retry_in_the_new_session_deals_once() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        sim.control.lose_next_reply()
        sim.control.drop_frames(3, direction="to_host")  # and the CARD_DEALT event's first sendings
        rebooted = later(0.01, sim.control.reboot)
        await s.deal()
        await rebooted
        await s.deal(2)

    session(sim, body)


def test_power_loss_mid_shuffle() -> None:
    sim = new_sim()
    sim.device.timings = replace(sim.device.timings, shuffle=30.0)

    async def body(s: Session) -> None:
        task = asyncio.create_task(when_state(sim, DeviceState.SHUFFLING, "power_loss"))
        with pytest.raises(DeviceFaultError):
            await s.client.shuffle()
        await task
        status = await s.client.status()
        assert status.state in (DeviceState.IDLE, DeviceState.BOOT, DeviceState.SELF_TEST)
        with pytest.raises(CommandRefusedError):
            await s.client.deal_one()  # a half-shuffled deck is never dealt from
        sim.device.timings = replace(sim.device.timings, shuffle=0.005)
        await s.client.shuffle()
        await s.deal(3)

    session(sim, body, shuffle=False)


def test_power_loss_mid_deal_the_card_stays_in_the_shoe() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        await s.deal(2)
        sim.device.timings = replace(sim.device.timings, deal=30.0)
        task = asyncio.create_task(when_state(sim, DeviceState.DEALING, "power_loss"))
        with pytest.raises(DeviceFaultError):
            await s.client.deal_one()
        await task
        assert sim.control.cards_in_shoe() == 50
        sim.device.timings = replace(sim.device.timings, deal=0.002)
        await s.deal(3)

    s = session(sim, body)
    assert any(isinstance(e, PowerRestored) and e.was is DeviceState.DEALING for e in s.events)


def test_silent_link_is_detected_and_recovers() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        await s.deal()
        sim.control.silent(True)
        await asyncio.sleep(FAST.link_down_after + 0.2)
        assert not s.client.link_up
        with pytest.raises(LinkDownError):
            await _status_within(s.client, 0.1)
        sim.control.silent(False)
        await s.deal(3)
        assert s.client.link_up

    session(sim, body)


async def _status_within(client: ShoeClient, seconds: float) -> None:
    client.config = replace(client.config, call_deadline=seconds)
    try:
        await client.status()
    finally:
        client.config = FAST


def test_deal_across_a_silence_completes_once() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        sim.control.silent(True)
        speaking = later(0.5, lambda: sim.control.silent(False))
        await s.deal()
        await speaking

    session(sim, body)


def test_port_vanishes_and_returns() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        await s.deal(3)
        sim.control.vanish()
        await asyncio.sleep(0.1)
        assert not s.client.link_up
        back = later(0.2, sim.control.reappear)
        await s.deal(3)
        await back

    assert session(sim, body).client.stats.reconnects >= 1


def test_jam_that_recovers() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        sim.control.jam_next(recovers=True)
        await s.deal()

    kinds = [type(e) for e in session(sim, body).events]
    assert kinds[-3:] == [Jam, Cleared, CardDealt]


def test_jam_that_does_not_recover_latches_until_cleared() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        await s.deal()
        sim.control.jam_next(recovers=False)
        with pytest.raises(DeviceFaultError, match="JAM"):
            await s.client.deal_one()
        assert (await s.client.status()).state is DeviceState.FAULT
        with pytest.raises(CommandRefusedError, match="FAULT_LATCHED"):
            await s.client.deal_one()
        cleared = await s.client.clear_fault()
        assert cleared.fault is FailCode.JAM
        assert sim.control.cards_in_shoe() == 51  # the jammed card never left
        with pytest.raises(CommandRefusedError, match="NOT_SHUFFLED"):
            await s.client.deal_one()

    session(sim, body)


def test_door_opened_mid_deal() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        await s.deal()
        sim.device.timings = replace(sim.device.timings, deal=30.0)
        task = asyncio.create_task(when_state(sim, DeviceState.DEALING, "open_door"))
        with pytest.raises(DeviceFaultError, match="DOOR"):
            await s.client.deal_one()
        await task
        with pytest.raises(CommandRefusedError, match="DOOR_OPEN"):
            await s.client.clear_fault()
        sim.control.close_door()
        await s.client.clear_fault()
        sim.device.timings = replace(sim.device.timings, deal=0.002)
        await s.client.shuffle()
        s.cards.clear()  # the shuffle took back the card dealt before the door opened: the count starts anew
        await s.deal()

    s = session(sim, body)
    assert [e.open for e in s.events if isinstance(e, Door)] == [True, False]
    assert any(isinstance(e, Fault) and e.fault is FailCode.DOOR for e in s.events)


def test_empty_shoe() -> None:
    sim = new_sim()
    sim.control.load_deck(standard_deck()[:3])

    async def body(s: Session) -> None:
        dealt = [await s.client.deal_one() for _ in range(3)]
        s.cards += [d.card for d in dealt]
        assert [d.left for d in dealt] == [2, 1, 0]
        with pytest.raises(CommandRefusedError, match="SHOE_EMPTY"):
            await s.client.deal_one()

    assert isinstance(session(sim, body).events[-1], Empty)


def test_missing_extra_duplicate_unreadable_and_misread_cards() -> None:
    deck = standard_deck()
    deck.remove(PhysicalCard(face=0))  # 2c missing
    deck.append(PhysicalCard(face=51))  # a second As
    deck.append(PhysicalCard(face=12, foreign=True))  # a 5c from another deck
    deck[5] = PhysicalCard(face=6, readable=False)  # 3h unreadable
    deck[9] = PhysicalCard(face=10, reads_as=8)  # 4h misread as 4c
    sim = new_sim()
    sim.control.load_deck(deck)

    async def body(s: Session) -> None:
        result = await s.client.verify_deck()
        assert isinstance(result, DeckResult) and not result.ok
        assert result.count == 53 and result.unreadable == 1
        assert result.missing == frozenset({0, 6, 10})
        assert result.duplicate == frozenset({51, 8})
        assert result.extra == (12,)
        cards = await s.deal(53)
        assert cards.count(None) == 1  # the unreadable card is reported as such, not guessed
        assert cards.count("4c") == 2 and "4h" not in cards

    session(sim, body, shuffle=False)


def test_version_mismatch_is_a_clear_error() -> None:
    sim = new_sim()
    sim.control.set_version(2)

    async def body() -> None:
        client = memory_client(sim)
        with pytest.raises(VersionMismatchError, match="version 2"):
            await client.connect()
        await client.close()

    run(body())


@pytest.mark.parametrize("fault", ["send_bad_length_frame", "send_unknown_type_frame"])
def test_valid_crc_but_bad_length_or_unknown_type(fault: str) -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        for _ in range(3):
            getattr(sim.control, fault)()
            await s.deal(2)

    assert session(sim, body).client.stats.garbled_frames >= 3


def test_event_flood_every_event_once_in_order() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        sim.control.flood(600)
        await s.deal(2)

    s = session(sim, body, settle_timeout=20)
    assert sum(isinstance(e, Jam) for e in s.events) == 600
    assert sum(isinstance(e, Cleared) for e in s.events) == 600
    assert sim.device.memory.unacked == 0


def test_events_iterator_burn_config_log_and_refusals() -> None:
    sim = new_sim()

    async def body() -> None:
        from firmware_bridge.messages import ConfigKey

        client = memory_client(sim)
        await client.connect()
        seen: list[ShoeEvent] = []

        async def consume() -> None:
            async for event in client.events():
                seen.append(event)

        consumer = asyncio.create_task(consume())
        await client.set_config(ConfigKey.DEAL_SPEED, 10)
        with pytest.raises(CommandRefusedError, match="INVALID"):
            await client.set_config(ConfigKey.DEAL_SPEED, 11)
        await client.shuffle()
        burned = await client.burn()
        assert burned.burn
        cards = [burned.card, (await client.deal_one()).card]
        log = await client.get_log(first=1, limit=16)
        assert [e.number for e in log] == [1, 2, 3]
        await asyncio.sleep(0.05)
        await client.close()
        await consumer
        assert [e.number for e in seen] == [1, 2, 3]
        assert_exactly_once(sim, cards, seen)

    run(body())


def test_unsupported_command() -> None:
    from firmware_bridge.device import Identity
    from firmware_bridge.messages import CAP_VERIFY

    sim = ShoeSimulator(seed=1, timings=new_sim().device.timings, identity=Identity(capabilities=CAP_VERIFY))

    async def body() -> None:
        client = memory_client(sim)
        info = await client.connect()
        assert info.capabilities == CAP_VERIFY
        await client.shuffle()
        with pytest.raises(CommandRefusedError, match="UNSUPPORTED"):
            await client.burn()
        await client.close()

    run(body())


def test_two_callers_at_once_each_get_their_own_card() -> None:
    sim = new_sim()

    async def body(s: Session) -> None:
        dealt, status = await asyncio.gather(asyncio.gather(*(s.client.deal_one() for _ in range(6))),
                                             s.client.status())
        assert isinstance(status, StatusInfo)
        cards = [d.card for d in dealt]
        assert len(set(cards)) == 6
        # gather() keeps call order, the shoe keeps dealing order: compare as sets, then the log's order.
        assert sorted(c or "" for c in cards) == sorted(card_code(p.face) for p in sim.device.out)
        await s.settle()
        s.cards += [e.code for e in s.events if isinstance(e, CardDealt)]

    session(sim, body)
