"""Detection benchmark on the real photographs: are the cards found at all (whatever is read on them)?

A labelled card counts as found when exactly one detected outline has its centre inside the card's
labelled box and that outline's bounding rectangle overlaps the box by IoU >= 0.5. An outline that
matches no card (IoU under 0.3 with every box and its centre in none) is a false detection; one whose
bounding rectangle holds two or more labelled boxes is a merge. The tuning three quarters and the
held-out quarter (`bench.vision.held_out`) are reported apart; only the tuning split may be tuned on.
Run: `python -m bench.vision_detect [--split tuning|held-out|both]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench._report import OURS, BenchRow, to_markdown
from bench.vision import DATASETS, Box, _labelled, held_out, iou
from vision.detect import find_cards
from vision.images import load_image

AREA = "vision detection"


@dataclass
class DetectionScore:
    cards: int = 0
    found: int = 0
    false: int = 0
    merged: int = 0
    photos: int = 0

    @property
    def recall(self) -> float:
        return 100.0 * self.found / max(1, self.cards)


def _inside(point: Sequence[float], box: Box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def score_photo(quads: Sequence[np.ndarray], boxes: Sequence[Box], score: DetectionScore) -> None:
    """Add one photo's outlines against its labelled boxes to `score`."""
    centres = [(float(q[:, 0].mean()), float(q[:, 1].mean())) for q in quads]
    rects: list[Box] = [(float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))
                        for q in quads]
    for box in boxes:
        score.cards += 1
        inside = [i for i, c in enumerate(centres) if _inside(c, box)]
        score.found += len(inside) == 1 and iou(rects[inside[0]], box) >= 0.5
    for centre, rect in zip(centres, rects, strict=True):
        held = [b for b in boxes if b[0] >= rect[0] - 5 and b[1] >= rect[1] - 5 and b[2] <= rect[2] + 5
                and b[3] <= rect[3] + 5]
        if len(held) >= 2:
            score.merged += 1
        elif not any(iou(rect, b) >= 0.3 or _inside(centre, b) for b in boxes):
            score.false += 1
    score.photos += 1


def detection_score(folder: Path, *, holdout: bool, cpu_ms: list[float] | None = None) -> DetectionScore:
    score = DetectionScore()
    for name, rows in sorted(_labelled(folder).items()):
        if held_out(name) != holdout:
            continue
        image = load_image(folder / name)
        start = time.process_time()
        quads = find_cards(image)
        if cpu_ms is not None:
            cpu_ms.append((time.process_time() - start) * 1000.0)
        score_photo(quads, [(x0, y0, x1, y1) for _, x0, y0, x1, y1 in rows], score)
    return score


def run(splits: Sequence[str] = ("tuning", "held-out")) -> list[BenchRow]:
    folder = DATASETS / "real-photos-dev"
    if not folder.is_dir():
        return [BenchRow(area=AREA, metric="real photos", system=OURS, value=float("nan"), unit="",
                         note=f"skipped: {folder} absent")]
    rows: list[BenchRow] = []
    for split in splits:
        cpu: list[float] = []
        s = detection_score(folder, holdout=split == "held-out", cpu_ms=cpu)
        label = f"real photos, {split} ({s.photos} photos, {s.cards} cards)"
        rows.append(BenchRow(area=AREA, metric=f"{label}: found", system=OURS, value=s.recall, unit="%",
                             note=f"{s.found}/{s.cards}"))
        rows.append(BenchRow(area=AREA, metric=f"{label}: false outlines", system=OURS, value=float(s.false),
                             unit="outlines"))
        rows.append(BenchRow(area=AREA, metric=f"{label}: merged outlines", system=OURS, value=float(s.merged),
                             unit="outlines"))
        rows.append(BenchRow(area=AREA, metric=f"{label}: find_cards CPU p50 / p95", system=OURS,
                             value=float(np.percentile(cpu, 50)), unit="ms",
                             note=f"p95 {np.percentile(cpu, 95):.1f} ms"))
    return rows


def main(argv: list[str] | None = None, out: Callable[[str], object] = print) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vision_detect")
    parser.add_argument("--split", choices=("tuning", "held-out", "both"), default="tuning")
    args = parser.parse_args(argv)
    splits = ("tuning", "held-out") if args.split == "both" else (args.split,)
    out(to_markdown(run(splits)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
