"""Tracking: votes over frames turn detections into exposed / shown / removed events with bounded delay."""

from __future__ import annotations

import pytest

from vision.calibration import TableCalibration, Zone
from vision.pipeline import Detection
from vision.tracking import CardExposed, CardRemoved, CardsShown, SeatTracker, VisionEvent

ZONES = (
    Zone(name="seat 1", kind="seat", seat=1, polygon=((0, 0), (500, 0), (500, 100), (0, 100))),
    Zone(name="seat 2", kind="seat", seat=2, polygon=((0, 200), (500, 200), (500, 300), (0, 300))),
    Zone(name="pot", kind="pot", polygon=((0, 120), (500, 120), (500, 180), (0, 180))),
)
IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def card_at(card: str | None, x: float, y: float, face: str = "up") -> Detection:
    return Detection(card=card, face=face, confidence=0.9 if card else 0.0,  # type: ignore[arg-type]
                     corners=((x - 10, y - 14), (x + 10, y - 14), (x + 10, y + 14), (x - 10, y + 14)))


def run(tracker: SeatTracker, frames: list[list[Detection]]) -> list[tuple[int, VisionEvent]]:
    out: list[tuple[int, VisionEvent]] = []
    for i, dets in enumerate(frames):
        out.extend((i, e) for e in tracker.update(dets, t=i * 0.1))
    return out


def tracker(**kw: int) -> SeatTracker:
    return SeatTracker(TableCalibration(image_size=(500, 300), homography=IDENTITY, zones=ZONES), **kw)


def test_card_exposed_after_votes_and_removed_after_window() -> None:
    frames: list[list[Detection]] = [[]] * 2 + [[card_at("As", 50, 50)]] * 6 + [[]] * 6
    events = run(tracker(window=5, votes=3), frames)
    assert events == [(4, CardExposed(zone="seat 1", seat=1, card="As", t=4 * 0.1)),
                      (12, CardRemoved(zone="seat 1", seat=1, card="As", t=12 * 0.1))]


def test_single_misreads_and_dropouts_change_nothing() -> None:
    seen = [card_at("Kd", 100, 50)]
    misread = [card_at("Kh", 100, 50)]
    frames = [seen, seen, seen, [], seen, misread, seen, [], seen, seen]
    events = run(tracker(window=5, votes=3), frames)
    assert [type(e).__name__ for _, e in events] == ["CardExposed"]
    assert events[0][1] == CardExposed(zone="seat 1", seat=1, card="Kd", t=2 * 0.1)


def test_unknown_and_face_down_cards_never_vote() -> None:
    frames = [[card_at(None, 50, 50), card_at(None, 90, 50, face="down")]] * 10
    assert run(tracker(), frames) == []


def test_cards_shown_when_a_seat_shows_its_hand() -> None:
    hand = [card_at(c, 40 + 60 * i, 250) for i, c in enumerate(["2c", "3c", "4c", "5c", "6c"])]
    events = run(tracker(window=3, votes=2), [hand] * 4)
    shown = [e for _, e in events if isinstance(e, CardsShown)]
    assert shown == [CardsShown(zone="seat 2", seat=2, cards=("2c", "3c", "4c", "5c", "6c"), t=1 * 0.1)]
    assert sum(isinstance(e, CardExposed) for _, e in events) == 5


def test_cards_outside_zones_and_in_pot() -> None:
    events = run(tracker(window=3, votes=2), [[card_at("Ts", 250, 150), card_at("9s", 250, 190)]] * 3)
    assert [(e.zone, e.card) for _, e in events if isinstance(e, CardExposed)] == [("pot", "Ts")]


def test_delay_is_bounded_by_the_window() -> None:
    # Read in only every other frame: still announced within `window` frames of landing.
    seen = [card_at("Qc", 60, 60)]
    frames = [seen if i % 2 == 0 else [] for i in range(10)]
    events = run(tracker(window=5, votes=3), frames)
    assert events and events[0][0] <= 4


def test_bad_vote_settings() -> None:
    with pytest.raises(ValueError):
        tracker(window=3, votes=4)


def test_events_from_the_simulated_camera_end_to_end() -> None:
    from hardware_sim.camera import RenderOptions, ScriptStep, SimCamera, SimSource, TableScene
    from vision.tracking import annotated_frames

    shown = TableScene.dealt({2: [("Ah", True), ("7c", True)]}, spread=80.0, tilt=0.0)
    script = [ScriptStep(at=0.0, scene=TableScene()), ScriptStep(at=0.3, scene=shown),
              ScriptStep(at=1.2, scene=TableScene())]
    camera = SimCamera(script, seed=5, fps=10.0, options=RenderOptions(glare=0.0), loop=False)
    events = [(round(wf.t, 1), e) for wf in annotated_frames(SimSource(camera, frames=20), window=4, votes=2)
              for e in wf.events]
    exposed = {e.card: t for t, e in events if isinstance(e, CardExposed)}
    removed = {e.card: t for t, e in events if isinstance(e, CardRemoved)}
    assert set(exposed) == {"Ah", "7c"}
    assert all(e.seat == 2 for _, e in events)
    # Bounded delay: announced within `window` frames of landing (0.3 s) and of leaving (1.2 s).
    assert all(0.3 <= t <= 0.3 + 0.4 for t in exposed.values()), exposed
    assert set(removed) == {"Ah", "7c"} and all(1.2 <= t <= 1.2 + 0.4 for t in removed.values()), removed


@pytest.mark.parametrize("kw", [{"votes": 0}, {"votes": 6, "window": 5}])
def test_tracker_refuses_settings_that_decide_nothing(kw: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        tracker(**kw)
