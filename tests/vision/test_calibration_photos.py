"""`calibrate-deck` takes the photo of a card of a one-index design (its other corner shows no index) lying on
the felt, whichever way round it lies (skipped with a reason when ../shared/datasets is absent)."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from hardware_sim.camera import PlacedCard, RenderOptions, TableScene, load_face_set, render
from tests.vision.helpers import DATASETS
from vision.deck import calibrate_deck

pytestmark = pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (a fresh clone)")


def test_a_one_index_card_is_calibrated_from_one_photo_at_any_turn(tmp_path: Path) -> None:
    faces = load_face_set(DATASETS / "aisleriot-decks" / "minimum")
    paths = []
    for i, card in enumerate(("3c", "2h", "Ah", "Qh")):
        path = tmp_path / f"{card}.png"
        scene = TableScene(cards=(PlacedCard(card=card, x=400, y=225, angle=100.0),))
        cv2.imwrite(str(path), render(scene, i, RenderOptions(glare=0.0, faces=faces)))
        paths.append(path)
    assert calibrate_deck(paths).keys == ("2h", "3c", "Ah", "Qh")
