"""On the shared data sets (skipped with a reason when ../shared/datasets is absent): rendered scenes of a deck
design read right with no back named, a real photograph never trained on read by rank, and `calibrate-deck`
from table photos of one deck."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from hardware_sim.camera import PlacedCard, RenderOptions, TableScene, load_face_set, render
from tests.vision.helpers import DATASETS, Tally, tally_scenes
from vision.deck import calibrate_deck
from vision.pipeline import Recognizer

pytestmark = pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (a fresh clone)")


@pytest.mark.parametrize("deck", ["card-faces", "svg-cards-bellot", "aisleriot-decks/neoclassical_4_color"])
def test_rendered_deck_designs_read_right(deck: str) -> None:
    faces = load_face_set(DATASETS / deck)
    tally: Tally = tally_scenes(Recognizer(), range(40, 43), RenderOptions(faces=faces), face_down=0.25)
    assert tally.wrong == 0 and tally.backs_named == 0, tally
    assert tally.right >= 0.9 * (tally.faces + tally.missed), tally


def test_real_photographs_are_read_by_rank() -> None:
    from bench.vision import _labels_fixed, real_ranks

    folder = DATASETS / "real-photos-dev"
    labels = _labels_fixed(folder)
    score = real_ranks(Recognizer(), folder, sorted(labels)[:12], labels)
    assert score.wrong <= 1, score
    assert score.right >= 0.6 * score.cards, score


def test_calibrate_deck_from_table_photos(tmp_path: Path) -> None:
    faces = load_face_set(DATASETS / "aisleriot-decks" / "tigullio")
    options = RenderOptions(width=1280, height=720, glare=0.0, faces=faces)
    paths = []
    for i, code in enumerate(("Kh", "9s", "4d", "Jc", "Ad", "7s")):
        scene = TableScene(cards=(PlacedCard(card=code, x=150 + 90 * i, y=120 + 40 * (i % 3), angle=25.0 * i),))
        path = tmp_path / f"{code}.jpg"
        cv2.imwrite(str(path), render(scene, i, options))
        paths.append(str(path))
    profile = calibrate_deck(paths, name="tigullio")
    assert sorted(profile.keys) == sorted(("Kh", "9s", "4d", "Jc", "Ad", "7s"))
    table = TableScene(cards=tuple(PlacedCard(card=c, x=140 + 100 * i, y=220, angle=-20.0 + 15 * i)
                                   for i, c in enumerate(("Kh", "9s", "4d", "Jc", "Ad", "7s"))))
    found = Recognizer(profile).identify(render(table, 99, options))
    assert sorted(d.card for d in found if d.card) == sorted(("Kh", "9s", "4d", "Jc", "Ad", "7s"))
