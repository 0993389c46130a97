"""Accuracy floors on rendered scenes (deterministic seeds), and backs never read as faces."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import vision.pipeline
from hardware_sim.camera import (
    PlacedCard,
    RenderOptions,
    TableScene,
    procedural_faces,
    random_scene,
    render_with_truth,
)
from tests.vision.helpers import Tally, match
from vision.detect import Found, find_cards
from vision.pipeline import Recognizer


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer()


def test_accuracy_floor_on_rendered_scenes(recognizer: Recognizer) -> None:
    tally = Tally()
    for seed in range(100, 112):
        frame = render_with_truth(random_scene(seed, cards=10, face_down=0.2), seed)
        match(frame, recognizer.identify(frame.image), tally)
    assert tally.faces >= 80
    assert tally.missed <= 6
    assert tally.right >= 0.85 * tally.faces, tally
    assert tally.wrong <= 0.02 * tally.faces, tally
    assert tally.backs_named == 0


def test_backs_are_never_read(recognizer: Recognizer) -> None:
    tally = Tally()
    for seed in range(200, 206):
        frame = render_with_truth(random_scene(seed, cards=10, face_down=1.0), seed)
        detections = recognizer.identify(frame.image)
        assert all(d.card is None for d in detections)
        match(frame, detections, tally)
    assert tally.backs_named == 0
    assert tally.backs_up <= 2, tally


def test_a_lone_card_reads_at_any_rotation(recognizer: Recognizer) -> None:
    for i, angle in enumerate(range(-180, 180, 45)):
        card = PlacedCard(card="Qh", x=400, y=225, angle=angle)
        scene = TableScene(cards=(card,), surface="wood" if i % 2 else "felt")
        found = recognizer.identify(render_with_truth(scene, 300 + i, RenderOptions(glare=0.0)).image)
        assert [d.card for d in found] == ["Qh"], angle
        assert found[0].face == "up"


def test_a_card_in_a_photograph_stretched_out_of_shape_is_read_the_other_way_round(recognizer: Recognizer) -> None:
    """A photograph stretched across (as some cameras and data sets save one) makes a card lying upright look
    wider than it is long: its outline's short side is then the card's long one."""
    import cv2

    for i, card in enumerate(("Qh", "7c", "As")):
        scene = TableScene(cards=(PlacedCard(card=card, x=400, y=225, angle=3 * i),), surface="felt")
        image = render_with_truth(scene, 310 + i, RenderOptions(glare=0.0)).image
        h, w = image.shape[:2]
        stretched = np.asarray(cv2.resize(image, (round(w * 2.2), h), interpolation=cv2.INTER_LINEAR), np.uint8)
        found = recognizer.identify(stretched)
        assert [d.card for d in found] == [card], card


def _fanned(seed: int) -> TableScene:
    """Five cards in a row, each over the one before it and 24 mm along, the row turned as a whole."""
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    angle = (seed * 67) % 360 - 180
    turn = math.radians(angle)
    cards = tuple(PlacedCard(card=deck[(seed * 7 + 11 * i) % 52], x=400 + 24 * (i - 2) * math.cos(turn),
                             y=225 - 24 * (i - 2) * math.sin(turn), angle=angle) for i in range(5))
    return TableScene(cards=cards, surface="wood" if seed % 2 else "felt")


@pytest.mark.parametrize("black", [False, True], ids=["white deck", "black deck"])
def test_fanned_cards_are_named_once_each_and_never_wrongly(recognizer: Recognizer, black: bool) -> None:
    named = 0
    for seed in range(6):
        options = RenderOptions(glare=0.0, faces=procedural_faces(seed).black() if black else None)
        frame = render_with_truth(_fanned(seed), 400 + seed, options)
        cards = [d.card for d in recognizer.identify(frame.image) if d.card is not None]
        assert len(cards) == len(set(cards)), cards
        assert set(cards) <= {t.card for t in frame.truth}, (cards, [t.card for t in frame.truth])
        named += len(cards)
    # of 30: the indices a fan leaves open are read from the glyphs inside its outline (light glyphs on a black deck)
    assert named >= 15


def test_index_glyphs_are_not_searched_on_cards_already_read() -> None:
    """Cards lying apart on felt: with every outline skipped (read), no index window is proposed on them; with
    none skipped, their own glyphs propose windows inside them."""
    from vision.detect import find_cards, index_corners, index_grounds
    from vision.rectify import card_coords

    frame = render_with_truth(random_scene(21, cards=8, face_down=0.0), 21, RenderOptions(glare=0.0))
    found = find_cards(frame.image, indices=False)
    assert len(found.outlines) >= 6
    assert not any(c.by_index for c in found.corners)
    every = index_corners(frame.image, found)
    assert any(c.within >= 0 for c in every)
    off = index_corners(frame.image, found, grounds=index_grounds(found, range(len(found.outlines))))

    def on_a_card(point: np.ndarray) -> bool:
        return any(bool(((card_coords(o, point) > 0.05) & (card_coords(o, point) < 0.95)).all())
                   for o in found.outlines)

    assert not any(on_a_card(c.point) for c in off)
    assert len(off) < len(every)


def test_a_phone_sized_photograph_is_read_halved_with_its_cards_where_they_lie(
        recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame over twice `Settings.index_width` wide is looked at halved until it is not (its full size only costs
    time); the cards it names are those of the frame at its own size, their corners in the full frame's pixels."""
    frame = render_with_truth(random_scene(5, cards=6), 5)
    own = recognizer.identify(frame.image)
    big = np.asarray(cv2.resize(frame.image, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC), np.uint8)
    widths: list[int] = []
    card_widths: list[object] = []

    def looked_at(image: np.ndarray, *args: object, **kwargs: object) -> Found:
        widths.append(image.shape[1])
        card_widths.append(kwargs.get("card_width"))
        return find_cards(image, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vision.pipeline, "find_cards", looked_at)
    seen = recognizer.identify(big)
    assert widths == [1920]  # 3840 px halved once
    # a table calibration's card size is the full frame's: the halved frame's cards are half as wide
    Recognizer(card_size=(240.0, 336.0)).identify(big)
    assert widths[-1] == 1920 and card_widths[-1] == 120.0
    assert sorted(d.card for d in seen if d.card) == sorted(d.card for d in own if d.card) != []
    for d in seen:
        if d.card:
            mine = next(o for o in own if o.card == d.card)
            assert np.allclose(np.array(d.corners) / 3, mine.corners, atol=3.0), d.card
