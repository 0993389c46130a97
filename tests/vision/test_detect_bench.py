"""The detection bench's scoring rule (`bench.vision_detect.score_photo`), on hand-made outlines."""

from __future__ import annotations

import numpy as np

from bench.vision_detect import DetectionScore, score_photo


def _quad(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def test_one_good_outline_per_card_is_found() -> None:
    score = DetectionScore()
    score_photo([_quad(10, 10, 60, 80), _quad(100, 10, 150, 80)], [(8, 8, 62, 82), (100, 12, 150, 80)], score)
    assert (score.cards, score.found, score.false, score.merged) == (2, 2, 0, 0)


def test_two_outlines_centred_in_one_card_do_not_count_and_a_stray_one_is_false() -> None:
    score = DetectionScore()
    quads = [_quad(10, 10, 60, 80), _quad(20, 30, 50, 60), _quad(300, 300, 340, 360)]
    score_photo(quads, [(8, 8, 62, 82)], score)
    assert (score.found, score.false) == (0, 1)


def test_an_outline_over_two_cards_is_a_merge_and_finds_neither() -> None:
    score = DetectionScore()
    score_photo([_quad(10, 10, 160, 80)], [(10, 10, 60, 80), (110, 10, 160, 80)], score)
    assert (score.found, score.merged) == (0, 1)


def test_a_loose_outline_is_not_found() -> None:
    score = DetectionScore()
    score_photo([_quad(0, 0, 200, 200)], [(50, 50, 100, 120)], score)
    assert score.found == 0
