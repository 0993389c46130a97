"""CRC-32 against its published check value, and COBS against the encoding's definition."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.cobs import cobs_decode, cobs_encode
from firmware_bridge.crc import CHECK_INPUT, CHECK_VALUE, crc32, crc32_bitwise
from firmware_bridge.errors import CobsError


def test_crc32_check_value() -> None:
    # The published check value of CRC-32/ISO-HDLC; the module's own pair must be that value.
    assert crc32(b"123456789") == 0xCBF43926 == crc32_bitwise(b"123456789")
    assert crc32(CHECK_INPUT) == CHECK_VALUE


@pytest.mark.parametrize(("data", "crc"), [(b"", 0x00000000), (b"a", 0xE8B7BE43), (b"abc", 0x352441C2),
                                           (b"The quick brown fox jumps over the lazy dog", 0x414FA339)])
def test_crc32_known_values(data: bytes, crc: int) -> None:
    assert crc32(data) == crc == crc32_bitwise(data)


@given(st.binary(max_size=300))
@settings(max_examples=200)
def test_bitwise_crc_equals_table_crc(data: bytes) -> None:
    assert crc32_bitwise(data) == crc32(data) == zlib.crc32(data)


@pytest.mark.parametrize(("raw", "encoded"), [
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (b"", b"\x01"),
])
def test_cobs_table(raw: bytes, encoded: bytes) -> None:
    assert cobs_encode(raw) == encoded
    assert cobs_decode(encoded) == raw


def test_cobs_long_runs() -> None:
    run = bytes(range(1, 255))  # 254 non-zero bytes: one full block
    assert cobs_encode(run)[0] == 0xFF
    assert cobs_decode(b"\xff" + run) == run  # the common form without a trailing empty block
    assert cobs_decode(cobs_encode(run + b"\x00" + run)) == run + b"\x00" + run


@given(st.binary(max_size=1200))
@settings(max_examples=300)
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(encoded) == data


@pytest.mark.parametrize("bad", [b"", b"\x05\x11\x22", b"\x03\x11\x00\x33", b"\x00"])
def test_cobs_rejects_broken_blocks(bad: bytes) -> None:
    with pytest.raises(CobsError):
        cobs_decode(bad)
