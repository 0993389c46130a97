"""A soft photograph read again sharpened (`vision.focus`, `pipeline.SHARPENED_SURE`).

Out of focus, a small card's index strokes spread and lighten, and the reader's ink cut fills them into blobs.
The unsharp mask restores their contrast; the recognizer keeps what only the sharpened reading names surely.
Only a photograph's frame (a searching profile, found at full size) takes that look."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_detect_covered import FELT, SEARCHING
from tests.vision.test_reoutline import _lay
from vision import pipeline
from vision.focus import SHARPEN_AMOUNT, sharpened
from vision.pipeline import Detection, Recognizer
from vision.profile import default_profile

CARDS = ("Ah", "Ts", "6c", "Qd", "9h", "Kc", "4s", "Jd", "8c")
SCALE = 0.6  # of the simulated camera's card size in the other tests (130 x 182 px): 78 x 109 px
SOFT = 1.0  # the photograph's blur (Gaussian sigma, pixels)


def _soft_photograph() -> tuple[npt.NDArray[np.uint8], dict[str, npt.NDArray[np.float32]]]:
    """Nine cards 78 x 109 px on felt in a 640 x 480 photograph, blurred as by a lens out of focus."""
    frame = np.full((480, 640, 3), FELT, np.uint8)
    w, h = 130 * SCALE, 182 * SCALE
    quads = {}
    for i, card in enumerate(CARDS):
        x, y = 30 + (i % 5) * (w + 40), 40 + (i // 5) * (h + 60)
        quads[card] = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
        _lay(frame, card, quads[card])
    return np.ascontiguousarray(cv2.GaussianBlur(frame, (0, 0), SOFT), dtype=np.uint8), quads


def _where(detections: list[Detection], quads: dict[str, npt.NDArray[np.float32]]) -> dict[str, str | None]:
    """Each card's rank as read by the detection centred in its outline (None: unknown or not found)."""
    out: dict[str, str | None] = {}
    for card, quad in quads.items():
        here = [d for d in detections
                if cv2.pointPolygonTest(quad.reshape(-1, 1, 2), d.center, False) >= 0]
        assert len(here) <= 1, f"{card}: {len(here)} detections"
        out[card] = here[0].rank if here else None
    return out


def test_sharpened_steepens_an_edge_and_leaves_flat_paper_alone() -> None:
    flat = np.full((40, 60, 3), 200, np.uint8)
    assert np.array_equal(sharpened(flat), flat)
    step = np.full((40, 60, 3), 220, np.uint8)
    step[:, 30:] = 40
    soft = np.ascontiguousarray(cv2.GaussianBlur(step, (0, 0), 2.0), dtype=np.uint8)
    sharp = sharpened(soft)
    assert sharp.dtype == np.uint8 and sharp.shape == soft.shape
    # The edge's contrast comes back: a steeper ramp across it.
    def steepest(image: npt.NDArray[np.uint8]) -> int:
        return int(np.abs(np.diff(image[20, :, 0].astype(int))).max())

    assert steepest(sharp) > steepest(soft)
    assert SHARPEN_AMOUNT > 0


def test_a_soft_photographs_cards_read_with_the_sharpened_look(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, quads = _soft_photograph()
    read = _where(Recognizer(SEARCHING).identify(frame), quads)
    # Every card is read, and read right.
    assert read == {card: card[0] for card in CARDS}
    # Without the sharpened look (the look read as the photograph itself adds nothing), one is not.
    monkeypatch.setattr(pipeline, "sharpened", lambda image: image)
    without = _where(Recognizer(SEARCHING).identify(frame), quads)
    assert all(rank in (None, card[0]) for card, rank in without.items())
    assert sum(rank is None for rank in without.values()) >= 1


def test_only_a_photographs_frame_takes_the_sharpened_look(monkeypatch: pytest.MonkeyPatch) -> None:
    looks: list[tuple[int, int]] = []

    def spy(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        looks.append(image.shape[:2])
        return sharpened(image)

    monkeypatch.setattr(pipeline, "sharpened", spy)
    frame, _ = _soft_photograph()
    Recognizer(SEARCHING).identify(frame)
    assert looks == [(480, 640)]
    looks.clear()
    Recognizer(SEARCHING).identify(np.full((720, 1280, 3), FELT, np.uint8))  # the 1280 x 720 frame path
    Recognizer(default_profile()).identify(frame)  # the built-in profile
    assert looks == []
