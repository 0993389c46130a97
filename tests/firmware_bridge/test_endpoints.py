"""The sans-IO cores on their own: reply cache, event numbering and resending, sessions, order secrecy."""

from __future__ import annotations

from firmware_bridge.device import DeviceEndpoint, DeviceMemory, Identity
from firmware_bridge.frames import Frame, FrameDecoder, frame_bytes
from firmware_bridge.host import Delivered, Handshake, HostEndpoint, NeedHello, Reply
from firmware_bridge.messages import (
    Ack,
    CardDealt,
    Command,
    CommandBody,
    FrameType,
    Ping,
    ReplyBody,
    Result,
    Resync,
    ShuffleDone,
)
from firmware_bridge.states import DeviceState
from hardware_sim.shoe import ShoeSimulator, SimTimings


class Counting:
    def __init__(self) -> None:
        self.calls: list[tuple[int, Command]] = []

    def __call__(self, cmd_id: int, body: CommandBody) -> ReplyBody:
        self.calls.append((cmd_id, body.command))
        return ReplyBody(command=body.command, result=Result.OK)


def device(handler: Counting, memory: DeviceMemory | None = None, session: int = 77) -> DeviceEndpoint:
    return DeviceEndpoint(session=session, memory=memory or DeviceMemory(), identity=Identity(), handler=handler,
                          state=lambda: DeviceState.READY, resend_after=0.5)


def frames_out(ep: DeviceEndpoint) -> list[Frame]:
    decoder = FrameDecoder()
    return [f for o in ep.take_output() for f in decoder.feed(o.data) if isinstance(f, Frame)]


def test_a_repeated_command_id_runs_once_and_gets_the_same_reply() -> None:
    handler = Counting()
    ep = device(handler)
    command = frame_bytes(Frame(body=CommandBody(command=Command.DEAL_ONE), session=77, corr=5))
    for _ in range(3):
        ep.receive(command, 0.0)
    assert handler.calls == [(5, Command.DEAL_ONE)]
    replies = frames_out(ep)
    assert [f.corr for f in replies] == [5, 5, 5] and len({f.body for f in replies}) == 1


def test_the_reply_cache_survives_a_reboot() -> None:
    handler, memory = Counting(), DeviceMemory()
    ep = device(handler, memory)
    ep.receive(frame_bytes(Frame(body=CommandBody(command=Command.BURN), session=77, corr=9)), 0.0)
    rebooted = device(handler, memory, session=78)
    rebooted.receive(frame_bytes(Frame(body=CommandBody(command=Command.BURN), session=78, corr=9)), 0.0)
    assert handler.calls == [(9, Command.BURN)]


def test_busy_is_not_cached() -> None:
    answers = iter([Result.BUSY, Result.OK])
    calls: list[int] = []

    def handler(cmd_id: int, body: CommandBody) -> ReplyBody:
        calls.append(cmd_id)
        return ReplyBody(command=body.command, result=next(answers))

    ep = DeviceEndpoint(session=1, memory=DeviceMemory(), identity=Identity(), handler=handler,
                        state=lambda: DeviceState.READY)
    frame = frame_bytes(Frame(body=CommandBody(command=Command.SHUFFLE), session=1, corr=3))
    ep.receive(frame, 0.0)
    ep.receive(frame, 0.0)
    assert calls == [3, 3]


def test_wrong_session_gets_resync_and_hello_gets_the_session() -> None:
    ep = device(Counting())
    ep.receive(frame_bytes(Frame(body=Ping(), session=12345)), 0.0)
    (resync,) = frames_out(ep)
    assert isinstance(resync.body, Resync)
    host = HostEndpoint()
    ep.receive(host.hello(), 0.0)
    out = host.feed(b"".join(o.data for o in ep.take_output()))
    assert isinstance(out[0], Handshake) and host.session == 77


def test_events_are_resent_until_acknowledged_and_delivered_once() -> None:
    ep = device(Counting())
    host = HostEndpoint()
    ep.receive(host.hello(), 0.0)
    host.feed(b"".join(o.data for o in ep.take_output()))
    for n in range(3):
        ep.emit(CardDealt(number=0, cmd=100 + n, card=n, left=51 - n))
    first = b"".join(o.data for o in ep.take_output())
    got = [i for i in host.feed(first) if isinstance(i, Delivered)]
    assert [d.event.number for d in got] == [1, 2, 3]
    ep.poll(1.0)  # no ack came: everything goes again
    again = b"".join(o.data for o in ep.take_output())
    assert again == first
    assert [i for i in host.feed(again) if isinstance(i, Delivered)] == []  # duplicates dropped
    assert host.duplicates == 3
    ep.receive(host.ack(), 1.0)
    assert ep.memory.acked == 3
    ep.poll(5.0)
    assert ep.take_output() == []


def test_gap_is_not_skipped() -> None:
    ep = device(Counting())
    host = HostEndpoint()
    ep.receive(host.hello(), 0.0)
    host.feed(b"".join(o.data for o in ep.take_output()))
    ep.emit(ShuffleDone(number=0, cmd=1, count=52))
    ep.take_output()  # event 1 lost on the line
    ep.emit(ShuffleDone(number=0, cmd=2, count=52))
    assert [i for i in host.feed(b"".join(o.data for o in ep.take_output())) if isinstance(i, Delivered)] == []
    assert host.gaps == 1
    ep.receive(frame_bytes(Frame(body=Ping(), session=77, ack=host.delivered)), 0.1)  # PING asks for the rest
    delivered = [i.event.number for i in host.feed(b"".join(o.data for o in ep.take_output()))
                 if isinstance(i, Delivered)]
    assert delivered == [1, 2]


def test_host_matches_replies_by_command_id() -> None:
    host = HostEndpoint()
    host.session = 4
    late = frame_bytes(Frame(body=ReplyBody(command=Command.STATUS, result=Result.OK), session=4, corr=10))
    (reply,) = host.feed(late)
    assert isinstance(reply, Reply) and reply.cmd_id == 10
    assert host.feed(frame_bytes(Frame(body=Resync(reason=1), session=99))) == [NeedHello()]  # type: ignore[arg-type]


def test_ack_frames_carry_the_delivered_number() -> None:
    host = HostEndpoint()
    host.delivered = 41
    (frame,) = FrameDecoder().feed(host.ack())
    assert isinstance(frame, Frame) and frame.ack == 41 and isinstance(frame.body, Ack)
    assert frame.type is FrameType.ACK


def _transcript(seed: int, deal: bool) -> bytes:
    """Everything the device sends, for a fixed host script, with a fixed session and virtual clock."""
    sim = ShoeSimulator(seed=seed, timings=SimTimings.fast())
    sim.device.endpoint.session = 0x5EC0
    host = HostEndpoint()
    out = bytearray()

    def exchange(data: bytes, steps: int = 10) -> None:
        sim.receive(data)
        for _ in range(steps):
            for chunk in sim.process(0.001):
                out.extend(chunk)
                host.feed(chunk)

    exchange(b"", steps=20)  # boot and self-test
    exchange(host.hello())
    script = [CommandBody(command=Command.STATUS), CommandBody(command=Command.SHUFFLE),
              CommandBody(command=Command.VERIFY_DECK), CommandBody(command=Command.STATUS),
              CommandBody(command=Command.GET_LOG, first=1, limit=16)]
    if deal:
        script.append(CommandBody(command=Command.DEAL_ONE))
    for cmd_id, body in enumerate(script, start=1):
        exchange(host.command(cmd_id, body))
    return bytes(out)


def test_nothing_on_the_wire_reveals_the_order_of_undealt_cards() -> None:
    # Two shoes with different shuffles, same script: byte-identical until a card is dealt.
    assert _transcript(seed=1, deal=False) == _transcript(seed=2, deal=False)
    # And the comparison can fail: dealing one card shows (only) that card.
    assert _transcript(seed=1, deal=True) != _transcript(seed=2, deal=True)


def test_get_log_holds_only_past_events() -> None:
    sim = ShoeSimulator(seed=5, timings=SimTimings.fast())
    sim.process(0.01)
    sim.process(0.01)  # booted, self-tested
    assert sim.device.handle(1, CommandBody(command=Command.SHUFFLE)).result is Result.IN_PROGRESS
    sim.process(0.01)
    for cmd_id in range(2, 5):
        assert sim.device.handle(cmd_id, CommandBody(command=Command.DEAL_ONE)).result is Result.IN_PROGRESS
        sim.process(0.01)
    reply = sim.device.handle(9, CommandBody(command=Command.GET_LOG, first=1, limit=16))
    dealt = [e.card for e in reply.log if isinstance(e, CardDealt)]
    assert dealt == [c.face for c in sim.device.out]
    assert len(reply.log) == sim.device.memory.last_event == 4
