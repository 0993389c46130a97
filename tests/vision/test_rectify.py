"""The small numeric helpers of vision.rectify against their plain definitions."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, procedural_faces, random_scene, render_with_truth
from vision.pipeline import Recognizer
from vision.rectify import (
    CORNER_H,
    CORNER_W,
    CROP_H,
    CROP_W,
    FloatArray,
    Image,
    box_quad,
    corner_crops_at,
    order_quad,
    quantiles_u8,
    side_lengths,
    to_blob,
)


@pytest.mark.parametrize("length", [1, 2, 3, 10, 11, 1536])
def test_quantiles_u8_are_numpy_quantiles(length: int) -> None:
    rng = np.random.default_rng(length)
    wide = rng.integers(0, 256, (5, length), dtype=np.uint8)
    narrow = rng.integers(120, 124, (5, length), dtype=np.uint8)  # many ties
    for rows in (wide, narrow):
        assert np.array_equal(quantiles_u8(rows), np.median(rows, axis=1))
        for q in (0.0, 0.75, 0.95, 1.0):
            assert np.allclose(quantiles_u8(rows, q), np.quantile(rows, q, axis=1), rtol=0, atol=1e-9)


def test_side_lengths_of_a_tilted_rectangle() -> None:
    angle = np.deg2rad(30.0)
    u = np.array([np.cos(angle), np.sin(angle)])
    v = np.array([-np.sin(angle), np.cos(angle)])
    corner = np.array([40.0, 10.0])
    quad = np.array([corner, corner + 50 * u, corner + 50 * u + 70 * v, corner + 70 * v], np.float32)
    short, long_ = side_lengths(quad)
    assert short == pytest.approx(50.0, abs=1e-3)
    assert long_ == pytest.approx(70.0, abs=1e-3)


def test_order_quad_goes_clockwise_from_the_upper_end_of_a_short_side_whatever_the_points_order() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        angle, (w, h) = rng.uniform(-np.pi, np.pi), rng.uniform(20, 300, 2)
        turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        quad = ((np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2 + rng.normal(0, 2, (4, 2))) @ turn.T
                + rng.uniform(0, 1000, 2)).astype(np.float32)
        out = order_quad(quad[rng.permutation(4)])
        assert sorted(map(tuple, out.tolist())) == sorted(map(tuple, quad.tolist()))  # the same points
        assert cv2.contourArea(out, oriented=True) > 0  # clockwise on screen (y down)
        edges = np.linalg.norm(np.roll(out, -1, axis=0) - out, axis=1)
        assert edges[0] + edges[2] <= edges[1] + edges[3]  # a short side first
        assert out[0, 1] + 0.01 * out[0, 0] <= out[2, 1] + 0.01 * out[2, 0]  # from the upper of the two ends
        assert np.array_equal(order_quad(quad), out)


def test_to_blob_turns_light_ink_dark() -> None:
    dark_ink = np.full((CROP_H, CROP_W), 220, np.uint8)
    dark_ink[10:20, 5:12] = 30
    light_ink = 255 - dark_ink  # the same index, light on a dark card
    blob = to_blob([dark_ink, light_ink])
    assert blob.shape == (2, 1, CROP_H, CROP_W)
    assert np.allclose(blob[0], blob[1], atol=1e-5)


def _smoothed_then_cut(image: Image, quad: FloatArray) -> Image:
    """The index window by its definition: the whole frame smoothed by a Gaussian of 0.45 times the shrink, then
    sampled at the window's pixels."""
    w, h = (float(np.linalg.norm(quad[k] - quad[0])) for k in (1, 3))
    u, v = (quad[1] - quad[0]) / w, (quad[3] - quad[0]) / h
    sx, sy = w * CORNER_W / CROP_W, h * CORNER_H / CROP_H
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (0, 0), 0.45 * sx)
    m = np.array([[u[0] * sx, v[0] * sy, quad[0][0]], [u[1] * sx, v[1] * sy, quad[0][1]]], np.float32)
    return np.asarray(cv2.warpAffine(grey, m, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE), np.uint8)


@pytest.mark.parametrize("width", [700, 1500])
def test_a_large_window_is_cut_from_a_halving_as_by_its_definition(width: int) -> None:
    """A card far larger than the crop (a phone close over it) is cut from a halving of the frame, smoothed there to
    the same total blur: the crop matches the definition to about a grey level on average (half a pixel of the
    halving off would be about five)."""
    face = procedural_faces(0).face("Qs")
    card = cv2.resize(face, (width, round(width * face.shape[0] / face.shape[1])), interpolation=cv2.INTER_CUBIC)
    frame = np.full((card.shape[0] + 200, width + 200, 3), (40, 110, 30), np.uint8)
    frame[100:100 + card.shape[0], 100:100 + width] = card
    quad = box_quad(100, 100, 100 + width, 100 + card.shape[0])
    diff = np.abs(corner_crops_at(frame, [quad])[0].astype(float) - _smoothed_then_cut(frame, quad).astype(float))
    assert diff.mean() < 1.5, diff.mean()


def test_a_frame_three_times_larger_names_every_card() -> None:
    """A table frame of eight cards scaled up three times (a photograph of 3840 x 2160) names them all."""
    frame = render_with_truth(random_scene(9, cards=8, face_down=0.0), 9, RenderOptions())
    big = cv2.resize(frame.image, None, fx=3.0, fy=3.0, interpolation=cv2.INTER_CUBIC)
    named = sorted(str(d.card) for d in Recognizer().identify(big) if d.card)
    assert named == sorted(t.card for t in frame.truth)
