"""A dim photograph read as if exposed for its paper: its values scaled so that its brightest paper is near white.

Detection and reading compare light levels with fixed numbers in many places (the paper mask's Otsu floor of 90
and its "very bright" texture exception, the whiteness cuts of `vision.outline`, ink 60 levels under the paper
in `vision.face`, light paper at 130 or 150 in `vision.covered` and `vision.identify`, ...). A photograph taken
in a dim room or under-exposed has paper, ink and their difference all lower in proportion, so each of those
levels would need scaling by the frame's exposure; scaling the frame once, before anything looks at it, does
that for all of them at once (`index_first.light_scale` did it for the index marks alone).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

# A frame's brightest paper: this percentile of its darkest channel (a card's or a sheet's paper, not a
# specular glint: at least 0.5% of the frame is paper in a photograph of cards).
BRIGHTEST = 99.5
# A frame whose brightest paper is under DIM is scaled up to make it WHITE. The tuning photographs' brightest
# paper is 145-255 (5th percentile 194, median 228): under DIM only 13 of 219. Scaling every photograph read
# the darker variants better still, but lost 5 of the 44 standing-alone cards of 25 tuning photographs as taken
# (`bench.vision_robust`), cards on the edge of being read whatever the light: from DIM up a photograph is left
# as it is. WHITE is a little under 255: scaled to 255, light objects' highlights clip and lose their texture,
# and the `dark` and `shade-x` variants named 5 things on no labelled card (a box's window and a DVD cover "Q" in
# IMG_2474, from threshold outlines); scaled to 235, none of those 5 (228, the median, left one).
DIM = 200.0
WHITE = 235.0
# At most this gain: a frame whose brightest "paper" is under half of white holds no paper (a table of
# backs on dark felt), and noise scaled more than twice looks like texture (the tuning photographs read at
# 0.65 reach 94, gained 2 to 188).
MAX_GAIN = 2.0


def darkest_channel(frame: Image) -> Image:
    """The darkest of a BGR frame's three channels, per pixel (by OpenCV: numpy's reduction over the last axis
    costs about 10 ms on a 960 x 540 frame)."""
    b, g, r = cv2.split(frame)
    return np.asarray(cv2.min(cv2.min(b, g), r), np.uint8)


def brightest_paper(dark: Image) -> float:
    """The BRIGHTEST percentile of a frame's darkest channel `dark`: the level of its brightest paper."""
    counts = np.bincount(dark.ravel(), minlength=256).cumsum()
    return float(np.searchsorted(counts, BRIGHTEST / 100.0 * (int(counts[-1]) - 1) + 1))


def exposure_gain(frame: Image) -> float:
    """The gain that makes a dim frame's brightest paper WHITE (at most MAX_GAIN); 1.0 from DIM up."""
    level = brightest_paper(darkest_channel(frame))
    if level >= DIM or level <= 0:
        return 1.0
    return min(MAX_GAIN, WHITE / level)


def exposed(frame: Image) -> Image:
    """`frame` with every value times its `exposure_gain` (rounded, clipped to 255); the frame itself when the
    gain is 1."""
    gain = exposure_gain(frame)
    if gain <= 1.0:
        return frame
    table = np.clip(np.rint(np.arange(256, dtype=np.float32) * gain), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(cv2.LUT(frame, table), dtype=np.uint8)


# The levelled look (`levelled`, read by `pipeline.Recognizer` as a third look at a photograph): a card in a
# shadow (a sunlit room's, a lamp's falling off) has paper, ink and their difference lowered in proportion as a
# dim frame does, but only there, and the frame's brightest paper elsewhere keeps `exposed` from scaling it. Each
# region's brightest is brought up to the frame's brightest paper instead:
# - the light is measured on the darkest channel shrunk to LEVEL_SIDE pixels across its short side (the shade of
#   a table scene varies over a card's length, not over its index);
# - a region's light is its brightest within LEVEL_REACH of the short side (a card's paper: in a photograph of
#   cards the nearest card is rarely farther), and its gain the frame's brightest paper over it, at most
#   LEVEL_MAX_GAIN (past that, noise and a table's texture are gained into "paper");
# - a region whose brightest is under LEVEL_LOW of the frame's brightest paper holds no paper, only table: its
#   gain tapers to 1 from LEVEL_LOW * 1.5 down to LEVEL_LOW, so a dark felt or a shadow with no card in it is
#   left as it is, and the gain map is smoothed over the same reach, so that no edge of it draws an outline;
# - a light table far from every card (a beige one is over LEVEL_LOW * 1.5 of the paper in its darkest channel)
#   cannot be told by its level from paper in a shadow, and is gained as that would be: so what the levelled
#   look names is kept only when it is sure (`pipeline.LEVELLED_SURE`);
# - a frame whose gain is nowhere over LEVEL_MIN_GAIN is evenly lit: there is no third look. (Only 5 of the 219
#   tuning photographs are: the third look costs a reading on nearly every photograph, see docs/vision.md.)
# Tuning split in five variants (see pipeline.LEVELLED_SURE): a hard cut at LEVEL_LOW instead of the taper read
# one card more and one more wrong (2,236 / 3 against 2,235 / 2), a taper from 0.2 to 0.3 one card fewer and one
# more wrong.
LEVEL_SIDE = 90
LEVEL_REACH = 0.2
LEVEL_LOW = 0.3
LEVEL_MAX_GAIN = 2.2
LEVEL_MIN_GAIN = 1.1


def level_gain(frame: Image) -> npt.NDArray[np.float32]:
    """Each pixel's gain (1 to LEVEL_MAX_GAIN) that brings its region's paper up to the frame's brightest, at
    `frame`'s size (see LEVEL_SIDE and the comments above it)."""
    dark = darkest_channel(frame)
    height, width = dark.shape
    step = max(1, min(height, width) // LEVEL_SIDE)
    small = np.asarray(cv2.resize(dark, (max(1, width // step), max(1, height // step)), interpolation=cv2.INTER_AREA),
                       np.uint8)
    reach = max(3, round(LEVEL_REACH * min(small.shape))) | 1
    region = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))).astype(np.float32)
    top = brightest_paper(small)
    if top <= 0:
        return np.ones((height, width), np.float32)
    gain = np.clip(top / np.maximum(region, 1.0), 1.0, LEVEL_MAX_GAIN)
    paper = np.clip((region / top - LEVEL_LOW) / (0.5 * LEVEL_LOW), 0.0, 1.0)
    smooth = cv2.GaussianBlur((1.0 + (gain - 1.0) * paper).astype(np.float32), (0, 0), reach / 2)
    return np.asarray(cv2.resize(smooth, (width, height), interpolation=cv2.INTER_LINEAR), np.float32)


def levelled(frame: Image, gain: npt.NDArray[np.float32] | None = None) -> Image | None:
    """`frame` with each region's paper brought up to the frame's brightest (`gain`, by default its
    `level_gain`), or None when the frame is evenly lit (its gain nowhere over LEVEL_MIN_GAIN)."""
    gain = level_gain(frame) if gain is None else gain
    if gain.shape != frame.shape[:2]:
        raise ValueError(f"a gain map of {gain.shape} for a frame of {frame.shape[:2]}")
    if float(gain.max()) <= LEVEL_MIN_GAIN:
        return None
    out = cv2.multiply(frame.astype(np.float32), cv2.merge([gain, gain, gain]))
    return np.ascontiguousarray(np.clip(np.rint(out), 0, 255), dtype=np.uint8)
