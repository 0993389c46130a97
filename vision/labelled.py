"""Rank-only deck calibration from labelled photographs (a box and a rank per card, no suit).

Some decks come with photographs labelled by whole-card box and rank only (no suit), not with one
clean image per card. `calibrate_ranks` learns the deck's rank glyphs from them:

1. Each labelled card is matched with the detected card outline that covers its box best (box overlap
   at least `MIN_MATCH`); both index corners of that outline give a rank glyph labelled with the rank.
   Cards not found, or found only in part, give nothing (their corners may show another card's index).
2. Editing (a nearest-neighbour classifier's classic clean-up): a glyph is dropped unless its three
   nearest glyphs from the *other* photographs all carry its rank (fewer when its rank appears in
   fewer other photographs), and a blob much more solid than its rank's glyphs usually are (a wedge of
   table, a piece of pip) is dropped too.
   This removes glyphs that were cut wrongly (a
   piece of a pip, a "10" missing its "1"), which would otherwise name anything that looks like them.
3. The reject rule is set by cross-validation over photographs: each fold's photos are read as the
   recognizer reads a frame (every detected outline centred in a labelled box, both corners, the
   near-square rule) with the templates the other folds taught, and each card is scored as the bench
   scores it (right, wrong, unknown). The rank score and margin chosen (and the pooled score two
   corners reading the same rank need, up to 0.2 lower) read the most cards right while
   adding at most `target_wrong` of the cards to the wrong readings of the clean-image rule (0.72,
   0.04), also a little below the chosen score. So the threshold is a measured property of this deck,
   not a guess, and the photographs to be scored later play no part in it. The folds read as the
   profile made here will: each corner cut again at lower ink levels when unsure (`recut`), and searched
   near its expected place, from grown and shrunk outlines too (`search`, `identify.corner_views`); and
   the outlines that read no rank are outlined again from the indices around them, as the recognizer
   does (`vision.reoutline`, `pipeline.reoutline_detections`), each card so placed scored where its new
   outline lies. (Without this last step, the reference rule's wrong readings counted 3 cards of the
   tuning split that the recognizer reads right, outlined again, and so allowed a looser rule.)
4. Suits are not labelled: a suit glyph that the base profile reads very surely is added under that
   reading (it teaches the deck's suit shapes without a label; a doubtful one is left out).

Labels: a CSV file with a header naming `filename`, `class`, `xmin`, `ymin`, `xmax`, `ymax` (other
columns ignored), or Pascal VOC XML (one file per image, or a folder of them). A class is a rank word
(`two` .. `ten`, `jack`, `queen`, `king`, `ace`) or a rank as printed (`2` .. `10`, `T`, `J`, `Q`, `K`, `A`).
"""

from __future__ import annotations

import csv
import hashlib
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import RANKS
from vision.detect import find_cards
from vision.errors import VisionInputError
from vision.geometry import side_lengths
from vision.identify import (
    SEARCH_MIN_PX,
    CornerReading,
    corner_views,
    extract_glyphs,
    iter_index_corners,
    name_card,
    name_guessed,
    name_partials,
    partial_card_quads,
    read_corner,
    read_views,
    side_by_side_cards,
)
from vision.images import Image, load_image
from vision.pipeline import REOUTLINE_MAX_WIDTH, disagree, is_small, kept_readings, may_be_named, reoutline_detections
from vision.profile import (
    RANK_SHAPE,
    DeckProfile,
    TemplateSet,
    default_profile,
    glyph_aspect,
    glyph_solidity,
    glyph_vector,
)
from vision.reoutline import (
    Grown,
    Placed,
    Reoutlined,
    choose_grown,
    choose_placed,
    grown_readings,
    may_reoutline,
    placed_readings,
)

_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
          "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A", "10": "T"}
# A detected outline stands for a labelled card when their bounding boxes overlap this much (IoU).
MIN_MATCH = 0.75
# Editing: a glyph is kept when its EDIT_K nearest glyphs from other photographs all carry its rank.
# One neighbour is not enough: junk cut from a card's edge (a staircase) recurs across photographs and
# would vouch for itself under whatever rank its card had.
EDIT_K = 3
# An index rank is drawn in strokes; a blob filling much more of its convex hull than that rank's glyphs
# usually do is a piece of a pip or of the table beyond a card edge cut diagonally by a loose outline
# (real photographs' tuning split: "K" glyphs have a median solidity of 0.45, such slashes and wedges
# 0.8-0.9). Relative to the rank's median, because glyphs only a few pixels tall are solid blobs anyway.
SOLID_EXCESS = 0.2
# Cross-validation folds (by photograph) and the searched reject thresholds.
FOLDS = 5
# The rule is chosen on what it does to whole cards as the recognizer reads them (every detected outline
# centred in a labelled box, its two corners, the near-square rule), not on clean glyphs alone: the wrong
# readings that matter come from outlines that do not fit their card (another card's index), which a
# glyph-level measure never sees. Real photographs' rank glyphs score lower than a clean image's (blur,
# a loose outline, JPEG): on the tuning split, cards read right at 0.4-0.7 with a wide margin were left
# unknown by the clean-image floor (0.72) although no reading in that range was wrong; so the search
# goes down to SCORE_FLOOR and lets the folds decide. Not lower: read in four outer folds of the tuning
# split (each calibrated on the other three), a floor of 0.4 added 5 right cards to 0.5's and one wrong,
# a wedge of table beyond a card edge read as "K" at 0.45.
SCORE_FLOOR = 0.50
_SCORES = tuple(round(SCORE_FLOOR + 0.02 * i, 2) for i in range(23))
_MARGINS = tuple(round(0.04 + 0.04 * i, 2) for i in range(10))
GUARD = 0.05
# How much lower the pooled score of two corners reading the same rank may be than one corner's.
_PAIR_DROPS = (0.0, 0.05, 0.1, 0.15, 0.2)
# The reference rule's score: that of a profile calibrated from clean card images (as `vision.deck`).
CLEAN_MIN_SCORE = 0.72
# Suit glyphs the base profile reads this surely are learnt under its reading.
SURE_SUIT_SCORE = 0.8
SURE_SUIT_MARGIN = 0.1


@dataclass(frozen=True, kw_only=True)
class LabelledCard:
    rank: str
    box: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax in image pixels


@dataclass(frozen=True, kw_only=True)
class RankGlyph:
    rank: str
    mask: Image
    photo: str


@dataclass(frozen=True, kw_only=True)
class RankCalibration:
    """What the calibration measured: glyphs learnt and kept, and the cross-validated reject rule."""

    profile: DeckProfile
    glyphs: int
    kept: int
    # Cross-validation by photograph, card by card as the recognizer reads them: labelled cards with at
    # least one detected outline centred in their box, and of those, how many got a rank, right or wrong.
    cv_cards: int
    cv_read: int
    cv_right: int
    cv_wrong: int
    # Ranks of which no glyph was kept: the profile cannot read them and may take them for a learnt
    # rank that looks alike (a "4" for an "A"), so a deck is calibrated from photos of every rank.
    missing: str


def rank_from_label(label: str) -> str:
    key = label.strip().lower()
    rank = _WORDS.get(key, key.upper())
    if len(rank) != 1 or rank not in RANKS:
        raise VisionInputError(f"not a rank label: {label!r}")
    return rank


def read_labels(path: str | Path) -> dict[str, list[LabelledCard]]:
    """Labels by image file name (no folder): a CSV file, a VOC XML file or a folder of VOC XML files."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.xml"))
        if not files:
            raise VisionInputError(f"{path}: no VOC .xml label files in this folder")
        out: dict[str, list[LabelledCard]] = {}
        for f in files:
            for name, cards in _read_voc(f).items():
                out.setdefault(name, []).extend(cards)
        return out
    if not p.is_file():
        raise VisionInputError(f"{path}: no such label file")
    return _read_voc(p) if p.suffix.lower() == ".xml" else _read_csv(p)


def _box(values: Sequence[str], where: str) -> tuple[float, float, float, float]:
    try:
        x0, y0, x1, y1 = (float(v) for v in values)
    except (TypeError, ValueError) as exc:
        raise VisionInputError(f"{where}: box is not four numbers") from exc
    if not (x1 > x0 and y1 > y0):
        raise VisionInputError(f"{where}: empty box")
    return x0, y0, x1, y1


def _read_csv(path: Path) -> dict[str, list[LabelledCard]]:
    out: dict[str, list[LabelledCard]] = {}
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            need = {"filename", "class", "xmin", "ymin", "xmax", "ymax"}
            if reader.fieldnames is None or not need <= set(reader.fieldnames):
                raise VisionInputError(f"{path}: a label CSV needs the columns {', '.join(sorted(need))}")
            for line, row in enumerate(reader, start=2):
                where = f"{path}:{line}"
                rank = rank_from_label(row["class"] or "")
                box = _box([row["xmin"], row["ymin"], row["xmax"], row["ymax"]], where)
                out.setdefault(Path(row["filename"]).name, []).append(LabelledCard(rank=rank, box=box))
    except UnicodeDecodeError as exc:
        raise VisionInputError(f"{path}: not a text CSV file") from exc
    return out


def _read_voc(path: Path) -> dict[str, list[LabelledCard]]:
    # Python's expat refuses entity-expansion bombs; the files are small and local anyway.
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise VisionInputError(f"{path}: not a VOC XML label file ({exc})") from exc
    name = root.findtext("filename")
    if not name:
        raise VisionInputError(f"{path}: VOC label file without <filename>")
    cards = []
    for obj in root.iter("object"):
        box = obj.find("bndbox")
        if box is None:
            raise VisionInputError(f"{path}: <object> without <bndbox>")
        cards.append(LabelledCard(rank=rank_from_label(obj.findtext("name") or ""),
                                  box=_box([box.findtext(k) or "" for k in ("xmin", "ymin", "xmax", "ymax")],
                                           str(path))))
    return {Path(name).name: cards}


def _box_iou(quad: npt.NDArray[np.float32], box: tuple[float, float, float, float]) -> float:
    qx0, qy0 = (float(v) for v in quad.min(axis=0))
    qx1, qy1 = (float(v) for v in quad.max(axis=0))
    x0, y0, x1, y1 = box
    inter = max(0.0, min(qx1, x1) - max(qx0, x0)) * max(0.0, min(qy1, y1) - max(qy0, y0))
    union = (qx1 - qx0) * (qy1 - qy0) + (x1 - x0) * (y1 - y0) - inter
    return inter / union if union > 0 else 0.0


def photo_glyphs(image: Image, cards: Sequence[LabelledCard], photo: str, base: DeckProfile, *,
                 quads: Sequence[npt.NDArray[np.float32]] | None = None
                 ) -> tuple[list[RankGlyph], list[tuple[str, Image]]]:
    """The rank glyphs of the labelled cards found whole in one photo, and the suit glyphs `base` reads
    surely. `quads`: the photo's detected outlines, when already found."""
    quads = find_cards(image) if quads is None else quads
    ranks: list[RankGlyph] = []
    suits: list[tuple[str, Image]] = []
    for card in cards:
        scored = [(_box_iou(q, card.box), i) for i, q in enumerate(quads)]
        best = max(scored, default=(0.0, -1))
        if best[0] < MIN_MATCH:
            continue
        quad = quads[best[1]]
        # An outline that fits another labelled card better is that card's, not this one's.
        if any(_box_iou(quad, other.box) > best[0] for other in cards if other is not card):
            continue
        for corner in iter_index_corners(image, quad):
            glyphs = extract_glyphs(corner)
            if glyphs is None:
                continue
            ranks.append(RankGlyph(rank=card.rank, mask=glyphs.rank, photo=photo))
            reading = read_corner(corner, base)
            if reading is not None and reading.suit_score >= SURE_SUIT_SCORE \
                    and reading.suit_margin >= SURE_SUIT_MARGIN:
                suits.append((reading.suit, glyphs.suit))
    return ranks, suits


@dataclass(frozen=True, kw_only=True)
class _Outline:
    """A detected outline centred in at least one labelled box, as the recognizer would read it."""

    # Per index corner, its views (`identify.corner_views`: the outline's own, then grown and shrunk ones).
    corners: tuple[tuple[Image, ...], ...]
    small: bool
    named: bool
    boxes: tuple[int, ...]  # the labelled cards (indices in the photo) whose box holds its centre
    # The index corners of each card the outline may be the end of (`identify.partial_card_quads`), read when
    # its own corners give no rank; none for an outline too small to be searched (as `read_partials`).
    partials: tuple[tuple[Image, ...], ...] = ()
    # For one of the two cards side by side that a near-square outline may be (`identify.side_by_side_cards`):
    # that outline's index in the photo's outlines, and which of its pairs of cards this one belongs to. The
    # recognizer reports a pair instead of the outline when either of its cards reads a rank and the other
    # pair's cards none, and the outline alone otherwise.
    half_of: tuple[int, int] | None = None
    # The outline itself (for the re-outlining, `_Reoutliner`); None in tests that give readings only.
    quad: npt.NDArray[np.float32] | None = None


class _Reoutliner:
    """`reoutline.reoutline` for one photograph of the cross-validation, as the recognizer runs it
    (`pipeline.reoutline_detections`), under many reject rules: what the placed and grown cards read does not
    depend on the rule, only on the outline and the cards read around it, so it is read once per such
    context (the photograph is loaded when first needed) and each rule only decides from it."""

    def __init__(self, path: str | Path, profile: DeckProfile) -> None:
        self.path = path
        self.profile = profile  # the fold's profile: its templates read the cards
        self._image: Image | None = None
        self._placed: dict[tuple[bytes, tuple[bytes, ...], float | None], list[Placed]] = {}
        self._grown: dict[tuple[bytes, tuple[bytes, ...]], list[Grown]] = {}

    def find(self, quad: npt.NDArray[np.float32], others: Sequence[npt.NDArray[np.float32]], length: float | None,
             grow: bool, rule: DeckProfile) -> Reoutlined | None:
        """What `reoutline.reoutline` gives for the outline `quad` with the fold's templates and `rule`'s
        thresholds."""
        if not self.profile.search or not may_reoutline(quad):
            return None
        if self._image is None:
            self._image = load_image(self.path)
        image = self._image
        if image.shape[1] > REOUTLINE_MAX_WIDTH:
            return None  # the recognizer outlines nothing again on such a frame
        near = tuple(o.tobytes() for o in others)
        key = (quad.tobytes(), near, length)
        if key not in self._placed:
            self._placed[key] = list(placed_readings(image, quad, self.profile, others=others, card_length=length))
        named, found = choose_placed(self._placed[key], rule)
        if named or not grow:
            return found
        if key[:2] not in self._grown:
            self._grown[key[:2]] = list(grown_readings(image, quad, self.profile, others))
        return choose_grown(self._grown[key[:2]], rule)


@dataclass(frozen=True, kw_only=True)
class _PhotoCards:
    photo: str
    # The labelled cards' ranks; "" for a card not scored (its rank was not taught to the fold reading it:
    # such a rank cannot be read, and the calibration reports it as missing instead).
    ranks: tuple[str, ...]
    outlines: tuple[_Outline, ...]
    # The labelled cards' boxes (a card outlined again is scored where its new outline's centre lies), and
    # the re-outlining of the fold reading the photo; none in tests that give readings only.
    boxes: tuple[tuple[float, float, float, float], ...] = ()
    reoutliner: _Reoutliner | None = None


def _photo_cards(image: Image, cards: Sequence[LabelledCard], photo: str,
                 quads: Sequence[npt.NDArray[np.float32]]) -> _PhotoCards:
    """What the bench scores of one photo: every detected outline, with the labelled cards whose box holds its
    centre (also outlines centred in none: the re-outlining may place a card in a box from them, and the
    cards they read change where it looks). A near-square outline that the recognizer may read as two cards
    side by side (`side_by_side_cards`) is kept with its pairs of cards: which of them the recognizer reports
    depends on what the cards read (`_card_outcomes`)."""
    outlines: list[_Outline] = []
    for quad in quads:
        searched = side_lengths(quad)[1] >= SEARCH_MIN_PX
        halves = side_by_side_cards(quad) if searched and not may_be_named(quad) else []
        inside = _boxes_holding(quad, cards)
        partials = tuple(tuple(iter_index_corners(image, card)) for card in partial_card_quads(quad)) \
            if searched else ()
        outlines.append(_outline(image, quad, inside, partials=partials))
        whole = len(outlines) - 1
        outlines += [_outline(image, half, _boxes_holding(half, cards), half_of=(whole, turn))
                     for turn, pair in enumerate(halves) for half in pair]
    return _PhotoCards(photo=photo, ranks=tuple(c.rank for c in cards), outlines=tuple(outlines),
                       boxes=tuple(c.box for c in cards))


def _boxes_holding(quad: npt.NDArray[np.float32], cards: Sequence[LabelledCard]) -> tuple[int, ...]:
    return _holding(quad, [c.box for c in cards])


def _holding(quad: npt.NDArray[np.float32], boxes: Sequence[tuple[float, float, float, float]]) -> tuple[int, ...]:
    """The boxes (indices) that hold the outline's centre."""
    cx, cy = (float(v) for v in quad.mean(axis=0))
    return tuple(i for i, b in enumerate(boxes) if b[0] <= cx <= b[2] and b[1] <= cy <= b[3])


def _outline(image: Image, quad: npt.NDArray[np.float32], boxes: tuple[int, ...], *,
             partials: tuple[tuple[Image, ...], ...] = (), half_of: tuple[int, int] | None = None) -> _Outline:
    return _Outline(corners=tuple(tuple(corner_views(image, quad, which)) for which in (0, 1)),
                    small=is_small(quad), named=may_be_named(quad), boxes=boxes, partials=partials,
                    half_of=half_of, quad=quad)


def _fold(photo: str) -> int:
    return hashlib.sha256(photo.encode()).digest()[1] % FOLDS


def _similarity(queries: TemplateSet, templates: TemplateSet) -> npt.NDArray[np.float32]:
    """`TemplateSet.scores` for many queries at once (queries given as a template set of their masks)."""
    corr = queries.vectors @ templates.vectors.T
    log_q = np.log(np.maximum(queries.aspects, 1e-3))[:, None]
    log_t = np.log(np.maximum(templates.aspects, 1e-3))[None, :]
    penalty = 0.6 * np.abs(log_q - log_t) + TemplateSet.solidity_weight * np.abs(
        queries.solidity[:, None] - templates.solidity[None, :])
    return np.asarray(corr - penalty, dtype=np.float32)


# What one card of the cross-validation came to: right, wrong, or unknown (no rank named).
_RIGHT, _WRONG, _UNKNOWN = 1, 2, 0


def _card_outcomes(readings: Sequence[tuple[_PhotoCards, list[list[CornerReading | None]]]],
                   profile: DeckProfile) -> tuple[int, int, int]:
    """(cards with an outline, right, wrong) when the labelled cards are read with `profile`'s thresholds
    and scored as the bench scores them: a card is right when a named outline centred in its box has its
    rank, wrong when named outlines there all have another. An outline's readings are its two index
    corners', then two by two those of the cards it may be the end of (`_Outline.partials`). The outlines
    that read no rank (or read one from one corner while the other read another) are outlined again as the
    recognizer does (`pipeline.reoutline_detections`) when the photo has a `_Reoutliner`; an outline so
    replaced is scored where its new outline's centre lies."""
    cards = right = wrong = 0
    for photo, per_outline in readings:
        named: list[set[str | None]] = [set() for _ in photo.ranks]
        seen = [False] * len(photo.ranks)
        outcomes = [_outline_rank(corner_readings, profile, outline) if outline.named else (None, False)
                    for outline, corner_readings in zip(photo.outlines, per_outline, strict=True)]
        # Near-square outlines the recognizer reports as two cards side by side: those of which exactly one
        # pair of cards (`identify.side_by_side_cards`) has a card reading a rank.
        pairs_read: dict[int, set[int]] = {}
        for o, (rank, _) in zip(photo.outlines, outcomes, strict=True):
            if o.half_of is not None and rank is not None:
                pairs_read.setdefault(o.half_of[0], set()).add(o.half_of[1])
        split = {whole: turns.pop() for whole, turns in pairs_read.items() if len(turns) == 1}
        # The recognizer's detections, in its order: (outline, rank); and those it outlines again if torn.
        detections: list[tuple[int, str | None]] = []
        torn: set[int] = set()
        for i, (outline, (rank, disagreeing)) in enumerate(zip(photo.outlines, outcomes, strict=True)):
            if i in split or (outline.half_of is not None and split.get(outline.half_of[0]) != outline.half_of[1]):
                continue
            if disagreeing and outline.half_of is None:
                torn.add(len(detections))
            detections.append((i, rank))
        again = _reoutlined(photo, detections, torn, profile)
        for k, (i, rank_read) in enumerate(detections):
            boxes, rank = photo.outlines[i].boxes, rank_read
            if k in again:
                boxes, rank = _holding(again[k].quad, photo.boxes), again[k].reading.rank
            for b in boxes:
                seen[b] = True
                named[b].add(rank)
        for b, truth in enumerate(photo.ranks):
            if not seen[b] or not truth:
                continue
            cards += 1
            ranks = named[b] - {None}
            right += truth in ranks
            wrong += bool(ranks) and truth not in ranks
    return cards, right, wrong


def _reoutlined(photo: _PhotoCards, detections: Sequence[tuple[int, str | None]], torn: set[int],
                profile: DeckProfile) -> dict[int, Reoutlined]:
    """Which detections (outline, rank) of the photo the recognizer outlines again under `profile`'s
    thresholds, and as what (`pipeline.reoutline_detections`); none without a `_Reoutliner`."""
    reoutliner = photo.reoutliner
    quads = [photo.outlines[i].quad for i, _ in detections]
    if reoutliner is None or not all(q is not None for q in quads):
        return {}
    outlines = [q for q in quads if q is not None]

    def find(k: int, others: list[npt.NDArray[np.float32]], length: float | None, grow: bool) -> Reoutlined | None:
        return reoutliner.find(outlines[k], others, length, grow, profile)

    return reoutline_detections(outlines, [rank for _, rank in detections], torn, find)


def _outline_rank(corner_readings: Sequence[CornerReading | None], profile: DeckProfile,
                  outline: _Outline) -> tuple[str | None, bool]:
    """The rank the recognizer gives an outline from its readings (see `_card_outcomes`), as
    `pipeline.Recognizer.identify` decides it, and whether it named it from one corner while it read the
    other as another rank (`pipeline.disagree`: such an outline is checked by the re-outlining)."""
    if outline.half_of is not None:
        return name_guessed(corner_readings[:2], profile, small=outline.small).rank, False
    taken: list[CornerReading | None] = []
    rank = name_card(kept_readings(iter(corner_readings[:2]), taken), profile, small=outline.small).rank
    if rank is not None:
        return rank, disagree(taken)
    if len(corner_readings) > 2:
        pairs = (corner_readings[i:i + 2] for i in range(2, len(corner_readings), 2))
        partial = name_partials(pairs, profile, small=outline.small)
        rank = None if partial is None else partial.rank
    return rank, False


def calibrate_ranks(photos: Mapping[Path, Sequence[LabelledCard]] | Mapping[str, Sequence[LabelledCard]], *,
                    name: str = "calibrated ranks",
                    base: DeckProfile | None = None, target_wrong: float = 0.0025) -> RankCalibration:
    """A deck profile whose rank templates and rank reject rule are learnt from labelled photographs."""
    base = base if base is not None else default_profile()
    glyphs: list[RankGlyph] = []
    suits: list[tuple[str, Image]] = []
    scored: list[_PhotoCards] = []
    paths: dict[str, str | Path] = {}
    for path, cards in photos.items():
        image = load_image(path)
        quads = find_cards(image)
        found, sure_suits = photo_glyphs(image, cards, Path(path).name, base, quads=quads)
        glyphs += found
        suits += sure_suits
        scored.append(_photo_cards(image, cards, Path(path).name, quads))
        paths[Path(path).name] = path
    if len({g.photo for g in glyphs}) < FOLDS or len({g.rank for g in glyphs}) < 2:
        raise VisionInputError(f"too few labelled cards found whole to learn ranks from ({len(glyphs)} index "
                               f"corners); give more photographs")
    keep = _edited(glyphs)
    # Cross-validation by photograph: each fold's cards are read, as the recognizer reads a frame, with the
    # templates the other folds taught; the corner scores are computed once, the thresholds tried after.
    # Not measured here: the cards `vision.covered` adds after the re-outlining (cards under others found
    # from one index). They are named only from a corner reading its rank at PARTIAL_MIN_SCORE (0.8) on open
    # paper, above most of the scores tried; to take them in, their reading would have to be split from
    # their decision as `vision.reoutline`'s is (`placed_readings`, `choose_placed`).
    readings: list[tuple[_PhotoCards, list[list[CornerReading | None]]]] = []
    for k in range(FOLDS):
        fold_photos = [p for p in scored if _fold(p.photo) == k]
        taught = [(g.rank, g.mask) for g, kept in zip(glyphs, keep, strict=True) if kept and _fold(g.photo) != k]
        if not fold_photos or not taught:
            continue
        fold_profile = replace(base.with_templates(taught, []), recut=True, search=True)
        known = {rank for rank, _ in taught}
        for p in fold_photos:
            scored_ranks = tuple(r if r in known else "" for r in p.ranks)
            readings.append((replace(p, ranks=scored_ranks, reoutliner=_Reoutliner(paths[p.photo], fold_profile)),
                             [[read_views(views, fold_profile) for views in o.corners]
                              + [read_corner(corner, fold_profile) for card in o.partials for corner in card]
                              for o in p.outlines]))
    outcome: dict[tuple[float, float, float], tuple[int, int, int]] = {}

    def measured(s: float, m: float, drop: float = 0.0) -> tuple[int, int, int]:
        key = (round(s, 2), round(m, 2), round(drop, 2))
        if key not in outcome:
            outcome[key] = _card_outcomes(readings, replace(base, min_rank_score=key[0], min_rank_margin=key[1],
                                                            min_pair_score=round(key[0] - key[2], 2)))
        return outcome[key]

    # The reference is the rule of a profile calibrated from clean card images (CLEAN_MIN_SCORE, the
    # base's margin): the wrong readings it makes (a label error, another card's index read as surely as
    # any right one) are not a threshold's to remove. Another rule may add at most `target_wrong` of the
    # cards to them, also GUARD below it (so that it does not sit right on top of the worst wrong reading
    # the folds happened to show).
    n_cards, ref_right, ref_wrong = measured(CLEAN_MIN_SCORE, base.min_margin)
    allowed = ref_wrong + int(target_wrong * n_cards)
    choice = (CLEAN_MIN_SCORE, base.min_margin, 0.0, ref_right, ref_wrong)
    # Strictest first: among rules that read as many cards right, the strictest is kept.
    for s in reversed(_SCORES):
        for m in reversed(_MARGINS):
            for drop in _PAIR_DROPS:
                _, n_right, n_wrong = measured(s, m, drop)
                if n_wrong <= allowed and n_right > choice[3] and measured(s - GUARD, m, drop)[2] <= allowed:
                    choice = (s, m, drop, n_right, n_wrong)
    min_score, min_margin, pair_drop, cv_right, cv_wrong = choice
    learnt = base.with_templates([(g.rank, g.mask) for g, k in zip(glyphs, keep, strict=True) if k], suits,
                                 name=name)
    profile = DeckProfile(name=name, ranks=learnt.ranks, suits=learnt.suits, min_rank_score=float(min_score),
                          min_suit_score=base.min_suit_score, min_margin=base.min_margin,
                          min_rank_margin=float(min_margin), recut=True,
                          min_pair_score=round(float(min_score) - pair_drop, 2), search=True)
    learnt_ranks = {g.rank for g, k in zip(glyphs, keep, strict=True) if k}
    return RankCalibration(profile=profile, glyphs=len(glyphs), kept=int(keep.sum()), cv_cards=n_cards,
                           cv_read=max(cv_right, 0) + cv_wrong, cv_right=max(cv_right, 0), cv_wrong=cv_wrong,
                           missing="".join(r for r in RANKS if r not in learnt_ranks))


def _edited(glyphs: Sequence[RankGlyph]) -> npt.NDArray[np.bool_]:
    """Which glyphs editing keeps: those whose nearest glyphs from the other photographs carry their rank
    and that are not much more solid than their rank's glyphs usually are."""
    every = _glyph_set(glyphs)
    photo = np.array([g.photo for g in glyphs])
    ranks = [g.rank for g in glyphs]
    sim = _similarity(every, every)
    sim[photo[:, None] == photo[None, :]] = -9.0
    order = np.argsort(-sim, axis=1)
    rank_arr = np.array(ranks)
    # A rank seen in few other photographs can only be vouched for by as many glyphs as there are.
    peers = [int(((rank_arr == ranks[i]) & (photo != photo[i])).sum()) for i in range(len(glyphs))]
    typical = {r: float(np.median(every.solidity[rank_arr == r])) for r in set(ranks)}
    return np.array([peers[i] > 0 and all(ranks[j] == ranks[i] for j in order[i, :min(EDIT_K, peers[i])])
                     and every.solidity[i] <= typical[ranks[i]] + SOLID_EXCESS for i in range(len(glyphs))],
                    dtype=np.bool_)


def _subset(templates: TemplateSet, index: npt.NDArray[np.intp]) -> TemplateSet:
    return TemplateSet(tuple(templates.labels[i] for i in index), templates.masks[index], templates.aspects[index],
                       templates.vectors[index], templates.solidity[index])


def _glyph_set(glyphs: Sequence[RankGlyph]) -> TemplateSet:
    """The glyphs as templates, one per glyph (no merging of duplicates: rows stay aligned with `glyphs`)."""
    h, w = RANK_SHAPE
    masks = np.stack([cv2.resize(g.mask, (w, h), interpolation=cv2.INTER_AREA) for g in glyphs]).astype(np.uint8)
    return TemplateSet(tuple(g.rank for g in glyphs), masks,
                       np.array([glyph_aspect(g.mask) for g in glyphs], np.float32),
                       np.stack([glyph_vector(m, RANK_SHAPE) for m in masks]),
                       np.array([glyph_solidity(m) for m in masks], np.float32))
