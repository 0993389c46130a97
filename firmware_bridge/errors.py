"""The one error root of `firmware_bridge`, split by who is at fault.

`UsageError` means the host code misused the bridge (a bad argument, a call on a closed client).
`PeerError` means the device or the line misbehaved (a corrupt frame, a refused command, a silent link).
Every error carries the CLI exit code it maps to, so `cardtable shoe` can print one line and exit.
"""

from __future__ import annotations


class BridgeError(Exception):
    """Root of every error raised by the shoe link."""

    exit_code = 2
    code = "bridge"


class UsageError(BridgeError):
    """The caller misused the bridge: a bad argument or an impossible request."""

    code = "usage"


class PeerError(BridgeError):
    """The device or the line misbehaved."""

    code = "peer"


# --- framing: one class per way a frame can be wrong -------------------------------------------------

class FrameError(PeerError):
    """A frame could not be decoded. The decoder drops it and resynchronises at the next 0x00."""

    code = "frame"


class CobsError(FrameError):
    """The COBS encoding is broken (a zero inside, or a block running past the end)."""

    code = "frame_cobs"


class CrcError(FrameError):
    """The CRC-32 does not match the frame's contents."""

    code = "frame_crc"


class FrameLengthError(FrameError):
    """The frame is too short, too long, or its length field disagrees with its payload."""

    code = "frame_length"


class UnknownTypeError(FrameError):
    """The CRC is good but the frame type (or a code inside the payload) is not one we know."""

    code = "frame_type"


class PayloadError(FrameError):
    """The CRC is good but the payload does not parse for its frame type."""

    code = "frame_payload"


class VersionError(FrameError):
    """The frame was built for another protocol version."""

    code = "frame_version"

    def __init__(self, message: str, *, version: int) -> None:
        super().__init__(message)
        self.version = version


# --- the conversation -------------------------------------------------------------------------------

class VersionMismatchError(PeerError):
    """The device speaks a protocol version this host does not."""

    code = "version_mismatch"


class LinkDownError(PeerError):
    """The port vanished or the device stopped answering, and the call's deadline ran out."""

    code = "link_down"


class DeadlineError(PeerError):
    """A call did not complete before its deadline. Its outcome may still arrive as an event."""

    code = "deadline"


class CommandRefusedError(PeerError):
    """The device answered DENIED, INVALID, UNSUPPORTED or FAILED."""

    code = "refused"

    def __init__(self, message: str, *, result: str, fail_code: int = 0) -> None:
        super().__init__(message)
        self.result = result
        self.fail_code = fail_code


class DeviceFaultError(PeerError):
    """An operation stopped on a device fault (jam, door, power loss). The card was not dealt."""

    code = "device_fault"

    def __init__(self, message: str, *, fault: str) -> None:
        super().__init__(message)
        self.fault = fault


class PortError(PeerError):
    """The serial port could not be opened (no such device, refused connection, bad URL)."""

    code = "port"
