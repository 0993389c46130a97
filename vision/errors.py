"""One error root for the vision package, split by who is at fault.

`VisionInputError`: the caller gave us something unusable (a garbled image, a broken profile or
calibration file, a bad source name). `VisionDeviceError`: the camera or stream failed us. Both carry
the CLI exit code (2: bad input or usage).
"""

from __future__ import annotations


class VisionError(Exception):
    exit_code = 2
    code = "vision"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class VisionInputError(VisionError):
    """Bad input from the caller: image, profile, calibration or source specification."""

    code = "bad-input"


class VisionDeviceError(VisionError):
    """The camera, video file or stream failed (could not open, stopped delivering frames)."""

    code = "device"
