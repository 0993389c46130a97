"""Searching the index corner near its expected place (`DeckProfile.search`): an outline that is only roughly
the card's (a picture card found by its picture's frame) has its corners read again from grown and shrunk
outlines (`identify.corner_views`), and the best rank reading is kept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from tests.vision.conftest import finds
from vision import pipeline
from vision.errors import VisionInputError
from vision.identify import (
    SEARCH_GROWS,
    SEARCH_MIN_PX,
    corner_views,
    grown_quad,
    iter_index_corners,
    name_card,
    read_outline,
)
from vision.pipeline import Recognizer
from vision.profile import DeckProfile, default_profile


def test_grown_quad_scales_each_side_about_the_centre_and_keeps_the_order() -> None:
    # Clockwise from the top-left, first side short (100 wide, 140 long), centre (150, 170).
    quad = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    assert np.allclose(grown_quad(quad, 1.0, 1.0), quad)
    assert np.allclose(grown_quad(quad, 1.2, 1.5), [[90, 65], [210, 65], [210, 275], [90, 275]])
    # The card turned a quarter (first side still the short one, now vertical): width still means across.
    turned = np.array([[300, 100], [300, 200], [160, 200], [160, 100]], np.float32)
    assert np.allclose(grown_quad(turned, 1.2, 1.5), [[335, 90], [335, 210], [125, 210], [125, 90]])


def test_corner_views_are_the_outline_s_corner_then_the_grown_outlines_corners() -> None:
    frame = render_with_truth(random_scene(40, cards=3, face_down=0.0), 40, RenderOptions())
    quad = np.array(frame.truth[0].corners, np.float32)
    for which, own in enumerate(iter_index_corners(frame.image, quad)):
        views = list(corner_views(frame.image, quad, which))
        assert len(views) == 1 + len(SEARCH_GROWS) and np.array_equal(views[0], own)
        for view, (width, length) in zip(views[1:], SEARCH_GROWS, strict=True):
            assert np.array_equal(view, list(iter_index_corners(frame.image, grown_quad(quad, width, length)))[which])


def _frame_outlines(seeds: range) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """(frame, an outline 1/1.2 x 1/1.1 of the card about its centre, rank) for the fully visible cards:
    what the detector gives when it finds a picture card by its picture's frame."""
    out = []
    for seed in seeds:
        frame = render_with_truth(random_scene(seed, cards=6, face_down=0.0), seed, RenderOptions())
        for truth in frame.truth:
            if truth.visible >= 0.999:
                out.append((frame.image, grown_quad(np.array(truth.corners, np.float32), 1 / 1.2, 1 / 1.1),
                            truth.card[0]))
    return out


def test_search_reads_the_index_that_an_outline_smaller_than_the_card_cuts_off() -> None:
    base = default_profile()
    searching = replace(base, search=True)
    plain_right = search_right = search_wrong = 0
    cases = _frame_outlines(range(40, 44))
    for image, quad, rank in cases:
        plain = name_card(read_outline(image, quad, base), base).rank
        found = name_card(read_outline(image, quad, searching), searching).rank
        plain_right += plain == rank
        search_right += found == rank
        search_wrong += found is not None and found != rank
    # The smaller outline's corners cut every index (measured: none read); searched, nearly all read, none wrong.
    assert len(cases) == 24 and plain_right == 0 and search_right >= 20 and search_wrong == 0


def test_the_recognizer_searches_only_with_a_searching_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    image, quad, rank = _frame_outlines(range(41, 42))[0]
    monkeypatch.setattr(pipeline, "find_cards", finds(image, quad))
    (plain,) = Recognizer().identify(image)
    (searched,) = Recognizer(replace(default_profile(), search=True)).identify(image)
    assert plain.rank is None and searched.rank == rank and searched.face == "up"


def test_search_is_saved_in_the_profile(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    replace(default_profile(), search=True).save(path)
    assert DeckProfile.load(path).search
    default_profile().save(path)
    assert not DeckProfile.load(path).search  # absent from older profiles: off, as they were calibrated
    data = dict(np.load(path, allow_pickle=False))
    meta = json.loads(str(data["meta"]))
    meta["search"] = 1
    data["meta"] = np.array(json.dumps(meta))
    np.savez(path, **data)
    with pytest.raises(VisionInputError, match="search"):
        DeckProfile.load(path)


def test_a_card_cut_by_the_frame_s_edge_is_read_from_its_one_index() -> None:
    """The frame cut through a card's centre leaves one index corner in it; the other corner is warped from
    beyond the frame (replicated border) and shows no index, so the card is read from one corner, and
    never wrongly."""
    base = default_profile()
    searching = replace(base, recut=True, search=True)
    counts = {"plain": [0, 0], "search": [0, 0]}  # right, wrong
    cases = 0
    for seed in (40, 41, 42):
        frame = render_with_truth(random_scene(seed, cards=6, face_down=0.0), seed, RenderOptions())
        for truth in frame.truth:
            if truth.visible < 0.999:
                continue
            quad = np.array(truth.corners, np.float32)
            cut = int(quad.mean(axis=0)[0])
            for index_corner in (quad[0], quad[2]):  # keep the half holding this index corner
                left = index_corner[0] < cut
                image = np.ascontiguousarray(frame.image[:, :cut] if left else frame.image[:, cut:])
                shifted = quad if left else quad - np.array([cut, 0], np.float32)
                cases += 1
                for key, profile in (("plain", base), ("search", searching)):
                    rank = name_card(read_outline(image, shifted, profile), profile).rank
                    counts[key][0] += rank == truth.card[0]
                    counts[key][1] += rank is not None and rank != truth.card[0]
    # Measured: 29 (plain) and 32 (searching) of 36 read right, none wrong.
    assert cases == 36 and counts["plain"][1] == counts["search"][1] == 0
    assert 27 <= counts["plain"][0] <= counts["search"][0] and counts["search"][0] >= 30, counts


@pytest.mark.parametrize(("long_side", "searched"), [(50.0, False), (SEARCH_MIN_PX + 1, True), (140.0, True)])
def test_an_outline_too_small_to_hold_a_readable_rank_is_not_searched(monkeypatch: pytest.MonkeyPatch,
                                                                     long_side: float, searched: bool) -> None:
    from vision import identify

    calls: list[int] = []

    def views(image: np.ndarray, quad: np.ndarray, which: int) -> Iterator[np.ndarray]:
        calls.append(which)
        return corner_views(image, quad, which)

    monkeypatch.setattr(identify, "corner_views", views)
    quad = np.array([[100, 100], [100 + long_side / 1.4, 100], [100 + long_side / 1.4, 100 + long_side],
                     [100, 100 + long_side]], np.float32)
    image = np.full((400, 400, 3), 230, np.uint8)
    readings = list(read_outline(image, quad, replace(default_profile(), search=True)))
    assert len(readings) == 2 and calls == ([0, 1] if searched else [])
