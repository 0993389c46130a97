"""Deck calibration: from one image of each card, a deck profile (as card-room readers are set up).

Each image shows one face-up card and its file name starts with the card code (`Qs.jpg`,
`Th_2.png`). The card is found in the image (or, when nothing card-shaped is found, the whole image
is taken as the card, as for a scan cropped to the card), warped upright, and the rank and suit
glyphs of both corner indices become templates labelled with the file's code. The built-in default
templates are kept too, unless `keep_default` is false.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.cards import card_from_file_name
from vision.detect import find_cards
from vision.errors import VisionInputError
from vision.geometry import CARD_H, CARD_W, order_quad, quad_area, warp_card
from vision.identify import extract_glyphs, index_corners
from vision.images import Image, load_image
from vision.profile import (
    CALIBRATED_MIN_SCORE,
    RANK_HEIGHTS,
    RANK_SHAPE,
    SUIT_HEIGHTS,
    SUIT_SHAPE,
    DeckProfile,
    TemplateSet,
    default_profile,
    with_degraded,
)


def card_image(image: Image) -> Image:
    """The single card in a calibration image, upright at the canonical size."""
    h, w = image.shape[:2]
    quads = find_cards(image)
    if quads:
        best = max(quads, key=quad_area)
        if quad_area(best) >= 0.1 * h * w:
            return warp_card(image, best)
    whole = order_quad(np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32))
    return warp_card(image, whole, CARD_W, CARD_H)


def calibrate_deck(paths: Sequence[str | Path], *, name: str = "calibrated", keep_default: bool = True) -> DeckProfile:
    ranks: list[tuple[str, Image]] = []
    suits: list[tuple[str, Image]] = []
    if not paths:
        raise VisionInputError("no calibration images")
    for path in paths:
        code = card_from_file_name(str(path))
        card = card_image(load_image(path, paper_background=True))
        found = 0
        for corner in index_corners(card):
            glyphs = extract_glyphs(corner)
            if glyphs is None:
                continue
            ranks.append((code[0], glyphs.rank))
            suits.append((code[1], glyphs.suit))
            found += 1
        if not found:
            raise VisionInputError(
                f"{path}: no corner index found (is it one face-up card, filling most of the image?)")
    base = default_profile()
    # The camera sees the glyphs much smaller than a calibration image shows them.
    ranks = with_degraded(ranks, RANK_HEIGHTS)
    suits = with_degraded(suits, SUIT_HEIGHTS)
    if keep_default:
        ranks_set = base.ranks.merged(TemplateSet.build(ranks, RANK_SHAPE))
        suits_set = base.suits.merged(TemplateSet.build(suits, SUIT_SHAPE))
    else:
        ranks_set, suits_set = TemplateSet.build(ranks, RANK_SHAPE), TemplateSet.build(suits, SUIT_SHAPE)
    return DeckProfile(name=name, ranks=ranks_set, suits=suits_set, min_rank_score=CALIBRATED_MIN_SCORE,
                       min_suit_score=CALIBRATED_MIN_SCORE, min_margin=base.min_margin)
