"""Every threshold of the vision pipeline, in one frozen settings object (`Settings`, default `SETTINGS`).

The reader's bars were set on the validation split (docs/vision-model.md), never on a test split.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Settings:
    # detect -------------------------------------------------------------------------------------------------
    detect_width: int = 800  # frames wider than this are looked at scaled down to it for outlines
    index_width: int = 1280  # ... and to this for index glyphs
    index_card_width: float = 60.0  # a frame no wider whose outlined cards (three or more, median) are narrower than
    # this many pixels is looked at for index glyphs scaled up until they are this wide (their glyphs are too few
    # pixels to pair)
    index_upscale: float = 2.0  # ... at most this many times its size
    min_card_area: float = 0.0012  # of the frame: smaller blobs are no card
    max_card_area: float = 0.7
    min_aspect: float = 1.0  # long / short side of one card's outline (photos stretched to a square included)
    max_aspect: float = 1.95
    lighter_block: int = 3  # paper lighter than its surroundings: the mean over a square of the frame's short side
    lighter_by: float = 12.0  # divided by `lighter_block`, exceeded by this much (V - S), is a card's paper
    same_outline: float = 0.85  # ... unless it lies in an outline of another mask at least this share of its area
    min_fill: float = 0.86  # one card's blob fills this much of its fitted quadrilateral
    quad_of_rect: float = 1.25  # a card's quad holds at least 1 / this of its blob's minimum-area rectangle
    edge_reach: float = 3.0  # pixels (at the outline scale) either side of an outline's side searched for its edge
    edge_step: float = 6.0  # grey levels between samples half a pixel apart: a weaker step is no card's edge
    corner_angle: tuple[float, float] = (55.0, 125.0)  # a card's corner on a blob's outline, degrees
    strip_width: float = 0.85  # an outline narrower than this share of the frame's typical card is a strip
    max_corners: int = 64  # corner proposals per frame
    glyph_size: tuple[float, float] = (6.0, 0.2)  # an index glyph's size: pixels at least, share of the frame at
    # most (a card close under a phone's camera, or a scan, has glyphs a sixth of the frame tall)
    glyph_fill: tuple[float, float] = (0.15, 0.85)  # ... and the share of its bounding box it fills (a sparser blob
    # is glyphs tangled with a line, cut again)
    glyph_contrast: float = 22.0  # ... and its dark ink is on average this many grey levels beyond the ground's mean
    # (ink is 18 beyond it: a light table's grain, a shadow's edge, only just pass for ink)
    index_edge: tuple[float, float] = (0.2, 0.17)  # an index's centre lies this near a card's sides (share of its
    # width, height): glyphs further in on an outline are its pips and picture
    paper_level: int = 90  # dark ink is looked for where the lowest colour channel's local mean is at least this
    dark_card: int = 90  # light ink where the highest channel's local mean is at most this
    joined_aspect: tuple[float, float] = (0.5, 2.0)  # a card read at both its index corners from windows alone:
    # its long side over its short side between these (a photograph stretched out of shape turns it either way)
    max_index_pairs: int = 400  # index proposals (rank over suit, each pair both ways round) per outline and off
    # them: a bound on a cluttered frame's reading time (a room, a patterned cloth), not a filter; a whole deck
    # spread in rows (52 indices both ways round, with the pairs its uncovered pips make) fits in it
    corner_ground: float = 0.5  # a corner proposed from an outline's vertex whose index window lies on less than
    # this share of the ground an index can lie on (light paper, a dark card) proposes nothing: it frames the table
    # read ---------------------------------------------------------------------------------------------------
    blank_window: float = 6.0  # a window whose grey levels' standard deviation is below this holds no index (not
    # read: the table, blank paper, glare)
    name_bar: float = 0.94  # calibrated probability a corner's card needs to be named (set on the validation split)
    index_bar: float = 0.975  # ... when the corner was proposed from an index's glyphs (the same)
    other_card: float = 0.35  # an outline whose other corner reads another card this surely is not named
    rank_bar: float = 0.8  # summed probability of one rank for `rank` alone when the suit is unsure
    mark_bar: float = 0.5  # an index window read as some card this surely (not named) still shows a card on top there
    mark_card_off_table: float = 0.5  # share of a mark's card outline off the table top for it to be reported unknown
    refine_jitter: float = 0.12  # a mark's window is read again moved this share of its size each way, and scaled
    refine_votes: tuple[int, int] = (2, 3)  # ... and named where this many of those windows read its card at
    # `index_bar`: for a mark on a card seen (an outline, cards overlapping), and on the table top (no card seen there)
    seen_support: float = 0.6  # a card read from one window alone is cut at a straight edge past its index in this
    # share of its length, and of its top border's: the edge of a card lying on it
    seen_top: float = 0.1  # ... the top border: this share of the card's length
    seen_overlap: float = 0.05  # ... when another card's outline (named or not) overlaps it by this share of its area
    # (or another card's index lies on it): a card lying alone is not cut (its picture's frame draws such lines)
    seen_tilt: float = 15.0  # ... tilted from the card's side by at most this (degrees: a fan turns its cards)
    seen_canny: tuple[int, int] = (20, 60)  # ... edges found with these Canny thresholds, on the card upright
    regrow: float = 0.08  # an outline whose corners name no card is read again grown by this share of its width
    # each side (on a light table it can be found inside the card's border)
    move_out: float = 0.2  # ... and with each side moved out to the card's edge, up to this share of its width
    mark_reach: float = 0.6  # a mark's card, drawn inside it, is moved out to its edges up to this share of its width
    edge_paper: float = 12.0  # ... a side is moved only where the card's paper and the table beyond it differ by
    # this many grey levels
    card_shape: float = 1.15  # an unread outline whose long side over its short one is off a card's by more than this
    # factor is read again made a card's shape (its index column may have been cut off it)
    max_unread_aspect: float = 1.7  # an outline more elongated than this that reads nothing is no card
    min_edge_contrast: float = 20.0  # colour distance between an unread outline's middle and the table beside it
    face_down_paper: float = 0.3  # an unread outline with less open paper than this is a back
    pattern_partners: int = 6  # a glyph pair both of whose glyphs pair with this many or more is a pattern's (a
    # back's lattice), not read
    # calibrate ----------------------------------------------------------------------------------------------
    profile_similarity: float = 0.85  # a deck profile's nearest prototype decides a corner's card when the corner
    # is at least this like it (cosine similarity of the reader's embeddings),
    profile_margin: float = 0.03  # ... nearer it than any other prototype by at least this,
    profile_unseen: float = 0.1  # ... and the network gives the cards the profile never saw less than this
    # (set on the training groups' calibration splits)


SETTINGS = Settings()
