"""An outline whose two corners read two ranks is named only when the naming corner's rank beat the other's by
TORN_MARGIN, even when the other corner failed the profile's bar (`pipeline.torn_unsure`); the re-outlining may
still replace it by the card its indices place."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from tests.vision.conftest import finds
from vision import pipeline
from vision.identify import CornerReading, name_card
from vision.pipeline import TORN_MARGIN, Detection, Recognizer, torn_unsure, unnamed
from vision.profile import default_profile

# A photographs' profile: a low rank bar, a wide rank margin.
LOW_BAR = replace(default_profile(), recut=True, search=True, min_rank_score=0.52, min_rank_margin=0.24)


def _reading(rank: str, score: float, runner_up: float, suit: float = 0.9) -> CornerReading:
    other = "9" if rank != "9" else "8"
    reading = CornerReading.from_scores({rank: score, other: runner_up}, {"s": suit, "c": 0.1})
    assert reading is not None
    return reading


def test_a_torn_outline_is_named_only_from_a_corner_that_clearly_beat_the_other() -> None:
    # "Q" passes the bar; the other corner's "9" scores higher but its suit blob fails: `name_card` names "Q".
    q, nine = _reading("Q", 0.60, 0.05), _reading("9", 0.61, 0.2, suit=-0.01)
    assert name_card(iter([nine, q]), LOW_BAR).rank == "Q"
    assert torn_unsure([nine, q], "Q")
    # "9" passes; the other corner's "A" is close behind but fails on its margin.
    nine, ace = _reading("9", 0.70, 0.2), _reading("A", 0.55, 0.54)
    assert name_card(iter([nine, ace]), LOW_BAR).rank == "9"
    assert torn_unsure([nine, ace], "9")
    # Clearly better by TORN_MARGIN: kept.
    assert not torn_unsure([_reading("K", 0.58, 0.1), _reading("A", 0.58 - TORN_MARGIN - 0.01, 0.2)], "K")
    # Corners that agree, a corner that read nothing, or no name at all: not torn.
    assert not torn_unsure([_reading("K", 0.6, 0.1), _reading("K", 0.6, 0.1)], "K")
    assert not torn_unsure([_reading("K", 0.6, 0.1), None], "K")
    assert not torn_unsure([_reading("K", 0.6, 0.1), _reading("Q", 0.6, 0.1)], None)


def test_the_recognizer_leaves_an_unsure_torn_outline_unnamed(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = render_with_truth(random_scene(41, cards=6, face_down=0.0), 41, RenderOptions(width=960, height=540))
    card = next(t for t in frame.truth if t.visible >= 0.999)
    quad = np.array(card.corners, np.float32)
    monkeypatch.setattr(pipeline, "find_cards", finds(frame.image, quad))
    read = Recognizer(LOW_BAR).identify(frame.image)[0]
    assert read.rank == card.card[0]
    # The same outline with its second corner read as another rank, nearly as well: unnamed.
    rank = read.rank
    readings = [_reading(rank, 0.7, 0.1), _reading("9" if rank != "9" else "8", 0.65, 0.6)]
    monkeypatch.setattr(pipeline, "read_outline", lambda image, q, profile: iter(readings))
    torn = Recognizer(LOW_BAR).identify(frame.image)[0]
    assert torn.rank is None and torn.card is None and torn.face == "up"
    # Beaten clearly, the other corner does not take the name away.
    readings[1] = _reading("9" if rank != "9" else "8", 0.5, 0.45)
    kept = Recognizer(LOW_BAR).identify(frame.image)[0]
    assert kept.rank == rank


def test_an_unnamed_detection_keeps_its_outline_and_face() -> None:
    named = Detection(card="Kh", face="up", confidence=0.8, corners=((0, 0), (10, 0), (10, 14), (0, 14)))
    gone = unnamed(named)
    assert gone.rank is None and gone.card is None and gone.face == "up" and gone.corners == named.corners
