"""A number card named by its pips, when its index reads the same rank, though not surely.

A card's index is a few pixels tall in a photograph, and motion blur or a soft focus leaves it unread (a
blurred nine of clubs on the tuning photographs: its corners read "9" at 0.48 and "Q" at 0.43 with "9" next at
0.37), while the pips in its middle, each many times the index's size, still stand apart. A number card
shows its rank as that many pips of one size. So an unread outline of a card's shape is named rank N only when
both agree:

- the card's middle (away from its index columns and ends) holds exactly N blobs of ink, 2 <= N <= 10, each of
  at least MIN_PIP of the card and all within PIP_SPREAD of each other's size (a court card's picture, a
  hand, a pile's edge give blobs of many sizes; pips merged by blur give one blob of twice the size);
- and one of its index corners has N as its best rank, at MIN_INDEX_SCORE or more, while no corner reads another
  rank at the profile's rank bar (an outline whose two corners read two ranks may be two cards).

Neither alone is enough: the index's best guess below the reading's bar is often wrong, and a count of blobs
is a count of anything dark. Pure: an image and an outline in, a rank or None out.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.geometry import CARD_H, CARD_W, canonical_corners, side_lengths
from vision.identify import CornerReading

Image = npt.NDArray[np.uint8]

# Ink is the darkest channel under this share of the card's paper level (its 85th percentile).
PIP_INK = 0.55
# The card's middle: this share of its width from each long side (the index columns), of its length from
# each end.
MIDDLE_MARGIN = (0.17, 0.06)
# A pip is at least this share of the card's area (the blurred nine's clubs were 1.7-2.4% of it; the
# simulated deck's pips are 0.9%, its diamonds 0.7%).
MIN_PIP = 0.005
# ... and the largest at most this many times the smallest.
PIP_SPREAD = 2.0
# A blob under this share of the card is a speck, not counted (neither a pip nor a reason to refuse).
SPECK = 0.002
MIN_INDEX_SCORE = 0.35
# The outline must be a card's shape: its length this many times its width (a whole card is 1.4).
CARD_ASPECT = (1.3, 1.55)
RANK_OF_COUNT = {n: str(n) for n in range(2, 10)} | {10: "T"}


def pip_count(card: Image) -> int | None:
    """The number of pips in the middle of an upright canonical card (CARD_W x CARD_H, BGR), or None when
    its blobs of ink are not pips of one size."""
    if card.ndim != 3 or card.shape != (CARD_H, CARD_W, 3) or card.dtype != np.uint8:
        raise VisionInputError(f"a canonical card is {CARD_W} x {CARD_H} BGR, not {card.shape}")
    low = card.min(axis=2)
    paper = float(np.percentile(low, 85))
    if paper < 50:
        return None
    ink = (low < PIP_INK * paper).astype(np.uint8)
    mx, my = round(MIDDLE_MARGIN[0] * CARD_W), round(MIDDLE_MARGIN[1] * CARD_H)
    middle = np.zeros_like(ink)
    middle[my:CARD_H - my, mx:CARD_W - mx] = ink[my:CARD_H - my, mx:CARD_W - mx]
    _, _, stats, _ = cv2.connectedComponentsWithStats(middle)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float64) / (CARD_W * CARD_H)
    areas = areas[areas >= SPECK]
    if not len(areas) or areas.min() < MIN_PIP or areas.max() > PIP_SPREAD * areas.min():
        return None
    return len(areas)


def named_by_pips(image: Image, quad: npt.NDArray[np.float32], corners: Sequence[CornerReading | None], *,
                  rank_bar: float) -> str | None:
    """The rank of the card outlined by `quad` (ordered as `order_quad` orders a card) in `image`, when its
    pips and one of its index corners' best rank (`corners`) agree (see the module's doc), and no corner reads
    another rank at `rank_bar` (the profile's `min_rank_score`) or more: an outline whose corners read two ranks
    may hold two cards (`pipeline.torn_unsure`); else None."""
    width, length = side_lengths(quad)
    if not CARD_ASPECT[0] * width <= length <= CARD_ASPECT[1] * width:
        return None
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), canonical_corners(CARD_W, CARD_H))
    card = np.asarray(cv2.warpPerspective(image, m, (CARD_W, CARD_H), flags=cv2.INTER_AREA), np.uint8)
    rank = RANK_OF_COUNT.get(pip_count(card) or 0)
    if rank is None:
        return None
    if any(c is not None and c.rank != rank and c.rank_score >= rank_bar for c in corners):
        return None
    if any(c is not None and c.rank == rank and c.rank_score >= MIN_INDEX_SCORE for c in corners):
        return rank
    return None
