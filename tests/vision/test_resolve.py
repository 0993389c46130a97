"""One card read at both its index corners by windows alone becomes one reading whose outline runs corner to
corner (`vision.resolve.join_corners`): an outline extrapolated from one window is too small for a deck of small
indices."""

from __future__ import annotations

import numpy as np

from vision.pipeline import Detection
from vision.rectify import FloatArray, corner_frame, index_window, quad_area
from vision.resolve import Reading, join_corners, one_per_card

_ASPECT = (0.5, 2.0)


def _read(card: str, corner: tuple[float, float], turned: bool, width: float = 120.0, p: float = 0.99) -> Reading:
    """A reading from one index window at `corner` of a card upright (or turned half a turn), its outline
    extrapolated `width` wide."""
    sign = -1.0 if turned else 1.0
    quad = corner_frame(np.array(corner, np.float32), np.array([sign, 0.0], np.float32),
                        np.array([0.0, sign], np.float32), width)
    det = Detection(card=card, face="up", confidence=p, corners=tuple((float(x), float(y)) for x, y in quad))
    return Reading(det, (index_window(quad),))


def _corners(r: Reading) -> FloatArray:
    return np.array(r.det.corners, np.float32)


def test_a_card_read_at_both_index_corners_spans_them() -> None:
    # a card 200 x 280 from (100, 100): both its windows extrapolate a card 120 wide
    near, far = _read("9c", (100, 100), False), _read("9c", (300, 380), True, p=0.97)
    other = _read("Kd", (500, 100), False)
    out = join_corners([near, other, far], _ASPECT)
    assert len(out) == 2 and other in out
    joined = next(r for r in out if r.det.card == "9c")
    assert np.allclose(_corners(joined), [[100, 100], [300, 100], [300, 380], [100, 380]], atol=0.5)
    assert len(joined.windows) == 2 and not joined.whole
    assert joined.det.confidence == 0.99  # the surer window's: a card's two corners are one image read twice


def test_windows_that_are_no_card_s_opposite_corners_stay_apart() -> None:
    near = _read("9c", (100, 100), False)
    cases = [
        [_read("9c", (300, 380), False)],  # facing the same way
        [_read("Qh", (300, 380), True)],  # another card
        [_read("9c", (900, 1300), True)],  # a card over three times as wide as its index makes it
        [_read("9c", (60, 380), True)],  # the far window lies left of the near one
        [_read("9c", (350, 200), True)],  # no card's proportions: 250 wide, 100 long
    ]
    for far in cases:
        assert join_corners([near, *far], _ASPECT) == [near, *far]


def test_a_card_is_joined_once() -> None:
    near, far, again = _read("9c", (100, 100), False), _read("9c", (300, 380), True), _read("9c", (302, 382), True)
    out = join_corners([near, far, again], _ASPECT)
    assert len(out) == 2 and again in out and len(out[0].windows) == 2


def test_a_card_joined_corner_to_corner_with_one_window_on_a_surer_cards_glyphs_keeps_the_other() -> None:
    """A card read at both index corners, one of whose windows frames the glyphs a surer card was read from: it is
    kept as read from its other window alone (it was dropped whole, its name lost with the window it shared), and
    reported at the outline that runs corner to corner, cut where the surer card's window lies on it."""
    near, far = _read("9c", (100, 100), False), _read("9c", (300, 380), True, p=0.97)
    joined = join_corners([near, far], _ASPECT)[0]
    surer = _read("7h", (302, 382), True, p=0.999)  # its window on the nine's far one
    out = one_per_card([surer, joined], [])
    assert [d.card for d in out] == ["7h", "9c"]
    nine = np.array(out[1].corners, np.float32)
    assert np.allclose(nine[0], [100, 100], atol=0.5) and quad_area(nine) < 200 * 280
    assert one_per_card([surer, near], [])[1].card == "9c"  # as a window alone it was kept already
