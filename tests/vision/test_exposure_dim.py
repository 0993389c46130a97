"""A dim photograph is read as if exposed for its paper (`vision.exposure`): a searching profile scales a frame
found at full size whose brightest paper is under DIM so that it is WHITE, before anything looks at it.

Without it, a king in a shade deepening from 0.5 to 0.25 of the light over a whole dim photograph (no paper in
the light anywhere) was read twice, as two kings; scaled, it reads once, as in full light."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_detect_covered import FELT, SEARCHING, _upright
from tests.vision.test_reoutline import _lay
from vision import pipeline
from vision.exposure import DIM, MAX_GAIN, WHITE, brightest_paper, darkest_channel, exposed, exposure_gain
from vision.pipeline import Recognizer
from vision.profile import default_profile

TABLE = (150, 170, 180)  # a beige table
CARD = _upright(250, 120)  # x 250-380, y 120-302
LENGTH = 182.0


def _lit(near: float, far: float) -> npt.NDArray[np.uint8]:
    """A king of hearts on the table, the whole photograph `near` of the light at the card's top end,
    deepening to `far` at its bottom end and beyond."""
    frame = np.full((520, 760, 3), TABLE, np.uint8)
    _lay(frame, "Kh", CARD)
    y = np.arange(frame.shape[0], dtype=np.float32)[:, None]
    light = np.clip(near + (far - near) * (y - CARD[0, 1]) / LENGTH, far, near)
    return np.asarray(frame * light[..., None], np.uint8)


def test_a_light_frame_is_left_as_it_is() -> None:
    frame = _lit(1.0, 1.0)
    assert brightest_paper(darkest_channel(frame)) >= DIM
    assert exposure_gain(frame) == 1.0
    assert exposed(frame) is frame


@pytest.mark.parametrize("light", [0.65, 0.5])
def test_a_dim_frame_is_scaled_back_to_near_white_paper(light: float) -> None:
    lit = np.full((100, 120, 3), 40, np.uint8)
    lit[20:80, 30:90] = WHITE
    dim = np.asarray(np.rint(lit * light), np.uint8)
    assert exposure_gain(dim) == pytest.approx(WHITE / round(WHITE * light))
    assert np.abs(exposed(dim).astype(int) - lit).max() <= 1


def test_a_frame_without_paper_is_gained_at_most_max_gain() -> None:
    felt = np.full((100, 120, 3), FELT, np.uint8)
    assert exposure_gain(felt) == MAX_GAIN
    assert int(exposed(felt).max()) == min(255, round(max(FELT) * MAX_GAIN))


def test_a_dim_photograph_reads_its_card_once_as_in_full_light(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _lit(0.5, 0.25)
    assert exposure_gain(frame) == MAX_GAIN
    assert [d.rank for d in Recognizer(SEARCHING).identify(_lit(1.0, 1.0))] == ["K"]
    assert [d.rank for d in Recognizer(SEARCHING).identify(frame)] == ["K"]
    # Read as it is, the same photograph gave the king twice.
    monkeypatch.setattr(pipeline, "exposed", lambda image: image)
    assert [d.rank for d in Recognizer(SEARCHING).identify(frame)] == ["K", "K"]


def test_only_a_searching_profile_on_a_frame_found_at_full_size_scales(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        raise AssertionError("scaled")

    monkeypatch.setattr(pipeline, "exposed", refuse)
    dim = np.full((720, 1280, 3), 60, np.uint8)
    Recognizer(SEARCHING).identify(dim)  # the 1280 x 720 frame path: nothing added
    Recognizer(default_profile()).identify(dim[:540, :960])  # the built-in profile: nothing added
    with pytest.raises(AssertionError):
        Recognizer(SEARCHING).identify(dim[:540, :960])
