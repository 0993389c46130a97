"""The reader's training crops: reproducible from a seed, tagged by the deck design each was made from (so the
leave-one-deck-out folds filter one crop set), and fanned hands labelled by what shows of each index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision import trainset as ts
from vision.rectify import CROP_H, CROP_W
from vision.train import without


def _sources() -> ts.Sources:
    return ts.Sources(ts.procedural_decks()[:2], [], [], fonts=False)


def test_samples_are_reproducible_and_a_prefix_of_a_larger_set() -> None:
    src = _sources()
    xs, ys, ds = ts.samples(src, 30, seed=5)
    assert xs.shape == (30, CROP_H, CROP_W) and ys.shape == (30,) and ds.shape == (30,)
    assert set(ys.tolist()) <= set(range(ts.NONE + 1)) and set(ds.tolist()) <= {-1, 0, 1}
    more = ts.samples(src, 40, seed=5)
    assert np.array_equal(more[0][:30], xs) and np.array_equal(more[1][:30], ys)
    assert not np.array_equal(ts.samples(src, 30, seed=6)[0], xs)


def test_a_fold_leaves_out_every_crop_of_its_deck() -> None:
    xs = np.zeros((4, CROP_H, CROP_W), np.uint8)
    crops = (xs, np.array([1, 2, 3, 52]), np.array(["a", "", "b", "a"]))
    kept = without(crops, ("a",))
    assert kept[1].tolist() == [2, 3] and kept[2].tolist() == ["", "b"]


def test_the_top_card_of_a_spread_shows_its_index_and_the_cards_under_it_are_covered_somewhere() -> None:
    deck = ts.procedural_decks()[0]
    faces = [deck.faces[c] for c in ("As", "Kh", "7d", "Tc")]
    for seed in range(8):
        s = ts.spread(faces, np.random.default_rng(seed))
        assert len(s.quads) == 4 and s.top.shape == s.image.shape[:2]
        assert ts.index_cover(s, 3, turned=False) < 0.03
        # the bottom card lies under the others: one of its two index corners is under the next card
        assert max(ts.index_cover(s, 0, turned=False), ts.index_cover(s, 0, turned=True)) > 0.0


def test_spread_windows_are_crops_with_a_card_or_none() -> None:
    deck = ts.procedural_decks()[0]
    rng = np.random.default_rng(2)
    drawn = [d for d in (ts.spread_crop(deck, rng) for _ in range(40)) if d is not None]
    assert len(drawn) >= 20
    assert all(c.shape == (CROP_H, CROP_W) and 0 <= label <= ts.NONE for c, label in drawn)
    assert any(label == ts.NONE for _, label in drawn) and any(label != ts.NONE for _, label in drawn)


def test_a_design_printing_one_index_shows_none_in_its_bare_corner() -> None:
    deck = ts.procedural_decks()[0]
    assert not deck.one_index  # the simulator's faces print both indices
    face = deck.faces["7d"].copy()
    h, w = face.shape[:2]
    bare = face.copy()
    bare[h // 2:, w // 2:, :3] = np.median(face[h // 2, w // 2:, :3], axis=0)  # bottom-right corner blanked
    assert ts.one_index_cards({"7d": face, "Kh": bare}) == frozenset({"Kh"})
    one = ts.make_deck("one-index", {"Kh": bare}, ())
    assert ts.corner_label(one, "Kh", turned=True) == ts.NONE
    assert ts.corner_label(one, "Kh", turned=False) == ts.CLASSES.index("Kh")
    assert ts.corner_label(deck, "7d", turned=True) == ts.CLASSES.index("7d")


def test_an_index_is_found_on_every_face_as_a_rank_over_its_suit_in_the_top_left_corner() -> None:
    deck = ts.procedural_decks()[0]
    for card, face in deck.faces.items():
        glyphs = ts.index_glyphs(face)
        assert glyphs is not None, card
        rank, suit, size = glyphs
        h, w = face.shape[:2]
        assert rank[1] < suit[1] and abs(float(rank[0] - suit[0])) < size, card
        assert max(rank[0], suit[0]) < 0.25 * w and max(rank[1], suit[1]) < 0.35 * h, card
    blank = deck.faces["7d"].copy()
    blank[:, :, :3] = 255
    assert ts.index_glyphs(blank) is None


def test_a_window_framed_by_its_glyphs_holds_the_index_up_left() -> None:
    face = ts.procedural_decks()[0].faces["Kh"]
    rng = np.random.default_rng(3)
    for turned in (False, True):
        crops = [ts.index_crop(face, rng, turned=turned) for _ in range(12)]
        ink = np.mean([(c < np.median(c) - 40).astype(np.float32) for c in crops if c is not None], axis=0)
        assert ink.shape == (CROP_H, CROP_W)
        # the rank fills the window's top left, open paper lies right of the index
        assert ink[: CROP_H // 2, : CROP_W // 2].mean() > 0.2
        assert ink[:, : CROP_W // 2].mean() > 2 * ink[:, CROP_W * 3 // 4:].mean()


def test_a_face_drawn_without_its_paper_is_laid_on_white_paper() -> None:
    face = np.zeros((140, 100, 4), np.uint8)
    face[20:40, 10:30] = (0, 0, 200, 255)  # red print, the rest transparent
    on_paper = ts._on_paper(face)
    assert (on_paper[50:90, 20:80, 3] == 255).all() and (on_paper[50:90, 20:80, :3] == 255).all()
    assert (on_paper[20:40, 10:30, :3] == (0, 0, 200)).all()
    assert on_paper[0, 0, 3] == 0  # a rounded corner
    printed = np.full((140, 100, 4), 255, np.uint8)
    assert ts._on_paper(printed) is printed


def test_a_photograph_card_in_the_errata_is_trained_on_as_the_card_it_is(tmp_path: Path) -> None:
    """Both index boxes of a card its labels give the wrong suit become the card the errata name; other rows stay."""
    (name, labelled), actual = next(iter(ts.label_errata().items()))
    labels = tmp_path / "labels.csv"
    labels.write_text("filename,width,height,card,xmin,ymin,xmax,ymax,box_kind,suspect,group\n"
                      f"{name},640,640,{labelled},10,10,30,40,index,0,g\n"
                      f"{name},640,640,{labelled},200,300,220,330,index,0,g\n"
                      "other.jpg,640,640,7c,10,10,30,40,index,0,g\n"
                      "other.jpg,640,640,7c,200,300,220,330,index,0,g\n", encoding="utf-8")
    cards = sorted((b.image.name, b.card) for b in ts.index_boxes(labels, keep=lambda r: True))
    assert cards == sorted([(name, actual), (name, actual), ("other.jpg", "7c"), ("other.jpg", "7c")])


def test_a_jokers_corner_is_among_a_decks_negatives(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deck with jokers gives crops of their corners, framed as a card's corner, as "not an index"."""
    joker = np.full((336, ts.FACE_W, 4), 255, np.uint8)
    joker[20:70, 15:40, :3] = (20, 20, 200)
    plain = ts.procedural_decks()[0]
    framed: list[tuple[bool, tuple[float, float]]] = []
    camera_crop = ts.camera_crop

    def recorded(face: ts.Image, rng: ts.Rng, *, turned: bool, window: tuple[float, float] = (0.0, 0.0),
                 **kw: Any) -> ts.Image:
        if face is joker:
            framed.append((turned, window))
        return camera_crop(face, rng, turned=turned, window=window, **kw)

    monkeypatch.setattr(ts, "camera_crop", recorded)
    with_joker = ts.make_deck("jokers", plain.faces, plain.backs, jokers=(joker,))
    src = ts.Sources([with_joker], [], [], fonts=False)
    rng = np.random.default_rng(3)
    labels = [ts._negative(src, with_joker, ts.PhotoCache(), rng)[1] for _ in range(300)]
    assert set(labels) == {ts.NONE}
    assert len(framed) > 5 and {turned for turned, _ in framed} == {False, True}
    assert {window for _, window in framed} == {(0.0, 0.0)}  # the corner itself, where a card's index is
    framed.clear()
    without_jokers = ts.Sources([plain], [], [], fonts=False)
    for _ in range(300):
        ts._negative(without_jokers, plain, ts.PhotoCache(), rng)
    assert framed == []


def test_a_window_at_a_jokers_or_a_backs_box_is_a_negative_and_one_at_a_cards_index_is_not(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    import cv2
    for name in ("joker.jpg", "back.jpg", "card.jpg"):
        cv2.imwrite(str(tmp_path / "images" / name), np.full((200, 200, 3), 128, np.uint8))
    labels = tmp_path / "labels.csv"
    labels.write_text("filename,width,height,card,xmin,ymin,xmax,ymax,box_kind,suspect,group\n"
                      "joker.jpg,200,200,joker_red,10,10,40,50,index,0,g\n"
                      "back.jpg,200,200,back,10,10,40,50,index,0,g\n"
                      "card.jpg,200,200,7c,10,10,40,50,index,0,g\n", encoding="utf-8")
    quad = np.array([[5, 5], [105, 5], [105, 145], [5, 145]], np.float32)  # its index window holds the boxes
    windows = ts.scene_windows(labels, keep=lambda r: True, propose=lambda image: [quad])
    assert sorted(w.image.name for w in windows) == ["back.jpg", "joker.jpg"]
