"""Watching a source: recognition and tracking frame by frame, with an annotated view (`annotated_frames`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import TableCalibration
from vision.pipeline import Detection, Recognizer
from vision.rectify import Image
from vision.sources import Frame, FrameSource
from vision.tracking import SeatTracker, VisionEvent


@dataclass(frozen=True, kw_only=True)
class WatchFrame:
    t: float
    view: Image  # the frame with detections (and zones, when calibrated) drawn
    detections: tuple[Detection, ...]
    events: tuple[VisionEvent, ...]


def annotate(frame: Image, detections: list[Detection] | tuple[Detection, ...],
             calibration: TableCalibration | None = None) -> Image:
    """A copy of `frame` with each card's outline and name drawn (green: named, orange: unknown, grey: down)."""
    view = frame.copy()
    if calibration is not None:
        for zone in calibration.zones:
            pts = np.array([calibration.to_image(x, y) for x, y in zone.polygon], np.float32)
            cv2.polylines(view, [pts.round().astype(np.int32)], True, (200, 200, 0), 1, cv2.LINE_AA)
            x, y = pts.min(axis=0)
            cv2.putText(view, zone.name, (int(x) + 4, int(y) + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (200, 200, 0), 1)
    for d in detections:
        pts = np.array(d.corners, np.float32).round().astype(np.int32)
        if d.face == "down":
            color, label = (150, 150, 150), "down"
        elif d.card is None:
            color, label = (0, 140, 255), f"? {d.confidence:.2f}"
        else:
            color, label = (0, 220, 0), f"{d.card} {d.confidence:.2f}"
        cv2.polylines(view, [pts], True, color, 2, cv2.LINE_AA)
        x, y = pts[0]
        cv2.putText(view, label, (int(x), max(12, int(y) - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, color, 2, cv2.LINE_AA)
    return view


def annotated_frames(source: FrameSource, recognizer: Recognizer | None = None,
                     calibration: TableCalibration | None = None, *, window: int = 5,
                     votes: int = 3) -> Iterator[WatchFrame]:
    """Recognise and track every frame of `source` until it ends."""
    cal = calibration or source.calibration()
    rec = recognizer or Recognizer(card_size=cal.card_size_px() if cal is not None else None)
    if rec.card_size is None and cal is not None:
        rec = Recognizer(rec.profile, card_size=cal.card_size_px(), workers=rec.workers)

    def seen(got: Frame) -> tuple[float, Image, list[Detection]]:
        return got[0], got[1], rec.identify(got[1])

    try:
        tracker = SeatTracker(cal, window=window, votes=votes) if cal is not None else None
        for t, frame, detections in rec.in_order(seen, iter(source.read, None)):
            events = tracker.update(detections, t) if tracker is not None else []
            yield WatchFrame(t=t, view=annotate(frame, detections, cal), detections=tuple(detections),
                             events=tuple(events))
    finally:
        if rec is not recognizer:
            rec.close()  # its own worker threads, if any; the caller closes the recognizer it gave
