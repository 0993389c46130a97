"""A rank is a face's only when the index corner that read it is a card's index paper (`pipeline.on_paper`,
`pipeline.tinted_lattice`): inside a coloured back's lattice, and on a hand lying over a back, the lighter
cells make open paper enough for `paper_share`, but tinted the back's (or the skin's) colour, with no ink
much darker than it. Simulated camera, the outlines a photographs' profile read there (found with the tuning
photographs' rank-only profile; the corners' readings are given here, so no profile from data is needed)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from vision.identify import CardReading, CornerReading, iter_index_corners
from vision.pipeline import MIN_FACE_PAPER, on_paper, tinted_lattice
from vision.reoutline import paper_share

SMALL = RenderOptions(width=960, height=540)


def corner(rank: str, score: float) -> CornerReading:
    return CornerReading(rank=rank, rank_score=score, rank_margin=0.1, suit="h", suit_score=0.5, suit_margin=0.1)


def reading(rank: str, score: float) -> CardReading:
    return CardReading(card=None, face_up=True, confidence=score, rank=rank)


@dataclass(frozen=True)
class Case:
    """A frame (seed, render options, the scene's knobs), an outline found in it, and the corners' readings
    as the profile took them, with the reading named."""

    seed: int
    options: RenderOptions
    overlap: bool
    hands: int
    face_down: float
    quad: list[tuple[int, int]]
    corners: list[CornerReading]
    named: CardReading


CASES = [
    # Inside a red back's lattice, 1280 x 720: "6" at 0.58 from one corner, "9" at 0.61 from the other.
    Case(511, RenderOptions(), False, 0, 1.0, [(808, 562), (802, 616), (720, 604), (724, 582)],
         [corner("6", 0.58), corner("9", 0.61)], reading("9", 0.58)),
    # Inside a green back's lattice, overlapping cards with hands, 1280 x 720: "9" at 0.59, "4" at 0.58.
    Case(500, RenderOptions(), True, 2, 0.5, [(306, 212), (302, 270), (222, 266), (226, 208)],
         [corner("9", 0.59), corner("4", 0.58)], reading("9", 0.59)),
    # A hand over a back, 960 x 540: "Q" at 0.53 from the skin, "Q" at 0.3 from the lattice.
    Case(213, SMALL, False, 2, 1.0, [(606, 163), (624, 230), (531, 269), (513, 202)],
         [corner("Q", 0.53), corner("Q", 0.3)], reading("Q", 0.3)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c.seed))
def test_a_rank_read_in_a_backs_lattice_or_on_a_hand_is_not_a_face(case: Case) -> None:
    scene = random_scene(case.seed, cards=8, face_down=case.face_down, overlap=case.overlap, hands=case.hands)
    frame = render_with_truth(scene, case.seed, case.options)
    outline = np.array(case.quad, np.float32)
    views = list(iter_index_corners(frame.image, outline))
    # The corner that read the rank named is open paper as `paper_share` measures it: the old rule let it by.
    assert any(paper_share(view) >= MIN_FACE_PAPER
               for view, c in zip(views, case.corners, strict=True) if c.rank == case.named.rank)
    down = on_paper(frame.image, outline, case.named, case.corners)
    assert not down.face_up and down.rank is None


@pytest.mark.parametrize("seed", [511, 500, 213])
def test_the_face_up_cards_index_corners_are_not_tinted(seed: int) -> None:
    """Every face-up card of the same frames with both index corners uncovered, at 960 x 540 and 1280 x 720
    and in glare: its corners are white paper with dark ink."""
    seen = 0
    for options in (SMALL, RenderOptions(), replace(SMALL, glare=1.0, uneven_light=0.6)):
        frame = render_with_truth(random_scene(seed, cards=8, face_down=0.0), seed, options)
        for t in frame.truth:
            if not t.face_up or t.visible < 0.99:
                continue
            for view in iter_index_corners(frame.image, np.array(t.corners, np.float32)):
                assert not tinted_lattice(view)
                seen += 1
    assert seen >= 6
