"""A rank read from a corner whose pattern repeats in two directions is a back's lattice, not a face
(`lattice.is_lattice`, used by `pipeline.on_paper` for a searching profile). Simulated camera at 960 x 540
with hands: a hand over the lower end of a back fades and tints its lattice, a little less than
`pipeline.TINTED_PAPER`, and a photographs' profile read a rank there (found with the tuning photographs'
rank-only profile; the corners' readings are given here, so no profile from data is needed)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from vision.identify import CardReading, CornerReading, iter_index_corners
from vision.lattice import is_lattice, repeats
from vision.pipeline import MIN_FACE_PAPER, on_paper, tinted_lattice
from vision.reoutline import paper_share

SMALL = RenderOptions(width=960, height=540)


def corner(rank: str, score: float) -> CornerReading:
    return CornerReading(rank=rank, rank_score=score, rank_margin=0.2, suit="s", suit_score=0.3, suit_margin=0.1)


@dataclass(frozen=True)
class Case:
    """A frame of the "960 hands" setting of `bench.vision_wrong` (face_down 1.0 on odd seeds, else 0.5), an
    outline found over a back, the corners' readings as the profile took them, and the reading named."""

    seed: int
    quad: list[tuple[int, int]]
    corners: list[CornerReading]
    named: CardReading


CASES = [
    # A green back, a hand over its lower end: "4" at 0.69 from the corner under the fingers (tinted 0.27).
    Case(600, [(483, 396), (523, 457), (429, 500), (400, 454)], [corner("Q", -0.02), corner("4", 0.69)],
         CardReading(card=None, face_up=True, confidence=0.06, rank="4")),
    # A blue back, a hand over its upper end: "Q" at 0.55 from the corner under the fingers (tinted 0.29).
    Case(317, [(647, 96), (663, 115), (597, 169), (561, 125)], [corner("Q", 0.55), corner("4", 0.48)],
         CardReading(card=None, face_up=True, confidence=0.52, rank="Q")),
]


def test_tinted_paper_whose_pattern_repeats_is_a_lattice_however_deep_its_marks() -> None:
    """1280 x 720, overlapping cards with hands (seed 368): a red back's lattice faded by a hand's edge read
    "7" at 0.53. Its naming corner is tinted 0.5, but its darkest marks lie 0.76 under its paper (deeper than
    `pipeline.DEEP_INK`) and only one repeat shows in the warped corner: tinted paper that repeats at all is
    a lattice (`pipeline.tinted_lattice`)."""
    scene = random_scene(368, cards=8, face_down=0.5, overlap=True, hands=2)
    image = render_with_truth(scene, 368, RenderOptions()).image
    outline = np.array([(1006, 170), (1042, 184), (1020, 256), (930, 222)], np.float32)
    naming = next(iter_index_corners(image, outline))
    assert paper_share(naming) >= MIN_FACE_PAPER and not is_lattice(naming) and repeats(naming)
    assert tinted_lattice(naming)
    named = CardReading(card=None, face_up=True, confidence=0.57, rank="7")
    down = on_paper(image, outline, named, [corner("7", 0.53), corner("4", 0.57)])
    assert not down.face_up and down.rank is None


def frame_of(seed: int, options: RenderOptions = SMALL, *, face_down: float | None = None) -> np.ndarray:
    down = face_down if face_down is not None else (1.0 if seed % 2 else 0.5)
    return render_with_truth(random_scene(seed, cards=8, face_down=down, hands=2), seed, options).image


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c.seed))
def test_a_rank_read_in_a_lattice_under_a_hand_is_not_a_face(case: Case) -> None:
    image = frame_of(case.seed)
    outline = np.array(case.quad, np.float32)
    naming = [view for view, c in zip(iter_index_corners(image, outline), case.corners, strict=True)
              if c.rank == case.named.rank]
    # The rules before this one let the naming corner by: open paper, and not tinted enough for a lattice.
    assert any(paper_share(view) >= MIN_FACE_PAPER and not tinted_lattice(view) for view in naming)
    assert all(is_lattice(view) for view in naming)
    down = on_paper(image, outline, case.named, case.corners)
    assert not down.face_up and down.rank is None


@pytest.mark.parametrize("seed", [600, 317, 213, 368])
def test_no_face_up_cards_index_corner_is_a_lattice(seed: int) -> None:
    """Every face-up card of those frames with both index corners uncovered, at 960 x 540 and 1280 x 720,
    with hands, and in uneven light with glare: its index repeats in no two directions, and is not tinted
    paper that repeats."""
    seen = 0
    for options in (SMALL, RenderOptions(), replace(SMALL, glare=1.0, uneven_light=0.6)):
        frame = render_with_truth(random_scene(seed, cards=8, face_down=0.0, hands=2), seed, options)
        for t in frame.truth:
            if not t.face_up or t.visible < 0.99:
                continue
            for view in iter_index_corners(frame.image, np.array(t.corners, np.float32)):
                assert not is_lattice(view) and not tinted_lattice(view)
                seen += 1
    assert seen >= 12


def paper(width: int = 50, height: int = 101) -> np.ndarray:
    return np.full((height, width, 3), 235, np.uint8)


def test_a_drawn_lattice_repeats_in_two_directions() -> None:
    mesh = paper()
    for k in range(-120, 160, 10):  # two families of dark lines at 45 degrees, 10 pixels apart
        cv2.line(mesh, (k, 0), (k + 101, 101), (60, 40, 40), 2)
        cv2.line(mesh, (k, 0), (k - 101, 101), (60, 40, 40), 2)
    assert is_lattice(mesh)
    found = repeats(mesh)
    assert len(found) >= 2


def test_an_index_and_one_directions_repeats_are_no_lattice() -> None:
    index = paper()
    cv2.putText(index, "10", (3, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (30, 30, 30), 3)
    cv2.circle(index, (14, 50), 7, (30, 30, 30), -1)  # a suit under it
    assert not is_lattice(index)
    bars = paper()
    for x in range(4, 50, 9):  # stripes: a repeat in one direction only
        cv2.line(bars, (x, 0), (x, 100), (30, 30, 30), 3)
    assert repeats(bars) and not is_lattice(bars)
    assert not is_lattice(paper())  # blank paper: no detail at all


def test_a_corner_too_small_is_an_error() -> None:
    with pytest.raises(ValueError):
        repeats(paper(10, 20))
