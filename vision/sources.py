"""Frame sources behind one interface: a camera by device index, a video file or a stream URL (anything
`cv2.VideoCapture` opens). The simulated table camera is one too (`hardware_sim.camera.SimSource`)."""

from __future__ import annotations

import os
import time
from abc import abstractmethod
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType

import cv2
import numpy as np

from vision.calibration import TableCalibration
from vision.errors import VisionDeviceError, VisionInputError
from vision.rectify import Image

# FFmpeg logs to stderr by itself (a stream refused, a file it cannot parse): quiet (AV_LOG_QUIET), the caller gets
# one typed error instead. It reads the level once, when its first capture opens: so it is set on import.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

Frame = tuple[float, Image]  # (seconds since the source opened, BGR image)


class FrameSource(AbstractContextManager["FrameSource"]):
    """A source of frames (each source overrides `read`); a context manager that closes it."""

    name: str

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame, or None at the end of a file or stream."""

    def calibration(self) -> TableCalibration | None:
        """The table calibration the source knows by itself (the simulator), else None."""
        return None

    def close(self) -> None:
        pass

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class CaptureSource(FrameSource):
    """A device, file or URL through `cv2.VideoCapture`."""

    def __init__(self, target: int | str) -> None:
        self.name = str(target)
        # OpenCV logs its own warnings while probing backends: the caller gets one typed error instead.
        previous = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        try:
            self._cap = cv2.VideoCapture(target)
        finally:
            cv2.utils.logging.setLogLevel(previous)
        if not self._cap.isOpened():
            self._cap.release()
            raise VisionDeviceError(f"cannot open video source {target!r}")
        self._start = time.monotonic()
        self._is_file = isinstance(target, str) and Path(target).exists()

    def read(self) -> Frame | None:
        ok, img = self._cap.read()
        if not ok or img is None:
            return None
        t = float(self._cap.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0 if self._is_file else time.monotonic() - self._start
        return t, np.asarray(img, dtype=np.uint8)

    def close(self) -> None:
        self._cap.release()


def open_capture(spec: str) -> FrameSource:
    """Digits: a camera device; otherwise a file path or URL. (The simulated camera's "sim" spec is opened by
    `hardware_sim.camera.open_source`: the simulator depends on vision, not the other way round.)"""
    spec = spec.strip()
    if not spec:
        raise VisionInputError("empty source")
    if spec.isdigit():
        return CaptureSource(int(spec))
    if "://" not in spec and not Path(spec).exists():
        raise VisionInputError(f"{spec}: no such file (and not a device index, URL or 'sim')")
    return CaptureSource(spec)
