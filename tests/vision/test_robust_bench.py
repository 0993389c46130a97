"""The robustness bench's variants move a photograph's label boxes exactly as they move its pixels.

Synthetic: a white rectangle on a dark frame is changed by each variant, and its moved label box must be the
bounding box of the white pixels in the changed frame (no shared data needed)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.vision import Label
from bench.vision_robust import KEEP_INSIDE, VARIANTS, Variant, moved_labels

W, H = 160, 120
BOX = (30.0, 20.0, 70.0, 76.0)  # a card-shaped box, away from the middle so every turn moves it


def _frame() -> np.ndarray:
    image = np.full((H, W, 3), 20, np.uint8)
    x0, y0, x1, y1 = map(int, BOX)
    image[y0:y1, x0:x1] = 235
    return image


def _white_box(image: np.ndarray) -> tuple[float, float, float, float]:
    ys, xs = np.nonzero(image.max(axis=2) > 127)
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_box_follows_the_pixels(variant: Variant) -> None:
    changed = variant.image(_frame())
    label: Label = ("K", *BOX)
    [moved] = moved_labels(variant, [label], W, H, (changed.shape[1], changed.shape[0]))
    assert moved is not None and moved[0] == "K"
    # Pixels are whole, the turned box's corners are not: within 1.5 px of the pixels' bounding box.
    assert moved[1:] == pytest.approx(_white_box(changed), abs=1.5)


def test_quarter_turns_are_exact_and_undo_each_other() -> None:
    by_name = {v.name: v for v in VARIANTS}
    label: Label = ("Q", *BOX)
    [r90] = moved_labels(by_name["rot90"], [label], W, H, (H, W))
    assert r90 == ("Q", H - BOX[3], BOX[0], H - BOX[1], BOX[2])
    assert r90 is not None
    [back] = moved_labels(by_name["rot270"], [r90], H, W, (W, H))
    assert back == label


def test_turned_box_is_the_turned_cards_bounding_box_and_grows() -> None:
    turn = next(v for v in VARIANTS if v.name == "turn10")
    [moved] = moved_labels(turn, [("A", *BOX)], W, H, (W, H))
    assert moved is not None
    w0, h0 = BOX[2] - BOX[0], BOX[3] - BOX[1]
    c, s = np.cos(np.radians(10.0)), np.sin(np.radians(10.0))
    assert moved[3] - moved[1] == pytest.approx(w0 * c + h0 * s, abs=1e-6)
    assert moved[4] - moved[2] == pytest.approx(h0 * c + w0 * s, abs=1e-6)


def test_a_card_turned_mostly_out_of_the_frame_is_left_out() -> None:
    turn = next(v for v in VARIANTS if v.name == "turn10")
    # A card in the top-right corner: the turn (counter-clockwise) carries it up and out of the frame.
    corner: Label = ("7", W - 12.0, 0.0, float(W), 10.0)
    inside: Label = ("8", *BOX)
    moved = moved_labels(turn, [corner, inside], W, H, (W, H))
    assert moved[0] is None and moved[1] is not None
    assert 0.0 < KEEP_INSIDE < 1.0
