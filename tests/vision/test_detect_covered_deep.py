"""A card whose indices touch a grey shade beside them (a sheet of paper over its edge, a table in shade) is
still placed from them (`vision.covered`): the shade is ink at the index search's usual level and joins each
index's glyphs into one blob with it, but the glyphs' own ink is darker (`index_marks(deep=True)`)."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tests.vision.test_detect_covered import FELT, SEARCHING, _upright
from tests.vision.test_reoutline import _lay
from vision.covered import covered_cards
from vision.errors import VisionInputError
from vision.geometry import quad_area
from vision.index_first import index_marks


def _shaded(grey: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """A nine of clubs (x 250-380, y 120-302) with a grey sheet over its left edge up to its top index and
    another over its right edge up to its bottom index."""
    frame = np.full((520, 760, 3), FELT, np.uint8)
    card = _upright(250, 120)
    _lay(frame, "9c", card)
    frame[100:330, 200:257] = grey
    frame[200:330, 373:430] = grey
    return frame, card


@pytest.mark.parametrize("grey", [140, 150])
def test_indices_joined_to_a_grey_shade_are_found_in_their_darkest_ink(grey: int) -> None:
    frame, card = _shaded(grey)
    empty = np.zeros(frame.shape[:2], np.uint8)
    # At the usual ink level the shade and each index are one blob: no index mark.
    assert not len(index_marks(frame, 182.0, empty)[0]) and not len(index_marks(frame, 182.0, empty, opened=True)[0])
    assert len(index_marks(frame, 182.0, empty, deep=True)[0])
    (found,) = covered_cards(frame, [], SEARCHING, card_length=182.0)
    assert found.reading.rank == "9"
    inter, _ = cv2.intersectConvexConvex(found.outline, card)
    assert inter >= 0.5 * quad_area(found.outline)


def test_deep_ink_needs_light_paper_and_good_input() -> None:
    """A dark frame has no paper: no ink at any level. Bad input is a typed error, as for the other rounds."""
    dark = np.full((300, 400, 3), 60, np.uint8)
    dark[100:120, 100:110] = 0
    empty = np.zeros(dark.shape[:2], np.uint8)
    assert not len(index_marks(dark, 150.0, empty, deep=True)[0])
    with pytest.raises(VisionInputError):
        index_marks(dark[:, :, 0], 150.0, empty, deep=True)
