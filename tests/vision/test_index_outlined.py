"""A card found by its index alone, its outline not found (it lies across a line drawn on the table, on a table nearly
as light as its paper): named from the index windows it is read in again, its outline drawn from the window that read
it and moved out to where its paper gives way to the table (skipped with a reason when ../shared/datasets is
absent)."""

from __future__ import annotations

import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, load_face_set, random_scene, render_with_truth
from tests.vision.helpers import DATASETS
from vision.pipeline import Recognizer
from vision.rectify import quad_iou

pytestmark = pytest.mark.skipif(not DATASETS.is_dir(), reason="../shared/datasets is absent (a fresh clone)")


def test_a_card_across_a_zone_line_on_a_light_desk_is_named_from_its_index_moved_out() -> None:
    """Its outline covers most of the card: drawn from a window placed only roughly, it lies a few pixels off the
    card's sides, far from the index window's own small quad."""
    faces = load_face_set(DATASETS / "svgcards-jumbo" / "vertical2")
    frame = render_with_truth(random_scene(6, cards=8, face_down=0.2, surface="desk"), 6, RenderOptions(faces=faces))
    truth = np.array(next(t for t in frame.truth if t.card == "Td").corners, np.float32)
    found = [d for d in Recognizer().identify(frame.image) if quad_iou(truth, np.array(d.corners, np.float32)) > 0.3]
    assert [d.card for d in found] == ["Td"]
    assert quad_iou(truth, np.array(found[0].corners, np.float32)) > 0.75


def test_a_card_named_from_one_index_on_a_light_desk_is_moved_out_to_where_its_paper_ends() -> None:
    """A card across a zone line (its outline not found) named from one index window alone: drawn from that window
    it falls short of its far sides; moved out to where its paper ends, it covers the card."""
    faces = load_face_set(DATASETS / "card-faces")
    frame = render_with_truth(random_scene(201, cards=8, face_down=0.2, surface="desk"), 201,
                              RenderOptions(faces=faces))
    truth = np.array(next(t for t in frame.truth if t.card == "6c").corners, np.float32)
    found = [d for d in Recognizer().identify(frame.image) if d.card == "6c"]
    assert len(found) == 1
    assert quad_iou(truth, np.array(found[0].corners, np.float32)) > 0.9
