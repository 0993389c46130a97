"""Every threshold of the vision pipeline, in one frozen settings object (`Settings`, default `SETTINGS`). The
reader's bars were set on the validation split (docs/vision-model.md), the deck profile's on the training groups'
calibration splits; never on a test split.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Settings:
    # detect -------------------------------------------------------------------------------------------------
    detect_width: int = 800  # frames wider than this are looked at scaled down to it for outlines
    index_width: int = 1280  # ... and to this for index glyphs
    index_card_width: float = 60.0  # cards outlined narrower (median of three or more) are scaled up to it for glyphs
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
    max_corners: int = 16  # corner proposals per frame, the largest blobs' first (a room's clutter has many)
    glyph_size: tuple[float, float] = (6.0, 0.2)  # an index glyph's size: pixels at least, share of the frame at most
    glyph_fill: tuple[float, float] = (0.15, 0.85)  # ... and of its box it fills (sparser: tangled with a line)
    glyph_contrast: float = 22.0  # ... a dark glyph's mean depth below the ground (a pixel's is 18: grain passes that)
    index_edge: tuple[float, float] = (0.2, 0.17)  # an index lies this near a card's sides (of width, height)
    paper_level: int = 90  # dark ink is looked for where the lowest colour channel's local mean is at least this
    dark_card: int = 90  # light ink where the highest channel's local mean is at most this
    joined_aspect: tuple[float, float] = (0.5, 2.0)  # long / short side of a card joined from its two index windows
    max_index_pairs: int = 400  # glyph pairs per outline and off them: bounds a cluttered frame's time, no filter
    corner_ground: float = 0.5  # a vertex's index window on less of the ground an index lies on frames the table
    stretch_angle: float = 0.1  # a pair's line and its suit's conjugate at right angles within this cosine (6 degrees)
    stretch_pairs: int = 5  # a frame is read resampled when this many glyph pairs read as an index agree on a stretch
    stretch_against: float = 2.0  # ... this many times those its own shape fits but the stretch does not
    stretch_least: float = 1.25  # ... and it is beyond this either way
    spot_width: int = 1280  # frames wider than this are looked at scaled down to it for indices by the spotter
    spot_bar: float = 0.3  # the spotter's heat at a local maximum for an index to be read there
    spot_turns: tuple[float, ...] = (0.0, 15.0, -15.0)  # ... in a window at each of these turns from its own (degrees)
    spot_votes: int = 2  # ... named where this many of them read one card at `index_bar`
    spot_mark_bar: float = 0.8  # ... else a mark where one reads as some card's index this surely (all cards summed)
    spot_margin: float = 0.04  # ... looked for this share of the frame's width around the ground off the cards read
    spot_whole: float = 0.5  # ... in the whole frame where those boxes would cover this share of it
    # read ---------------------------------------------------------------------------------------------------
    blank_window: float = 6.0  # a window whose grey levels' standard deviation is below this holds no index
    name_bar: float = 0.94  # calibrated probability a corner's card needs to be named (set on the validation split)
    index_bar: float = 0.975  # ... when the corner was proposed from an index's glyphs (the same)
    other_card: float = 0.35  # an outline whose other corner reads another card this surely is not named
    rank_bar: float = 0.8  # summed probability of one rank for `rank` alone when the suit is unsure
    mark_bar: float = 0.5  # an index window read as some card this surely (not named) shows a card on top there
    mark_card_off_table: float = 0.5  # share of a mark's card outline off the table top for it to be reported unknown
    refine_jitter: float = 0.12  # a mark's window is read again moved this share of its size each way, and scaled
    refine_votes: tuple[int, int] = (2, 3)  # ... named where this many read it at `index_bar`: on a card, on the table
    seen_support: float = 0.6  # a card read from one window is cut at a straight edge past its index along this share
    seen_top: float = 0.1  # ... of it and of its top border, this share of its length (a card lying on it)
    seen_overlap: float = 0.05  # ... when another card overlaps it by this share of its area (or its index lies on it)
    seen_tilt: float = 15.0  # ... tilted from the card's side by at most this (degrees: a fan turns its cards)
    seen_canny: tuple[int, int] = (20, 60)  # ... edges found with these Canny thresholds, on the card upright
    paper_colour: float = 45.0  # a card read from one window alone: its paper is this near its index's (L1, BGR)
    paper_gap: float = 0.2  # ... its far sides where that paper ends before a gap of this share of the card (pips)
    paper_reach: float = 1.8  # ... looked for up to this many times the card drawn from its index window
    paper_rows: float = 0.5  # ... a side moved where this share of the lines across it end there,
    paper_straight: float = 0.05  # ... their ends' median distance from their median this share of the view at most
    regrow: float = 0.08  # an outline naming no card is read again grown by this share of its width each side
    move_out: float = 0.2  # ... and with each side moved out to the card's edge, up to this share of its width
    edge_paper: float = 12.0  # ... a side moved only where paper and table beyond it differ by this many grey levels
    card_shape: float = 1.15  # an unread outline off a card's proportions by more than this is read made card-shaped
    max_unread_aspect: float = 1.7  # an outline more elongated than this that reads nothing is no card
    min_edge_contrast: float = 20.0  # colour distance between an unread outline's middle and the table beside it
    face_down_paper: float = 0.3  # an unread outline with less open paper than this is a back
    pattern_partners: int = 6  # a glyph pair both of whose glyphs pair with this many or more is a pattern's
    # calibrate ----------------------------------------------------------------------------------------------
    profile_similarity: float = 0.85  # a profile's nearest prototype decides a corner at least this like it (cosine),
    profile_margin: float = 0.03  # ... nearer it than any other prototype by at least this,
    profile_unseen: float = 0.1  # ... and the network gives the cards the profile never saw less than this


SETTINGS = Settings()
