"""Robustness of reading the real photographs: each photograph of a split read again a little darker, lit
unevenly, turned, smaller or more compressed, its label boxes moved with it, and scored as `bench.vision`
scores the photographs (`score_ranks`: all cards, and the cards standing alone, recomputed on the moved boxes).

Why: the held-out photographs differ from the tuning ones in light, turn, scale and compression; a card read
right should stay right when its photograph changes that way. "lost" counts the cards read right in the
photograph as it is and not in the variant; "off" the named detections centred on no labelled box.

The variants (fixed, deterministic; `VARIANTS`):
- `rot90`, `rot180`, `rot270`: `cv2.rotate` clockwise by a quarter, a half, three quarters of a turn.
- `dark`: every value times 0.65. `gamma`: value = 255 (value / 255) ** 1.6 (dark tones darker still).
- `shade-x`, `shade-y`: a gain falling linearly from 1.0 to 0.45 from the left edge to the right, and from
  the top edge to the bottom (light from one side).
- `scale75`: resized to 0.75 of its width and height (`INTER_AREA`).
- `jpeg45`: encoded and decoded as JPEG at quality 45.
- `blur`: a Gaussian blur of sigma 0.8 pixels (`cv2.GaussianBlur`): a camera out of focus, or a card a
  little above the table's plane; the webcam photographs of the split are already soft.
- `turn10`: turned 10 degrees counter-clockwise about the centre on the same canvas, the border replicated.
  A box becomes the bounding box of the turned box, clipped to the frame; a card with less than half of that
  box inside the frame is left out of the variant; a box turned out of a whole card's proportions, or onto a
  neighbour, is no longer standing alone (`standing_alone` on the moved boxes).
Box coordinates are continuous (a pixel's left edge at x, its right at x + 1); the mappings are exact in them.

Run: `python -m bench.vision_robust [--split tuning] [--only NAME ...] [--variants dark,rot90] [--list]`.
The default is the tuning split; the held-out quarter needs `--split held-out` and is for the lead's one
scoring only. Data in ../shared/datasets is read at run time; the bench exits with a note when it is absent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import pickle
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from bench.vision import (
    DATASETS,
    Box,
    Label,
    Score,
    _count_rank,
    _labelled,
    _owners,
    held_out,
    score_ranks,
    standing_alone,
    tuned_real_profile,
)
from vision.images import Image, load_image
from vision.pipeline import Detection, Recognizer
from vision.profile import DeckProfile

Points = npt.NDArray[np.float64]
PHOTOS = DATASETS / "real-photos-dev"
DARK_GAIN = 0.65
GAMMA = 1.6
SHADE_LOW = 0.45  # the gain at the shaded edge (1.0 at the lit one)
SCALE = 0.75
JPEG_QUALITY = 45
TURN_DEGREES = 10.0
BLUR_SIGMA = 0.8
KEEP_INSIDE = 0.5  # a turned card with less of its box inside the frame is left out of the variant


@dataclass(frozen=True, kw_only=True)
class Variant:
    """A change to a photograph (`image`) and the same change to its points (`points`: x, y in the original
    of the given width and height, to x, y in the variant)."""

    name: str
    image: Callable[[Image], Image]
    points: Callable[[Points, int, int], Points]


def _same(points: Points, _w: int, _h: int) -> Points:
    return points


def _gain(image: Image, gain: npt.NDArray[np.float32]) -> Image:
    """`image` times `gain` (broadcast over rows, columns, channels), rounded back to 8 bits."""
    out = np.clip(np.rint(image.astype(np.float32) * gain), 0, 255)
    return np.ascontiguousarray(out, dtype=np.uint8)


def _shade(axis: int) -> Callable[[Image], Image]:
    def apply(image: Image) -> Image:
        n = image.shape[axis]
        ramp = np.linspace(1.0, SHADE_LOW, n, dtype=np.float32)
        shape = (1, n, 1) if axis == 1 else (n, 1, 1)
        return _gain(image, ramp.reshape(shape))
    return apply


def _gamma(image: Image) -> Image:
    table = np.clip(np.rint(255.0 * (np.arange(256) / 255.0) ** GAMMA), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(cv2.LUT(image, table), dtype=np.uint8)


def _jpeg(image: Image) -> Image:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return np.ascontiguousarray(cv2.imdecode(data, cv2.IMREAD_COLOR), dtype=np.uint8)


def _blur(image: Image) -> Image:
    return np.ascontiguousarray(cv2.GaussianBlur(image, (0, 0), BLUR_SIGMA), dtype=np.uint8)


def _rotate(code: int) -> Callable[[Image], Image]:
    def apply(image: Image) -> Image:
        return np.ascontiguousarray(cv2.rotate(image, code), dtype=np.uint8)
    return apply


def _quarter_points(quarters: int) -> Callable[[Points, int, int], Points]:
    """Points turned clockwise by `quarters` quarter turns, as `cv2.rotate` turns the image: a quarter
    clockwise takes (x, y) in a w x h image to (h - y, x) in the h x w one."""
    def apply(points: Points, w: int, h: int) -> Points:
        x, y = points[:, 0], points[:, 1]
        if quarters == 1:
            return np.stack([h - y, x], axis=1)
        if quarters == 2:
            return np.stack([w - x, h - y], axis=1)
        return np.stack([y, w - x], axis=1)
    return apply


def _scaled_size(w: int, h: int) -> tuple[int, int]:
    return round(w * SCALE), round(h * SCALE)


def _scale(image: Image) -> Image:
    size = _scaled_size(image.shape[1], image.shape[0])
    return np.ascontiguousarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)


def _scale_points(points: Points, w: int, h: int) -> Points:
    sw, sh = _scaled_size(w, h)
    scaled: Points = points * np.array([sw / w, sh / h])
    return scaled


def _turn_matrix(w: int, h: int) -> npt.NDArray[np.float64]:
    # cv2's matrix works on pixel centres (pixel x at x); box coordinates put that pixel's centre at x + 0.5.
    m = cv2.getRotationMatrix2D(((w - 1) / 2.0, (h - 1) / 2.0), TURN_DEGREES, 1.0)
    return np.asarray(m, dtype=np.float64)


def _turn(image: Image) -> Image:
    h, w = image.shape[:2]
    out = cv2.warpAffine(image, _turn_matrix(w, h), (w, h), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(out, dtype=np.uint8)


def _turn_points(points: Points, w: int, h: int) -> Points:
    m = _turn_matrix(w, h)
    turned: Points = (points - 0.5) @ m[:, :2].T + m[:, 2] + 0.5
    return turned


VARIANTS: tuple[Variant, ...] = (
    Variant(name="rot90", image=_rotate(cv2.ROTATE_90_CLOCKWISE), points=_quarter_points(1)),
    Variant(name="rot180", image=_rotate(cv2.ROTATE_180), points=_quarter_points(2)),
    Variant(name="rot270", image=_rotate(cv2.ROTATE_90_COUNTERCLOCKWISE), points=_quarter_points(3)),
    Variant(name="dark", image=lambda im: _gain(im, np.full(1, DARK_GAIN, np.float32)), points=_same),
    Variant(name="gamma", image=_gamma, points=_same),
    Variant(name="shade-x", image=_shade(1), points=_same),
    Variant(name="shade-y", image=_shade(0), points=_same),
    Variant(name="scale75", image=_scale, points=_scale_points),
    Variant(name="jpeg45", image=_jpeg, points=_same),
    Variant(name="turn10", image=_turn, points=_turn_points),
    Variant(name="blur", image=_blur, points=_same),
)
ORIGINAL = "original"


def moved_labels(variant: Variant, cards: Sequence[Label], w: int, h: int,
                 out_size: tuple[int, int]) -> list[Label | None]:
    """Each labelled card's box in the variant: the bounding box of its four corners moved, clipped to the
    variant's frame (`out_size`: width, height); None for a card less than `KEEP_INSIDE` of whose moved box is
    inside the frame."""
    moved: list[Label | None] = []
    ow, oh = out_size
    for rank, x0, y0, x1, y1 in cards:
        corners = variant.points(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64), w, h)
        bx0, by0 = corners.min(axis=0)
        bx1, by1 = corners.max(axis=0)
        cx0, cy0, cx1, cy1 = max(bx0, 0.0), max(by0, 0.0), min(bx1, float(ow)), min(by1, float(oh))
        whole = (bx1 - bx0) * (by1 - by0)
        inside = max(0.0, cx1 - cx0) * max(0.0, cy1 - cy0)
        moved.append((rank, float(cx0), float(cy0), float(cx1), float(cy1))
                     if whole > 0 and inside >= KEEP_INSIDE * whole else None)
    return moved


@dataclass
class CardState:
    """One labelled card in one reading: right / wrong / unknown / missed, and whether it stands alone."""

    photo: str
    index: int
    rank: str
    state: str
    alone: bool
    box: Box


@dataclass
class Reading:
    """One photograph (or variant) read: the score as `bench.vision` counts it, and each card's state."""

    photo: str = ""
    score: Score = field(default_factory=Score)
    alone: Score = field(default_factory=Score)
    off: int = 0
    cards: list[CardState] = field(default_factory=list)


def _state(mine: list[Detection], rank: str) -> str:
    one = Score()
    _count_rank(one, mine, rank)
    return next(k for k in ("right", "wrong", "unknown", "missed") if getattr(one, k))


def read_photo(recognizer: Recognizer, name: str, image: Image, cards: Sequence[Label | None]) -> Reading:
    """Score `image` against `cards` (None: a card left out of this variant), keeping each card's state and
    the named detections centred on no labelled box."""
    height, width = image.shape[:2]
    kept = [(i, c) for i, c in enumerate(cards) if c is not None]
    labels = [c for _, c in kept]
    detections = recognizer.identify(image)
    reading = Reading(photo=name)
    score_ranks(detections, labels, (width, height), reading.score, reading.alone)
    boxes: list[Box] = [(x0, y0, x1, y1) for _, x0, y0, x1, y1 in labels]
    owners = _owners(detections, boxes)
    reading.off = sum(1 for d, o in zip(detections, owners, strict=True) if o is None and d.rank is not None)
    for k, (i, (rank, *_box)) in enumerate(kept):
        mine = [d for d, o in zip(detections, owners, strict=True) if o == k]
        reading.cards.append(CardState(photo=name, index=i, rank=rank, state=_state(mine, rank),
                                       alone=standing_alone(k, boxes, width, height), box=boxes[k]))
    return reading


def _read_all(job: tuple[bytes, Path, list[tuple[str, list[Label]]], list[str]]) -> dict[str, list[Reading]]:
    """Worker: every photograph in the job, as it is and in each named variant."""
    profile_bytes, folder, photos, names = job
    profile: DeckProfile = pickle.loads(profile_bytes)  # pickled by this process's parent, a moment ago
    recognizer = Recognizer(profile)
    chosen = {v.name: v for v in VARIANTS}
    out: dict[str, list[Reading]] = {n: [] for n in [ORIGINAL, *names]}
    for name, cards in photos:
        image = load_image(folder / name)
        h, w = image.shape[:2]
        out[ORIGINAL].append(read_photo(recognizer, name, image, list(cards)))
        for vname in names:
            variant = chosen[vname]
            changed = variant.image(image)
            size = (changed.shape[1], changed.shape[0])
            out[vname].append(read_photo(recognizer, name, changed, moved_labels(variant, cards, w, h, size)))
        print(f"read {name}", file=sys.stderr, flush=True)
    return out


def fold(name: str) -> int:
    """The tuning split's three folds, by a hash digit of the file name (as the vision passes check rules)."""
    return int(hashlib.sha256(name.encode()).hexdigest()[1], 16) % 3


@dataclass
class Row:
    n: int = 0
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    missed: int = 0
    off: int = 0
    lost: int = 0
    folds: list[int] = field(default_factory=lambda: [0, 0, 0])


def summarise(original: list[Reading], variant: list[Reading], *, alone: bool) -> tuple[Row, list[tuple[
        CardState, CardState]]]:
    """One table row (all cards, or only those standing alone in the variant) and the cards lost: read right
    in the original and not in the variant (the pairs original, variant)."""
    row = Row()
    lost: list[tuple[CardState, CardState]] = []
    for before, after in zip(original, variant, strict=True):
        row.off += after.off
        was = {c.index: c for c in before.cards}
        for c in after.cards:
            if alone and not c.alone:
                continue
            row.n += 1
            setattr(row, c.state, getattr(row, c.state) + 1)
            if c.state == "right":
                row.folds[fold(c.photo)] += 1
            if was[c.index].state == "right" and c.state != "right":
                row.lost += 1
                lost.append((was[c.index], c))
    return row, lost


def run(profile: DeckProfile, folder: Path, names: Sequence[str], variants: Sequence[str],
        jobs: int) -> dict[str, list[Reading]]:
    labels = _labelled(folder)
    photos = [(n, labels[n]) for n in names]
    blob = pickle.dumps(profile)
    parts = [(blob, folder, photos[k::jobs], list(variants)) for k in range(jobs)]
    if jobs == 1:
        results = [_read_all(parts[0])]
    else:
        with ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn")) as ex:
            results = list(ex.map(_read_all, parts))
    merged: dict[str, list[Reading]] = {}
    for r in results:
        for k, v in r.items():
            merged.setdefault(k, []).extend(v)
    order = {n: i for i, n in enumerate(names)}
    for v in merged.values():
        v.sort(key=lambda reading: order[reading.photo])
    return merged


def table(readings: dict[str, list[Reading]]) -> tuple[list[str], list[tuple[str, CardState, CardState]]]:
    lines = [f"{'variant':9} {'cards':5} {'n':>4} {'right':>5} {'wrong':>5} {'unk':>4} {'miss':>4} {'off':>4} "
             f"{'lost':>4}  right per fold"]
    lost_all: list[tuple[str, CardState, CardState]] = []
    for vname, variant in readings.items():
        for alone in (False, True):
            row, lost = summarise(readings[ORIGINAL], variant, alone=alone)
            lines.append(f"{vname:9} {'alone' if alone else 'all':5} {row.n:4} {row.right:5} {row.wrong:5} "
                         f"{row.unknown:4} {row.missed:4} {row.off if not alone else '':>4} {row.lost:4}  "
                         f"{'/'.join(map(str, row.folds))}")
            if not alone:
                lost_all += [(vname, a, b) for a, b in lost]
    return lines, lost_all


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.vision_robust", description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("tuning", "held-out"), default="tuning",
                    help="held-out: the lead's one scoring of the held-out quarter only")
    ap.add_argument("--only", nargs="*", default=None, help="these photographs only (file names)")
    ap.add_argument("--variants", default=",".join(v.name for v in VARIANTS), help="comma-separated names")
    ap.add_argument("--profile", type=Path, default=None,
                    help="a pickled rank-only profile (default: calibrate from the tuning split)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="print every card lost in a variant")
    ap.add_argument("--save", type=Path, default=None, help="write every card's state per variant (JSON)")
    args = ap.parse_args(argv)
    if not (PHOTOS / "labels.csv").is_file():
        print(f"skipped: {PHOTOS} is absent", file=sys.stderr)
        return 0
    known = {v.name for v in VARIANTS}
    variants = [v for v in args.variants.split(",") if v]
    if unknown := [v for v in variants if v not in known]:
        ap.error(f"unknown variants {unknown}; known: {sorted(known)}")
    labels = _labelled(PHOTOS)
    names = [n for n in sorted(labels) if held_out(n) == (args.split == "held-out")]
    if args.only:
        names = [n for n in names if n in set(args.only)]
    if args.profile is not None:
        with args.profile.open("rb") as f:
            profile: DeckProfile = pickle.load(f)  # a profile this machine wrote (the evaluator's cache)
    else:
        profile = tuned_real_profile(PHOTOS)
    readings = run(profile, PHOTOS, names, variants, max(1, args.jobs))
    lines, lost = table(readings)
    print(f"{len(names)} photographs ({args.split} split)")
    print("\n".join(lines))
    if args.list:
        for vname, a, b in lost:
            print(f"lost {vname:8} {a.photo} {a.rank} {'alone' if a.alone else ''} -> {b.state}"
                  f"{' alone' if b.alone else ''} box {[round(v) for v in b.box]}")
    if args.save is not None:
        args.save.write_text(json.dumps({k: [[c.__dict__ for c in r.cards] + [{"off": r.off}] for r in v]
                                         for k, v in readings.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
