"""Serial link to the automatic shuffler / dealing shoe.

The protocol is in docs/protocol.md. Sans-IO cores: `frames` (COBS, CRC-32, header), `messages`
(bodies), `host` and `device` (the two ends of the conversation), `states` (the device's transition
table). Adapters: `transport` (pyserial, any URL) and `driver` (`ShoeClient`, asyncio), which the table
service uses. The driver's names are loaded on first use, so importing a core module pulls in no I/O.
"""

from __future__ import annotations

from typing import Any

_DRIVER_NAMES = ("ClientConfig", "DealtCard", "DeviceInfo", "ShoeClient", "ShoeDriver")

__all__ = ["ClientConfig", "DealtCard", "DeviceInfo", "ShoeClient", "ShoeDriver"]


def __getattr__(name: str) -> Any:
    if name in _DRIVER_NAMES:
        from firmware_bridge import driver

        return getattr(driver, name)
    raise AttributeError(f"module 'firmware_bridge' has no attribute {name!r}")
