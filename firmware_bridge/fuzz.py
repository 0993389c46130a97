"""Fuzz the frame decoder: random and mutated inputs, only typed errors, resync at the next good frame.

    python -m firmware_bridge.fuzz --count 1000000 [--seed S]
    python -m firmware_bridge.fuzz --atheris -atheris_runs=1000000   (coverage-guided; needs `pip install atheris`)

Mutations work on the raw frame *before* the CRC and COBS are applied, then re-seal it, so the payload
parsers see hostile bytes behind a valid CRC (the case a CRC alone does not catch); others damage the
encoded bytes (flips, cuts, inserted zeros, splices). For every input the decoder must return only
`Frame`s and `FrameError`s, and a good frame sent after it must come out intact. A decoded frame must
encode back to a frame that decodes equal. Exit status 1 on the first failure, with the input in hex.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import struct
import sys
import time
from collections import Counter
from collections.abc import Callable

from firmware_bridge.cobs import cobs_encode
from firmware_bridge.crc import crc32
from firmware_bridge.errors import FrameError
from firmware_bridge.frames import Frame, FrameDecoder, decode_frame, frame_bytes
from firmware_bridge.messages import (
    Ack,
    Body,
    CardDealt,
    CardReturned,
    Cleared,
    Command,
    CommandBody,
    ConfigKey,
    DeckResult,
    Door,
    Empty,
    FailCode,
    Fault,
    Hello,
    HelloReply,
    Jam,
    Ping,
    Pong,
    PowerRestored,
    ReplyBody,
    RestartCause,
    Result,
    Resync,
    ResyncReason,
    ShuffleDone,
    StatusInfo,
)
from firmware_bridge.states import DeviceState


def corpus() -> list[Frame]:
    """One or more valid frames of every type and event kind."""
    status = StatusInfo(state=DeviceState.READY, fault=FailCode.NONE, cards_in_shoe=40, cards_dealt=12,
                        door_open=False, shuffles=3, last_event=99, unacked=2, deal_speed=5)
    events = [CardDealt(number=5, cmd=7, card=51, left=3), CardDealt(number=6, cmd=8, card=None, left=2, burn=True),
              ShuffleDone(number=1, cmd=2, count=52),
              DeckResult(number=9, cmd=3, count=51, unreadable=1, missing=frozenset({0, 51}),
                         duplicate=frozenset({7}), extra=(4, 4, 30)),
              Jam(number=10, cmd=4, recovering=True), Door(number=11, open=True), Empty(number=12),
              PowerRestored(number=13, cmd=5, cause=RestartCause.POWER_LOSS, was=DeviceState.DEALING),
              Fault(number=14, cmd=6, fault=FailCode.JAM), Cleared(number=15, fault=FailCode.DOOR),
              CardReturned(number=16, card=12, held=1), CardReturned(number=17, card=None, held=2)]
    bodies: list[Body] = [
        Hello(version=1),
        HelloReply(version=1, state=DeviceState.IDLE, capabilities=31, first_unacked=3, last_event=9,
                   model="CT-SHOE-1", serial="SN-42", firmware="1.2.3"),
        CommandBody(command=Command.DEAL_ONE),
        CommandBody(command=Command.SET_CONFIG, key=ConfigKey.DEAL_SPEED, value=7),
        CommandBody(command=Command.GET_LOG, first=1, limit=16),
        ReplyBody(command=Command.STATUS, result=Result.OK, status=status),
        ReplyBody(command=Command.DEAL_ONE, result=Result.IN_PROGRESS),
        ReplyBody(command=Command.SHUFFLE, result=Result.FAILED, fail=FailCode.POWER_LOST, event=4),
        ReplyBody(command=Command.GET_LOG, result=Result.OK, log=tuple(events[:4])),
        Pong(state=DeviceState.DEALING, last_event=77), Resync(reason=ResyncReason.UNKNOWN_SESSION), Ack(), Ping(),
    ]
    frames = [Frame(body=b, session=0x1234ABCD, seq=0, ack=5, corr=42) for b in bodies]
    frames += [Frame(body=e, session=0x1234ABCD, seq=e.number, ack=0, corr=0) for e in events]
    return frames


def _seal(raw: bytes) -> bytes:
    """COBS-encode header+payload with a fresh, valid CRC (no delimiters)."""
    return cobs_encode(raw + struct.pack(">I", crc32(raw)))


def _raw(frame: Frame) -> bytes:
    from firmware_bridge.cobs import cobs_decode

    return cobs_decode(frame_bytes(frame)[1:-1])[:-4]


def _mutate_raw(raw: bytearray, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        if op == 0 and raw:
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        elif op == 1 and raw:
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
        elif op == 2:
            raw[rng.randrange(len(raw) + 1):rng.randrange(len(raw) + 1)] = bytes(rng.randrange(256)
                                                                              for _ in range(rng.randint(1, 8)))
        elif op == 3 and len(raw) > 1:
            i = rng.randrange(len(raw))
            del raw[i:i + rng.randint(1, 8)]
        elif op == 4 and len(raw) >= 20:
            length = len(raw) - 20 if rng.random() < 0.5 else rng.randrange(0x10000)
            raw[18:20] = struct.pack(">H", length)  # fix or break the length field
        elif op == 5 and len(raw) > 1:
            raw[1] = rng.randrange(256)  # frame type
    if len(raw) >= 20 and rng.random() < 0.7:
        raw[18:20] = struct.pack(">H", len(raw) - 20)  # keep the length honest: reach the payload parsers
    return bytes(raw)


def _mutate_wire(wire: bytearray, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        if op == 0 and wire:
            wire[rng.randrange(len(wire))] ^= 1 << rng.randrange(8)
        elif op == 1 and wire:
            wire[rng.randrange(len(wire))] = 0
        elif op == 2 and len(wire) > 1:
            del wire[rng.randrange(len(wire)):]
        elif op == 3:
            wire[rng.randrange(len(wire) + 1):rng.randrange(len(wire) + 1)] = bytes(rng.randrange(256)
                                                                                for _ in range(rng.randint(1, 16)))
        else:
            i = rng.randrange(len(wire) + 1)
            wire[i:i] = wire[:rng.randrange(len(wire) + 1)]
    return bytes(wire)


class FuzzFailureError(AssertionError):
    pass


def check_input(data: bytes, good: Frame, stats: Counter[str] | None = None) -> None:
    """The decoder's contract on one input. Raises `FuzzFailureError` (or the unexpected error) if broken."""
    decoder = FrameDecoder()
    items = decoder.feed(data)
    for item in items:
        if isinstance(item, Frame):
            again = decode_frame(frame_bytes(item)[1:-1])
            if again != item:
                raise FuzzFailureError(f"decoded frame does not re-encode to itself: {item!r}")
        elif not isinstance(item, FrameError):
            raise FuzzFailureError(f"decoder returned {item!r}")
        if stats is not None:
            stats[type(item).__name__] += 1
    tail = decoder.feed(frame_bytes(good))
    if not tail or tail[-1] != good:
        raise FuzzFailureError(f"no resync: the good frame after the input came out as {tail!r}")
    for chunk in data.split(b"\x00"):
        if chunk:
            with contextlib.suppress(FrameError):
                decode_frame(chunk)


def generate(rng: random.Random, frames: list[Frame], raws: list[bytes]) -> bytes:
    kind = rng.randrange(5)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    if kind == 1:
        return b"\x00" + _seal(_mutate_raw(bytearray(rng.choice(raws)), rng)) + b"\x00"
    if kind == 2:
        return _mutate_wire(bytearray(frame_bytes(rng.choice(frames))), rng)
    if kind == 3:
        return b"".join(frame_bytes(rng.choice(frames)) for _ in range(rng.randint(1, 3)))[rng.randrange(8):]
    return rng.choice(raws)[: rng.randrange(40)] + bytes(rng.randrange(256) for _ in range(rng.randrange(8)))


def run(count: int, seed: int, progress: Callable[[int], None] | None = None) -> Counter[str]:
    rng = random.Random(seed)
    frames = corpus()
    raws = [_raw(f) for f in frames]
    stats: Counter[str] = Counter()
    for i in range(count):
        data = generate(rng, frames, raws)
        try:
            check_input(data, frames[i % len(frames)], stats)
        except FuzzFailureError:
            raise
        except Exception as exc:
            raise FuzzFailureError(f"input {data.hex()} raised {type(exc).__name__}: {exc}") from exc
        if progress is not None and i and i % 100_000 == 0:
            progress(i)
    stats["inputs"] = count
    return stats


def _progress(done: int) -> None:
    sys.stderr.write(f"fuzz: {done} inputs\n")


def atheris_main(argv: list[str]) -> int:
    """Coverage-guided fuzzing with atheris (libFuzzer) over the same contract as `check_input`."""
    try:
        import atheris
    except ImportError:
        sys.stderr.write("fuzz: atheris is not installed (pip install atheris); use --count instead\n")
        return 2
    good = corpus()[0]

    def one_input(data: bytes) -> None:
        check_input(data, good)

    with atheris.instrument_imports():
        import firmware_bridge.cobs
        import firmware_bridge.frames
        import firmware_bridge.messages  # noqa: F401
    atheris.instrument_all()
    atheris.Setup([sys.argv[0], *argv], one_input)
    atheris.Fuzz()
    return 0


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if "--atheris" in args_in:
        return atheris_main([a for a in args_in if a != "--atheris"])
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(args_in)
    started = time.perf_counter()
    try:
        stats = run(args.count, args.seed, _progress)
    except FuzzFailureError as exc:
        sys.stderr.write(f"fuzz: FAILED: {exc}\n")
        return 1
    took = time.perf_counter() - started
    detail = ", ".join(f"{k}={v}" for k, v in sorted(stats.items()) if k != "inputs")
    sys.stdout.write(f"fuzz: {args.count} inputs (seed {args.seed}) in {took:.1f} s, 0 failures; {detail}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
