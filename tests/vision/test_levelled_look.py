"""A photograph read a third time levelled for its light (`exposure.levelled`, `pipeline.levelled_surely`).

A card in a table's shadow while the rest of the photograph is lit: its paper is too dark for the first two
looks, and the lit paper elsewhere keeps `exposure.exposed` from scaling the frame. Levelled, each region's paper
is brought up to the frame's brightest and the card reads. A region with no paper is left as it is, an evenly lit
frame is not read a third time, and what the third look names is kept only when sure and where it changed the
light."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_detect_covered import FELT, SEARCHING, _upright
from tests.vision.test_reoutline import _lay
from vision import pipeline
from vision.exposure import LEVEL_LOW, LEVEL_MAX_GAIN, LEVEL_MIN_GAIN, level_gain, levelled
from vision.pipeline import LEVELLED_GAIN, LEVELLED_SURE, Detection, Recognizer
from vision.profile import default_profile

TABLE = (150, 170, 180)  # a beige table, as the photographs' kitchen tables
LIT = _upright(80, 150)  # the queen in the light, x 80-210
SHADED = _upright(520, 150)  # the king in the shadow, x 520-650
EDGE = 420  # the shadow falls from here ...
SOFT = 40  # ... over this many pixels


def _scene(shade: float, table: tuple[int, int, int] = TABLE, *, noise: float = 0.0,
           blur: float = 0.0) -> npt.NDArray[np.uint8]:
    """A queen of spades in the light and a king of hearts in a shadow of `shade` of the light over the
    frame's right part; the print blurred by `blur` (sigma, pixels) and the frame given a sensor's `noise`."""
    frame = np.full((520, 760, 3), table, np.uint8)
    _lay(frame, "Qs", LIT)
    _lay(frame, "Kh", SHADED)
    if blur:
        frame = np.asarray(cv2.GaussianBlur(frame, (0, 0), blur), np.uint8)
    x = np.arange(frame.shape[1], dtype=np.float32)[None, :]
    light = np.clip(1.0 - (1.0 - shade) * (x - EDGE) / SOFT, shade, 1.0)
    shaded = frame * light[..., None] + np.random.default_rng(3).normal(0.0, noise, frame.shape)
    return np.asarray(np.clip(np.rint(shaded), 0, 255), np.uint8)


def _ranks(frame: npt.NDArray[np.uint8]) -> list[str]:
    return sorted(d.rank or "-" for d in Recognizer(SEARCHING).identify(frame))


def test_a_card_in_a_shadow_is_read_by_the_levelled_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """A king at 0.4 of the light on felt, a little blurred and noisy, as a phone's photograph is."""
    frame = _scene(0.4, FELT, noise=4.0, blur=1.0)
    assert level_gain(frame)[240, 585] > 1.5
    assert _ranks(frame) == ["K", "Q"]
    monkeypatch.setattr(pipeline, "levelled", lambda image, gain=None: None)
    assert _ranks(frame) == ["Q"]


def test_the_gain_brings_shaded_paper_up_and_leaves_a_frame_without_paper_as_it_is() -> None:
    frame = _scene(0.5)
    gain = level_gain(frame)
    assert gain.shape == frame.shape[:2] and gain.dtype == np.float32
    assert gain[240, 585] == pytest.approx(2.0, abs=0.1)  # the king's paper, at half the light
    assert gain[240, 145] == pytest.approx(1.0, abs=0.05)  # the queen's, in the light
    # Deeper than half, at most LEVEL_MAX_GAIN; and a shadow as dark as a table with no card in it tapers to 1.
    assert float(level_gain(_scene(0.4)).max()) <= LEVEL_MAX_GAIN
    assert level_gain(_scene(LEVEL_LOW * 0.9))[240, 585] == pytest.approx(1.0, abs=0.05)
    felt = np.full((300, 400, 3), FELT, np.uint8)
    assert float(level_gain(felt).max()) == pytest.approx(1.0)
    assert levelled(felt) is None


def test_an_evenly_lit_frame_is_not_read_a_third_time(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _scene(1.0, FELT)
    assert float(level_gain(frame).max()) <= LEVEL_MIN_GAIN
    assert levelled(frame) is None
    # A light table far from any card cannot be told by its level from paper in a shadow: it is gained (the
    # levelled look's names must be sure, LEVELLED_SURE), while the cards are not.
    beige = level_gain(_scene(1.0))
    assert float(beige[500, 380]) > 1.5 and float(beige[240, 145]) < 1.1
    frame = _scene(1.0)
    shaded = levelled(_scene(0.5))
    assert shaded is not None and shaded.dtype == np.uint8 and shaded.shape == frame.shape
    # The king's paper, at half of the queen's, is back within a tenth of it.
    assert int(_scene(0.5)[160, 600].min()) <= 0.55 * int(frame[160, 160].min())
    assert int(shaded[160, 600].min()) >= 0.9 * int(frame[160, 160].min())

    def refuse(image: npt.NDArray[np.uint8], gain: object = None) -> npt.NDArray[np.uint8]:
        raise AssertionError("levelled")

    monkeypatch.setattr(pipeline, "levelled", refuse)
    dim = _scene(0.5)
    big = np.zeros((720, 1280, 3), np.uint8)
    big[:520, :760] = dim
    Recognizer(SEARCHING).identify(big)  # the 1280 x 720 frame path: no third look
    Recognizer(default_profile()).identify(dim)  # the built-in profile: no third look
    with pytest.raises(AssertionError):
        Recognizer(SEARCHING).identify(dim)


def _named(rank: str, confidence: float, quad: npt.NDArray[np.float32]) -> Detection:
    return Detection(card=None, face="up", confidence=confidence, rank=rank,
                     corners=tuple((float(x), float(y)) for x, y in quad))


@pytest.mark.parametrize(("where", "confidence", "added"), [
    pytest.param(SHADED, LEVELLED_SURE - 0.01, False, id="in the shadow, unsure: not added"),
    pytest.param(SHADED, LEVELLED_SURE, True, id="in the shadow, sure: added"),
    pytest.param(LIT, 0.95, False, id="in the light (gain 1), however sure: not added"),
])
def test_only_what_the_levelled_look_names_surely_where_it_changed_the_light_is_added(
        monkeypatch: pytest.MonkeyPatch, where: npt.NDArray[np.float32], confidence: float, added: bool) -> None:
    """The levelled look's names under LEVELLED_SURE were names on no labelled card on the tuning split, and one
    where its gain is under LEVELLED_GAIN a "9" off a pile of backs on the wrong-name bench."""
    frame = _scene(0.5)
    gain = level_gain(frame)
    x, y = where.mean(axis=0)
    assert (gain[int(y), int(x)] >= LEVELLED_GAIN) == (where is SHADED)
    marker = np.zeros((2, 2, 3), np.uint8)
    monkeypatch.setattr(pipeline, "levelled", lambda image, gain=None: marker)
    real = Recognizer._identify

    def identify(self: Recognizer, image: npt.NDArray[np.uint8]) -> list[Detection]:
        if image is marker:
            return [_named("9", confidence, where)]
        # The first two looks are made to miss both cards (each look at its own scale).
        return [d for d in real(self, image) if d.rank is None]

    monkeypatch.setattr(Recognizer, "_identify", identify)
    out = Recognizer(SEARCHING).identify(frame)
    assert ("9" in {d.rank for d in out}) == added
