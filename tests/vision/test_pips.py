"""A number card named by its pips when its index reads the same rank unsurely (`vision.pips`)."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware_sim.camera.art import draw_face
from tests.vision.test_detect_covered import FELT, SEARCHING, _upright
from tests.vision.test_reoutline import _lay
from vision import pipeline
from vision.errors import VisionInputError
from vision.geometry import CARD_H, CARD_W
from vision.identify import CornerReading
from vision.pipeline import Detection, Recognizer
from vision.pips import MIN_INDEX_SCORE, named_by_pips, pip_count
from vision.profile import default_profile

NUMBERS = "23456789T"
BAR = 0.52  # a photographs' profile's rank bar
SUITS = "cdhs"


def _canonical(card: str, blur: float = 0.0) -> npt.NDArray[np.uint8]:
    face = np.asarray(cv2.resize(draw_face(card), (CARD_W, CARD_H), interpolation=cv2.INTER_AREA), np.uint8)
    return np.asarray(cv2.GaussianBlur(face, (0, 0), blur), np.uint8) if blur else face


@pytest.mark.parametrize("suit", SUITS)
@pytest.mark.parametrize("blur", [0.0, 2.5])
def test_every_number_card_s_pips_are_counted(suit: str, blur: float) -> None:
    for count, rank in enumerate(NUMBERS, start=2):
        assert pip_count(_canonical(rank + suit, blur)) == count, rank + suit


@pytest.mark.parametrize("card", ["Ac", "Jh", "Qs", "Kd"])
def test_an_ace_or_a_court_card_gives_no_count_of_a_number_card(card: str) -> None:
    assert pip_count(_canonical(card)) not in range(2, 11)


def test_blobs_of_many_sizes_or_merged_pips_are_no_count() -> None:
    card = np.full((CARD_H, CARD_W, 3), 235, np.uint8)
    for k, radius in enumerate((11, 11, 20)):  # the last as two pips run together
        cv2.circle(card, (100, 60 + 70 * k), radius, (20, 20, 20), -1)
    assert pip_count(card) is None
    cv2.circle(card, (100, 200), 20, (235, 235, 235), -1)
    cv2.circle(card, (100, 200), 11, (20, 20, 20), -1)
    assert pip_count(card) == 3
    with pytest.raises(VisionInputError):
        pip_count(np.zeros((CARD_H, CARD_W), np.uint8))


def _corner(rank: str, score: float) -> CornerReading:
    return CornerReading(rank=rank, rank_score=score, rank_margin=0.05, suit="c", suit_score=0.8, suit_margin=0.2)


def _nine_on_felt() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    frame = np.full((400, 300, 3), FELT, np.uint8)
    quad = _upright(80, 100)
    _lay(frame, "9c", quad)
    return frame, quad


@pytest.mark.parametrize(("corners", "named"), [
    pytest.param([_corner("9", 0.48), _corner("Q", 0.43)], "9", id="one corner's best rank is the count"),
    pytest.param([None, _corner("9", MIN_INDEX_SCORE)], "9", id="at the index bar"),
    pytest.param([_corner("9", MIN_INDEX_SCORE - 0.01), None], None, id="under the index bar"),
    pytest.param([_corner("Q", 0.43), _corner("6", 0.5)], None, id="no corner reads the count"),
    pytest.param([None, None], None, id="no corner read"),
    pytest.param([_corner("9", 0.48), _corner("Q", BAR)], None, id="another rank at the profile's bar"),
])
def test_the_pips_name_a_card_only_with_its_index(corners: list[CornerReading | None], named: str | None) -> None:
    frame, quad = _nine_on_felt()
    assert named_by_pips(frame, quad, corners, rank_bar=BAR) == named


def test_an_outline_of_no_card_s_shape_is_not_named() -> None:
    frame, quad = _nine_on_felt()
    square = quad.copy()
    square[2:, 1] = quad[0, 1] + 130  # as wide as long
    assert named_by_pips(frame, square, [_corner("9", 0.9)] * 2, rank_bar=BAR) is None


def test_the_recognizer_names_an_unnamed_outline_by_its_pips(monkeypatch: pytest.MonkeyPatch) -> None:
    """A photograph's outline left unnamed by every look (its index read unsurely, here made so) is named by its
    pips and its index together; the 1280 x 720 frame path and the built-in profile never are."""
    frame, quad = _nine_on_felt()
    corners = tuple((float(x), float(y)) for x, y in quad)
    unnamed = Detection(card=None, face="up", confidence=0.48, corners=corners)
    monkeypatch.setattr(Recognizer, "_identify", lambda self, image: [unnamed] if image is frame else [])
    monkeypatch.setattr(pipeline, "read_outline", lambda image, q, profile: iter([_corner("9", 0.48), None]))
    out = Recognizer(SEARCHING).identify(frame)
    assert [(d.rank, d.card, d.confidence, d.corners) for d in out] == [("9", None, 0.48, corners)]
    assert [d.rank for d in Recognizer(default_profile()).identify(frame)] == [None]
    big = np.zeros((720, 1280, 3), np.uint8)
    monkeypatch.setattr(Recognizer, "_identify", lambda self, image: [unnamed])
    assert [d.rank for d in Recognizer(SEARCHING).identify(big)] == [None]
    monkeypatch.setattr(Recognizer, "_identify", lambda self, image: [unnamed] if image is frame else [])
    monkeypatch.setattr(pipeline, "read_outline", lambda image, q, profile: iter([_corner("Q", 0.48), None]))
    assert [d.rank for d in Recognizer(SEARCHING).identify(frame)] == [None]
