"""Reading photographs with a rank-only calibration. Its reject rule is chosen on whole cards as the
recognizer reads them: `name_card` decides from corner readings computed once (the calibration tries many
thresholds on them), and `_card_outcomes` scores the labelled cards as the bench does. Its profile reads a
faint index again at lower ink cuts (`recut`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from vision.errors import VisionInputError
from vision.glyphs import draw_rank, draw_suit
from vision.identify import CornerReading, glyph_cuts, iter_index_corners, name_card, read_corner, read_corners
from vision.labelled import _card_outcomes, _Outline, _PhotoCards
from vision.profile import DeckProfile, default_profile

BLANK = np.zeros((4, 4, 3), np.uint8)


def test_name_card_from_readings_is_read_corners_for_any_threshold() -> None:
    """The calibration's mirror of reading a frame: same card, rank, face and confidence as
    `read_corners`, whatever thresholds the profile carries, second corner skipped the same way."""
    base = default_profile()
    frame = render_with_truth(random_scene(31, cards=10, face_down=0.2), 31, RenderOptions(blur=0.6, noise=2.0))
    compared = named = 0
    for truth in frame.truth:
        quad = np.array(truth.corners, np.float32)
        readings = [read_corner(c, base) for c in iter_index_corners(frame.image, quad)]
        for score, margin in ((0.5, 0.04), (0.72, 0.04), (0.9, 0.3), (0.6, 0.5)):
            profile = replace(base, min_rank_score=score, min_rank_margin=margin)
            for small in (False, True):
                want = read_corners(iter_index_corners(frame.image, quad), profile, small=small)
                assert name_card(iter(readings), profile, small=small) == want
                compared += 1
                named += want.rank is not None
    assert compared == 8 * len(frame.truth) and named > 0


def _reading(rank: str, score: float, other: str, other_score: float) -> CornerReading:
    reading = CornerReading.from_scores({rank: score, other: other_score}, {"s": 0.9, "c": 0.1})
    assert reading is not None
    return reading


def _outline(*boxes: int, named: bool = True) -> _Outline:
    return _Outline(corners=((BLANK,), (BLANK,)), small=False, named=named, boxes=boxes)


def test_card_outcomes_score_cards_as_the_bench_does() -> None:
    """Three labelled cards (Q, K, 9) and four outlines: a right Q read at 0.6, a near-square outline over
    the Q and the K whose corner reads "K" surely (never named), a K outline reading "9" at 0.65 (the
    9's index), and nothing over the 9 (not found, so not scored)."""
    photo = _PhotoCards(photo="p.jpg", ranks=("Q", "K", "9"),
                        outlines=(_outline(0), _outline(0, 1, named=False), _outline(1), _outline(1)))
    readings: list[list[CornerReading | None]] = [[_reading("Q", 0.6, "K", 0.1), None],
                [_reading("K", 0.95, "Q", 0.1), None],
                [_reading("9", 0.65, "K", 0.3), _reading("9", 0.64, "K", 0.3)],
                [None, None]]
    base = default_profile()
    clean = replace(base, min_rank_score=0.72, min_rank_margin=0.04)
    loose = replace(base, min_rank_score=0.5, min_rank_margin=0.04)
    wide = replace(base, min_rank_score=0.5, min_rank_margin=0.4)
    # (cards with an outline, right, wrong)
    assert _card_outcomes([(photo, readings)], clean) == (2, 0, 0)
    assert _card_outcomes([(photo, readings)], loose) == (2, 1, 1)
    # A wide margin keeps the Q (0.5 over the K) and refuses the 9 (0.35 over the K).
    assert _card_outcomes([(photo, readings)], wide) == (2, 1, 0)


def _faint_corner(grey: int) -> np.ndarray:
    """An index corner (50 x 101, upright) with a "9" over a spade printed in grey on light paper."""
    corner = np.full((101, 50, 3), 245, np.uint8)
    draw_rank(corner, "9", 22, 8, 30, color=(grey, grey, grey), font=cv2.FONT_HERSHEY_SIMPLEX, thickness_ratio=0.14)
    draw_suit(corner, "s", (22, 58), 18, (grey, grey, grey))
    return corner


@pytest.mark.parametrize("grey", [180, 160])
def test_recut_reads_an_index_fainter_than_the_ink_threshold(grey: int) -> None:
    """Grey 160-180 on paper 245 is ink 0.27-0.35: under the standard cut (0.45), and too even for the
    faint-ink cut (half the strongest ink is under 0.2). Only a profile with `recut` reads it."""
    corner = _faint_corner(grey)
    base = default_profile()
    assert read_corner(corner, base) is None
    reading = read_corner(corner, replace(base, recut=True))
    assert reading is not None and reading.rank == "9" and reading.rank_score >= 0.85 and reading.suit == "s"


@pytest.mark.parametrize("grey", [205, 215, 225])
def test_recut_reads_an_index_barely_darker_than_its_paper(grey: int) -> None:
    """Grey 205-225 on paper 245 is ink 0.08-0.16 (a washed-out pink rank in an over-exposed frame): under
    the faint-ink floor (0.2), read only by the lowest cuts of `recut` (0.12, 0.08)."""
    corner = _faint_corner(grey)
    assert read_corner(corner, default_profile()) is None
    reading = read_corner(corner, replace(default_profile(), recut=True))
    assert reading is not None and reading.rank == "9" and reading.rank_score >= 0.85 and reading.suit == "s"


def test_recut_keeps_a_sure_standard_reading() -> None:
    """A well-printed index is read from the standard cut, first of `glyph_cuts`; the further cuts do
    not change a sure reading."""
    corner = _faint_corner(40)
    cuts = list(glyph_cuts(corner))
    assert len(cuts) >= 2 and np.array_equal(cuts[0].rank, _standard_rank(corner))
    assert read_corner(corner, replace(default_profile(), recut=True)) == read_corner(corner, default_profile())


def _standard_rank(corner: np.ndarray) -> np.ndarray:
    from vision.identify import extract_glyphs

    glyphs = extract_glyphs(corner)
    assert glyphs is not None
    return glyphs.rank


def test_recut_is_saved_in_the_profile(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    replace(default_profile(), recut=True).save(path)
    assert DeckProfile.load(path).recut
    default_profile().save(path)
    assert not DeckProfile.load(path).recut  # absent from older profiles: off
    data = dict(np.load(path, allow_pickle=False))
    data["meta"] = np.array(str(data["meta"]).replace("}", ', "recut": "yes"}'))
    np.savez(path, **data)
    with pytest.raises(VisionInputError, match="recut"):
        DeckProfile.load(path)


def test_card_outcomes_leave_out_a_rank_the_fold_was_not_taught() -> None:
    """A card of a rank no fold template knows ("" in the fold's copy) is not scored: the profile cannot
    read it, and the calibration reports the rank as missing rather than letting it set the threshold."""
    photo = _PhotoCards(photo="q.jpg", ranks=("", "Q"), outlines=(_outline(0), _outline(1)))
    readings: list[list[CornerReading | None]] = [[_reading("8", 0.8, "Q", 0.1), None],
                                                  [_reading("Q", 0.8, "8", 0.1), None]]
    assert _card_outcomes([(photo, readings)], replace(default_profile(), min_rank_score=0.72)) == (1, 1, 0)


def test_two_agreeing_corners_pass_the_pair_score() -> None:
    """Two corners reading the same rank are pooled and need only `min_pair_score`; one corner alone, or
    two corners reading different ranks, still need `min_rank_score`."""
    profile = replace(default_profile(), min_rank_score=0.6, min_rank_margin=0.2, min_pair_score=0.45)
    k1, k2 = _reading("K", 0.5, "Q", 0.2), _reading("K", 0.48, "Q", 0.1)
    assert name_card(iter([k1, k2]), profile).rank == "K"
    assert name_card(iter([k1, None]), profile).rank is None
    assert name_card(iter([k1, _reading("Q", 0.5, "K", 0.2)]), profile).rank is None
    # Without a pair score the pooled reading is held to the one-corner score.
    assert name_card(iter([k1, k2]), replace(profile, min_pair_score=None)).rank is None


def test_pair_score_is_saved_in_the_profile(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    replace(default_profile(), min_pair_score=0.55).save(path)
    assert DeckProfile.load(path).pair_rank_score == 0.55
    default_profile().save(path)
    assert DeckProfile.load(path).min_pair_score is None
    assert DeckProfile.load(path).pair_rank_score == default_profile().min_rank_score


@pytest.mark.parametrize(("key", "value"), [("min_pair_score", "low"), ("min_rank_margin", [0.1]),
                                            ("min_rank_score", None), ("min_margin", True),
                                            ("min_suit_score", float("nan"))])
def test_a_profile_threshold_that_is_not_a_number_is_a_typed_error(tmp_path: Path, key: str, value: object) -> None:
    """A broken threshold in a profile's meta is refused by name (a VisionInputError, exit 2 at the CLI),
    never a ValueError or KeyError from deep inside."""
    import json

    path = tmp_path / "p.npz"
    replace(default_profile(), min_rank_margin=0.2, min_pair_score=0.5).save(path)
    data = dict(np.load(path, allow_pickle=False))
    meta = json.loads(str(data["meta"]))
    meta[key] = value
    data["meta"] = np.array(json.dumps(meta))
    np.savez(path, **data)
    with pytest.raises(VisionInputError, match=key):
        DeckProfile.load(path)
