"""Deck profiles: the rank and suit glyph templates that identification compares corner indices with.

A profile file is a NumPy `.npz` archive (see docs/vision.md, "Deck profile format"):
`rank_masks` (N, 32, 24) uint8, `rank_labels` (N,) str, `rank_aspects` (N,) float32, the same three
for suits with (M, 24, 24) masks, and `meta`, a JSON string with the profile's name, format version and
reject thresholds. The built-in default profile is generated from `vision.glyphs` at first use.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import RANKS, SUITS
from vision.errors import VisionInputError
from vision.glyphs import RANK_FONTS, crop_to_ink, rank_mask, suit_mask

FORMAT = "cardtable-deck-profile"
VERSION = 1
RANK_SHAPE = (32, 24)  # (height, width) of a rank template
SUIT_SHAPE = (24, 24)

Image = npt.NDArray[np.uint8]
Vectors = npt.NDArray[np.float32]


def glyph_vector(mask: Image, shape: tuple[int, int]) -> npt.NDArray[np.float32]:
    """A glyph mask as a zero-mean, unit-norm vector (normalised correlation is then a dot product)."""
    return _vector_of(_resized(mask, shape))


def _resized(mask: Image, shape: tuple[int, int]) -> Image:
    return np.asarray(cv2.resize(mask, (shape[1], shape[0]), interpolation=cv2.INTER_AREA))


def _vector_of(resized: Image) -> npt.NDArray[np.float32]:
    """`glyph_vector` of a mask already resized to the template shape."""
    small = np.asarray(cv2.GaussianBlur(resized.astype(np.float32), (3, 3), 0.8), dtype=np.float32)
    v = small.reshape(-1) - float(small.mean())
    n = float(np.linalg.norm(v))
    return np.asarray(v / n if n > 1e-6 else v, dtype=np.float32)


def glyph_aspect(mask: Image) -> float:
    return float(mask.shape[1]) / float(max(mask.shape[0], 1))


def glyph_solidity(mask: Image) -> float:
    """Ink area over its convex hull's area: tells a club's notches from a spade's smooth sides."""
    ink = mask > 127
    area = int(np.count_nonzero(ink))
    if area < 3:
        return 1.0
    # The hull of the ink is the hull of each row's leftmost and rightmost ink pixel: a few dozen points
    # instead of hundreds, and the same hull (OpenCV returns the same vertices).
    rows = np.flatnonzero(ink.any(axis=1))
    inked = ink[rows]
    ends = np.empty((len(rows), 2, 2), np.int32)
    ends[:, 0, 0] = inked.argmax(axis=1)
    ends[:, 1, 0] = (ink.shape[1] - 1) - inked[:, ::-1].argmax(axis=1)
    ends[:, :, 1] = rows[:, None]
    hull = cv2.convexHull(ends.reshape(-1, 1, 2))
    hull_area = float(cv2.contourArea(hull)) + 0.5 * float(cv2.arcLength(hull, True)) + 1.0
    return min(1.0, float(area) / hull_area)


INK_THRESHOLD = 0.45  # ink strength (0 paper .. 1 full ink) above which a pixel is part of a glyph
DEFAULT_MIN_SCORE = 0.78  # the built-in profile's reject threshold
CALIBRATED_MIN_SCORE = 0.72  # a profile calibrated on the deck in play
RANK_HEIGHTS = (9, 12, 16, 0)  # glyph heights (px) as a small card is seen; 0: as drawn
SUIT_HEIGHTS = (7, 9, 12, 0)


def degraded(mask: Image, height: int) -> Image:
    """`mask` as it comes out of recognition when the glyph was only `height` pixels tall in the camera
    frame: shrunk, slightly blurred, enlarged again, thresholded like the ink, cropped."""
    if height <= 0 or mask.shape[0] <= height:
        return mask
    width = max(2, round(mask.shape[1] * height / mask.shape[0]))
    small = cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0.5)
    big = cv2.resize(small, (width * 4, height * 4), interpolation=cv2.INTER_LINEAR)
    binary = np.asarray((big > INK_THRESHOLD * 255).astype(np.uint8) * 255, dtype=np.uint8)
    return crop_to_ink(binary)


def with_degraded(items: list[tuple[str, Image]], heights: tuple[int, ...]) -> list[tuple[str, Image]]:
    return [(label, degraded(mask, h)) for label, mask in items for h in heights]


@dataclass(frozen=True)
class TemplateSet:
    labels: tuple[str, ...]
    masks: Image  # (N, h, w) uint8, already resized to the template shape
    aspects: npt.NDArray[np.float32]
    vectors: Vectors = field(repr=False)
    solidity: npt.NDArray[np.float32] = field(repr=False, default_factory=lambda: np.zeros(0, np.float32))

    @classmethod
    def build(cls, items: list[tuple[str, Image]], shape: tuple[int, int]) -> TemplateSet:
        h, w = shape
        if not items:
            return cls((), np.zeros((0, h, w), np.uint8), np.zeros(0, np.float32), np.zeros((0, h * w), np.float32))
        masks = np.stack([cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA) for _, m in items]).astype(np.uint8)
        aspects = np.array([glyph_aspect(m) for _, m in items], np.float32)
        return cls.from_arrays([lbl for lbl, _ in items], masks, aspects, shape)

    @classmethod
    def from_arrays(cls, labels: list[str], masks: Image, aspects: npt.NDArray[np.float32],
                    shape: tuple[int, int]) -> TemplateSet:
        # Fonts and sizes often give the very same template (a stroke weight lost in the resize): an
        # exact duplicate never changes a score, only the time to compute it.
        seen: set[tuple[str, bytes, float]] = set()
        keep = []
        for i, label in enumerate(labels):
            key = (label, masks[i].tobytes(), float(aspects[i]))
            if key not in seen:
                seen.add(key)
                keep.append(i)
        labels, masks, aspects = [labels[i] for i in keep], masks[keep], aspects[keep]
        vectors = np.stack([glyph_vector(m, shape) for m in masks]) if len(masks) else \
            np.zeros((0, shape[0] * shape[1]), np.float32)
        solidity = np.array([glyph_solidity(m) for m in masks], np.float32)
        return cls(tuple(labels), masks.astype(np.uint8), aspects.astype(np.float32), vectors, solidity)

    def merged(self, other: TemplateSet) -> TemplateSet:
        return TemplateSet(self.labels + other.labels, np.concatenate([self.masks, other.masks]),
                           np.concatenate([self.aspects, other.aspects]), np.concatenate([self.vectors, other.vectors]),
                           np.concatenate([self.solidity, other.solidity]))

    solidity_weight = 0.5

    def scores(self, mask: Image, shape: tuple[int, int], allowed: str | None = None) -> dict[str, float]:
        """Best score per label: normalised correlation, less a penalty for a different width/height ratio."""
        if not self.labels:
            return {}
        small = _resized(mask, shape)
        # einsum stays on this thread; a BLAS call here would spin up threads for a small product.
        corr = np.einsum("ij,j->i", self.vectors, _vector_of(small))
        aspect = glyph_aspect(mask)
        penalty = 0.6 * np.abs(np.log(self._aspect_floor / max(aspect, 1e-3)))
        penalty = penalty + self.solidity_weight * np.abs(self.solidity - glyph_solidity(small))
        total = (corr - penalty)[self._grouping[0]]
        best_per = np.maximum.reduceat(total, self._grouping[1])
        return {label: float(score) for label, score in zip(self._grouping[2], best_per.tolist(), strict=True)
                if allowed is None or label in allowed}

    @cached_property
    def _aspect_floor(self) -> npt.NDArray[np.float32]:
        return np.maximum(self.aspects, 1e-3)

    @cached_property
    def _grouping(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], list[str]]:
        """Template order grouped by label, the start of each group, and the group labels."""
        order = np.argsort(np.array(self.labels), kind="stable")
        ordered = [self.labels[i] for i in order]
        starts = [i for i in range(len(ordered)) if i == 0 or ordered[i] != ordered[i - 1]]
        return order, np.array(starts, dtype=np.intp), [ordered[i] for i in starts]


@dataclass(frozen=True)
class DeckProfile:
    """Templates for one deck design, with the thresholds below which a card is reported unknown."""

    name: str
    ranks: TemplateSet
    suits: TemplateSet
    min_rank_score: float = 0.72
    min_suit_score: float = 0.72
    min_margin: float = 0.04
    # A rank-only calibration (labelled photographs) sets its own rank margin from cross-validation;
    # None: the shared `min_margin`.
    min_rank_margin: float | None = None
    # Read a corner whose standard ink cut does not read surely again at other cuts (`identify.glyph_cuts`)
    # and keep the best rank reading: for photographs (washed-out red, blur), whose reject rule was
    # cross-validated with it (a rank-only calibration). Off for the built-in and clean-image profiles,
    # so the rendered-frame path pays nothing for it.
    recut: bool = False
    # The rank score two corners reading the same rank need together (their scores pooled), when a
    # rank-only calibration measured that agreement lets it be lower; None: `min_rank_score`.
    min_pair_score: float | None = None
    # Also read each index corner of grown and shrunk outlines (`identify.corner_views`) and keep the best
    # rank reading: for photographs, whose outline is often only roughly the card's (a picture card found
    # by its picture's frame), with a reject rule cross-validated with it (a rank-only calibration). Off
    # for the built-in and clean-image profiles, so the rendered-frame path pays nothing for it.
    search: bool = False

    @property
    def rank_margin(self) -> float:
        return self.min_margin if self.min_rank_margin is None else self.min_rank_margin

    @property
    def pair_rank_score(self) -> float:
        return self.min_rank_score if self.min_pair_score is None else self.min_pair_score

    def save(self, path: str | Path) -> None:
        meta = {"format": FORMAT, "version": VERSION, "name": self.name, "min_rank_score": self.min_rank_score,
                "min_suit_score": self.min_suit_score, "min_margin": self.min_margin}
        if self.min_rank_margin is not None:
            meta["min_rank_margin"] = self.min_rank_margin
        if self.recut:
            meta["recut"] = True
        if self.min_pair_score is not None:
            meta["min_pair_score"] = self.min_pair_score
        if self.search:
            meta["search"] = True
        buf = io.BytesIO()
        np.savez_compressed(
            buf, meta=np.array(json.dumps(meta)),
            rank_labels=np.array(self.ranks.labels, dtype="U2"), rank_masks=self.ranks.masks,
            rank_aspects=self.ranks.aspects,
            suit_labels=np.array(self.suits.labels, dtype="U2"), suit_masks=self.suits.masks,
            suit_aspects=self.suits.aspects,
        )
        Path(path).write_bytes(buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> DeckProfile:
        try:
            data = np.load(Path(path), allow_pickle=False)
            meta = json.loads(str(data["meta"]))
            if meta.get("format") != FORMAT or meta.get("version") != VERSION:
                raise VisionInputError(f"{path}: not a cardtable deck profile (version {VERSION})")
            ranks = TemplateSet.from_arrays([str(x) for x in data["rank_labels"]], data["rank_masks"],
                                            data["rank_aspects"], RANK_SHAPE)
            suits = TemplateSet.from_arrays([str(x) for x in data["suit_labels"]], data["suit_masks"],
                                            data["suit_aspects"], SUIT_SHAPE)
        except VisionInputError:
            raise
        except FileNotFoundError as exc:
            raise VisionInputError(f"{path}: no such profile file") from exc
        except Exception as exc:  # zip, json, key and shape errors all mean a broken file
            raise VisionInputError(f"{path}: unreadable deck profile ({type(exc).__name__})") from exc
        if ranks.masks.shape[1:] != RANK_SHAPE or suits.masks.shape[1:] != SUIT_SHAPE:
            raise VisionInputError(f"{path}: deck profile has templates of the wrong shape")
        bad = [lbl for lbl in ranks.labels if lbl not in RANKS] + [lbl for lbl in suits.labels if lbl not in SUITS]
        if bad or not ranks.labels or not suits.labels:
            raise VisionInputError(f"{path}: deck profile has no templates or unknown labels {bad[:3]}")
        recut, search = meta.get("recut", False), meta.get("search", False)
        for key, flag in (("recut", recut), ("search", search)):
            if not isinstance(flag, bool):
                raise VisionInputError(f"{path}: deck profile's {key} is not true or false")
        return cls(name=str(meta.get("name", "deck")), ranks=ranks, suits=suits,
                   min_rank_score=_score(meta, "min_rank_score", path),
                   min_suit_score=_score(meta, "min_suit_score", path), min_margin=_score(meta, "min_margin", path),
                   min_rank_margin=_optional_score(meta, "min_rank_margin", path),
                   recut=bool(recut), min_pair_score=_optional_score(meta, "min_pair_score", path),
                   search=bool(search))

    def with_templates(self, ranks: list[tuple[str, Image]], suits: list[tuple[str, Image]],
                       name: str | None = None) -> DeckProfile:
        return DeckProfile(name=name or self.name, ranks=self.ranks.merged(TemplateSet.build(ranks, RANK_SHAPE)),
                           suits=self.suits.merged(TemplateSet.build(suits, SUIT_SHAPE)),
                           min_rank_score=self.min_rank_score, min_suit_score=self.min_suit_score,
                           min_margin=self.min_margin, min_rank_margin=self.min_rank_margin, recut=self.recut,
                           min_pair_score=self.min_pair_score, search=self.search)


def _optional_score(meta: dict[str, object], key: str, path: str | Path) -> float | None:
    return None if meta.get(key) is None else _score(meta, key, path)


def _score(meta: dict[str, object], key: str, path: str | Path) -> float:
    """A threshold of the profile's meta: a finite number, or a typed error naming it."""
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise VisionInputError(f"{path}: deck profile's {key} is not a number")
    return float(value)


@lru_cache(maxsize=1)
def default_profile() -> DeckProfile:
    """Built-in templates for common standard-index decks: Hershey-font ranks and drawn suit shapes."""
    ranks: list[tuple[str, Image]] = []
    for rank in RANKS:
        for font in (*RANK_FONTS, cv2.FONT_HERSHEY_PLAIN):
            for thick in (0.06, 0.12, 0.18):
                ranks.append((rank, rank_mask(rank, font, thick)))
    suits: list[tuple[str, Image]] = []
    for suit in SUITS:
        for stretch in (0.85, 1.0, 1.15):
            suits.append((suit, suit_mask(suit, stretch=stretch)))
    # Stricter than a calibrated profile: the default meets decks it has never seen, and on those it
    # must answer "unknown" rather than guess (measured: 0 wrong on the card-faces deck at 0.78).
    return DeckProfile(name="default", ranks=TemplateSet.build(with_degraded(ranks, RANK_HEIGHTS), RANK_SHAPE),
                       suits=TemplateSet.build(with_degraded(suits, SUIT_HEIGHTS), SUIT_SHAPE),
                       min_rank_score=DEFAULT_MIN_SCORE, min_suit_score=DEFAULT_MIN_SCORE)
