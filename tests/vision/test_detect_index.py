"""Cards found by their corner index (`vision.detect.index_corners`): where glyphs are looked for, and which of
them are paired as a rank over its suit."""

from __future__ import annotations

import cv2
import numpy as np

from hardware_sim.camera import procedural_faces
from vision.detect import find_cards, index_corners
from vision.pipeline import Recognizer
from vision.rectify import CORNER_H, CORNER_W, corner_crop_at, corner_frame, gray
from vision.settings import SETTINGS


def _dim_room(card: str, at: tuple[int, int], light: float) -> np.ndarray:
    """A 640 x 480 frame of a dim room (dark, noisy) with one upright card of the simulator's deck at `at`, its
    paper lit to `light` of white."""
    rng = np.random.default_rng(7)
    frame = np.clip(rng.normal(22, 4, (480, 640, 3)), 0, 255).astype(np.uint8)
    face = cv2.resize(procedural_faces(0).face(card), (120, 168), interpolation=cv2.INTER_AREA)
    x, y = at
    frame[y:y + 168, x:x + 120] = np.clip(face.astype(np.float32) * light, 0, 255).astype(np.uint8)
    return frame


def _index_names(frame: np.ndarray, near: tuple[float, float], reach: float) -> list[tuple[str | None, float]]:
    """What the reader reads in each index window proposed from glyphs whose centre lies within `reach` pixels
    of `near`."""
    found = find_cards(frame, SETTINGS, indices=False)
    corners = index_corners(frame, found, SETTINGS)
    quads = [corner_frame(c.point, c.along_short, c.along_long, c.widths[0]) for c in corners]
    windows = [q[0] + (q[1] - q[0]) * CORNER_W / 2 + (q[3] - q[0]) * CORNER_H / 2 for q in quads]
    close = [q for q, w in zip(quads, windows, strict=True) if float(np.hypot(*(w - np.array(near)))) <= reach]
    readings = Recognizer().read([corner_crop_at(gray(frame), q) for q in close])
    return [readings.best(i) for i in range(len(close))]


def test_dark_ink_on_a_dim_white_card_is_looked_for() -> None:
    # a white card in a dim room is as dark as a black deck's card: its paper is below the paper level, and its
    # ink, darker still, is an index all the same
    frame = _dim_room("7c", (250, 150), 0.3)
    assert int(frame[150:318, 250:370].min(axis=2).mean()) < SETTINGS.paper_level
    names = _index_names(frame, (265, 175), 25)
    assert any(card == "7c" and p >= SETTINGS.index_bar for card, p in names), names


def test_the_closest_glyph_pairs_are_kept_where_there_are_more_than_the_cap() -> None:
    # white paper all over (a light desk, a printed sheet): rows of dots above a card whose paper is the desk's
    # (no outline holds it) give far more pairs than are read; the index, a rank right over its suit, is closer
    # than any two dots and is read, wherever it lies in the frame
    frame = np.full((480, 640, 3), 255, np.uint8)
    for y in range(20, 200, 15):
        for x in range(20, 620, 15):
            cv2.circle(frame, (x, y), 5, (40, 40, 40), -1)
    face = cv2.resize(procedural_faces(0).face("7c"), (120, 168), interpolation=cv2.INTER_AREA)
    frame[280:448, 400:520] = face
    names = _index_names(frame, (415, 305), 25)
    assert any(card == "7c" and p >= SETTINGS.index_bar for card, p in names), names


def test_an_index_close_to_the_camera_is_read() -> None:
    # a card held close to the camera, most of it out of the frame: its rank and suit are each about a sixth of
    # the frame's height (its pips larger still)
    frame = np.empty((360, 480, 3), np.uint8)
    frame[:] = (60, 100, 140)  # a wooden table top
    face = procedural_faces(0).face("7c")
    big = cv2.resize(face, (face.shape[1] * 5 // 2, face.shape[0] * 5 // 2), interpolation=cv2.INTER_LINEAR)
    frame[30:, 40:] = big[:330, :440]
    names = _index_names(frame, (40 + 25 * 5 / 2, 30 + 45 * 5 / 2), 60)
    assert any(card == "7c" and p >= SETTINGS.index_bar for card, p in names), names
