"""A photograph read a fourth time enlarged (`pipeline.ENLARGED_LOOK`).

A small card's index is a few pixels tall. Enlarged, every fixed pixel measure of detection and reading meets
it differently, and a card the other looks leave unknown may read. Only a photograph's frame that stays one found
at full size when enlarged takes the look: never the 1280 x 720 frame path, nor the built-in profile."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_detect_covered import FELT, SEARCHING
from tests.vision.test_reoutline import _lay
from vision import pipeline
from vision.pipeline import ENLARGED_LOOK, REOUTLINE_MAX_WIDTH, Detection, Recognizer
from vision.profile import default_profile

SMALL = 0.3  # of the simulated camera's card size in the other tests (130 x 182 px): 39 x 55 px


def _quad(x: float, y: float) -> npt.NDArray[np.float32]:
    w, h = 130 * SMALL, 182 * SMALL
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def _small_cards() -> tuple[npt.NDArray[np.uint8], dict[str, npt.NDArray[np.float32]]]:
    """A jack, an ace and a seven, each 39 x 55 px, on felt in a 300 x 400 photograph."""
    frame = np.full((400, 300, 3), FELT, np.uint8)
    quads = {card: _quad(20 + 90 * i, 60 + 40 * i) for i, card in enumerate(("Jc", "As", "7h"))}
    for card, quad in quads.items():
        _lay(frame, card, quad)
    return frame, quads


def _ace(frame: npt.NDArray[np.uint8]) -> list[Detection]:
    return [d for d in Recognizer(SEARCHING).identify(frame) if d.rank == "A"]


def test_a_small_card_is_read_by_the_enlarged_look(monkeypatch: pytest.MonkeyPatch) -> None:
    # The sharpened look (`vision.focus`) reads this ace too: read as the photograph itself, it adds nothing.
    monkeypatch.setattr(pipeline, "sharpened", lambda image: image)
    frame, quads = _small_cards()
    aces = _ace(frame)
    assert len(aces) == 1
    x, y = aces[0].center
    box = quads["As"]
    assert box[0, 0] <= x <= box[1, 0] and box[0, 1] <= y <= box[2, 1]  # in the ace's own pixels
    assert sorted(d.rank or "-" for d in Recognizer(SEARCHING).identify(frame)) == ["7", "A", "J"]
    # Without the enlarged look the ace stays unknown.
    monkeypatch.setattr(pipeline, "ENLARGED_LOOK", 100.0)
    assert _ace(frame) == []


def test_only_a_frame_found_at_full_size_once_enlarged_takes_the_enlarged_look(
        monkeypatch: pytest.MonkeyPatch) -> None:
    widths: list[int] = []
    real = Recognizer._identify

    def identify(self: Recognizer, image: npt.NDArray[np.uint8]) -> list[Detection]:
        widths.append(image.shape[1])
        return real(self, image)

    monkeypatch.setattr(Recognizer, "_identify", identify)
    frame, _ = _small_cards()
    Recognizer(SEARCHING).identify(frame)
    assert round(300 * ENLARGED_LOOK) in widths
    widest = max(w for w in range(700, 800) if round(w * ENLARGED_LOOK) <= REOUTLINE_MAX_WIDTH)
    assert widest == 755  # enlarged, 1007 px
    for width, enlarged in ((widest, True), (widest + 1, False)):
        widths.clear()
        wide = np.full((400, width, 3), FELT, np.uint8)
        wide[:, :300] = frame
        Recognizer(SEARCHING).identify(wide)
        assert (max(widths) > width) == enlarged
    widths.clear()
    Recognizer(SEARCHING).identify(np.full((720, 1280, 3), FELT, np.uint8))  # the frame path
    Recognizer(default_profile()).identify(frame)  # the built-in profile
    assert max(widths) == 1280 and 400 not in widths
