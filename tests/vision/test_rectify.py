"""The small numeric helpers of vision.rectify against their plain definitions."""

from __future__ import annotations

import numpy as np
import pytest

from vision.rectify import CROP_H, CROP_W, medians_u8, side_lengths, to_blob


@pytest.mark.parametrize("length", [1, 2, 3, 10, 11, 1536])
def test_medians_u8_are_numpy_medians(length: int) -> None:
    rng = np.random.default_rng(length)
    wide = rng.integers(0, 256, (5, length), dtype=np.uint8)
    narrow = rng.integers(120, 124, (5, length), dtype=np.uint8)  # many ties
    for rows in (wide, narrow):
        assert np.array_equal(medians_u8(rows), np.median(rows, axis=1))


def test_side_lengths_of_a_tilted_rectangle() -> None:
    angle = np.deg2rad(30.0)
    u = np.array([np.cos(angle), np.sin(angle)])
    v = np.array([-np.sin(angle), np.cos(angle)])
    corner = np.array([40.0, 10.0])
    quad = np.array([corner, corner + 50 * u, corner + 50 * u + 70 * v, corner + 70 * v], np.float32)
    short, long_ = side_lengths(quad)
    assert short == pytest.approx(50.0, abs=1e-3)
    assert long_ == pytest.approx(70.0, abs=1e-3)


def test_to_blob_turns_light_ink_dark() -> None:
    dark_ink = np.full((CROP_H, CROP_W), 220, np.uint8)
    dark_ink[10:20, 5:12] = 30
    light_ink = 255 - dark_ink  # the same index, light on a dark card
    blob = to_blob([dark_ink, light_ink])
    assert blob.shape == (2, 1, CROP_H, CROP_W)
    assert np.allclose(blob[0], blob[1], atol=1e-5)
