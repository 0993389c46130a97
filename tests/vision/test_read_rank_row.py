"""The rank's glyphs start at one height: a line stub beside the rank, starting lower, is not part of it.

On a real photograph (the jack of clubs of IMG_2584, tuning split) the rule removal took the corner of the
picture's frame but left the frame's side beside the "J", a stub of 18 pixels starting 12 pixels under the
J's top: taken into the rank's row, the "J" and the stub read as a "10"."""

from __future__ import annotations

import cv2
import numpy as np

from vision.identify import extract_glyphs
from vision.profile import INK_THRESHOLD


def _corner(stub: bool, ten: bool = False) -> np.ndarray:
    """A 50 x 101 upright index corner: a rank ("J", or "10"), a round suit under it and, when `stub`, a
    line two pixels wide beside the rank starting 6 pixels (0.3 of it and more) under its top."""
    corner = np.full((101, 50, 3), 235, np.uint8)
    cv2.putText(corner, "10" if ten else "J", (4, 36), cv2.FONT_HERSHEY_SIMPLEX, 1.0 if not ten else 0.7,
                (20, 20, 20), 2, cv2.LINE_AA)
    cv2.circle(corner, (13, 56), 7, (20, 20, 20), -1, cv2.LINE_AA)
    if stub:
        cv2.rectangle(corner, (25, 24), (26, 44), (20, 20, 20), -1)
    return corner


def _width(mask: np.ndarray) -> int:
    cols = np.flatnonzero((mask > INK_THRESHOLD * 255).any(axis=0))
    return int(cols[-1] - cols[0] + 1)


def test_stub_beside_the_rank_is_not_in_its_row() -> None:
    plain = extract_glyphs(_corner(False))
    stubbed = extract_glyphs(_corner(True))
    assert plain is not None and stubbed is not None
    assert _width(stubbed.rank) == _width(plain.rank)


def test_ten_keeps_both_digits() -> None:
    ten = extract_glyphs(_corner(False, ten=True))
    one = extract_glyphs(_corner(False))
    assert ten is not None and one is not None
    assert _width(ten.rank) >= 20  # the "1" and the "0" side by side
