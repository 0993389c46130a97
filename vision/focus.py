"""A soft photograph read again sharpened: an unsharp mask that restores the contrast of thin strokes.

A card's index is a few pixels tall in a photograph. Out of focus (a phone focused on the table's far side, a
webcam's soft lens), its strokes spread and lighten: at the reader's ink threshold an "A" fills into a
blob, a "10" merges into one, and a card's white edge on a light table no longer closes an outline. The
recognizer reads a photograph once more through `sharpened` and keeps what only that reading names surely
(`pipeline.SHARPENED_SURE`). Pure: an image in, an image out.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

# The unsharp mask: the frame plus SHARPEN_AMOUNT times its difference from itself blurred by SHARPEN_SIGMA
# pixels.
SHARPEN_SIGMA = 1.2
SHARPEN_AMOUNT = 1.0


def sharpened(frame: Image) -> Image:
    """`frame` (BGR or grey, uint8) unsharp-masked (SHARPEN_SIGMA, SHARPEN_AMOUNT), clipped to 0-255."""
    soft = cv2.GaussianBlur(frame, (0, 0), SHARPEN_SIGMA)
    out = cv2.addWeighted(frame, 1.0 + SHARPEN_AMOUNT, soft, -SHARPEN_AMOUNT, 0.0)
    return np.ascontiguousarray(out, dtype=np.uint8)
