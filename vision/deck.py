"""Calibrate: a deck profile from photographs of that deck, which makes the reader surer of that deck: the reader's
embedding of its index corners averaged per card or per rank, tied to the model's SHA-256 (docs/vision.md, "Deck
profiles").
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.cards import ALL_CARDS, RANKS, card_from_file_name
from vision.detect import Found, find_cards
from vision.errors import VisionInputError
from vision.images import LabelledCard, load_image, read_json_file
from vision.read import NONE, IndexReader, Readings, default_reader
from vision.rectify import (
    FloatArray,
    Image,
    Pyramid,
    box_quad,
    corner_crops,
    corner_crops_at,
    order_quad,
    quad_iou,
    warp_card,
)
from vision.settings import SETTINGS, Settings

PROFILE_FORMAT = "cardtable-deck-profile"
PROFILE_VERSION = 4


@dataclass(frozen=True)
class DeckProfile:
    name: str
    model_sha256: str
    prototypes: dict[str, FloatArray]  # card code or rank letter -> unit embedding
    # False (`calibrate-deck --no-default`): only the cards (or ranks) the profile learnt can be named
    default: bool = True

    @property
    def keys(self) -> tuple[str, ...]:
        """The card codes (or rank letters) the calibration photos showed."""
        return tuple(sorted(self.prototypes))

    def check_model(self, reader: IndexReader) -> None:
        if self.model_sha256 != reader.meta.get("sha256"):
            raise VisionInputError(f"deck profile {self.name!r} was made with another model: calibrate the deck again")

    def sharpen(self, r: Readings, s: Settings = SETTINGS) -> Readings:
        """The readings as this deck's prototypes decide them: a decisive nearest prototype's card(s) take the card
        share, contradicting corners make it unknown; else (and "not an index") the network's reading stands."""
        if len(r.probs) == 0:
            return r
        # prototype x card: the cards each prototype stands for (one card, or the four of a rank)
        member = np.array([[c == k or c[0] == k for c in ALL_CARDS] for k in self.keys], bool)
        learnt = np.asarray(member.any(axis=0))
        network = r.probs[:, :NONE]
        some_card = network.sum(axis=1, keepdims=True)
        nearest, like, clear = self.nearest(r, s)
        decisive = like & clear & (network[:, ~learnt].sum(axis=1) < s.profile_unseen)
        first = network.argmax(axis=1)
        contradicted = like & learnt[first] & ~(member[nearest, first] & clear) & ~decisive
        cards = np.where(learnt, network, network * self.default)
        # decisive: the card share to the nearest prototype's cards in the network's proportions (its own card: all)
        mine = np.where(member[nearest], np.maximum(network, 1e-9), 0.0)
        cards = np.where(decisive[:, None], some_card * mine / mine.sum(axis=1, keepdims=True), cards)
        cards[contradicted] = np.minimum(cards[contradicted], some_card[contradicted] / len(ALL_CARDS))
        return Readings(np.concatenate([cards, r.probs[:, NONE:]], axis=1).astype(np.float32), r.embeddings)

    def nearest(self, r: Readings, s: Settings) \
            -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Each corner's nearest prototype (an index into `keys`), whether the corner is like it (less like every one
        is no evidence either way), and whether it is clearly the nearest."""
        sims = r.embeddings @ np.stack([self.prototypes[k] for k in self.keys]).T  # N x K
        order = np.argsort(sims, axis=1)
        nearest = order[:, -1]
        rows = np.arange(len(sims))
        margin = sims[rows, nearest] - sims[rows, order[:, -2]] if len(self.keys) > 1 else np.full(len(sims), np.inf)
        return nearest, sims[rows, nearest] >= s.profile_similarity, margin >= s.profile_margin

    def to_json(self) -> dict[str, Any]:
        return {"format": PROFILE_FORMAT, "version": PROFILE_VERSION, "name": self.name, "model": self.model_sha256,
                "default": self.default,
                "prototypes": {k: [round(float(v), 5) for v in p] for k, p in sorted(self.prototypes.items())}}

    def save(self, path: str | Path) -> None:
        """Written to a temporary file beside `path`, then renamed over it: never half a profile."""
        target = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent if str(target.parent) else ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.to_json(), fh)
                fh.write("\n")
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | Path) -> DeckProfile:
        data = read_json_file(path, "profile file")
        if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
            raise VisionInputError(f"{path}: not a {PROFILE_FORMAT} file")
        if data.get("version") != PROFILE_VERSION:
            raise VisionInputError(f"{path}: profile version {data.get('version')!r}, this version reads "
                                   f"{PROFILE_VERSION} (calibrate the deck again)")
        try:
            protos = {str(k): np.asarray(v, np.float32) for k, v in dict(data["prototypes"]).items()}
            name, sha = str(data["name"]), str(data["model"])
            default = data.get("default", True)
        except (KeyError, TypeError, ValueError) as exc:
            raise VisionInputError(f"{path}: broken profile ({type(exc).__name__})") from exc
        if not isinstance(default, bool):
            raise VisionInputError(f"{path}: broken profile (default must be true or false)")
        sizes = {p.shape for p in protos.values()}
        if not protos or len(sizes) != 1 or len(next(iter(sizes))) != 1 or \
                not all(k in ALL_CARDS or k in RANKS for k in protos) or \
                not all(np.all(np.isfinite(p)) for p in protos.values()):
            raise VisionInputError(f"{path}: broken profile (prototypes)")
        return cls(name, sha, protos, default)


# The outline as found and a little off (shift along the short and long side, scale): as at table time.
JITTER = ((0.0, 0.0, 1.0), (0.02, 0.0, 1.0), (0.0, 0.02, 1.0), (-0.02, -0.01, 1.0), (0.0, 0.0, 0.94), (0.0, 0.0, 1.06))


def _views(card: Image) -> list[Image]:
    """Both index corners of an upright card, from the outline as found and a little off (as at table time)."""
    h, w = card.shape[:2]
    quads = [(box_quad(0, 0, w, h) - [w / 2, h / 2]) * k + [w / 2 + dx * w, h / 2 + dy * h] for dx, dy, k in JITTER]
    return [crop for q in quads for crop in corner_crops(warp_card(card, order_quad(q.astype(np.float32)), w, h))]


def _shows_an_index(r: Readings) -> bool:
    """One of the card's two corners (`_views` alternates them; a one-index design shows none at the other) reads as
    some card's index, however unsurely, in half its views or more: calibration is for decks the network doubts."""
    index = r.probs[:, NONE] < 0.5
    return max(int(index[0::2].sum()), int(index[1::2].sum())) >= 0.5 * (len(index) // 2)


def read_single_card(image: Image, where: str, reader: IndexReader, expect: str) -> Readings:
    """The readings of the index corners of the one card in a calibration photo: the outline whose corners read as
    indices; else the whole photo (a scan); else the surest index window (reading the `expect`ed card, else any)
    and the windows near it (a card held up, or lying on a line of the table)."""
    found = find_cards(image)
    readings = (reader.read(_views(warp_card(image, quad))) for quad in found.outlines)
    cards = [r for r in readings if _shows_an_index(r)]
    if len(cards) >= 2:
        raise VisionInputError(f"{where}: more than one card in the photo (calibrate from one card per photo)")
    if cards:
        return cards[0]
    h, w = image.shape[:2]
    r = reader.read(_views(warp_card(image, order_quad(box_quad(0, 0, w - 1, h - 1)))))
    if _shows_an_index(r):
        return r
    quads = [q for c in found.corners for q in c.cards()]
    pyramid = Pyramid(image)
    r = reader.read(corner_crops_at(pyramid, quads))
    # the photo's name is evidence: a window whose first choice is its card counts at a majority, any other at the bar
    sure = [(c == expect, p, i) for i, (c, p) in enumerate(r.best(i) for i in range(len(quads)))
            if c and (p >= SETTINGS.index_bar or (c == expect and p >= 0.5))]
    if sure:
        best = quads[max(sure)[2]]
        near = [quads[i] for _, _, i in sure
                if float(np.linalg.norm(quads[i][0] - best[0])) < 0.3 * float(np.linalg.norm(best[1] - best[0]))]
        # each as found and a little off (`JITTER`: its corner moved along its sides, the card scaled about it)
        jittered = [(q[0] + dx * (q[1] - q[0]) + dy * (q[3] - q[0]) + k * (q - q[0])).astype(np.float32)
                    for q in near for dx, dy, k in JITTER]
        return reader.read(corner_crops_at(pyramid, jittered))
    raise VisionInputError(f"{where}: no card index found in the photo (one face-up card per photo)")


def calibrate_deck(paths: Sequence[str | Path], *, name: str = "calibrated", default: bool = True,
                   reader: IndexReader | None = None) -> DeckProfile:
    """A profile from one photo per card, each named by its card (`default=False`: only these can be named)."""
    reader = reader or default_reader()
    if not paths:
        raise VisionInputError("no calibration images")
    labelled: list[tuple[str, Readings]] = []
    for path in paths:
        code = card_from_file_name(str(path))
        r = read_single_card(load_image(path, paper_background=True), str(path), reader, expect=code)
        labelled.append((code, _indices(r)))
    return _profile(name, reader, labelled, default)


def _indices(r: Readings) -> Readings:
    """The readings of the corners that show an index (a one-index design's other corner does not)."""
    keep = r.probs[:, NONE] < 0.5
    return Readings(r.probs[keep], r.embeddings[keep])


def _profile(name: str, reader: IndexReader, labelled: list[tuple[str, Readings]], default: bool) -> DeckProfile:
    """Each key's prototype: the unit mean of its corners' embeddings."""
    by_key: dict[str, list[FloatArray]] = {}
    for key, r in labelled:
        by_key.setdefault(key, []).extend(r.embeddings)
    if not any(by_key.values()):
        raise VisionInputError("no card's index corner was read in the calibration photos: nothing to learn")
    means = {key: np.mean(es, axis=0) for key, es in by_key.items() if es}
    protos = {key: (m / (np.linalg.norm(m) + 1e-6)).astype(np.float32) for key, m in means.items()}
    return DeckProfile(name, str(reader.meta["sha256"]), protos, default)


@dataclass(frozen=True)
class RankCalibration:
    profile: DeckProfile
    cards: int  # labelled cards
    found: int  # of them, outlined in their photo
    crops: int  # index crops learnt
    missing: str  # ranks without a prototype


def _matching_outline(found: Found, box: tuple[float, float, float, float]) -> FloatArray | None:
    """The outline whose bounding box overlaps the labelled `box` most, if by an IoU over 0.5."""
    labelled = box_quad(*box)
    ious = [quad_iou(box_quad(*q.min(axis=0), *q.max(axis=0)), labelled) for q in found.outlines]
    if not ious or max(ious) <= 0.5:
        return None
    return found.outlines[int(np.argmax(ious))]


def calibrate_ranks(photos: Mapping[str, Sequence[LabelledCard]], *, name: str = "calibrated",
                    default: bool = True, reader: IndexReader | None = None) -> RankCalibration:
    """A rank-only profile from photographs labelled by card box and rank (each one outlined gives two corners)."""
    reader = reader or default_reader()
    if not photos:
        raise VisionInputError("no calibration photographs")
    labelled: list[tuple[str, Readings]] = []  # one per labelled card outlined in its photo
    for path, boxes in photos.items():
        image = load_image(path)
        found = find_cards(image)
        for lc in boxes:
            quad = _matching_outline(found, lc.box)
            if quad is not None:
                labelled.append((lc.rank, _indices(reader.read(_views(warp_card(image, quad))))))
    profile = _profile(name, reader, labelled, default)
    missing = "".join(r for r in RANKS if r not in profile.keys)
    cards = sum(len(boxes) for boxes in photos.values())
    return RankCalibration(profile, cards, len(labelled), sum(len(r.probs) for _, r in labelled), missing)
