"""An index's marks are found in a dim photograph as in a light one (`index_first.index_marks`).

The ink and paper levels are scaled by the frame's own brightest paper when that is under PAPER_REFERENCE:
the same card photographed with 0.55 of the light (paper at 129, under the fixed MIN_PAPER of 130) gave no
mark at all with the fixed levels."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.index_first import MIN_PAPER, PAPER_REFERENCE, index_marks, light_scale

LENGTH = 200.0  # the card's length in the frame, pixels


def _card_frame(light: float) -> np.ndarray:
    """A card (paper 235) on a dark table (40) with one index at its top-left: a rank bar over a round pip,
    glyph-sized for a card LENGTH long; every value times `light`."""
    frame = np.full((320, 300, 3), 40, np.uint8)
    cv2.rectangle(frame, (60, 50), (203, 250), (235, 235, 235), -1)
    cv2.rectangle(frame, (75, 62), (85, 78), (60, 60, 60), -1)  # the rank, 11 x 17
    cv2.circle(frame, (80, 98), 6, (60, 60, 60), -1)  # the pip under it
    lit: np.ndarray = np.clip(np.rint(frame.astype(np.float32) * light), 0, 255).astype(np.uint8)
    return lit


def _marks(frame: np.ndarray) -> np.ndarray:
    middles, ups, _ = index_marks(frame, LENGTH, np.zeros(frame.shape[:2], np.uint8))
    # The pair is listed both ways (either mark may be the rank); the one whose "up" points up is the index.
    upright = middles[ups[:, 1] < -0.9]
    assert len(upright) == 1
    index: np.ndarray = upright[0]
    return index


def test_light_frame_keeps_the_fixed_levels() -> None:
    frame = _card_frame(1.0)
    assert light_scale(frame.min(axis=2)) == 1.0
    assert _marks(frame) == pytest.approx((80.0, 84.0), abs=2.0)


@pytest.mark.parametrize("light", [0.55, 0.45])
def test_dim_frame_finds_the_same_index(light: float) -> None:
    frame = _card_frame(light)
    paper = int(frame[150, 150, 0])
    assert paper <= MIN_PAPER  # under the fixed level: the fixed rule found nothing here
    assert light_scale(frame.min(axis=2)) == pytest.approx(paper / PAPER_REFERENCE, abs=0.01)
    assert _marks(frame) == pytest.approx(_marks(_card_frame(1.0)), abs=2.0)


def test_a_frame_of_table_only_has_no_marks() -> None:
    table = np.full((320, 300, 3), 40, np.uint8)
    middles, _, _ = index_marks(table, LENGTH, np.zeros(table.shape[:2], np.uint8))
    assert len(middles) == 0
