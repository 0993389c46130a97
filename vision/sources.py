"""Frame sources behind one interface: a camera by device index, a video file, a stream URL
(anything `cv2.VideoCapture` opens), or the simulated table camera ("sim" or "sim:SEED")."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import TableCalibration
from vision.errors import VisionDeviceError, VisionInputError

if TYPE_CHECKING:
    from types import TracebackType

    from hardware_sim.camera import SimCamera

Image = npt.NDArray[np.uint8]
Frame = tuple[float, Image]  # (seconds since the source opened, BGR image)


class FrameSource(Protocol):
    name: str

    def read(self) -> Frame | None:
        """The next frame, or None at the end of a file or stream."""

    def calibration(self) -> TableCalibration | None:
        """The table calibration the source knows by itself (the simulator), else None."""

    def close(self) -> None: ...

    def __enter__(self) -> FrameSource: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...


class _Closing:
    def __enter__(self) -> FrameSource:
        return self  # type: ignore[return-value]

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:  # overridden
        pass


class CaptureSource(_Closing):
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

    def calibration(self) -> TableCalibration | None:
        return None

    def close(self) -> None:
        self._cap.release()


class SimSource(_Closing):
    """The simulated table camera; its clock is the frame count over its frame rate."""

    def __init__(self, camera: SimCamera, *, frames: int | None = None) -> None:
        self.name = f"sim:{camera.seed}"
        self.camera = camera
        self.remaining = frames

    def read(self) -> Frame | None:
        if self.remaining is not None:
            if self.remaining <= 0:
                return None
            self.remaining -= 1
        return self.camera.read()

    def calibration(self) -> TableCalibration | None:
        return self.camera.calibration()

    def close(self) -> None:
        self.remaining = 0


def open_source(spec: str, *, frames: int | None = None) -> FrameSource:
    """`"sim"` or `"sim:SEED"`: the simulator; digits: a camera device; otherwise a file path or URL."""
    spec = spec.strip()
    if not spec:
        raise VisionInputError("empty source")
    if spec == "sim" or spec.startswith("sim:"):
        from hardware_sim.camera import SimCamera

        seed_text = spec[4:] or "0"
        if not seed_text.isdigit():
            raise VisionInputError(f"bad simulator seed in {spec!r}")
        return SimSource(SimCamera(seed=int(seed_text)), frames=frames)
    if spec.isdigit():
        return CaptureSource(int(spec))
    if "://" not in spec and not Path(spec).exists():
        raise VisionInputError(f"{spec}: no such file (and not a device index, URL or 'sim')")
    return CaptureSource(spec)
