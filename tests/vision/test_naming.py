"""How an outline is named from its two index corners: one corner must reach the name bar on its own. The two
corners of a card show the same point-symmetric image (a back's pattern as much as a face's index), so two
corners agreeing below the bar are one weak reading twice, never a name."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

import vision.pipeline
from hardware_sim.camera import PlacedCard, TableScene, random_scene, render_with_truth
from hardware_sim.camera.scene import fanned_scene
from vision.cards import ALL_CARDS
from vision.detect import moved_out
from vision.pipeline import Detection, Recognizer
from vision.read import NONE, IndexReader, Readings
from vision.rectify import CROP_H, CROP_W, Image, holds, order_quad, quad_area
from vision.settings import SETTINGS, Settings


class _Constant(IndexReader):
    """A reader that reads every crop as one card at one probability (the rest on "not an index")."""

    def __init__(self, card: str, p: float) -> None:
        self.card, self.p = card, p

    def read(self, crops: list[Image]) -> Readings:
        probs = np.zeros((len(crops), NONE + 1), np.float32)
        probs[:, ALL_CARDS.index(self.card)] = self.p
        probs[:, NONE] = 1.0 - self.p
        return Readings(probs, np.ones((len(crops), 1), np.float32))


def _one_card_frame(face_up: bool) -> np.ndarray:
    scene = TableScene(cards=(PlacedCard(card="9c", x=400, y=250, angle=20.0, face_up=face_up),))
    return render_with_truth(scene, 5).image


@pytest.mark.parametrize("face_up", [True, False])
def test_two_corners_agreeing_below_the_name_bar_name_nothing(face_up: bool) -> None:
    p = SETTINGS.name_bar - 0.2  # each corner well above an even guess, both agreeing
    found = Recognizer(reader=_Constant("Kd", p)).identify(_one_card_frame(face_up))
    assert found, "the outline itself is found"
    assert all(d.card is None for d in found), found


def test_one_corner_at_the_name_bar_names_the_card() -> None:
    found = Recognizer(reader=_Constant("Kd", min(1.0, SETTINGS.index_bar + 0.02))).identify(_one_card_frame(True))
    assert [d.card for d in found if d.card is not None] == ["Kd"]


def _on_the_desk(seed: int, card: str) -> tuple[np.ndarray, npt.NDArray[np.float32]]:
    """A rendered scene of the simulator's deck on the light desk, and the true quad of `card` in it (ordered)."""
    frame = render_with_truth(random_scene(seed, cards=8, face_down=0.2, surface="desk"), seed)
    return frame.image, order_quad(np.array(next(t for t in frame.truth if t.card == card).corners, np.float32))


def _found_over(image: np.ndarray, truth: npt.NDArray[np.float32]) -> list[Detection]:
    return [d for d in Recognizer().identify(image) if holds(truth, d.center)]


def test_an_outline_found_inside_a_card_s_border_is_read_again_grown() -> None:
    """On the light desk the simulator's six of clubs is outlined about a tenth of its width inside its edge,
    which cuts the rank off both corner windows (read as another rank, below the bar): read again grown by
    `Settings.regrow`, both corners name it. Before: unknown."""
    image, truth = _on_the_desk(201, "6c")
    found = _found_over(image, truth)
    assert [d.card for d in found] == ["6c"]
    # the grown outline is about the card's own
    assert 0.85 < quad_area(np.array(found[0].corners, np.float32)) / quad_area(truth) < 1.2


def test_an_outline_found_inside_a_card_on_a_light_table_is_moved_out_to_its_edges() -> None:
    """On the light desk the simulator's seven of diamonds is outlined inside its edges and reads nothing, grown
    or turned; with each side moved out to where the card gives way to the desk (`moved_out`), both corners name
    it. Before: unknown."""
    image, truth = _on_the_desk(1, "7d")
    found = _found_over(image, truth)
    assert [d.card for d in found] == ["7d"]
    assert 0.9 < quad_area(np.array(found[0].corners, np.float32)) / quad_area(truth) < 1.25


def _grey(image: np.ndarray) -> Image:
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)


def _farthest(quad: npt.NDArray[np.float32], truth: npt.NDArray[np.float32]) -> float:
    """The largest distance between a corner of `quad` and the true card's same corner."""
    return float(np.linalg.norm(order_quad(quad) - truth, axis=1).max())


def test_moving_out_finds_the_edge_of_a_card_whose_index_column_was_cut_off() -> None:
    image, truth = _on_the_desk(1, "7d")
    width = float(np.linalg.norm(truth[1] - truth[0]))
    cut = truth.copy()
    cut[[0, 3]] += 0.15 * (truth[1] - truth[0])  # a long side moved in by 15% of the width
    moved = moved_out(_grey(image), cut, SETTINGS.move_out, SETTINGS)
    assert moved is not None
    assert _farthest(moved, truth) < 0.06 * width
    # an outline on the card's edges already stays within a few pixels of them
    again = moved_out(_grey(image), truth, SETTINGS.move_out, SETTINGS)
    assert again is None or _farthest(again, truth) < 0.06 * width


def test_moving_out_turns_a_side_drawn_askew_onto_the_card_s_edge() -> None:
    """A quad inside a card and turned a little from it, moved out as far as it lies inside (`reach`, a share of its
    width): each side is fitted to the card's edge, not moved parallel."""
    image, truth = _on_the_desk(1, "7d")
    width = float(np.linalg.norm(truth[1] - truth[0]))
    centre = truth.mean(axis=0)
    turn = np.deg2rad(10.0)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]], np.float32)
    askew = (centre + 0.7 * (truth - centre) @ rotation.T).astype(np.float32)
    moved = moved_out(_grey(image), askew, 0.6, SETTINGS)
    assert moved is not None
    assert _farthest(moved, truth) < 0.08 * width


@pytest.mark.parametrize("quad", [np.zeros((4, 2), np.float32), np.array([[5, 5], [7, 5], [7, 8], [5, 8]], np.float32),
                                  np.array([[-90, -90], [-40, -90], [-40, -20], [-90, -20]], np.float32)])
def test_moving_out_a_degenerate_or_outside_quad_gives_nothing(quad: np.ndarray) -> None:
    grey = np.full((120, 160), 200, np.uint8)
    assert moved_out(grey, quad, SETTINGS.move_out, SETTINGS) is None


def test_an_outline_is_moved_out_under_the_recognizers_own_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recognizer's settings reach `moved_out` (its least paper-to-table contrast, `edge_paper`, among them),
    not the defaults: a fanned scene whose unnamed outlines are moved out to the card's edges."""
    given: list[Settings] = []

    def spy(grey: Image, quad: npt.NDArray[np.float32], reach: float, s: Settings) -> npt.NDArray[np.float32] | None:
        given.append(s)
        return moved_out(grey, quad, reach, s)

    monkeypatch.setattr(vision.pipeline, "moved_out", spy)
    settings = replace(SETTINGS, edge_paper=SETTINGS.edge_paper + 1)
    Recognizer(settings=settings).identify(render_with_truth(fanned_scene(1), 1).image)
    assert given and all(s is settings for s in given)


def test_a_blank_window_reads_not_an_index_without_the_network() -> None:
    """A crop of one grey level (the table, blank paper, glare) is not given to the network; an inked one is."""
    given: list[int] = []

    class Counting(_Constant):
        def read(self, crops: list[Image]) -> Readings:
            given.append(len(crops))
            return super().read(crops)

    recognizer = Recognizer(reader=Counting("Kd", 0.99))
    blank = np.full((CROP_H, CROP_W), 200, np.uint8)
    inked = blank.copy()
    inked[4:20, 4:14] = 30  # a glyph's dark stroke
    given.clear()
    r = recognizer.read([blank, inked, blank])
    assert given == [1]
    assert [r.best(k)[0] for k in range(3)] == [None, "Kd", None]
    assert r.embeddings.shape[0] == 3
