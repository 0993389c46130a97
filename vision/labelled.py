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
3. The reject rule is set by cross-validation over photographs: every glyph (edited out or not) is read
   with the templates learnt from the other folds, and the lowest rank score and margin are chosen
   that keep wrong readings at most `target_wrong` of the glyphs read. So the threshold is a measured
   property of this deck, not a guess, and the photographs to be scored later play no part in it.
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
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import RANKS
from vision.detect import find_cards
from vision.errors import VisionInputError
from vision.identify import extract_glyphs, iter_index_corners, read_corner
from vision.images import Image, load_image
from vision.profile import (
    RANK_SHAPE,
    DeckProfile,
    TemplateSet,
    default_profile,
    glyph_aspect,
    glyph_solidity,
    glyph_vector,
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
# The search starts at the thresholds of a profile calibrated from clean card images (0.72 and 0.04, as
# `vision.deck`) and never goes below them, however clean the folds look: a few hundred glyphs cannot
# prove a rate of a few in a thousand.
_SCORES = tuple(round(0.72 + 0.01 * i, 2) for i in range(24))
_MARGINS = tuple(round(0.04 + 0.02 * i, 2) for i in range(19))
GUARD = 0.05
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


def photo_glyphs(image: Image, cards: Sequence[LabelledCard], photo: str,
                 base: DeckProfile) -> tuple[list[RankGlyph], list[tuple[str, Image]]]:
    """The rank glyphs of the labelled cards found whole in one photo, and the suit glyphs `base` reads surely."""
    quads = find_cards(image)
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


def _best_two(sim: npt.NDArray[np.float32], labels: Sequence[str]) -> tuple[list[str], npt.NDArray[np.float32],
                                                                           npt.NDArray[np.float32]]:
    """Per query row: the best label, its score and its margin over the best other label."""
    names = sorted(set(labels))
    lab = np.array(labels)
    per = np.stack([np.where(lab == n, sim, -9.0).max(axis=1) for n in names], axis=1)
    order = np.argsort(-per, axis=1)
    rows = np.arange(per.shape[0])
    best = per[rows, order[:, 0]]
    second = per[rows, order[:, 1]] if per.shape[1] > 1 else np.full_like(best, -1.0)
    return [names[i] for i in order[:, 0]], best, best - second


def calibrate_ranks(photos: Mapping[Path, Sequence[LabelledCard]] | Mapping[str, Sequence[LabelledCard]], *,
                    name: str = "calibrated ranks",
                    base: DeckProfile | None = None, target_wrong: float = 0.0025) -> RankCalibration:
    """A deck profile whose rank templates and rank reject rule are learnt from labelled photographs."""
    base = base if base is not None else default_profile()
    glyphs: list[RankGlyph] = []
    suits: list[tuple[str, Image]] = []
    for path, cards in photos.items():
        found, sure_suits = photo_glyphs(load_image(path), cards, Path(path).name, base)
        glyphs += found
        suits += sure_suits
    if len({g.photo for g in glyphs}) < FOLDS or len({g.rank for g in glyphs}) < 2:
        raise VisionInputError(f"too few labelled cards found whole to learn ranks from ({len(glyphs)} index "
                               f"corners); give more photographs")
    every = _glyph_set(glyphs)
    photo = np.array([g.photo for g in glyphs])
    ranks = [g.rank for g in glyphs]
    # Editing: each glyph's nearest glyph from the other photographs must carry its rank.
    sim = _similarity(every, every)
    sim[photo[:, None] == photo[None, :]] = -9.0
    order = np.argsort(-sim, axis=1)
    rank_arr = np.array(ranks)
    # A rank seen in few other photographs can only be vouched for by as many glyphs as there are.
    peers = [int(((rank_arr == ranks[i]) & (photo != photo[i])).sum()) for i in range(len(glyphs))]
    typical = {r: float(np.median(every.solidity[rank_arr == r])) for r in set(ranks)}
    keep = np.array([peers[i] > 0 and all(ranks[j] == ranks[i] for j in order[i, :min(EDIT_K, peers[i])])
                     and every.solidity[i] <= typical[ranks[i]] + SOLID_EXCESS for i in range(len(glyphs))])
    # Cross-validation by photograph: read every glyph with what the other folds taught.
    folds = np.array([_fold(p) for p in photo])
    read_as: list[str] = [""] * len(glyphs)
    score = np.zeros(len(glyphs), np.float32)
    margin = np.zeros(len(glyphs), np.float32)
    for k in range(FOLDS):
        test = np.flatnonzero(folds == k)
        train = np.flatnonzero((folds != k) & keep)
        if not len(test) or not len(train):
            continue
        templates = base.ranks.merged(_subset(every, train))
        labels, best, gap = _best_two(_similarity(_subset(every, test), templates), templates.labels)
        for i, t in enumerate(test):
            read_as[t], score[t], margin[t] = labels[i], best[i], gap[i]
    right = np.array([read_as[i] == ranks[i] for i in range(len(glyphs))])
    allowed = int(target_wrong * len(glyphs))
    choice = (base.min_rank_score, base.rank_margin, -1, 0)
    for s in _SCORES:
        for m in _MARGINS:
            read = (score >= s) & (margin >= m)
            n_right, n_wrong = int((read & right).sum()), int((read & ~right).sum())
            # The guard band: the rule must also hold a little below the threshold, so that the
            # threshold does not sit right on top of the worst wrong reading the folds happened to show.
            guarded = int(((score >= s - GUARD) & (margin >= m) & ~right).sum())
            if guarded <= allowed and n_right > choice[2]:
                choice = (s, m, n_right, n_wrong)
    min_score, min_margin, cv_right, cv_wrong = choice
    read_total = int(((score >= min_score) & (margin >= min_margin)).sum())
    learnt = base.with_templates([(g.rank, g.mask) for g, k in zip(glyphs, keep, strict=True) if k], suits,
                                 name=name)
    profile = DeckProfile(name=name, ranks=learnt.ranks, suits=learnt.suits, min_rank_score=float(min_score),
                          min_suit_score=base.min_suit_score, min_margin=base.min_margin,
                          min_rank_margin=float(min_margin))
    learnt_ranks = {r for r, k in zip(ranks, keep, strict=True) if k}
    return RankCalibration(profile=profile, glyphs=len(glyphs), kept=int(keep.sum()), cv_read=read_total,
                           cv_right=max(cv_right, 0), cv_wrong=cv_wrong,
                           missing="".join(r for r in RANKS if r not in learnt_ranks))


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
