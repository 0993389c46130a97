"""Tracking cards over frames, per zone, by votes: frames of detections in, table events out (docs/vision.md,
"Tracking"); and watching a source, frame by frame, with an annotated view (`annotated_frames`).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import TableCalibration, Zone
from vision.cards import is_card
from vision.pipeline import Detection, Recognizer
from vision.rectify import Image
from vision.sources import Frame, FrameSource


@dataclass(frozen=True, kw_only=True)
class _CardEvent:
    zone: str
    seat: int | None
    card: str
    t: float

    def __post_init__(self) -> None:
        if not is_card(self.card):
            raise ValueError(f"not a card code: {self.card!r}")


@dataclass(frozen=True, kw_only=True)
class CardExposed(_CardEvent):
    """A card came to be present face up in a zone."""


@dataclass(frozen=True, kw_only=True)
class CardRemoved(_CardEvent):
    """A card present in a zone is no longer seen there."""


@dataclass(frozen=True, kw_only=True)
class CardsShown:
    zone: str
    seat: int
    cards: tuple[str, ...]
    t: float

    def __post_init__(self) -> None:
        if not self.cards or not all(is_card(c) for c in self.cards):
            raise ValueError("cards shown must be card codes")


VisionEvent = CardExposed | CardRemoved | CardsShown
HAND = 5  # a seat showing this many cards present has shown its Draw Poker hand


class _ZoneState:
    def __init__(self, zone: Zone, window: int) -> None:
        self.zone = zone
        self.history: deque[frozenset[str]] = deque(maxlen=window)
        self.present: set[str] = set()
        self.last_shown: frozenset[str] = frozenset()


class SeatTracker:
    """Per-zone card presence decided by votes over the last frames."""

    def __init__(self, calibration: TableCalibration, *, window: int = 5, votes: int = 3) -> None:
        if not 1 <= votes <= window:
            raise ValueError("need 1 <= votes <= window")
        self.calibration = calibration
        self.window = window
        self.votes = votes
        self._zones = {z.name: _ZoneState(z, window) for z in calibration.zones}

    def update(self, detections: Iterable[Detection], t: float) -> list[VisionEvent]:
        """Feed one frame's detections taken at time `t`; returns the events it decides."""
        seen: dict[str, set[str]] = {name: set() for name in self._zones}
        for d in detections:
            if d.card is None or d.face != "up":
                continue
            zone = self.calibration.zone_at(*d.center)
            if zone is not None:
                seen[zone.name].add(d.card)
        events: list[VisionEvent] = []
        for name, state in self._zones.items():
            state.history.append(frozenset(seen[name]))
            counts = Counter(card for frame in state.history for card in frame)
            seat = state.zone.seat
            for card in sorted(state.present):
                if len(state.history) == self.window and counts[card] == 0:
                    state.present.discard(card)
                    events.append(CardRemoved(zone=name, seat=seat, card=card, t=t))
            for card in sorted(counts):
                if card not in state.present and counts[card] >= self.votes:
                    state.present.add(card)
                    events.append(CardExposed(zone=name, seat=seat, card=card, t=t))
            if seat is not None:
                shown = frozenset(state.present) if len(state.present) >= HAND else frozenset()
                if shown and shown != state.last_shown:
                    events.append(CardsShown(zone=name, seat=seat, cards=tuple(sorted(shown)), t=t))
                state.last_shown = shown
        return events


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
