"""The simulated table camera: deterministic frames, truth that matches the scene, a camera-like device."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware_sim.camera import (
    PlacedCard,
    RenderOptions,
    SimCamera,
    TableScene,
    load_face_set,
    open_source,
    random_scene,
    render_with_truth,
)
from hardware_sim.camera.art import ART_H, ART_W, PAPER
from vision.cards import ALL_CARDS

SMALL = RenderOptions(width=640, height=360)


def test_same_seed_same_frame_and_seeds_differ() -> None:
    scene = random_scene(3, cards=6, hands=1)
    a = render_with_truth(scene, 3, SMALL).image
    b = render_with_truth(scene, 3, SMALL).image
    c = render_with_truth(scene, 4, SMALL).image
    assert a.shape == (360, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_truth_follows_the_scene() -> None:
    scene = TableScene(cards=(PlacedCard(card="As", x=300, y=200), PlacedCard(card="Kd", x=330, y=210, face_up=False)))
    frame = render_with_truth(scene, 1, SMALL)
    first, second = frame.truth
    assert (first.card, first.face_up, second.card, second.face_up) == ("As", True, "Kd", False)
    assert second.visible == pytest.approx(1.0, abs=0.01)
    assert 0.2 < first.visible < 0.9  # the later card lies over part of it
    # The calibration maps the card's centre back to where the scene put it.
    cx, cy = np.mean(np.array(second.corners), axis=0)
    assert frame.calibration.to_table(float(cx), float(cy)) == pytest.approx((330, 210), abs=1.0)


def test_scene_rejects_a_card_twice_and_bad_codes() -> None:
    with pytest.raises(ValueError):
        TableScene(cards=(PlacedCard(card="As", x=1, y=1), PlacedCard(card="As", x=5, y=5)))
    with pytest.raises(ValueError):
        PlacedCard(card="1s", x=0, y=0)


def test_device_advances_by_process_and_serves_faults() -> None:
    cam = SimCamera(seed=2, fps=5.0, options=SMALL)
    t0, _ = cam.read()
    t1, _ = cam.read()
    assert t0 == 0.0
    assert t1 == pytest.approx(0.2)
    cam.process(3.0)
    assert cam.scene_at(cam.clock).cards  # dealt by then
    cam.set_fault("black")
    assert cam.read()[1].max() == 0
    cam.set_fault("none")
    assert cam.read()[1].max() > 0


def test_writes_a_video_that_opens_as_a_source(tmp_path: Path) -> None:
    cam = SimCamera(seed=1, options=SMALL)
    path = cam.write_video(tmp_path / "table.avi", 4)
    cap = cv2.VideoCapture(str(path))
    assert cap.isOpened() and int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == 4
    cap.release()
    with open_source(str(path)) as src:
        got = [src.read() for _ in range(5)]
    assert [g is None for g in got] == [False] * 4 + [True]


def test_fanned_scene_overlaps_cards_and_truth_names_their_uncovered_indices() -> None:
    from hardware_sim.camera import fanned_scene

    scene = fanned_scene(5, seats=3, pile=4)
    assert fanned_scene(5, seats=3, pile=4) == scene
    frame = render_with_truth(scene, 5)
    covered = [t for t in frame.truth if t.visible < 0.9]
    assert len(covered) >= len(frame.truth) // 3  # a fan and a pile: cards lie over one another
    for t in frame.truth:
        assert t.index_visible == bool(t.indices) and len(t.indices) <= 2
        quad = np.array(t.corners, np.float32).reshape(-1, 1, 2)
        for x, y in t.indices:  # each uncovered index lies on its own card, near a corner
            assert cv2.pointPolygonTest(quad, (x, y), True) > 0
            assert min(np.hypot(*(np.array(t.corners) - (x, y)).T)) < 0.5 * np.hypot(*np.ptp(np.array(t.corners), 0))
    top = frame.truth[-1]  # the pile's last card lies on top: both its indices show
    assert len(top.indices) == 2
    # a card whose whole area shows has both indices uncovered
    assert all(len(t.indices) == 2 for t in frame.truth if t.visible > 0.99)


def test_a_face_set_is_printed_edge_to_edge(tmp_path: Path) -> None:
    """Each image of a face set is the whole card: its own border lands on the card's edge, and its transparent
    rounded corners become the card's paper."""
    art = np.zeros((140, 100, 4), np.uint8)
    art[:, :] = (250, 250, 250, 255)
    art[:, :4] = art[:, -4:] = art[:4, :] = art[-4:, :] = (20, 20, 20, 255)  # the design's border line
    art[:2, :2] = 0  # a transparent corner
    for card in ALL_CARDS:
        cv2.imwrite(str(tmp_path / f"{card}.png"), art)
    face = load_face_set(tmp_path).face("Qh")
    assert face.shape == (ART_H, ART_W, 3)
    for y, x in ((ART_H // 2, 0), (ART_H // 2, ART_W - 1), (0, ART_W // 2), (ART_H - 1, ART_W // 2)):
        assert face[y, x].max() < 60, (y, x)  # the border at the card's edge, not inside a margin
    assert tuple(face[0, 0]) == PAPER
