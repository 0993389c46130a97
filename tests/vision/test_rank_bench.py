"""The real-photograph rank bench's scoring rule (`bench.vision.score_ranks`), on hand-made detections."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bench.vision import (
    DATASETS,
    LABEL_ERRATA,
    LabelErratum,
    LabelErratumError,
    Score,
    _labelled,
    corrected_labels,
    score_ranks,
    standing_alone,
)
from vision.pipeline import Detection


def _seen(x0: float, y0: float, x1: float, y1: float, rank: str | None) -> Detection:
    return Detection(card=None, face="up", confidence=0.9, rank=rank,
                     corners=((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def _score(detections: list[Detection], cards: Sequence[tuple[str, float, float, float, float]],
           size: tuple[int, int] = (400, 300)) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
    score, alone = Score(), Score()
    score_ranks(detections, cards, size, score, alone)
    return ((score.right, score.wrong, score.unknown, score.missed),
            (alone.right, alone.wrong, alone.unknown, alone.missed))


def test_each_card_is_scored_by_its_own_detection() -> None:
    cards = [("Q", 10, 10, 60, 80), ("9", 100, 10, 150, 80), ("K", 200, 10, 250, 80), ("A", 300, 10, 350, 80)]
    seen = [_seen(10, 10, 60, 80, "Q"), _seen(100, 10, 150, 80, "T"), _seen(200, 10, 250, 80, None)]
    assert _score(seen, cards) == ((1, 1, 1, 1), (1, 1, 1, 1))


def test_a_detection_of_one_card_is_not_a_reading_of_the_card_whose_box_it_also_lies_in() -> None:
    # An ace lying over a ten: their boxes overlap and the ace's centre lies in both. Read as an ace, it is
    # the ace's detection; the ten, with none of its own, is not found (not read wrong).
    cards = [("A", 90, 90, 290, 300), ("T", 170, 40, 350, 220)]
    assert _score([_seen(100, 100, 280, 290, "A")], cards) == ((1, 0, 0, 1), (0, 0, 0, 0))


def test_a_detection_goes_to_the_box_it_overlaps_most() -> None:
    cards = [("A", 90, 90, 290, 300), ("T", 170, 40, 350, 220)]
    assert _score([_seen(180, 50, 340, 215, "A")], cards) == ((0, 1, 0, 1), (0, 0, 0, 0))


def test_detections_are_matched_to_boxes_one_to_one_best_overlap_first() -> None:
    # The ace's outline overlaps the ten's box more than its own (the ace's box is its visible part), but
    # the ten's own outline matches the ten's box better still: each card keeps its own detection.
    cards = [("A", 121, 119, 236, 322), ("T", 176, 106, 368, 336)]
    ace, ten = _seen(160, 108, 300, 320, "A"), _seen(180, 108, 366, 334, "T")
    assert _score([ace, ten], cards) == ((2, 0, 0, 0), (0, 0, 0, 0))
    assert _score([ace], cards) == ((0, 1, 0, 1), (0, 0, 0, 0))


def test_a_second_outline_on_a_card_still_counts_for_it() -> None:
    cards = [("Q", 10, 10, 60, 80)]
    assert _score([_seen(10, 10, 60, 80, None), _seen(12, 12, 58, 78, "Q")], cards) == ((1, 0, 0, 0),
                                                                                          (1, 0, 0, 0))


def test_a_detection_centred_in_no_box_counts_for_no_card() -> None:
    assert _score([_seen(200, 200, 260, 280, "K")], [("K", 10, 10, 60, 80)]) == ((0, 0, 0, 1), (0, 0, 0, 1))


def test_standing_alone_needs_a_margin_from_the_photo_edge_and_no_touching_box() -> None:
    boxes = [(10.0, 10.0, 60.0, 80.0), (2.0, 100.0, 50.0, 170.0), (100.0, 10.0, 150.0, 80.0),
             (149.0, 50.0, 200.0, 120.0), (300.0, 200.0, 398.0, 290.0)]
    assert [standing_alone(i, boxes, 400, 300) for i in range(len(boxes))] == [True, False, False, False, False]


def test_a_strip_of_a_card_does_not_stand_alone() -> None:
    # 30 x 90: thinner than any whole card's bounding box (at least 1 / 1.4 as wide as high, at any turn).
    boxes = [(10.0, 10.0, 40.0, 100.0), (100.0, 10.0, 160.0, 100.0), (200.0, 10.0, 320.0, 100.0)]
    assert [standing_alone(i, boxes, 400, 300) for i in range(3)] == [False, True, True]


def test_an_erratum_corrects_one_card_and_leaves_the_labels_as_they_were() -> None:
    labels = {"a.jpg": [("9", 1.0, 2.0, 3.0, 4.0), ("9", 5.0, 6.0, 7.0, 8.0)], "b.jpg": [("K", 1.0, 2.0, 3.0, 4.0)]}
    erratum = LabelErratum(filename="a.jpg", box=(5.0, 6.0, 7.0, 8.0), labelled="9", actual="T", why="ten pips")
    fixed = corrected_labels(labels, [erratum])
    assert fixed == {"a.jpg": [("9", 1.0, 2.0, 3.0, 4.0), ("T", 5.0, 6.0, 7.0, 8.0)],
                     "b.jpg": [("K", 1.0, 2.0, 3.0, 4.0)]}
    assert labels["a.jpg"][1] == ("9", 5.0, 6.0, 7.0, 8.0)


def test_a_reading_wrong_as_labelled_is_right_against_the_corrected_label() -> None:
    cards = [("9", 10.0, 10.0, 60.0, 80.0)]
    erratum = LabelErratum(filename="a.jpg", box=(10.0, 10.0, 60.0, 80.0), labelled="9", actual="T", why="")
    fixed = corrected_labels({"a.jpg": cards}, [erratum])["a.jpg"]
    seen = [_seen(10, 10, 60, 80, "T")]
    assert _score(seen, cards) == ((0, 1, 0, 0), (0, 1, 0, 0))
    assert _score(seen, fixed) == ((1, 0, 0, 0), (1, 0, 0, 0))


@pytest.mark.parametrize("erratum", [
    LabelErratum(filename="a.jpg", box=(5.0, 6.0, 7.0, 8.0), labelled="Q", actual="T", why="rank differs"),
    LabelErratum(filename="a.jpg", box=(5.0, 6.0, 7.0, 9.0), labelled="9", actual="T", why="box differs"),
    LabelErratum(filename="c.jpg", box=(5.0, 6.0, 7.0, 8.0), labelled="9", actual="T", why="no such photo"),
])
def test_an_erratum_that_names_no_labelled_card_is_refused(erratum: LabelErratum) -> None:
    labels = {"a.jpg": [("9", 5.0, 6.0, 7.0, 8.0)]}
    with pytest.raises(LabelErratumError, match="expected exactly one"):
        corrected_labels(labels, [erratum])


def test_every_erratum_names_one_card_of_the_data_set() -> None:
    folder = DATASETS / "real-photos-dev"
    if not (folder / "labels.csv").is_file():
        pytest.skip(f"{folder} absent: the real photographs are not in this checkout's ../shared")
    labels = _labelled(folder)
    fixed = corrected_labels(labels)
    changed = sum(a != b for name in labels for a, b in zip(labels[name], fixed[name], strict=True))
    assert changed == len(LABEL_ERRATA)
