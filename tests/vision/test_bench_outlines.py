"""The vision bench counts, of the cards named right, those whose outline is cut short: names are scored at index
points, which a card cut to a strip still holds."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from bench.vision import held_out_photos, rendered
from hardware_sim.camera import procedural_faces
from vision.pipeline import Detection, Recognizer


class _Cutting(Recognizer):
    """The recognizer, each detection's outline cut to 0.6 of its card from its first corner's side (its centre
    still inside: the rendered scenes find a card's detection at its centre)."""

    def identify(self, frame: object) -> list[Detection]:
        out = []
        for d in super().identify(frame):
            q = np.array(d.corners, np.float64)
            q[1], q[2] = q[0] + 0.6 * (q[1] - q[0]), q[3] + 0.6 * (q[2] - q[3])
            out.append(replace(d, corners=tuple((float(x), float(y)) for x, y in q)))
        return out


def test_rendered_cards_named_right_with_their_outline_cut_short_are_counted() -> None:
    faces = procedural_faces(0)
    whole = rendered(Recognizer(), faces, range(2))
    assert whole.right >= 8 and whole.cut == 0, whole
    cut = rendered(_Cutting(), faces, range(2))
    assert cut.cut >= cut.right - 2 and cut.cut >= 6, cut
    assert f"{cut.cut} of them with the outline cut short" in cut.line()


class _Fixed(Recognizer):
    """Names the seven of clubs at the given outline, whatever the photograph."""

    def __init__(self, corners: tuple[tuple[float, float], ...]) -> None:
        self.corners = corners  # before the recognizer's warm-up frame calls `identify`
        super().__init__()

    def identify(self, frame: object) -> list[Detection]:
        return [Detection(card="7c", face="up", confidence=0.99, corners=self.corners)]


def test_a_photographed_card_whose_outline_misses_one_of_its_labelled_index_corners_is_counted_cut(
        tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((400, 300, 3), 90, np.uint8))
    head = "filename,width,height,card,xmin,ymin,xmax,ymax,box_kind,suspect,group\n"
    boxes = "".join(f"a.jpg,300,400,7c,{x},{y},{x + 20},{y + 30},index,0,g\n" for x, y in ((40, 40), (220, 320)))
    (tmp_path / "labels.csv").write_text(head + boxes, encoding="utf-8")
    whole = ((30.0, 30.0), (260.0, 30.0), (260.0, 370.0), (30.0, 370.0))
    top = ((30.0, 30.0), (260.0, 30.0), (260.0, 200.0), (30.0, 200.0))  # the card cut across its middle
    assert held_out_photos(_Fixed(whole), tmp_path, ("g",)).cut == 0
    score = held_out_photos(_Fixed(top), tmp_path, ("g",))
    assert (score.right, score.cut) == (1, 1)
