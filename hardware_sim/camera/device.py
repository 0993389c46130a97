"""The simulated table camera as a device: a script of table scenes over time, advanced by
`process(dt)`, serving frames like a camera; a control interface injects faults."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from hardware_sim.camera.render import RenderOptions, calibration_for, render
from hardware_sim.camera.scene import TableScene
from vision.calibration import TableCalibration

Image = npt.NDArray[np.uint8]
Fault = Literal["none", "black", "frozen", "garbage"]


@dataclass(frozen=True, kw_only=True)
class ScriptStep:
    at: float  # seconds from the start
    scene: TableScene


def demo_script() -> list[ScriptStep]:
    """A short Draw Poker hand as the camera sees it: deal face down, an exposed card, a showdown, clear."""
    down = {1: [(c, False) for c in ("2c", "7d", "9h", "Jc", "Kd")],
            3: [(c, False) for c in ("As", "Ah", "4c", "4d", "Qs")],
            5: [(c, False) for c in ("3s", "5h", "6c", "8d", "Ts")]}
    exposed = {**down, 5: [*down[5][:4], ("Ts", True)]}
    shown = {1: down[1], 3: [(c, True) for c, _ in down[3]], 5: exposed[5]}
    return [
        ScriptStep(at=0.0, scene=TableScene()),
        ScriptStep(at=1.0, scene=TableScene.dealt(down)),
        ScriptStep(at=3.0, scene=TableScene.dealt(exposed)),
        ScriptStep(at=5.0, scene=TableScene.dealt(shown, hands=1)),
        ScriptStep(at=5.5, scene=TableScene.dealt(shown)),
        ScriptStep(at=8.0, scene=TableScene()),
    ]


class SimCamera:
    """Frames of a scripted table at `fps`; time only moves when `process(dt)` is called."""

    def __init__(self, script: Sequence[ScriptStep] | None = None, *, seed: int = 0, fps: float = 10.0,
                 options: RenderOptions | None = None, loop: bool = True) -> None:
        steps = list(script) if script is not None else demo_script()
        if not steps:
            raise ValueError("a camera script needs at least one scene")
        self.script = sorted(steps, key=lambda s: s.at)
        self.seed = seed
        self.fps = fps
        self.options = options or RenderOptions()
        self.loop = loop
        self.clock = 0.0
        self.frame_index = 0
        self.fault: Fault = "none"
        self._last: Image | None = None

    @property
    def duration(self) -> float:
        return self.script[-1].at + 2.0

    def process(self, dt: float) -> None:
        if dt < 0:
            raise ValueError("time does not run backwards")
        self.clock += dt

    def scene_at(self, t: float) -> TableScene:
        if self.loop and t >= self.duration:
            t = t % self.duration
        current = self.script[0].scene
        for step in self.script:
            if step.at <= t:
                current = step.scene
        return current

    def set_fault(self, fault: Fault) -> None:
        """Control interface: 'black' (lens cap), 'frozen' (same frame again), 'garbage' (noise)."""
        self.fault = fault

    def frame(self) -> Image:
        w, h = self.options.width, self.options.height
        if self.fault == "black":
            img: Image = np.zeros((h, w, 3), np.uint8)
        elif self.fault == "frozen" and self._last is not None:
            img = self._last.copy()
        elif self.fault == "garbage":
            img = np.random.default_rng([self.seed, self.frame_index]).integers(0, 256, (h, w, 3), dtype=np.uint8)
        else:
            img = render(self.scene_at(self.clock), self.seed, self.options, frame_index=self.frame_index)
        self._last = img
        self.frame_index += 1
        return img

    def read(self) -> tuple[float, Image]:
        """The next frame and its timestamp, then the clock moves on by one frame period."""
        t = self.clock
        img = self.frame()
        self.process(1.0 / self.fps)
        return t, img

    def calibration(self) -> TableCalibration:
        return calibration_for(self.script[0].scene, self.seed, self.options)

    def write_video(self, path: str | Path, frames: int) -> Path:
        """Write `frames` frames to a video file (.avi: MJPG, .mp4: mp4v), to one image file (.png, .jpg, .jpeg,
        .bmp: one frame only) or, for a directory, PNG files."""
        out = Path(path)
        w, h = self.options.width, self.options.height
        if out.suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp"):
            if frames != 1:
                raise ValueError(f"an image file holds one frame, not {frames}")
            if not cv2.imwrite(str(out), self.read()[1]):
                raise OSError(f"cannot write the image {out}")
            return out
        if out.suffix.lower() in (".avi", ".mp4", ".mkv"):
            fourcc = cv2.VideoWriter.fourcc(*("mp4v" if out.suffix.lower() == ".mp4" else "MJPG"))
            writer = cv2.VideoWriter(str(out), fourcc, self.fps, (w, h))
            if not writer.isOpened():
                raise OSError(f"cannot write video {out}")
            try:
                for _ in range(frames):
                    writer.write(self.read()[1])
            finally:
                writer.release()
            return out
        out.mkdir(parents=True, exist_ok=True)
        for i in range(frames):
            if not cv2.imwrite(str(out / f"frame_{i:05d}.png"), self.read()[1]):
                raise OSError(f"cannot write frames into {out}")
        return out
