"""Is an index corner a repeating pattern (a card back's lattice) rather than a card's index?

A card back is printed with a pattern that repeats: a lattice of lines, a mesh of diamonds, a weave. Seen
by a profile with a low rank bar (calibrated from photographs of another deck), a cell of that pattern can
pass for a rank and the lattice's lighter lines for open paper, and where a hand lies over the back the
skin tints and fades it without hiding its period. A face's index is one rank over one suit on open paper:
its marks do not repeat at a fixed step in two directions.

The test looks at the corner's darkest channel with its slow shading taken out, and at its autocorrelation
(how well the corner matches itself shifted by each offset up to MAX_SHIFT pixels in the 50 x 101 corner
that `identify.iter_index_corners` warps). A repeating pattern matches itself again at each multiple of
its period: the autocorrelation falls from its centre and rises to a separate peak there (`repeats`), and a
two-dimensional lattice does so in two directions (`is_lattice`). A rank and a suit repeat in one direction
at most (the two glyphs of a "10", a suit below a rank of a like shape).

Measured (SHADING_SIGMA 4, PEAK 0.2, DIP 0.3, MIN_SINE 0.5): of the index corners that let a reading through
`pipeline.on_paper` on the real photographs' tuning split (tuning photographs' rank-only profile; 322
readings, every open-paper corner of each), none is a lattice; nor is any of 156 fully visible rendered
faces' corners (seeds 100-102, all eleven settings of `bench.vision_wrong`, both decks); about half the
rendered backs' corners are (the rest hold mostly the back's white rim, or the card-faces deck's faint
back); and so are the naming corners of the two backs the photographs' profile named under a hand (seeds
317 and 600 at 960 x 540 with hands: tinted 0.29 and 0.27, just under `pipeline.TINTED_PAPER`).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

# Shading slower than this (a Gaussian's sigma, pixels of the warped corner) is taken out first: light
# fall-off across the corner and the card's rim would otherwise dominate the autocorrelation.
SHADING_SIGMA = 4.0
# Offsets looked at: from just outside the centre's own peak to about two periods of the simulated backs'
# lattice (8-11 pixels in the warped corner).
MIN_SHIFT = 4
MAX_SHIFT = 24
# A repeat is a local maximum of the normalised autocorrelation at least PEAK high whose way back to the
# centre dips at least DIP below it (so a long stroke, matching itself shifted along its length, is none).
PEAK = 0.2
DIP = 0.3
# A lattice repeats in two directions: two repeats whose offsets are at least this far from parallel (the sine
# of the angle between them; 0.5 is 30 degrees). One direction alone is no lattice: a stroke and its shifted
# copy (the two glyphs of a "10"), or a repeat and its double along one line.
MIN_SINE = 0.5


def _shifts() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    dy, dx = np.mgrid[0:MAX_SHIFT + 1, -MAX_SHIFT:MAX_SHIFT + 1]
    r = np.hypot(dy, dx)
    keep = (r >= MIN_SHIFT) & (r <= MAX_SHIFT) & ~((dy == 0) & (dx < 0))
    return dy[keep], dx[keep]


_DY, _DX = _shifts()
_STEPS = np.linspace(0.0, 1.0, 16)


def autocorrelation(corner: Image) -> npt.NDArray[np.float32]:
    """The corner's darkest channel, slow shading taken out, correlated with itself at every offset up to
    MAX_SHIFT: an array with offset (0, 0) at its middle (rows // 2, columns // 2), normalised to 1 there (0
    everywhere for a flat corner)."""
    low = corner if corner.ndim == 2 else np.asarray(
        cv2.min(cv2.min(corner[:, :, 0], corner[:, :, 1]), corner[:, :, 2]))
    grey = low.astype(np.float32)
    detail = grey - cv2.GaussianBlur(grey, (0, 0), SHADING_SIGMA)
    h, w = detail.shape
    # Zero padding of MAX_SHIFT + 1 at least, so no offset looked at (nor its neighbours) wraps around onto
    # another; sizes OpenCV's transform is quick at (101 + 25 is 128, where 202 would cost 5 times more).
    rows, cols = cv2.getOptimalDFTSize(h + MAX_SHIFT + 1), cv2.getOptimalDFTSize(w + MAX_SHIFT + 1)
    padded = np.zeros((rows, cols), np.float32)
    padded[:h, :w] = detail
    spectrum = cv2.dft(padded, flags=cv2.DFT_COMPLEX_OUTPUT)
    power = cv2.mulSpectrums(spectrum, spectrum, 0, conjB=True)
    auto = np.roll(cv2.idft(power, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE), (rows // 2, cols // 2), axis=(0, 1))
    centre = float(auto[rows // 2, cols // 2])
    if centre <= 1e-6:
        return np.zeros_like(auto)
    return np.asarray(auto / centre, np.float32)


def repeats(corner: Image) -> list[tuple[int, int]]:
    """The offsets (rows, columns; over half the offsets only, as the autocorrelation is symmetric) at which
    the corner repeats itself within MAX_SHIFT pixels (see the module doc)."""
    if corner.shape[0] < 2 * MAX_SHIFT or corner.shape[1] < MAX_SHIFT:
        raise ValueError(f"corner too small for the lattice test: {corner.shape[1]}x{corner.shape[0]}")
    auto = autocorrelation(corner)
    h, w = auto.shape[0] // 2, auto.shape[1] // 2  # offset (0, 0)
    ys, xs = h + _DY, w + _DX
    values = auto[ys, xs]
    top = np.asarray(cv2.dilate(auto, np.ones((3, 3), np.uint8)))[ys, xs]
    peak = (values >= PEAK) & (values >= top)
    found = []
    for y, x, value in zip(ys[peak], xs[peak], values[peak], strict=True):
        way = auto[np.round(h + _STEPS * (y - h)).astype(np.int64), np.round(w + _STEPS * (x - w)).astype(np.int64)]
        if float(way.min()) <= float(value) - DIP:
            found.append((int(y) - h, int(x) - w))
    return found


def is_lattice(corner: Image) -> bool:
    """Whether an index corner is a repeating pattern, as a card back's is, not a card's index: it repeats
    itself in two directions (MIN_SINE apart)."""
    found = repeats(corner)
    return any(abs(a[0] * b[1] - a[1] * b[0]) >= MIN_SINE * float(np.hypot(*a)) * float(np.hypot(*b))
               for k, a in enumerate(found) for b in found[:k])
