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
        for name in ("right", "wrong", "unknown", "missed", "backs_named", "backs_up"):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
    # 87 fully visible cards in the 12 frames (most face up). Without the lighter-than-around mask: 51 right and
    # 28 missed. Backs on the desk are often taken for unknown faces (10 of them, with the mask or without; one of
    # them a back only the mask of what is far from the table, closed first, outlines at all).
    assert total.missed <= 24, total
    assert total.right >= 55, total
    assert total.wrong == 0 and total.backs_named == 0, total
    assert total.backs_up <= 10, total
