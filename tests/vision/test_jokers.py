"""A Draw Poker deck has no joker in play: a joker on the table is named by no card, at its corners nor in a
photograph (skipped with a reason when ../shared/datasets is absent)."""

from __future__ import annotations

import csv

import cv2
import numpy as np
import pytest

from tests.vision.helpers import DATASETS
from vision import trainset as ts
from vision.images import load_image
from vision.pipeline import Recognizer
from vision.read import default_reader
from vision.settings import Settings

pytestmark = pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (a fresh clone)")


def test_a_jokers_corners_name_no_card() -> None:
    """Every deck design's jokers, each corner filmed as a card's is at table time: none is read as a card at the
    bar a corner needs to name one."""
    rng = np.random.default_rng(11)
    crops = []
    for folder in ts.deck_folders(DATASETS):
        for path in sorted(folder.glob("*joker*.png")):
            joker = ts._on_paper(ts._read_bgra(path))
            crops += [ts.camera_crop(joker, rng, turned=turned) for turned in (False, True) for _ in range(6)]
    r = default_reader().read(crops)
    named = [r.best(i) for i in range(len(crops)) if r.best(i)[0] is not None and r.best(i)[1] >= Settings().name_bar]
    assert len(crops) >= 200
    assert named == []


def test_a_photographed_joker_is_named_by_no_card() -> None:
    """A validation photograph of a joker lying alone on a table: no detection over its labelled corners names a
    card."""
    folder = DATASETS / "cardcounterml-photos"
    name = "IMG_20220921_194751.jpg"
    rows = [r for r in csv.DictReader((folder / "labels.csv").open(encoding="utf-8")) if r["filename"] == name]
    assert {r["card"] for r in rows} == {"joker_black"}
    centres = [((float(r["xmin"]) + float(r["xmax"])) / 2, (float(r["ymin"]) + float(r["ymax"])) / 2) for r in rows]
    detections = Recognizer().identify(load_image(folder / "images" / name))
    over = [d for d in detections
            if any(cv2.pointPolygonTest(np.array(d.corners, np.float32), c, False) >= 0 for c in centres)]
    assert over, "the joker is found as a card"
    assert [d.card for d in over if d.card is not None] == []
