"""Cutting a corner index into its rank and suit glyphs, with a picture card's frame line beside it."""

from __future__ import annotations

import cv2
import numpy as np

from vision.identify import extract_glyphs
from vision.profile import INK_THRESHOLD

X = 30


def _corner(frame_line: str) -> np.ndarray:
    """A 50 x 101 upright index corner (the canonical size): a rank, a round suit below it, and
    optionally the frame of the picture running down close to the suit, solid or broken into dashes."""
    corner = np.full((101, 50, 3), 235, np.uint8)
    cv2.putText(corner, "K", (6, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2, cv2.LINE_AA)
    cv2.circle(corner, (16, 48), 8, (20, 20, 20), -1, cv2.LINE_AA)
    if frame_line != "none":
        for y in range(20, 101, 10 if frame_line == "dashed" else 1):
            # dashes 7 px long with 3 px gaps, as a thin line looks when the card is small in the frame
            cv2.line(corner, (X, y), (X, min(100, y + (6 if frame_line == "dashed" else 0))), (20, 20, 20), 2)
    return corner


def _suit_size(frame_line: str) -> tuple[int, int]:
    glyphs = extract_glyphs(_corner(frame_line))
    assert glyphs is not None
    ink = glyphs.suit > INK_THRESHOLD * 255
    cols, rows = np.flatnonzero(ink.any(axis=0)), np.flatnonzero(ink.any(axis=1))
    return int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)


def test_frame_line_is_not_part_of_the_suit() -> None:
    plain = _suit_size("none")
    assert 14 <= plain[0] <= 20 and 14 <= plain[1] <= 20
    # Solid or dashed, the line beside the suit is neither taken for the suit nor joined to it.
    for line in ("solid", "dashed"):
        width, height = _suit_size(line)
        assert abs(width - plain[0]) <= 2 and abs(height - plain[1]) <= 2, line


def test_rank_over_suit_needs_both_glyphs() -> None:
    corner = np.full((101, 50, 3), 235, np.uint8)
    cv2.putText(corner, "K", (6, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2, cv2.LINE_AA)
    assert extract_glyphs(corner) is None
