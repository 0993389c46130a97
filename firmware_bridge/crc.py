"""CRC-32 as used by the shoe link: the IEEE 802.3 / zlib CRC.

Parameters (the usual catalogue notation): width 32, poly 0x04C11DB7, init 0xFFFFFFFF, reflected in and
out, xorout 0xFFFFFFFF; check value CRC-32(b"123456789") = 0xCBF43926. The host uses zlib's C version;
`crc32_bitwise` is the bit-at-a-time definition a firmware engineer can port, and the tests hold the two
equal.
"""

from __future__ import annotations

import zlib

CHECK_INPUT = b"123456789"
CHECK_VALUE = 0xCBF43926
_POLY_REFLECTED = 0xEDB88320


def crc32(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def crc32_bitwise(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY_REFLECTED if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF
