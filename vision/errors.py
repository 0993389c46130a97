"""One error root for the vision package, split by who is at fault; each carries the CLI exit code (2)."""

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
