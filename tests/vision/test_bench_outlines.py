"""The vision bench counts, of the cards named right, those whose outline is cut short: names are scored at index
points, which a card cut to a strip still holds."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bench.vision import rendered
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
