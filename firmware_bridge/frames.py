"""Frames on the wire: header, CRC-32, COBS, 0x00 delimiters; and a decoder that never gives up.

A frame on the wire is `00 COBS(header | payload | crc32) 00`. The leading zero flushes whatever junk a
noisy line left in the receiver, so the next good frame is always found. The header is 20 bytes:

    version u8 | type u8 | session u32 | seq u32 | ack u32 | corr u32 | length u16

`FrameDecoder.feed(bytes)` returns the frames it completed and, in the same list, a typed `FrameError`
for each chunk it had to drop; it never raises, so one bad byte costs at most the frame it hit.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from firmware_bridge.cobs import cobs_decode, cobs_encode
from firmware_bridge.crc import crc32
from firmware_bridge.errors import (
    CrcError,
    FrameError,
    FrameLengthError,
    UnknownTypeError,
    UsageError,
    VersionError,
)
from firmware_bridge.messages import Ack, Body, FrameType, Ping, decode_body, encode_body

PROTOCOL_VERSION = 1
HEADER = struct.Struct(">BBIIIIH")
HEADER_SIZE = HEADER.size  # 20
CRC_SIZE = 4
MAX_PAYLOAD = 1024
MAX_RAW = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED = MAX_RAW + MAX_RAW // 254 + 2


@dataclass(frozen=True, kw_only=True)
class Frame:
    """One decoded frame: the header fields and the parsed body."""

    body: Body = field(default_factory=Ping)
    session: int = 0
    seq: int = 0
    ack: int = 0
    corr: int = 0
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        for name in ("session", "seq", "ack", "corr"):
            if not 0 <= getattr(self, name) <= 0xFFFFFFFF:
                raise UsageError(f"{name} does not fit in 32 bits")
        if not 0 <= self.version <= 0xFF:
            raise UsageError("version does not fit in 8 bits")

    @property
    def type(self) -> FrameType:
        return encode_body(self.body)[0]


def frame_bytes(frame: Frame) -> bytes:
    """The frame as it goes on the wire, delimiters included."""
    ftype, payload = encode_body(frame.body)
    if len(payload) > MAX_PAYLOAD:
        raise UsageError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    raw = HEADER.pack(frame.version, ftype, frame.session, frame.seq, frame.ack, frame.corr, len(payload)) + payload
    raw += struct.pack(">I", crc32(raw))
    return b"\x00" + cobs_encode(raw) + b"\x00"


def raw_frame_bytes(*, version: int, ftype: int, session: int, seq: int, ack: int, corr: int, length: int,
                    payload: bytes) -> bytes:
    """A frame with any header at all and a valid CRC: for tests and fault injection only."""
    raw = HEADER.pack(version, ftype, session, seq, ack, corr, length) + payload
    raw += struct.pack(">I", crc32(raw))
    return b"\x00" + cobs_encode(raw) + b"\x00"


def decode_frame(encoded: bytes) -> Frame:
    """Decode one COBS chunk (without its delimiters). Raises only `FrameError` subclasses."""
    if len(encoded) > MAX_ENCODED:
        raise FrameLengthError(f"frame of {len(encoded)} encoded bytes exceeds {MAX_ENCODED}")
    raw = cobs_decode(encoded)
    if len(raw) < HEADER_SIZE + CRC_SIZE:
        raise FrameLengthError(f"frame of {len(raw)} bytes is shorter than header and CRC")
    body, (crc,) = raw[:-CRC_SIZE], struct.unpack(">I", raw[-CRC_SIZE:])
    if crc32(body) != crc:
        raise CrcError(f"CRC {crc:#010x} does not match the contents ({crc32(body):#010x})")
    version, ftype_raw, session, seq, ack, corr, length = HEADER.unpack(body[:HEADER_SIZE])
    if version != PROTOCOL_VERSION:
        raise VersionError(f"frame is protocol version {version}, this end speaks {PROTOCOL_VERSION}",
                           version=version)
    payload = body[HEADER_SIZE:]
    if length != len(payload):
        raise FrameLengthError(f"length field says {length} but the payload has {len(payload)} bytes")
    try:
        ftype = FrameType(ftype_raw)
    except ValueError:
        raise UnknownTypeError(f"unknown frame type {ftype_raw:#x}") from None
    return Frame(body=decode_body(ftype, payload, seq), session=session, seq=seq, ack=ack, corr=corr,
                 version=version)


class FrameDecoder:
    """Splits a byte stream at 0x00 and decodes each chunk. Keeps at most one frame's worth of bytes."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self.frames = 0
        self.errors = 0

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        start = 0
        while True:
            zero = data.find(0, start)
            if zero < 0:
                self._append(data[start:], out)
                return out
            self._append(data[start:zero], out)
            start = zero + 1
            if self._overflow:
                self._overflow = False
            elif self._buf:
                try:
                    out.append(decode_frame(bytes(self._buf)))
                    self.frames += 1
                except FrameError as exc:
                    self.errors += 1
                    out.append(exc)
            self._buf.clear()

    def _append(self, chunk: bytes, out: list[Frame | FrameError]) -> None:
        if self._overflow or not chunk:
            return
        if len(self._buf) + len(chunk) > MAX_ENCODED:
            self._buf.clear()
            self._overflow = True
            self.errors += 1
            out.append(FrameLengthError(f"no delimiter within {MAX_ENCODED} bytes; skipping to the next 0x00"))
            return
        self._buf += chunk


__all__ = ["HEADER_SIZE", "MAX_PAYLOAD", "PROTOCOL_VERSION", "Ack", "Frame", "FrameDecoder", "decode_frame",
           "frame_bytes", "raw_frame_bytes"]
