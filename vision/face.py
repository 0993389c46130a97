"""Does a quadrilateral hold a card's face? A test that needs no readable index.

A playing card's face is printed to look the same turned half a turn: the two corner indices, the
pips and the court figures all map onto each other. Warped upright and compared with itself turned
180 degrees, a card face correlates strongly; carpet, wood grain, a book's cover or a patch of glare
that happens to have a clean four-sided outline does not. Blank paper is symmetric too, so a face
must also have ink: a share of its pixels much darker than its paper (in the darkest of the three
colour channels, so red ink counts as dark).

On the tuning photographs (threshold proposals whose outline is a card's edge nearly all round,
warped to 60 x 84 pixels): cards' symmetry has median 0.82 (a quarter under 0.63: cards partly
covered, outlines off by a strip), the other proposals' median is -0.06 and 95% are under 0.38.
The test does not read anything: it only says "some card face lies here, squarely outlined".

Levelled (`level=True`): light falling off across a card (a lamp to one side, a phone's shadow) adds a
linear slope to the print, which a half turn negates, so it lowers the correlation of a face that is
symmetric; a symmetric print has no odd part at all, so the least-squares slope is taken out first. And a
court card's picture covers most of its face, so the 80th percentile is the picture's tone, not paper: in
dim light nothing counts as ink; levelled, the paper is the 95th percentile. On the tuning photographs'
cards read right from a whole outline and standing alone, 168 of 213 pass the four-edge search's bar
(symmetry 0.6, 2% ink) as measured plainly, 185 levelled (a king under a lamp: 0.57 and no ink plainly,
0.86 and 42% ink levelled). Only the searches that place a card from its edges or its indices, with no
paper blob behind it (`line_search.is_face`, `index_first.is_index_card`), judge a face levelled: the
threshold search's bars were set on the plain measure, and levelled there they let a blob of table the
size of three cards pass as a face (`IMG_2590`, tuning split).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.geometry import FloatArray, warp_card

Image = npt.NDArray[np.uint8]

FACE_W = 60
FACE_H = 84
_TRIM = 4  # pixels of the warp's rim left out: the outline may be a pixel or two off the card's edge
MIN_SYMMETRY = 0.5
MIN_INK = 0.03
# With one index already read in a corner, the print only has to confirm a face, not prove one: an ace's
# print is one pip and two indices (little ink; an ace in shade on dark wood reaches symmetry 0.33, ink
# 0.02), which the stricter test, made for quads with no index at all, turns away.
ONE_INDEX_SYMMETRY = 0.25
ONE_INDEX_INK = 0.01
INK_BELOW_PAPER = 60.0  # a pixel this much darker than the paper level is ink
PAPER_PERCENTILE = 95  # the paper level: a court card's picture covers most of the face, so not lower
# Each inner pixel's offset from the warp's centre, for the light's slope (`face_symmetry(level=True)`).
_YS, _XS = np.mgrid[0:FACE_H - 2 * _TRIM, 0:FACE_W - 2 * _TRIM].astype(np.float32)
_YS -= (FACE_H - 2 * _TRIM - 1) / 2
_XS -= (FACE_W - 2 * _TRIM - 1) / 2
_XX, _YY = float((_XS * _XS).sum()), float((_YS * _YS).sum())


def face_symmetry(frame: Image, quad: FloatArray, *, level: bool = False) -> tuple[float, float]:
    """(symmetry, ink share) of the card under `quad` (ordered by `geometry.order_quad`): the normalised
    correlation of its darkest-channel image with itself turned half a turn, and the share of its
    pixels that are ink. `level`: the light's slope across the card is taken out first and the paper
    level read high (see the module's note); the searches with no paper blob behind them judge so."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise VisionInputError(f"a card face is looked for in an 8-bit BGR frame, not {frame.dtype} {frame.shape}")
    if quad.shape != (4, 2) or not np.isfinite(quad).all():
        raise VisionInputError(f"a card outline is 4 finite points, not {quad.shape}")
    card = warp_card(frame, quad, FACE_W, FACE_H)
    darkest = cv2.GaussianBlur(card.min(axis=2).astype(np.float32), (3, 3), 0)
    inner = darkest[_TRIM:-_TRIM, _TRIM:-_TRIM]
    centred = inner - float(inner.mean())
    # Light falling off across the card adds a linear slope, which a half turn negates; a face printed
    # half-turn symmetric has no odd part at all, so the slope (least squares) is taken out first.
    if level:
        centred = centred - float((centred * _XS).sum()) / _XX * _XS - float((centred * _YS).sum()) / _YY * _YS
    turned = centred[::-1, ::-1]
    norm = float(np.sqrt(float((centred * centred).sum()) * float((turned * turned).sum())))
    symmetry = float((centred * turned).sum()) / norm if norm > 1e-6 else 0.0
    paper = float(np.percentile(inner, PAPER_PERCENTILE if level else 80))
    ink = float((inner < paper - INK_BELOW_PAPER).mean())
    return symmetry, ink


def looks_like_face(frame: Image, quad: FloatArray, *, indices: int = 0) -> bool:
    """Whether `quad` outlines a card face (half-turn symmetric, with ink), whatever its index reads.
    `indices`: how many of its index corners already show an index (one lowers the bar; see
    `ONE_INDEX_SYMMETRY`)."""
    if indices < 0:
        raise VisionInputError(f"a card has no fewer than 0 indices read, not {indices}")
    symmetry, ink = face_symmetry(frame, quad)
    if indices >= 1:
        return symmetry >= ONE_INDEX_SYMMETRY and ink >= ONE_INDEX_INK
    return symmetry >= MIN_SYMMETRY and ink >= MIN_INK
