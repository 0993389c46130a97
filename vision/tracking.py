"""Tracking cards over frames, per zone, by votes: frames of detections in, table events out.

Each frame, every named face-up detection votes for its card in the zone its centre falls in
(`TableCalibration.zone_at`); votes over the last `window` frames decide presence, so a missed or misread
frame changes nothing (docs/vision.md, "Tracking"). Unknown and face-down cards never vote.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass

from vision.calibration import TableCalibration, Zone
from vision.cards import is_card
from vision.pipeline import Detection


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
