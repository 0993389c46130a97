"""The table camera beside the controller: frames in, cross-checks out, and the camera view's picture.

:class:`TableCamera` reads a frame, has the vision ``Recognizer`` find and read the cards, feeds the
detections to a ``SeatTracker`` (votes over frames, per seat zone) and reports each card it sees face up
in a seat's zone to :meth:`TableController.camera_reading`, which checks it against what the shoe dealt
there (a mismatch halts the hand with a security alert; a card of that seat seen face up outside the
showdown is an exposed card). Each frame carries the table's :class:`Moment` when it was taken (hand,
phase, each seat's cards): the controller judges the reading against that moment, so a frame taken before
a new hand, reported after the shuffle and the deal let it through, never counts against the new hand.
The votes start afresh with each hand for the same reason. It keeps the last frame with the detections
drawn, for the camera view.
The slow work (render, recognise, encode) runs in a worker thread so the table never waits for it.

The source is any ``vision`` frame source (``--camera 0``, a file, a stream URL) with its calibration, or
:class:`SimTableSource`: the simulated camera filming the live table (the cards the shoe dealt, face down
until shown), with a control to lay a foreign card in front of a seat. What the camera needs of a source is
:class:`CameraSource`; a source that films a scene taken from the table on the event loop also has the
capability :class:`FilmsAScene`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.controller.table import TableController
from vision.calibration import TableCalibration
from vision.pipeline import Detection, Recognizer
from vision.tracking import CardExposed, CardsShown, SeatTracker

__all__ = ["CameraSource", "FilmsAScene", "SeatCards", "SimTableSource", "TableCamera", "felt_scene"]

Image = npt.NDArray[np.uint8]
Frame = tuple[float, Image]
JPEG_QUALITY = 80


class CameraSource(Protocol):
    """What the table camera films from: its name, and the next frame (None: no frame, the camera is lost)."""

    name: str

    def read(self) -> Frame | None: ...


@runtime_checkable
class FilmsAScene(Protocol):
    """A source that takes the scene from the table on the event loop (``grab``, where the table's state is
    consistent) and films it in the worker thread (``read(scene)``)."""

    def grab(self) -> Any: ...

    def read(self, scene: Any | None = None) -> Frame | None: ...


@dataclass(frozen=True, kw_only=True)
class SeatCards:
    """What lies in front of one seat: its cards, those of them face up, and whether they are spread."""

    cards: tuple[str, ...]
    face_up: frozenset[str] = frozenset()
    spread: bool = False  # laid out card by card (a shown hand); else a tight pile


def felt_scene(seats: Mapping[int, SeatCards], extra: Mapping[int, str] | None = None) -> Any:
    """The simulated felt: each seat's cards at the left of its zone, a tight pile or spread card by card, and a
    foreign card (``extra``) laid apart at the right of the zone unless a seat before it holds it (a card is on
    the felt once)."""
    from hardware_sim.camera import PlacedCard, TableLayout, TableScene

    layout = TableLayout()
    placed: list[Any] = []
    used: set[str] = set()
    for seat in range(1, 7):
        zone = layout.seat_zone(seat)
        xs = [p[0] for p in zone.polygon]
        ys = [p[1] for p in zone.polygon]
        x0, cy = min(xs), (min(ys) + max(ys)) / 2
        held = seats.get(seat, SeatCards(cards=()))
        step = 46.0 if held.spread else 20.0
        for i, code in enumerate(held.cards):
            placed.append(PlacedCard(card=code, x=x0 + 36 + i * step, y=cy, angle=0.0, face_up=code in held.face_up))
        used.update(held.cards)
        foreign = (extra or {}).get(seat)
        if foreign is not None and foreign not in used:
            placed.append(PlacedCard(card=foreign, x=x0 + 210, y=cy, angle=0.0, face_up=True))
            used.add(foreign)
    return TableScene(cards=tuple(placed), layout=layout)


class SimTableSource:
    """The simulated camera over the live table: each frame is rendered from the controller's hand, at 1280 x 720
    by default, the frame the recognizer is measured at (at 960 x 540 a card's index is about 7 pixels tall, and
    a misread there halts the hand as a camera and shoe mismatch)."""

    def __init__(self, table: TableController, *, seed: int = 0, width: int = 1280, height: int = 720,
                 truth: Callable[[], list[str]] | None = None) -> None:
        """``truth``: the faces the simulated shoe dealt, in order: the felt holds the real cards even where the
        table does not know them (a shoe without a reader, a draw entered as a count)."""
        from hardware_sim.camera import RenderOptions, TableScene, calibration_for

        self.table = table
        self.truth = truth
        self.seed = seed
        self.name = f"simulated table camera (seed {seed})"
        self.options = RenderOptions(width=width, height=height, glare=0.0)
        self._calibration = calibration_for(TableScene(), seed, self.options)
        self.extra: dict[int, str] = {}
        self.frames = 0
        self._t0 = time.monotonic()
        self.lost = False

    def calibration(self) -> TableCalibration:
        return self._calibration

    def scene(self) -> Any:
        """The cards on the felt now (`felt_scene`): a shown hand spread face up, and so the hand of the player
        whose turn it is to show; any foreign card laid in front of a seat."""
        hand = self.table.hand or self.table.finished
        infos = hand.seat_info() if hand is not None else {}
        showing = hand.to_act() if hand is not None and hand.phase() == "showdown" else None
        faces = self.truth() if self.truth is not None and hand is not None else None
        seats: dict[int, SeatCards] = {}
        for seat, info in infos.items():
            if info.status == "folded":
                continue
            hole = list(info.hole)
            if "??" in hole and faces is not None and hand is not None:
                hole = [faces[p] if p < len(faces) else "??" for p in hand.positions(seat)]
            cards = tuple(c for c in hole if c != "??")
            laid_open = seat == showing
            seats[seat] = SeatCards(cards=cards, face_up=frozenset(cards if laid_open else info.shown),
                                    spread=laid_open or bool(info.shown))
        return felt_scene(seats, self.extra)

    def grab(self) -> Any:
        """The scene now (called on the event loop, where the table's state is consistent); ``read`` films it."""
        return self.scene()

    def read(self, scene: Any | None = None) -> Frame | None:
        from hardware_sim.camera import render

        if self.lost:
            return None
        image = render(scene if scene is not None else self.scene(), self.seed, self.options, frame_index=self.frames)
        self.frames += 1
        return time.monotonic() - self._t0, image

    def close(self) -> None:
        self.lost = True


class TableCamera:
    def __init__(self, source: CameraSource, *, calibration: TableCalibration, recognizer: Recognizer | None = None,
                 period_s: float = 1.0, label: str | None = None) -> None:
        self.source = source
        self.calibration = calibration
        self.recognizer = recognizer or Recognizer(card_size=calibration.card_size_px())
        self.tracker = SeatTracker(calibration, window=4, votes=2)
        self.period_s = period_s
        self.label: str = label or source.name
        self._jpeg: bytes | None = None
        self._detections: list[dict[str, Any]] = []
        self.frames = 0
        self.state = "starting"
        self._shown: dict[int, tuple[int, tuple[str, ...]]] = {}  # seat -> (hand number, cards read face up)
        self._hand: int | None = None  # the hand of the last frame: the votes start afresh with each hand

    # What the controller and the API read ------------------------------------------------------------------

    def status(self) -> tuple[str, str]:
        if self.state == "live":
            seen = sum(1 for d in self._detections if d["code"] != "face down")
            # The detector finds card outlines: a hand lying face down, its cards overlapping, is one outline.
            return "live", (f"{self.label}: {self.frames} frames; {len(self._detections)} card outlines in view "
                            f"(a face-down hand is one), {seen} cards read face up")
        return self.state, self.label

    def frame_jpeg(self) -> bytes | None:
        return self._jpeg

    def detections(self) -> list[dict[str, Any]]:
        return list(self._detections)

    def shown_cards(self, seat: int, hand: int) -> tuple[str, ...] | None:
        """The hand the camera read face up in front of ``seat`` during hand number ``hand``, if it did."""
        got = self._shown.get(seat)
        return got[1] if got is not None and got[0] == hand else None

    def recheck(self) -> None:
        """After the dealer's Retry: a frame still missing counts as a new loss."""
        if self.state == "lost":
            self.state = "starting"

    # The loop ----------------------------------------------------------------------------------------------

    def _zone(self, d: Detection) -> str:
        zone = self.calibration.zone_at(*d.center)
        return zone.name if zone is not None else ""

    def _annotate(self, image: Image, dets: list[Detection]) -> bytes:
        img = image.copy()
        for zone in self.calibration.zones:
            pts = np.array([self.calibration.to_image(x, y) for x, y in zone.polygon], np.int32)
            cv2.polylines(img, [pts], True, (200, 200, 200), 1, cv2.LINE_AA)
            x, y = pts.min(axis=0)
            cv2.putText(img, zone.name, (int(x) + 4, int(y) + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (230, 230, 230), 1,
                        cv2.LINE_AA)
        for d in dets:
            quad = np.array(d.corners, np.int32)
            colour = (60, 220, 60) if d.card else (0, 200, 255) if d.face == "up" else (160, 160, 160)
            cv2.polylines(img, [quad], True, colour, 3, cv2.LINE_AA)
            text = d.card or ("?" if d.face == "up" else "down")
            cx, cy = d.center
            cv2.putText(img, text, (int(cx) - 18, int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(img, text, (int(cx) - 18, int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.9, colour, 2, cv2.LINE_AA)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        return bytes(buf.tobytes()) if ok else b""

    def _work(self, read: Callable[[], Frame | None]) -> tuple[float, list[Detection], bytes] | None:
        frame = read()
        if frame is None:
            return None
        t, image = frame
        dets = self.recognizer.identify(image)
        return t, dets, self._annotate(image, dets)

    async def step(self, table: TableController) -> bool:
        """One frame: read, recognise, track, report. False when the source has no frame (camera lost)."""
        seen = table.moment()
        source = self.source
        read = partial(source.read, source.grab()) if isinstance(source, FilmsAScene) else source.read
        got = await asyncio.to_thread(self._work, read)
        if got is None:
            if self.state != "lost":
                self.state = "lost"
                await table.camera_lost(f"{self.label}: no frame")
            table.notify()
            return False
        t, dets, jpeg = got
        was = self.state
        self.state = "live"
        self.frames += 1
        self._jpeg = jpeg
        self._detections = [{"code": d.card or ("face down" if d.face == "down" else "unread"), "face": d.face,
                             "confidence": round(d.confidence, 3), "zone": self._zone(d)} for d in dets]
        if seen.hand != self._hand:
            self._hand = seen.hand
            self.tracker = SeatTracker(self.calibration, window=self.tracker.window, votes=self.tracker.votes)
        for event in self.tracker.update(dets, t):
            if isinstance(event, CardExposed) and event.seat is not None:
                await table.camera_reading(event.seat, event.card, seen=seen)
            elif isinstance(event, CardsShown):
                self._shown[event.seat] = (seen.hand, event.cards)
        if was != "live":
            table.notify()
        return True

    async def run(self, table: TableController) -> None:
        while True:
            started = time.monotonic()
            with contextlib.suppress(Exception):
                await self.step(table)
            await asyncio.sleep(max(0.05, self.period_s - (time.monotonic() - started)))
