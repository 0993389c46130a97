"""Cards on a light desk: the paper mask puts them with the desk and their ring of edges runs into their index,
so they are outlined as paper lighter than its surroundings (deck designs whose index lies near the edge)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera import RenderedFrame, RenderOptions, load_face_set, random_scene, render_with_truth
from tests.vision.helpers import DATASETS, Tally, tally_scenes
from vision.pipeline import Detection, Recognizer

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


def _desk_frame(deck: str, seed: int) -> tuple[RenderedFrame, list[Detection]]:
    frame = render_with_truth(random_scene(seed, cards=8, face_down=0.2, surface="desk"), seed,
                              RenderOptions(faces=load_face_set(DATASETS / deck)))
    return frame, Recognizer().identify(frame.image)


def _named_at(frame: RenderedFrame, dets: list[Detection], card: str) -> bool:
    truth = next(t for t in frame.truth if t.card == card)
    centre = np.mean(np.array(truth.corners, np.float32), axis=0)
    return any(d.card == card and cv2.pointPolygonTest(np.array(d.corners, np.float32), centre, False) >= 0
               for d in dets)


@pytest.mark.parametrize(("deck", "seed", "card"), [("svg-cards-bellot", 202, "9h"),
                                                    ("aisleriot-decks/simplistic", 200, "4d")])
def test_an_outline_cut_off_inside_the_index_column_is_read_as_a_card(deck: str, seed: int, card: str) -> None:
    # The ring of the card's edges closes through its index's ink: the outline found is narrower than a card and
    # its corners read nothing; made a card's shape, both its corners name it.
    frame, dets = _desk_frame(deck, seed)
    assert _named_at(frame, dets, card), [d.card for d in dets]


@pytest.mark.parametrize(("seed", "card"), [(5, "Ks"), (6, "Qd")])
def test_a_court_card_across_a_zone_line_is_named_from_its_index(seed: int, card: str) -> None:
    # No outline closes round the card (its edges run into the zone line's), and its rank touches the thin line of
    # its edge in the ink: found as a glyph pair once that line is opened away.
    frame, dets = _desk_frame("card-faces", seed)
    assert _named_at(frame, dets, card), [d.card for d in dets]
