"""A card's outline is fitted to its straight sides, not to its rounded corners: the index windows are cut from
the outline, so an outline inside the card puts them off the index."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera.art import ART_H, ART_W, card_body_mask
from vision.detect import _card_sized, find_cards
from vision.pipeline import Recognizer, _card_shaped
from vision.read import IndexReader, Readings
from vision.rectify import CARD_ASPECT, order_quad, quad_area, side_lengths


def _card_on_felt(angle: float, width: float) -> tuple[np.ndarray, np.ndarray]:
    """A white card with rounded corners on green felt, turned by `angle` degrees; and its true corners (where
    its sides, not its arcs, meet)."""
    scale = width / ART_W
    m = cv2.getRotationMatrix2D((ART_W / 2, ART_H / 2), angle, scale)
    m[:, 2] += np.array([640 - ART_W / 2, 360 - ART_H / 2])
    size = (1280, 720)
    body = cv2.warpAffine(card_body_mask(), m, size, flags=cv2.INTER_LINEAR).astype(np.float32)[:, :, None] / 255
    felt = np.empty((720, 1280, 3), np.float32)
    felt[:] = (40, 110, 30)
    frame = (felt * (1 - body) + np.array([235, 238, 240], np.float32) * body).astype(np.uint8)
    corners = np.array([[0, 0], [ART_W, 0], [ART_W, ART_H], [0, ART_H]], np.float32) - 0.5
    truth = cv2.transform(corners.reshape(-1, 1, 2), m).reshape(4, 2)
    return frame, order_quad(truth)


@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 80.0])
@pytest.mark.parametrize("width", [90.0, 180.0])
def test_outline_corners_are_where_the_sides_meet(angle: float, width: float) -> None:
    frame, truth = _card_on_felt(angle, width)
    outlines = find_cards(frame, indices=False).outlines
    assert len(outlines) == 1
    found = outlines[0]
    error = min(float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max()) for k in range(4))
    # The corners' arcs are 5.5% of the width in radius: an outline through them lies 2-3% of the width inside
    # the card, and a mask's outline a pixel or two off its edge.
    assert error <= 0.015 * width, (found.round(1).tolist(), truth.round(1).tolist())
    assert quad_area(found) == pytest.approx(quad_area(truth), rel=0.02)


# 60 x 84 is a card's proportions (1 : 1.4): too narrow, the short sides grow; too short, the long sides do.
@pytest.mark.parametrize(("w", "h"), [(48.0, 84.0), (60.0, 70.0)])
def test_an_outline_of_other_proportions_is_made_a_cards_at_either_end_or_both(w: float, h: float) -> None:
    quad = order_quad(np.array([[100, 100], [100 + w, 100], [100 + w, 100 + h], [100, 100 + h]], np.float32))
    tries = _card_shaped(quad)
    assert len(tries) == 3
    for q in tries:
        assert side_lengths(q) == pytest.approx((60.0, 60.0 * CARD_ASPECT), rel=1e-3)
        assert all(cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(x), float(y)), False) >= 0 for x, y in quad)
    # lengthened at one end, at the other, and by half at both: three different quads round the outline
    centres = {tuple(np.round(q.mean(axis=0), 1).tolist()) for q in tries}
    assert len(centres) == 3 and (100 + w / 2, 100 + h / 2) in centres


class _Counting(IndexReader):
    """The network, counting the crops it is given."""

    def __init__(self) -> None:
        self.crops = 0
        super().__init__()

    def read(self, crops: list[np.ndarray]) -> Readings:
        self.crops += len(crops)
        return super().read(crops)


def test_a_line_on_the_table_of_no_cards_proportions_is_not_read_again_as_a_card() -> None:
    # A rectangle drawn on the felt (too narrow for a card: 60 x 100 pixels) is outlined and reads nothing, but
    # holds only felt: it is a line, not a card with its index columns cut off, and is read once, not again at a
    # card's shape (its two corners and nothing more).
    frame = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    cv2.rectangle(frame, (600, 300), (660, 400), (200, 200, 200), 3)
    reader = _Counting()
    recognizer = Recognizer(reader=reader)
    reader.crops = 0
    assert recognizer.identify(frame) == []
    assert len(find_cards(frame, indices=False).outlines) == 1
    assert reader.crops == 2


def _square(x: float, y: float, side: float) -> np.ndarray:
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.float32)


def test_a_card_is_not_taken_for_a_part_of_the_table_beside_its_own_outlined_parts() -> None:
    # Cards in one frame are alike in size, so a quad far bigger than the typical one is dropped. Two patches of
    # a card's paper outlined inside it are no measure of that typical size: the card stays.
    frame, truth = _card_on_felt(10.0, 240.0)
    centre = truth.mean(axis=0)
    for dx in (-50, 20):
        x, y = int(centre[0] + dx), int(centre[1] + 90)
        cv2.rectangle(frame, (x, y), (x + 30, y + 30), (90, 90, 90), cv2.FILLED)
        cv2.rectangle(frame, (x + 6, y + 6), (x + 24, y + 24), (255, 255, 255), cv2.FILLED)
    outlines = find_cards(frame, indices=False).outlines
    assert len(outlines) >= 3  # the card and its two patches
    assert any(quad_area(q) == pytest.approx(quad_area(truth), rel=0.05) for q in outlines)


def test_a_quad_far_bigger_than_the_cards_apart_from_it_is_no_card() -> None:
    cards = [_square(100 + 80 * k, 100, 50) for k in range(3)]
    tray = _square(500, 100, 200)  # 16 times a card
    patches = [_square(105, 105, 10), _square(125, 125, 10)]  # inside the first card
    kept = _card_sized([*cards, tray, *patches])
    assert not any(np.array_equal(q, tray) for q in kept)
    assert len(kept) == 5


def test_a_frame_of_many_overlapping_blobs_proposes_the_largest_blobs_corners_only() -> None:
    """Ten pairs of overlapping cards, each pair one blob with six corners: the corners proposed are capped at
    `Settings.max_corners` a frame, taken from the largest blobs (a cluttered photograph's blobs frame no index)."""
    frame = np.empty((720, 1280, 3), np.uint8)
    frame[:] = (40, 110, 30)
    boxes = []
    for k in range(10):  # the later, the larger
        x, y, w = 40 + k % 5 * 250, 60 + k // 5 * 330, 70 + 4 * k
        h = round(1.4 * w)
        for dx, dy in ((0, 0), (w // 2, h // 3)):
            cv2.rectangle(frame, (x + dx, y + dy), (x + dx + w, y + dy + h), (235, 238, 240), -1)
        boxes.append((x - 2, y - 2, x + w // 2 + w + 2, y + h // 3 + h + 2))
    corners = find_cards(frame, indices=False).corners
    assert len(corners) == 16

    def blob(point: np.ndarray) -> int:
        return next(k for k, (x0, y0, x1, y1) in enumerate(boxes) if x0 <= point[0] <= x1 and y0 <= point[1] <= y1)
    assert {blob(c.point) for c in corners} == {9, 8, 7}
