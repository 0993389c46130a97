"""Cards on a light desk: the paper mask puts them with the desk and their ring of edges runs into their index,
so they are outlined as paper lighter than its surroundings (deck designs whose index lies near the edge)."""

from __future__ import annotations

import pytest

from hardware_sim.camera import RenderOptions, load_face_set
from tests.vision.helpers import DATASETS, Tally, tally_scenes
from vision.pipeline import Recognizer

pytestmark = pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (a fresh clone)")


def test_cards_on_a_light_desk_are_found_and_named() -> None:
    recognizer = Recognizer()
    total = Tally()
    for deck in ("atlasnye", "anglo_poker"):
        options = RenderOptions(faces=load_face_set(DATASETS / "aisleriot-decks" / deck))
        tally = tally_scenes(recognizer, range(200, 206), options, face_down=0.2, surface="desk")
        for name in ("right", "wrong", "unknown", "missed", "backs_named"):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
    # 87 fully visible cards in the 12 frames (most face up). Without the lighter-than-around mask: 51 right,
    # 26 missed and 9 backs reported face up.
    assert total.missed <= 23, total
    assert total.right >= 55, total
    assert total.wrong == 0 and total.backs_named == 0 and total.backs_up == 0, total
