"""Frames: exact bytes, every way a frame can be wrong, the decoder's resync, and fuzzing (moderate)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.cobs import cobs_decode, cobs_encode
from firmware_bridge.errors import (
    CobsError,
    CrcError,
    FrameError,
    FrameLengthError,
    PayloadError,
    UnknownTypeError,
    VersionError,
)
from firmware_bridge.frames import MAX_ENCODED, Frame, FrameDecoder, decode_frame, frame_bytes, raw_frame_bytes
from firmware_bridge.fuzz import check_input, corpus, generate
from firmware_bridge.fuzz import run as fuzz_run
from firmware_bridge.messages import Command, CommandBody, FrameType, Hello, Ping

# The example in docs/protocol.md: a DEAL_ONE command, session 0x1234ABCD, ack 5, command id 42.
DEAL_EXAMPLE = bytes.fromhex("000701031234abcd01010101010102050101022a070104adb9053300")


def test_documented_example_bytes() -> None:
    frame = Frame(body=CommandBody(command=Command.DEAL_ONE), session=0x1234ABCD, seq=0, ack=5, corr=42)
    assert frame_bytes(frame).hex() == DEAL_EXAMPLE.hex()
    assert decode_frame(DEAL_EXAMPLE[1:-1]) == frame


@pytest.mark.parametrize("frame", corpus(), ids=lambda f: type(f.body).__name__)
def test_every_body_round_trips(frame: Frame) -> None:
    wire = frame_bytes(frame)
    assert wire[0] == 0 and wire[-1] == 0 and 0 not in wire[1:-1]
    assert decode_frame(wire[1:-1]) == frame


def _crafted(**overrides: int | bytes) -> bytes:
    fields: dict[str, int | bytes] = {"version": 1, "ftype": FrameType.PING, "session": 1, "seq": 0, "ack": 0,
                                      "corr": 0, "length": 0, "payload": b""}
    fields.update(overrides)
    return raw_frame_bytes(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(("wire", "error"), [
    (_crafted(length=7), FrameLengthError),
    (_crafted(ftype=0x7E), UnknownTypeError),
    (_crafted(version=2), VersionError),
    (_crafted(ftype=FrameType.COMMAND, payload=b"\x63", length=1), UnknownTypeError),  # command 0x63
    (_crafted(ftype=FrameType.COMMAND, payload=b"\x04\x00", length=2), PayloadError),  # bytes left over
    (_crafted(ftype=FrameType.EVENT, payload=b"\x01\x00\x00\x00\x00\x40\x00\x00", length=8), PayloadError),
    (_crafted(ftype=FrameType.HELLO, payload=b"", length=0), PayloadError),
    (b"\x00\x02\x01\x00", FrameLengthError),
    (b"\x00\x05\x11\x22\x00", CobsError),
])
def test_each_way_a_frame_is_wrong_has_its_error(wire: bytes, error: type[FrameError]) -> None:
    with pytest.raises(error):
        decode_frame(wire[1:-1])
    items = FrameDecoder().feed(wire)
    assert len(items) == 1 and isinstance(items[0], error)


def test_crc_error_and_the_next_frame_still_decodes() -> None:
    good = frame_bytes(Frame(body=Ping(), session=9))
    raw = cobs_decode(good[1:-1])
    bad = b"\x00" + cobs_encode(raw[:-1] + bytes([raw[-1] ^ 0x10])) + b"\x00"
    items = FrameDecoder().feed(bad + good)
    assert isinstance(items[0], CrcError)
    assert items[-1] == Frame(body=Ping(), session=9)


def test_frames_split_at_every_byte_and_merged() -> None:
    frames = corpus()
    stream = b"".join(frame_bytes(f) for f in frames)
    decoder = FrameDecoder()
    got = [item for i in range(len(stream)) for item in decoder.feed(stream[i:i + 1])]
    assert got == frames
    assert FrameDecoder().feed(stream) == frames


def test_overlong_junk_is_skipped_once_then_resync() -> None:
    decoder = FrameDecoder()
    items = decoder.feed(b"\x01" * (MAX_ENCODED + 50))
    assert len(items) == 1 and isinstance(items[0], FrameLengthError)
    good = Frame(body=Hello(version=1))
    assert decoder.feed(b"\x01" * 10 + frame_bytes(good)) == [good]


def test_junk_with_stray_zeros_costs_no_good_frame() -> None:
    good = Frame(body=Ping(), session=3, ack=8)
    rng = random.Random(5)
    junk = bytes(rng.choice((0, rng.randrange(256))) for _ in range(200))
    items = FrameDecoder().feed(junk + frame_bytes(good) + junk + frame_bytes(good))
    assert [i for i in items if isinstance(i, Frame) and i == good] == [good, good]
    assert all(isinstance(i, Frame | FrameError) for i in items)


@given(st.binary(max_size=400))
@settings(max_examples=400)
def test_random_bytes_only_typed_errors_then_resync(data: bytes) -> None:
    check_input(data, corpus()[2])


@given(st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=300)
def test_mutated_frames_only_typed_errors_then_resync(seed: int) -> None:
    rng = random.Random(seed)
    frames = corpus()
    from firmware_bridge.fuzz import _raw

    raws = [_raw(f) for f in frames]
    check_input(generate(rng, frames, raws), frames[seed % len(frames)])


def test_fuzz_command_runs_a_few_thousand() -> None:
    stats = fuzz_run(3000, seed=11)
    assert stats["inputs"] == 3000
    # The mix reaches past the CRC into the parsers, and also decodes good frames.
    assert stats["PayloadError"] > 0 and stats["UnknownTypeError"] > 0 and stats["Frame"] > 0
