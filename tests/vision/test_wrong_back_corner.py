"""A rank is a face's only when the index corner that read it is open paper (`pipeline.on_paper` with the
corners' readings): a wedge or strip of two overlapping backs can have one corner on a back's white rim,
reading nothing, and the other in its lattice, reading a rank at a photographs' profile's low bar."""

from __future__ import annotations

import numpy as np

from vision.identify import CardReading, CornerReading, iter_index_corners
from vision.pipeline import MIN_FACE_PAPER, on_paper
from vision.reoutline import paper_share

QUAD = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
NINE = CardReading(card=None, face_up=True, confidence=0.53, rank="9")


def corner(rank: str, score: float) -> CornerReading:
    return CornerReading(rank=rank, rank_score=score, rank_margin=0.2, suit="h", suit_score=0.6, suit_margin=0.1)


def rim_and_lattice() -> np.ndarray:
    """Open paper at the outline's first index corner (top left), a back's lattice at its second (bottom
    right): dark lines every third row leave no 4 x 4 patch of paper."""
    image = np.full((400, 400, 3), 235, np.uint8)
    image[170:241:3, 150:201] = 40
    return image


def test_the_scene_has_one_paper_corner_and_one_lattice_corner() -> None:
    first, second = (paper_share(c) for c in iter_index_corners(rim_and_lattice(), QUAD))
    assert first >= MIN_FACE_PAPER > second


def test_a_rank_read_only_in_the_lattice_is_a_back() -> None:
    image = rim_and_lattice()
    # The first corner (paper) read another rank weakly, the second (lattice) the rank named.
    down = on_paper(image, QUAD, NINE, [corner("Q", 0.31), corner("9", 0.53)])
    assert not down.face_up and down.rank is None
    # The first corner read nothing at all: the same.
    assert not on_paper(image, QUAD, NINE, [None, corner("9", 0.53)]).face_up


def test_a_rank_read_on_open_paper_stays() -> None:
    image = rim_and_lattice()
    assert on_paper(image, QUAD, NINE, [corner("9", 0.7)]) == NINE
    assert on_paper(image, QUAD, NINE, [corner("9", 0.7), corner("9", 0.5)]) == NINE
    # No corner read the rank (a reading from the outline's ends, `name_partials`): any open corner will do,
    # as before.
    assert on_paper(image, QUAD, NINE, [corner("4", 0.4), None]) == NINE
    assert on_paper(image, QUAD, NINE) == NINE
