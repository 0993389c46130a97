"""The simulated camera as a vision frame source, and `open_source`, which opens any source by its spec.

`vision.sources` opens real sources (devices, files, URLs); the simulator depends on vision, never the other
way round, so the spec "sim" / "sim:SEED" is resolved here.
"""

from __future__ import annotations

from hardware_sim.camera.device import SimCamera
from vision.calibration import TableCalibration
from vision.errors import VisionInputError
from vision.sources import Frame, FrameSource, open_capture


class SimSource(FrameSource):
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
    """`"sim"` or `"sim:SEED"`: the simulator; anything else as `vision.sources.open_capture` opens it."""
    spec = spec.strip()
    if spec == "sim" or spec.startswith("sim:"):
        seed_text = spec[4:] or "0"
        if not seed_text.isdigit():
            raise VisionInputError(f"bad simulator seed in {spec!r}")
        return SimSource(SimCamera(seed=int(seed_text)), frames=frames)
    return open_capture(spec)
