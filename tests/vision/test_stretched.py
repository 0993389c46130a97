"""Photographs stretched out of their camera's shape (a 1280 x 720 frame stored as 640 x 640): the stretch is found
from the index glyph pairs and the frame is read resampled back to the camera's shape."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from hardware_sim.camera import RenderedFrame, fanned_scene, random_scene, render_with_truth
from vision import pipeline
from vision.detect import Corner
from vision.pipeline import Detection, Recognizer
from vision.settings import SETTINGS
from vision.stretch import frame_stretch

SQUARE = (0.5, 640 / 720)  # x and y scale of a 1280 x 720 frame stored as 640 x 640


def _named_right(frame: RenderedFrame, found: list[Detection]) -> tuple[int, int]:
    """Cards named right and wrong at their uncovered indices, the truth scaled as the frame was to a square."""
    right = wrong = 0
    for t in frame.truth:
        points = [(x * SQUARE[0], y * SQUARE[1]) for x, y in t.indices] if t.face_up else []
        on = [d.card for d in found if d.card is not None and any(
            cv2.pointPolygonTest(d.quad.reshape(-1, 1, 2), p, False) >= 0 for p in points)]
        right += t.card in on
        wrong += any(c != t.card for c in on)
    return right, wrong


@pytest.mark.parametrize("seed", [1, 2])
def test_a_fan_stretched_to_a_square_is_read_resampled_back(seed: int) -> None:
    """Stretched to a square, a fan's sheared indices read as no card or a card of like shape; resampled back to the
    camera's shape by the stretch its glyph pairs show, its cards are named where they lie in the square frame."""
    frame = render_with_truth(fanned_scene(seed), seed)
    square = np.asarray(cv2.resize(frame.image, (640, 640), interpolation=cv2.INTER_AREA), np.uint8)
    right, wrong = _named_right(frame, Recognizer().identify(square))
    assert right >= 10 and wrong == 0
    unresampled = Recognizer(settings=replace(SETTINGS, stretch_pairs=10**6))  # the stretch never found
    assert _named_right(frame, unresampled.identify(square))[0] <= 5


def test_a_frame_in_its_cameras_shape_is_not_resampled(monkeypatch: pytest.MonkeyPatch) -> None:
    stretches: list[float] = []

    def spy(*args: object) -> float:
        stretches.append(frame_stretch(*args))  # type: ignore[arg-type]
        return stretches[-1]

    monkeypatch.setattr(pipeline, "frame_stretch", spy)
    recognizer = Recognizer()
    for seed in range(3):
        recognizer.identify(render_with_truth(fanned_scene(seed), seed).image)
        recognizer.identify(render_with_truth(random_scene(seed, cards=8), seed).image)
    assert stretches and set(stretches) == {1.0}


def _drawn_suits(stretch: float, turns: list[float]) -> tuple[np.ndarray, list[Corner]]:
    """Mirror-symmetric suit-like glyphs (a kite, its axis along its card's long side), one per card turned by each
    angle, drawn on white and stretched along x by `stretch`; the corners a glyph pair would propose at each."""
    size = 24.0
    image = np.full((400, 100 + 140 * len(turns)), 255, np.uint8)
    kite = np.array([(0.0, -0.6), (0.35, -0.1), (0.0, 0.5), (-0.35, -0.1)]) * size  # across, along the card
    corners = []
    for k, degrees in enumerate(turns):
        a = np.radians(degrees)
        along, across = np.array([-np.sin(a), np.cos(a)]), np.array([np.cos(a), np.sin(a)])
        centre = np.array([100.0 + 140 * k, 200.0])
        points = centre + kite[:, :1] * across + kite[:, 1:] * along
        cv2.fillPoly(image, [np.round(points * 8).astype(np.int32)], 0, cv2.LINE_AA, shift=3)
        seen = along * (stretch, 1.0)
        corners.append((centre * (stretch, 1.0), seen / np.linalg.norm(seen)))
    stretched = cv2.resize(image, (round(image.shape[1] * stretch), image.shape[0]), interpolation=cv2.INTER_AREA)
    bgr = np.asarray(cv2.cvtColor(stretched, cv2.COLOR_GRAY2BGR), np.uint8)
    return bgr, [Corner(c.astype(np.float32), np.array([v[1], -v[0]], np.float32), v.astype(np.float32), (60.0,),
                        True, suit=(float(c[0]), float(c[1]), size * 0.9)) for c, v in corners]


@pytest.mark.parametrize("stretch", [0.5625, 0.75, 1.33])
def test_the_stretch_of_drawn_index_glyphs_is_found_within_a_few_percent(stretch: float) -> None:
    image, pairs = _drawn_suits(stretch, [-50, -35, -20, 20, 35, 50, 65])
    assert frame_stretch(image, pairs, SETTINGS) == pytest.approx(stretch, rel=0.04)
    unstretched, level = _drawn_suits(1.0, [-50, -35, -20, 20, 35, 50, 65])
    assert frame_stretch(unstretched, level, SETTINGS) == 1.0
