"""Cards found from their two corner indices first, where no outline of theirs closes.

A standard card's index is a rank glyph above a suit pip, in ink (dark or red) on white paper, near
two opposite corners; the bottom-right one is the top-left one turned half a turn. So one index fixes
which way the card is "up" (from the pip to the rank) and where its corner is, and two indices that
face opposite ways, placed as a card's two index corners are, fix the whole card: position, turn and
size, with no outline at all. That is what reaches a card in clutter, on carpet or in glare whose
outline breaks at every whiteness level but whose print is intact.

Here: the ink marks of the frame (outside the cards already found) that are glyph-sized for the
frame's cards are paired into index marks (two marks a glyph's spacing apart, either one the rank);
two index marks facing opposite ways whose offset, seen from the first, runs right and down as a
card's diagonal does, with a card's proportions, give a card outline. It is kept when both its index
corners show an index (`identify.extract_glyphs`) and its print is a card face's (`vision.face`
half-turn symmetry): on the tuning photographs, of 364 such outlines off the cards already found,
those two tests keep the 10 that lie on unfound cards and 1 elsewhere. (On the live table's rendered
frames, an outline across two cards of a shown hand, an index of each, reaches symmetry 0.5.)
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.exposure import brightest_paper, darkest_channel
from vision.face import face_symmetry
from vision.geometry import FloatArray

Image = npt.NDArray[np.uint8]

# Where an index's middle (between rank and pip) lies from its corner, as shares of the card's width and
# length (the real photographs' deck and the rendered ones: about 0.09 and 0.145).
INDEX_ACROSS = 0.09
INDEX_DOWN = 0.145
# Glyph sizes and spacing as shares of the card's length (rank about 0.09 tall on the real photographs).
GLYPH_SIZE = (0.035, 0.17)
GLYPH_SPACING = (0.06, 0.17)
INDEX_SPACING = (0.05, 0.18)  # the two indices' mean spacing, of the length the outline they fix has
MIN_GLYPH_PIXELS = 6
INK_BELOW_PAPER = 60  # darkest channel this far under the local paper level (a red pip is dark in green)
MIN_PAPER = 130  # the local paper level must be light: ink on card paper, not a dark table's texture
# Those two levels are for a photograph whose brightest paper (`exposure.brightest_paper`) is at
# PAPER_REFERENCE or more: the tuning photographs' is 145-255 (5th percentile 194, median 228); a searching
# profile reads a photograph under DIM scaled up first (`exposure.exposed`), so this scaling is its fallback.
# A darker photograph (a dim room, an under-exposed camera) has paper, ink and their difference all lower in
# proportion, so there both levels are scaled by its brightest paper over PAPER_REFERENCE. Tuning split read
# at 0.65 of its values (`bench.vision_robust`, variant "dark"): with the fixed levels the index ends of 23
# cards read as photographed (covered cards, cards outlined again from their index) placed nothing, as their
# paper fell under MIN_PAPER and their ink under INK_BELOW_PAPER; scaled, 11 of them came back.
PAPER_REFERENCE = 200.0
# `deep` ink: the darkest channel under this share of the local paper level. A grey shade beside the card (a
# sheet of paper lying over its edge, a table in shade) is ink at INK_BELOW_PAPER and joins the index glyphs
# near the card's edge into one blob; a glyph's own ink is darker.
DEEP_INK = 0.5
OPPOSITE = -0.9  # cosine between the two indices' "up" directions
ASPECT = (1.15, 2.0)  # card length over width, stretched photographs included
LENGTH_RANGE = (0.6, 1.6)  # of the frame's card length
MIN_SYMMETRY = 0.55  # tuning photos: cards 0.61-0.97, other outlines under 0.34 but one; live table frames: spans 0.5
_OPEN = np.ones((2, 2), np.uint8)
MAX_MARKS = 1500  # index marks paired at most (a cluttered photo: the pairing is quadratic)


def light_scale(dark: Image) -> float:
    """How much darker than PAPER_REFERENCE a frame's brightest paper is (1.0 when it is as light or lighter):
    its darkest channel `dark`'s brightest paper (`exposure.brightest_paper`) over PAPER_REFERENCE, at most 1."""
    return min(1.0, brightest_paper(dark) / PAPER_REFERENCE)


def index_marks(frame: Image, card_length: float, exclude: Image, *, opened: bool = False, deep: bool = False,
                paper_range: tuple[int, int] = (MIN_PAPER, 255)
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(middles, ups, spacings) of the candidate indices: each a pair of glyph-sized ink marks, `ups` the
    unit vector from the mark taken as the pip to the one taken as the rank (both ways are listed).
    `opened`: the ink is opened (2 x 2) first, which cuts the thin lines that join a glyph to other ink:
    a court card's index touching its picture's frame, a pip touching a towel's print. `deep`: ink is only
    what is darker than DEEP_INK of the paper level (an index beside a grey shade, see DEEP_INK). `paper_range`:
    the local paper level (over the first, at most the second; a card in shade: `covered.SHADE_PAPER`)."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise VisionInputError(f"indices are looked for in an 8-bit BGR frame, not {frame.dtype} {frame.shape}")
    if exclude.shape != frame.shape[:2]:
        raise VisionInputError(f"the excluded area is {exclude.shape}, the frame {frame.shape[:2]}")
    if not np.isfinite(card_length) or card_length <= 0:
        raise VisionInputError(f"a card length is a positive number of pixels, not {card_length}")
    if not 0 <= paper_range[0] < paper_range[1] <= 255:
        raise VisionInputError(f"a paper level range is two levels from low to high in 0-255, not {paper_range}")
    dark = darkest_channel(frame)
    k = max(5, int(0.2 * card_length)) | 1
    paper = cv2.dilate(dark, np.ones((k, k), np.uint8))
    scale = light_scale(dark)
    if deep:
        below = dark.astype(np.float32) < DEEP_INK * paper.astype(np.float32)
    else:
        below = dark.astype(np.int16) < paper.astype(np.int16) - round(INK_BELOW_PAPER * scale)
    # The paper range is scaled as the levels are (its top left open when it is the top of the scale).
    low, high = paper_range[0] * scale, (paper_range[1] * scale if paper_range[1] < 255 else 255.0)
    ink = (below & (paper > low) & (paper <= high) & (exclude == 0)).astype(np.uint8)
    if opened:
        ink = np.asarray(cv2.morphologyEx(ink, cv2.MORPH_OPEN, _OPEN), np.uint8)
    _, _, stats, centres = cv2.connectedComponentsWithStats(ink, connectivity=8)
    size = np.maximum(stats[1:, 2], stats[1:, 3]).astype(np.float64)
    ok = ((size >= GLYPH_SIZE[0] * card_length) & (size <= GLYPH_SIZE[1] * card_length)
          & (stats[1:, 4] >= MIN_GLYPH_PIXELS))
    c = np.asarray(centres[1:][ok], np.float64)
    s = size[ok]
    empty = np.zeros((0, 2), np.float64)
    if len(c) < 2:
        return empty, empty, np.zeros(0, np.float64)
    d = np.linalg.norm(c[:, None, :] - c[None, :, :], axis=2)
    ratio = s[:, None] / s[None, :]
    near = ((d >= GLYPH_SPACING[0] * card_length) & (d <= GLYPH_SPACING[1] * card_length)
            & (ratio >= 0.5) & (ratio <= 2.0) & (d >= 0.4 * (s[:, None] + s[None, :])))
    rank, pip = np.nonzero(near)  # both orders of every pair: either mark may be the rank
    spacing = d[rank, pip]
    ups = (c[rank] - c[pip]) / spacing[:, None]
    return (c[rank] + c[pip]) / 2, ups, spacing


def cards_from_marks(middles: npt.NDArray[np.float64], ups: npt.NDArray[np.float64],
                     spacings: npt.NDArray[np.float64], card_length: float) -> list[FloatArray]:
    """Card outlines (ordered, `geometry.order_quad`) that two index marks facing opposite ways fix, the
    first one at the outline's first corner."""
    m = min(len(middles), MAX_MARKS)
    middles, ups, spacings = middles[:m], ups[:m], spacings[:m]
    rights = np.stack([-ups[:, 1], ups[:, 0]], axis=1)
    facing = ups @ ups.T <= OPPOSITE
    i, j = np.nonzero(facing)
    offset = middles[j] - middles[i]
    across = np.einsum("ij,ij->i", offset, rights[i])
    down = -np.einsum("ij,ij->i", offset, ups[i])
    width = across / (1 - 2 * INDEX_ACROSS)
    length = down / (1 - 2 * INDEX_DOWN)
    with np.errstate(divide="ignore", invalid="ignore"):
        aspect = length / width
        glyph = (spacings[i] + spacings[j]) / 2 / length
    ok = ((across > 0) & (down > 0) & (aspect >= ASPECT[0]) & (aspect <= ASPECT[1])
          & (length >= LENGTH_RANGE[0] * card_length) & (length <= LENGTH_RANGE[1] * card_length)
          & (glyph >= INDEX_SPACING[0]) & (glyph <= INDEX_SPACING[1]))
    a, w, ln = i[ok], width[ok][:, None], length[ok][:, None]
    r, u = rights[a], ups[a]
    corner = middles[a] - INDEX_ACROSS * w * r + INDEX_DOWN * ln * u
    # Clockwise on screen from the first index's corner, a short side first: `order_quad`'s order but
    # for its choice of the top-most of the two possible first corners, made here for all at once.
    quads = np.stack([corner, corner + w * r, corner + w * r - ln * u, corner - ln * u], axis=1).astype(np.float32)
    turn = quads[:, 2, 1] + quads[:, 2, 0] * 0.01 < quads[:, 0, 1] + quads[:, 0, 0] * 0.01
    quads[turn] = np.roll(quads[turn], 2, axis=1)
    return [np.ascontiguousarray(q) for q in quads]


def is_index_card(frame: Image, quad: FloatArray) -> bool:
    """Whether an outline fixed by two index marks is a card: an index read in both its index corners
    and a card face's half-turn symmetry (an outline placed from the indices is within a few percent of
    the card, so the symmetry holds up; two indices of two different cards facing each other do not)."""
    from vision.identify import extract_glyphs, iter_index_corners

    if not all(extract_glyphs(corner) is not None for corner in iter_index_corners(frame, quad)):
        return False
    return face_symmetry(frame, quad, level=True)[0] >= MIN_SYMMETRY
