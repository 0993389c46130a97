"""Shared helpers for the vision tests: rendered scenes matched against their ground truth."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hardware_sim.camera import RenderedFrame, RenderOptions, random_scene, render_with_truth
from vision.pipeline import Detection, Recognizer

DATASETS = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets"


@dataclass
class Tally:
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    missed: int = 0
    backs_named: int = 0
    backs_up: int = 0

    @property
    def faces(self) -> int:
        return self.right + self.wrong + self.unknown


def match(frame: RenderedFrame, detections: list[Detection], tally: Tally, *, min_visible: float = 0.999) -> None:
    """Score detections against the truth: each true card takes the detection nearest its centre."""
    for truth in frame.truth:
        center = np.mean(np.array(truth.corners), axis=0)
        best = min(detections, key=lambda d: float(np.hypot(*(np.array(d.center) - center))), default=None)
        if best is None or float(np.hypot(*(np.array(best.center) - center))) > 20:
            if truth.visible >= min_visible:
                tally.missed += 1
            continue
        if not truth.face_up:
            tally.backs_named += best.card is not None
            tally.backs_up += best.face == "up"
            continue
        if truth.visible < min_visible:
            continue
        if best.card == truth.card:
            tally.right += 1
        elif best.card is None:
            tally.unknown += 1
        else:
            tally.wrong += 1


def tally_scenes(recognizer: Recognizer, seeds: range, options: RenderOptions, *, face_down: float,
                 backs_only: bool = False, **scene: Any) -> Tally:
    """Render `random_scene(seed, cards=8, face_down=..., **scene)` for each seed, identify and match it.
    `backs_only`: also assert, frame by frame, that no detection is named (the seed is in the message)."""
    tally = Tally()
    for seed in seeds:
        frame = render_with_truth(random_scene(seed, cards=8, face_down=face_down, **scene), seed, options)
        detections = recognizer.identify(frame.image)
        if backs_only:
            assert all(d.rank is None for d in detections), seed
        match(frame, detections, tally)
    return tally
