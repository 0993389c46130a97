"""The rank-only calibration's cross-validation measures the re-outlining (`vision.reoutline`) as the
recognizer runs it: an outline that reads no rank, outlined again from its index, counts for its card
(`labelled._card_outcomes` with a `_Reoutliner`), where its new outline's centre lies."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware_sim.camera import RenderOptions, random_scene, render_with_truth
from tests.vision.conftest import finds
from vision.identify import CardReading, CornerReading
from vision.labelled import LabelledCard, _card_outcomes, _photo_cards, _Reoutliner
from vision.pipeline import Recognizer, reoutline_detections
from vision.profile import default_profile
from vision.reoutline import Reoutlined, choose_placed, placed_readings, reoutline

SEARCHING = replace(default_profile(), recut=True, search=True)
Quad = npt.NDArray[np.float32]


def _piece(card: Quad) -> Quad:
    """A piece of the card away from both its index corners, off its centre (0.3-1.0 across, 0.3-0.95
    along; card-shaped, not near-square): its centre lies in the card's box, but not at the card's centre."""
    across = (card[1] - card[0] + card[2] - card[3]) / 2
    along = (card[3] - card[0] + card[2] - card[1]) / 2
    start = card[0] + 0.3 * across
    return np.array([start + 0.3 * along, card[1] + 0.3 * along, card[1] + 0.95 * along, start + 0.95 * along],
                    np.float32)


def _box(quad: Quad) -> tuple[float, float, float, float]:
    x0, y0 = (float(v) for v in quad.min(axis=0))
    x1, y1 = (float(v) for v in quad.max(axis=0))
    return x0, y0, x1, y1


def _photo(tmp_path: Path, seed: int) -> tuple[Path, npt.NDArray[np.uint8], Quad, str]:
    """A rendered frame cut to 960 pixels wide (found at full size, as a photograph), saved as a PNG, and
    its first fully visible card (outline, rank)."""
    frame = render_with_truth(random_scene(seed, cards=6, face_down=0.0), seed, RenderOptions())
    image = np.ascontiguousarray(frame.image[:, :960])
    path = tmp_path / f"photo{seed}.png"
    cv2.imwrite(str(path), image)
    for truth in frame.truth:
        quad = np.array(truth.corners, np.float32)
        if truth.visible >= 0.999 and quad[:, 0].max() < 950:
            return path, image, quad, truth.card[0]
    raise AssertionError(f"no fully visible card in scene {seed}")


@pytest.mark.parametrize("seed", [40, 41])
def test_the_cross_validation_counts_a_card_outlined_again(tmp_path: Path, seed: int) -> None:
    path, image, card, rank = _photo(tmp_path, seed)
    piece = _piece(card)
    found = reoutline(image, piece, SEARCHING, others=[])
    assert found is not None and found.reading.rank == rank  # the recognizer reads it so
    cards = [LabelledCard(rank=rank, box=_box(card))]
    photo = _photo_cards(image, cards, path.name, [piece])
    assert len(photo.outlines) == 1
    # Its own corners read nothing (nor the cards it may be the end of).
    readings: list[list[CornerReading | None]] = [[None, None]]
    # Without the re-outlining the card is seen (an outline is centred in its box) but not read; with it,
    # read right, as the recognizer reads it.
    assert _card_outcomes([(photo, readings)], SEARCHING) == (1, 0, 0)
    again = replace(photo, reoutliner=_Reoutliner(path, SEARCHING))
    assert _card_outcomes([(again, readings)], SEARCHING) == (1, 1, 0)
    # Taught another rank's name for it, it counts as wrong: the rule that names it is measured, not assumed.
    other = "2" if rank != "2" else "3"
    wrong = replace(again, ranks=(other,))
    assert _card_outcomes([(wrong, readings)], SEARCHING) == (1, 0, 1)


def test_a_card_outlined_again_is_scored_where_its_new_outline_lies(tmp_path: Path) -> None:
    """The re-outlined card's centre decides which labelled card it is scored for, as on the bench."""
    path, image, card, rank = _photo(tmp_path, 40)
    piece = _piece(card)
    # A labelled box holding the piece's centre but not the card's: the card placed is not scored there.
    cx, cy = (float(v) for v in piece.mean(axis=0))
    ccx, ccy = (float(v) for v in card.mean(axis=0))
    assert abs(cx - ccx) + abs(cy - ccy) > 10
    tight = (cx - 3, cy - 3, cx + 3, cy + 3)
    cards = [LabelledCard(rank=rank, box=tight)]
    photo = replace(_photo_cards(image, cards, path.name, [piece]), reoutliner=_Reoutliner(path, SEARCHING))
    nothing: list[list[CornerReading | None]] = [[None, None]]
    assert _card_outcomes([(photo, nothing)], SEARCHING) == (0, 0, 0)


def test_the_decision_is_made_per_rule_from_one_reading(tmp_path: Path) -> None:
    """What the placed cards read does not depend on the rule: read once, decided for each rule, it gives
    what `reoutline` gives with that rule's thresholds."""
    _, image, card, _ = _photo(tmp_path, 41)
    piece = _piece(card)
    placed = list(placed_readings(image, piece, SEARCHING, others=[]))
    assert placed
    for score in (0.5, 0.7, 0.85, 0.95):
        for margin in (0.04, 0.3):
            rule = replace(SEARCHING, min_rank_score=score, min_rank_margin=margin, min_pair_score=score)
            _, chosen = choose_placed(placed, rule)
            direct = reoutline(image, piece, rule, others=[], grow=False)
            assert (chosen is None) == (direct is None), (score, margin)
            if chosen is not None and direct is not None:
                assert chosen.reading == direct.reading and np.array_equal(chosen.quad, direct.quad)


def test_reoutline_detections_counts_cards_outlined_again_as_read() -> None:
    """Each detection reading no rank (or torn) is outlined again with the outlines read so far, a card
    outlined again among them; a card found reading the detection's own rank changes nothing."""
    square = np.array([[0, 0], [50, 0], [50, 70], [0, 70]], np.float32)
    outlines = [square + 100 * k for k in range(4)]
    calls: list[tuple[int, int, float | None, bool]] = []

    def find(k: int, others: list[Quad], length: float | None, grow: bool) -> Reoutlined | None:
        calls.append((k, len(others), length, grow))
        rank = {1: "Q", 2: "K", 3: "5"}[k]
        return Reoutlined(quad=outlines[k] + 1, reading=CardReading(card=None, face_up=True, confidence=0.9,
                                                                      rank=rank))

    found = reoutline_detections(outlines, ["9", None, "K", None], {2}, find)
    # 1 (unread) and 3 (unread) are replaced; 2 (torn, read "K") finds "K" again: kept as it was.
    assert sorted(found) == [1, 3]
    assert calls == [(1, 2, 70.0, True), (2, 2, 70.0, False), (3, 3, 70.0, True)]
    # Every detection read and none torn: nothing to do.
    assert reoutline_detections(outlines, ["9", "Q", "K", "5"], set(), find) == {}


def test_the_recognizer_and_the_calibration_agree_on_a_photo(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The same outlines read by the recognizer and scored by the calibration's way give the same card."""
    from vision import pipeline

    path, image, card, rank = _photo(tmp_path, 40)
    piece = _piece(card)
    monkeypatch.setattr(pipeline, "find_cards", finds(image, piece))
    # The piece's detection comes first; the scene's other cards may follow (`vision.covered`).
    detection = Recognizer(SEARCHING).identify(image)[0]
    assert detection.rank == rank
    photo = replace(_photo_cards(image, [LabelledCard(rank=rank, box=_box(card))], path.name, [piece]),
                    reoutliner=_Reoutliner(path, SEARCHING))
    readings: list[list[CornerReading | None]] = [[None, None]]
    assert _card_outcomes([(photo, readings)], SEARCHING) == (1, 1, 0)
