"""Consistent Overhead Byte Stuffing: removes every 0x00 from a frame so 0x00 can delimit frames.

Each block starts with a code byte n (1..255): n-1 data bytes follow, then an implied zero unless n is
0xFF or the block ends the frame. Overhead is at most one byte per 254 bytes.
"""

from __future__ import annotations

from firmware_bridge.errors import CobsError


def cobs_encode(data: bytes) -> bytes:
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
            continue
        block.append(byte)
        if len(block) == 254:
            out.append(0xFF)
            out += block
            block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    if not data:
        raise CobsError("empty COBS block")
    out = bytearray()
    i = 0
    end = len(data)
    while i < end:
        code = data[i]
        if code == 0:
            raise CobsError(f"zero byte inside a COBS frame at offset {i}")
        block_end = i + code
        if block_end > end:
            raise CobsError(f"COBS block at offset {i} runs {block_end - end} bytes past the end")
        block = data[i + 1:block_end]
        if 0 in block:
            raise CobsError(f"zero byte inside a COBS frame near offset {i}")
        out += block
        i = block_end
        if code != 0xFF and i < end:
            out.append(0)
    return bytes(out)
