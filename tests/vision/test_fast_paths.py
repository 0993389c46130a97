"""The recognizer's shortcuts give exactly what the plain computations they replace give.

Each shortcut (a histogram for a percentile, a lookup table for the ink image, the hull of the row ends
for the hull of every ink pixel, an opening skipped when its erosion is empty, masked means from OpenCV)
is compared here, bit for bit, with the straightforward NumPy/OpenCV computation it stands for, on
random images and on real-looking index corners.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from vision import identify
from vision.detect import find_cards
from vision.profile import RANK_SHAPE, SUIT_SHAPE, default_profile, glyph_aspect, glyph_solidity, glyph_vector

Image = npt.NDArray[np.uint8]


def _plain_solidity(mask: Image) -> float:
    pts = cv2.findNonZero((mask > 127).astype(np.uint8))
    if pts is None or len(pts) < 3:
        return 1.0
    hull = cv2.convexHull(pts)
    hull_area = float(cv2.contourArea(hull)) + 0.5 * float(cv2.arcLength(hull, True)) + 1.0
    return min(1.0, float((mask > 127).sum()) / hull_area)


def _plain_without_rules(binary: Image) -> Image:
    h, w = binary.shape
    widened = cv2.dilate(binary, identify._WIDEN_X)
    vertical = cv2.morphologyEx(widened, cv2.MORPH_OPEN,
                                cv2.getStructuringElement(cv2.MORPH_RECT, (1, max(3, round(0.45 * h)))))
    dashed = cv2.morphologyEx(cv2.morphologyEx(widened, cv2.MORPH_CLOSE, identify._GAP_Y), cv2.MORPH_OPEN,
                              cv2.getStructuringElement(cv2.MORPH_RECT, (1, max(3, round(0.62 * h)))))
    horizontal = cv2.morphologyEx(cv2.dilate(binary, identify._WIDEN_Y), cv2.MORPH_OPEN,
                                  cv2.getStructuringElement(cv2.MORPH_RECT, (max(3, round(0.7 * w)), 1)))
    rules = cv2.dilate(cv2.bitwise_or(cv2.bitwise_or(vertical, dashed), horizontal), identify._RIM)
    return np.asarray(cv2.bitwise_and(binary, 1 - rules), np.uint8)


@pytest.fixture(scope="module")
def corners() -> list[Image]:
    """Index corners as the pipeline warps them from two rendered 1280 x 720 tables."""
    out: list[Image] = []
    for seed in (1000, 1001):
        image = render_with_truth(random_scene(seed, cards=10, face_down=0.2), seed, RenderOptions()).image
        for quad in find_cards(image):
            out.extend(identify.iter_index_corners(image, quad))
    assert len(out) >= 30
    return out


def _random_masks(n: int, seed: int) -> list[Image]:
    rng = np.random.default_rng(seed)
    masks: list[Image] = []
    for i in range(n):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        if i % 2:
            masks.append(((rng.random((h, w)) < rng.random()) * 255).astype(np.uint8))
        else:
            m = np.zeros((h, w), np.uint8)
            for _ in range(int(rng.integers(1, 4))):
                cv2.circle(m, (int(rng.integers(0, w)), int(rng.integers(0, h))), int(rng.integers(0, 10)), 255, -1)
            masks.append(m)
    return masks


def test_solidity_is_that_of_the_hull_of_all_ink(corners: list[Image]) -> None:
    masks = _random_masks(3000, 7)
    for corner in corners:
        glyphs = identify.extract_glyphs(corner)
        if glyphs is not None:
            small = cv2.resize(glyphs.rank, (RANK_SHAPE[1], RANK_SHAPE[0]), interpolation=cv2.INTER_AREA)
            masks += [glyphs.rank, glyphs.suit, np.asarray(small, np.uint8)]
    profile = default_profile()
    masks += list(profile.ranks.masks) + list(profile.suits.masks)
    assert [glyph_solidity(m) for m in masks] == [_plain_solidity(m) for m in masks]


def test_darkest_channel_and_paper_level(corners: list[Image]) -> None:
    rng = np.random.default_rng(3)
    images = [*corners, rng.integers(0, 256, (37, 23, 3), dtype=np.uint8),
              np.ascontiguousarray(rng.integers(0, 256, (20, 30, 4), dtype=np.uint8)[:, ::-1])]
    for image in images:
        low = identify._darkest(image)
        assert low.dtype == np.uint8
        assert np.array_equal(low, image[:, :, :3].min(axis=2))
        flat = low.astype(np.float32).ravel()
        k = int(0.85 * (flat.size - 1))
        below = np.bincount(low.ravel(), minlength=256).cumsum()
        assert identify._order_level(below, k) == float(np.partition(flat, k)[k])


def test_faint_ink_test_skipped_only_when_it_would_fail() -> None:
    """`_may_be_faint` says no only for a corner whose strongest ink fails the faint-ink test anyway."""
    rng = np.random.default_rng(9)
    said_no = passed = 0
    for i in range(3000):
        size = int(rng.integers(20, 6000))
        paper = int(rng.integers(150, 256))
        # Light paper with a few darker pixels: some faint, some strong, some corners without ink.
        low = np.full(size, paper, np.int32) - rng.integers(0, 12, size)
        dark = rng.random(size) < rng.choice([0.0, 0.002, 0.005, 0.01, 0.05])
        low[dark] = paper - rng.integers(0, paper + 1, int(dark.sum())) * rng.random()
        low8 = np.clip(low, 0, 255).astype(np.uint8).reshape(1, -1)
        below = np.bincount(low8.ravel(), minlength=256).cumsum()
        level = identify._order_level(below, int(0.85 * (low8.size - 1)))
        strength = (level - identify._LEVELS) / level
        ink = (level - low8.astype(np.float32)) / level
        strongest = float(np.percentile(ink, identify.STRONGEST))
        passes = identify.FAINT_SHARE * strongest >= identify.FAINT_MIN and strongest < identify.FAINT_MAX
        maybe = identify._may_be_faint(below, strength)
        assert maybe or not passes, i
        said_no += not maybe
        passed += passes
    assert said_no > 500 and passed > 100  # both kinds of corner were tried


def test_rules_removed_as_by_the_full_openings(corners: list[Image]) -> None:
    rng = np.random.default_rng(5)
    binaries = []
    for corner in corners:
        low = corner.min(axis=2).astype(np.float32)
        for threshold in (0.3, 0.45):
            binaries.append(((np.percentile(low, 85) - low) / max(float(np.percentile(low, 85)), 1.0)
                             > threshold).astype(np.uint8))
    for _ in range(200):
        b = (rng.random((101, 50)) < 0.1).astype(np.uint8)
        b[:, int(rng.integers(0, 50))] = 1  # a full-height line somewhere
        binaries += [b, np.ascontiguousarray(b.T[:50, :40])]
    removed = 0
    for b in binaries:
        got = identify._without_rules(b)
        assert np.array_equal(got, _plain_without_rules(b))
        removed += not np.array_equal(got, b)
    assert 0 < removed < len(binaries)  # both the shortcut and the full path were taken


def test_ink_colour_means_are_the_float32_means(corners: list[Image]) -> None:
    rng = np.random.default_rng(11)
    for corner in corners:
        labels = rng.integers(0, 5, corner.shape[:2]).astype(np.int32)
        chosen = (rng.random(5) < 0.5).astype(np.uint8)
        px = corner[chosen[labels].astype(bool)].astype(np.float32)
        got = identify._ink_means(corner, labels, chosen)
        if len(px) < 10:
            assert got is None
        else:
            assert got == (px[:, 0].mean(), px[:, 1].mean(), px[:, 2].mean())


def test_scores_as_from_the_glyph_vectors(corners: list[Image]) -> None:
    """`TemplateSet.scores` (one resize for the vector and the solidity, cached aspect floor) gives the
    scores of the plain formula: correlation less the aspect and solidity penalties, best per label."""
    profile = default_profile()
    for corner in corners[:20]:
        glyphs = identify.extract_glyphs(corner)
        if glyphs is None:
            continue
        for templates, mask, shape in ((profile.ranks, glyphs.rank, RANK_SHAPE),
                                       (profile.suits, glyphs.suit, SUIT_SHAPE)):
            corr = np.einsum("ij,j->i", templates.vectors, glyph_vector(mask, shape))
            penalty = 0.6 * np.abs(np.log(np.maximum(templates.aspects, 1e-3) / max(glyph_aspect(mask), 1e-3)))
            small = np.asarray(cv2.resize(mask, (shape[1], shape[0]), interpolation=cv2.INTER_AREA), np.uint8)
            total = corr - (penalty + templates.solidity_weight * np.abs(templates.solidity - _plain_solidity(small)))
            plain = {label: float(max(t for t, lbl in zip(total, templates.labels, strict=True) if lbl == label))
                     for label in set(templates.labels)}
            assert templates.scores(mask, shape) == plain
