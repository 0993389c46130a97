"""A card whose large central pip is outlined too (a design's diamonds drawn as one big pip holding the rank) is
found as the card, not as its pip: one detection per card, with the card's outline (skipped with a reason when
../shared/datasets is absent)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera import PlacedCard, RenderOptions, TableScene, load_face_set, render_with_truth
from tests.vision.helpers import DATASETS
from vision.pipeline import Recognizer
from vision.rectify import quad_iou

pytestmark = pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (a fresh clone)")


def test_a_card_with_a_large_pip_is_outlined_as_the_card() -> None:
    faces = load_face_set(DATASETS / "aisleriot-decks" / "minimum")
    cards = ("Kd", "Ad", "6d", "Qd", "5c")
    scene = TableScene(cards=tuple(PlacedCard(card=c, x=120 + 140 * i, y=200 + 30 * (i % 2), angle=-35.0 + 20 * i)
                                   for i, c in enumerate(cards)), surface="felt")
    frame = render_with_truth(scene, 7, RenderOptions(glare=0.0, faces=faces))
    found = Recognizer().identify(frame.image)
    assert len(found) == len(cards), [(d.card, d.face) for d in found]
    for truth in frame.truth:
        quad = np.array(truth.corners, np.float32)
        best = max(found, key=lambda d: quad_iou(quad, np.array(d.corners, np.float32)))
        assert quad_iou(quad, np.array(best.corners, np.float32)) > 0.8, truth.card
        assert best.face == "up" and best.card in (truth.card, None), (truth.card, best.card, best.face)


def test_a_card_named_by_one_corner_is_not_read_again_in_its_middle() -> None:
    """An outline named by one index corner is searched for other cards' indices only along its sides: in its middle
    a large pip holding the rank pairs up as an index and could name a card that is not there."""
    from hardware_sim.camera import random_scene

    faces = load_face_set(DATASETS / "aisleriot-decks" / "minimum")
    recognizer = Recognizer()
    for seed in (5, 9):
        frame = render_with_truth(random_scene(seed, cards=8, face_down=0.2), seed, RenderOptions(faces=faces))
        found = recognizer.identify(frame.image)
        for truth in frame.truth:
            if truth.face_up:  # one detection holds the card's centre, and it names the card
                centre = tuple(float(v) for v in np.mean(truth.corners, axis=0))
                on = [d.card for d in found if cv2.pointPolygonTest(d.quad.reshape(-1, 1, 2), centre, False) >= 0]
                assert on == [truth.card], (seed, truth.card, on)
