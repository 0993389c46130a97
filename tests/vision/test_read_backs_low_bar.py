"""A profile with a low rank bar (as a calibration from photographs of another deck makes) never names a
back: a face's index corner is open paper, a back's is its lattice (`pipeline.on_paper`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hardware_sim.camera import RenderOptions
from tests.vision.conftest import tally_scenes
from vision.identify import CardReading
from vision.pipeline import MIN_FACE_PAPER, Recognizer, on_paper
from vision.profile import DeckProfile, default_profile

# The live table's camera size; no glare, as the controller's camera renders it.
CAMERA = RenderOptions(width=960, height=540, glare=0.0)


@pytest.fixture(scope="module")
def low_bar() -> DeckProfile:
    # Ranks accepted at 0.55 with a 0.2 margin: without the open-paper rule, 7 of these 12 all-back
    # frames had a back named (10 names in 30 frames of seeds 100-129).
    return replace(default_profile(), search=True, recut=True, min_rank_score=0.55, min_rank_margin=0.2)


def test_a_low_bar_profile_names_no_back(low_bar: DeckProfile) -> None:
    tally = tally_scenes(Recognizer(low_bar), range(100, 112), CAMERA, face_down=1.0, backs_only=True)
    assert tally.backs_named == 0


def test_a_low_bar_profile_still_names_faces(low_bar: DeckProfile) -> None:
    tally = tally_scenes(Recognizer(low_bar), range(100, 106), CAMERA, face_down=0.0)
    # 28 of the 48 faces named right with or without the rule (the rest unknown: this profile's suit bar is the
    # built-in one's while its rank search reads more views): the rule takes no face's name away.
    assert tally.faces >= 40
    assert tally.right >= 25, tally
    assert tally.wrong == 0, tally


def test_a_reading_off_paper_is_face_down() -> None:
    quad = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    face = CardReading(card="Qs", face_up=True, confidence=0.9, rank="Q")
    paper = np.full((400, 400, 3), 235, np.uint8)
    assert on_paper(paper, quad, face) == face
    lattice = paper.copy()
    lattice[::3, :] = 40  # dark lines every third row: no 4 x 4 patch of open paper anywhere
    down = on_paper(lattice, quad, face)
    assert not down.face_up and down.card is None and down.rank is None
    assert 0 < MIN_FACE_PAPER < 1
    unread = CardReading(card=None, face_up=False, confidence=0.0)
    assert on_paper(lattice, quad, unread) == unread
