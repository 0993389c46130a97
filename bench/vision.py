"""Vision benchmark: right / wrong / unknown / not found and milliseconds per image, per data set.

Run: `python -m bench.vision [--quick] [--lodo]` (its rows are also `cardtable bench`'s vision area).

- rendered scenes of every deck design in ../shared/datasets and of the simulator's own deck: 1280 x 720 frames
  of 8 cards lying apart on felt or wood, a fifth of them face down (backs: a back named is counted apart), and
  the same on a light desk;
- rendered fans and piles (`fanned_scene`) of a few of those decks and two black decks, scored at the uncovered
  index corners as the photographs are, and the same on a light desk (the rendered kin of `webcam_b`'s fanned
  hands on a white desk);
- `real-photos-dev`: real photographs never trained on, scored by rank (its labels have no suit);
- the cardcounterml groups held out of training (`vision.train.TEST_GROUPS`: a black deck, webcam frames of
  fanned and overlapping cards), scored by card at its labelled corner indices, and the same for the phone_a
  photographs of the reader's validation split (never trained on, but its bars were set on them: a figure to
  compare changes by without looking at the test split);
- `calibrate-deck` as a card room runs it: the `webcam_a` photographs (a training group) from one photo per
  card, and the weakest rendered deck design from one rendered photo per card, each scored without and with
  its profile;
- the frame time: p50 / p95 ms (wall clock and CPU) of a 1280 x 720 frame of 10 cards, the p95 of one real
  photograph (and of one scaled to a phone's 4032 px width), and ms per image of every data set;
- `--calibration`: only the `calibrate-deck` rows;
- `--lodo`: for each deck design, a small reader trained without it (the crops of one cached set, that
  deck's filtered out), scored on that deck's rendered scenes, with its top-1 accuracy on that deck's
  validation crops beside (the honest figure for a deck never seen; the built-in model has seen every design).
A named detection where no card is labelled counts as wrong; for the photographs the note says how many of the
wrong are such names (their labels skip some cards: in `phone_a`'s training photographs, 11 of the 12 such
names are cards cut by the frame's edge, named right; the 12th a misread). Of the cards named right, the note also
says how many have their outline cut short (a rendered card under 0.7 IoU with its true outline; a photographed
card missing one of its two labelled index corners): a name is scored at an index point, which a card wrongly cut
to a strip still holds. Data sets absent: their rows are left out, with a note on stderr.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench._report import OURS, BenchRow, to_markdown
from hardware_sim.camera import (
    FaceSet,
    PlacedCard,
    RenderOptions,
    TableScene,
    fanned_scene,
    load_face_set,
    procedural_faces,
    random_scene,
    render_with_truth,
)
from hardware_sim.camera.scene import Surface
from vision.images import LabelledCard, load_image, read_labels
from vision.pipeline import Detection, Recognizer
from vision.rectify import quad_iou
from vision.trainset import label_errata

AREA = "vision"
DATASETS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets"
GOAL = "goal (issue 30)"
Box = tuple[float, float, float, float]
# A label of the real photographs checked by eye to be wrong: (file, box, labelled rank, actual rank).
LABEL_ERRATA = (("IMG_2396.JPG", (126.0, 172.0, 254.0, 350.0), "9", "T"),)


@dataclass
class Score:
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    missed: int = 0
    backs: int = 0
    backs_named: int = 0
    images: int = 0
    ms: float = 0.0
    # of `wrong`: names of a card not labelled in the photograph (a labelled data set's boxes can skip a card:
    # one cut by the frame's edge); kept in `wrong`, reported beside it
    unlabelled: int = 0
    # of `wrong`: cards not named whose index lies under the outline of a neighbour named right at its own index
    # (a card read from its index alone is reported with the outline extrapolated from it, over a fan's next card)
    covered: int = 0
    # of `right`: cards whose outline is cut short (a rendered card's under 0.7 IoU with the true card; a photographed
    # card's missing one of its two labelled index corners): names are scored at index points, which a cut card holds
    cut: int = 0

    @property
    def cards(self) -> int:
        return self.right + self.wrong + self.unknown + self.missed

    def add(self, other: Score) -> None:
        for k in vars(self):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def line(self) -> str:
        kinds = [f"{self.unlabelled} of them not labelled"] if self.unlabelled else []
        kinds += [f"{self.covered} under a neighbour named right"] if self.covered else []
        of_wrong = f" ({', '.join(kinds)})" if kinds else ""
        cut = f" ({self.cut} of them with the outline cut short)" if self.cut else ""
        return (f"{self.right} right{cut}, {self.wrong} wrong{of_wrong}, {self.unknown} unknown, {self.missed} not "
                f"found of {self.cards}; backs named {self.backs_named} of {self.backs}; "
                f"{self.ms / max(self.images, 1):.1f} ms per image")


def _timed(rec: Recognizer, image: np.ndarray) -> tuple[list[Detection], float]:
    t0 = time.perf_counter()
    dets = rec.identify(image)
    return dets, (time.perf_counter() - t0) * 1000.0


def _inside(d: Detection, x: float, y: float) -> bool:
    import cv2

    quad = np.array(d.corners, np.float32).reshape(-1, 1, 2)
    return float(cv2.pointPolygonTest(quad, (float(x), float(y)), False)) >= 0


# Rendered scenes -------------------------------------------------------------------------------------------

def deck_folders() -> list[Path]:
    from vision.trainset import deck_folders as folders

    return folders(DATASETS) if DATASETS.is_dir() else []


def rendered(rec: Recognizer, faces: object, seeds: Sequence[int], surface: Surface | None = None) -> Score:
    """Scenes of 8 cards, a fifth face down, on the `surface` (None: felt or wood, by the seed)."""
    score = Score()
    for seed in seeds:
        scene = random_scene(seed, cards=8, face_down=0.2, surface=surface)
        frame = render_with_truth(scene, seed, RenderOptions(faces=faces))  # type: ignore[arg-type]
        dets, ms = _timed(rec, frame.image)
        score.images += 1
        score.ms += ms
        used: set[int] = set()
        for truth in frame.truth:
            cx = sum(p[0] for p in truth.corners) / 4
            cy = sum(p[1] for p in truth.corners) / 4
            at = [i for i, d in enumerate(dets) if i not in used and _inside(d, cx, cy)]
            found = min(at, key=lambda i: float(np.hypot(dets[i].center[0] - cx, dets[i].center[1] - cy)),
                        default=None)
            if found is not None:
                used.add(found)
            d = dets[found] if found is not None else None
            if not truth.face_up:
                score.backs += 1
                score.backs_named += d is not None and d.card is not None
            elif d is None:
                score.missed += 1
            elif d.card == truth.card:
                score.right += 1
                score.cut += quad_iou(np.array(d.corners, np.float32), np.array(truth.corners, np.float32)) < 0.7
            elif d.card is None:
                score.unknown += 1
            else:
                score.wrong += 1
        score.wrong += sum(1 for i, d in enumerate(dets) if i not in used and d.card is not None)
    return score


def fanned(rec: Recognizer, faces: object, seeds: Sequence[int], surface: Surface | None = None) -> tuple[Score, int]:
    """Rendered hands fanned in seat zones and a pile in the pot (on the `surface`; None: felt or wood, by the
    seed), scored as the photographs are, at the index corners: each face-up card with an uncovered index right
    when a detection naming it holds that index, wrong when one naming another card does, unknown when an unnamed
    one does. A name of a card not face up on the table, and every name given twice, counts as wrong too. Also
    returns how many names were given twice."""
    score = Score()
    twice = 0
    for seed in seeds:
        frame = render_with_truth(fanned_scene(seed, face_down=0.15, surface=surface), seed,
                                  RenderOptions(faces=faces))  # type: ignore[arg-type]
        dets, ms = _timed(rec, frame.image)
        score.images += 1
        score.ms += ms
        for truth in frame.truth:
            if not truth.face_up or not truth.indices:
                continue  # a back named gives a card not face up on the table, counted below
            on = [d for d in dets if any(_inside(d, *i) for i in truth.indices)]
            if any(d.card == truth.card for d in on):
                score.right += 1
            elif any(d.card is not None for d in on):
                score.wrong += 1
                score.covered += _neighbours_right(on, {t.card: t.indices for t in frame.truth if t.face_up})
            elif on:
                score.unknown += 1
            else:
                score.missed += 1
        up = {t.card for t in frame.truth if t.face_up}
        names = [d.card for d in dets if d.card is not None]
        score.wrong += sum(1 for c in names if c not in up)
        twice += len(names) - len(set(names))
    score.wrong += twice
    return score, twice


def _neighbours_right(on: Sequence[Detection], indices: Mapping[str, Sequence[tuple[float, float]]]) -> int:
    """1 where every named detection `on` a card's index names a card on the table (`indices`: each card's index
    points) and holds one of that card's own indices: the card lies under a neighbour's outline, not misnamed."""
    return int(all(d.card in indices and any(_inside(d, *i) for i in indices[d.card])
                   for d in on if d.card is not None))


def fan_face_sets(sets: Sequence[tuple[str, FaceSet]]) -> list[FaceSet]:
    """The face sets the fans are rendered with: the simulator's deck, every third deck design, and two of them
    printed as a black deck (gold ink on dark cards)."""
    chosen = [faces for _, faces in sets][::3]
    return chosen + [f.black() for f in chosen[:2]]


# Real photographs ------------------------------------------------------------------------------------------

def _labels_fixed(folder: Path) -> dict[str, list[LabelledCard]]:
    labels = read_labels(folder / "labels.csv")
    for name, box, labelled, actual in LABEL_ERRATA:
        cards = labels.get(name, [])
        for i, lc in enumerate(cards):
            if lc.rank == labelled and lc.box == box:
                cards[i] = LabelledCard(rank=actual, box=box)
    return labels


def calibration_half(name: str) -> bool:
    """Half of real-photos-dev, by a hash of the file name: the photographs `--labels` calibrates from when the
    bench measures a calibrated profile; the other half is scored."""
    return zlib.crc32(name.encode()) % 2 == 0


def real_ranks(rec: Recognizer, folder: Path, names: Sequence[str], labels: dict[str, list[LabelledCard]]) -> Score:
    score = Score()
    for name in names:
        image = load_image(folder / name)
        dets, ms = _timed(rec, image)
        score.images += 1
        score.ms += ms
        used: set[int] = set()
        for lc in labels[name]:
            x0, y0, x1, y1 = lc.box
            at = [i for i, d in enumerate(dets)
                  if i not in used and x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
            named = [i for i in at if dets[i].rank is not None]
            if not at:
                score.missed += 1
                continue
            pick = (named or at)[0]
            used.add(pick)
            rank = dets[pick].rank
            if rank is None:
                score.unknown += 1
            elif rank == lc.rank:
                score.right += 1
            else:
                score.wrong += 1
        boxes = [lc.box for lc in labels[name]]
        score.wrong += sum(1 for i, d in enumerate(dets) if i not in used and d.card is not None and not any(
            b[0] <= d.center[0] <= b[2] and b[1] <= d.center[1] <= b[3] for b in boxes))
    return score


def _all_fanned(rec: Recognizer, face_sets: Sequence[FaceSet], seeds: Sequence[int],
                surface: Surface | None = None) -> tuple[Score, int]:
    """`fanned` over several face sets, summed."""
    total, twice = Score(), 0
    for faces in face_sets:
        score, named_twice = fanned(rec, faces, seeds, surface)
        total.add(score)
        twice += named_twice
    return total, twice


def held_out_photos(rec: Recognizer, folder: Path, groups: Sequence[str],
                    only: Callable[[str], bool] = lambda name: True) -> Score:
    """The cardcounterml photographs of `groups` (those `only` keeps): each labelled card (at its index boxes)
    right when a detection names it over one of them."""
    rows = [r for r in csv.DictReader((folder / "labels.csv").open(encoding="utf-8"))
            if r["group"] in groups and r["suspect"] != "1" and only(r["filename"])]
    fixed = label_errata()  # the cards labelled with the wrong suit, as training reads them too
    by_image: dict[str, dict[str, list[Box]]] = {}
    for r in rows:
        box = (float(r["xmin"]), float(r["ymin"]), float(r["xmax"]), float(r["ymax"]))
        card = fixed.get((r["filename"], r["card"]), r["card"])
        by_image.setdefault(r["filename"], {}).setdefault(card, []).append(box)
    score = Score()
    for name, cards in sorted(by_image.items()):
        dets, ms = _timed(rec, load_image(folder / "images" / name))
        score.images += 1
        score.ms += ms
        named = {d.card: d for d in dets if d.card is not None}
        # each labelled card's index points: the centres of its boxes
        points = {card: [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes] for card, boxes in cards.items()}
        for card, centres in points.items():
            if card == "back":
                score.backs += 1
                score.backs_named += any(d.card is not None and any(_inside(d, *c) for c in centres) for d in dets)
                continue
            if card not in named and not card[:1].isdigit() and card not in _card_codes():
                continue  # jokers
            d = named.get(card)
            if d is not None and any(_inside(d, *c) for c in centres):
                score.right += 1
                score.cut += len(centres) == 2 and not all(_inside(d, *c) for c in centres)  # both corners labelled
            elif any(_inside(o, *c) for o in dets if o.card is not None for c in centres):
                score.wrong += 1
                score.covered += _neighbours_right([o for o in dets if any(_inside(o, *c) for c in centres)], points)
            elif any(_inside(o, *c) for o in dets for c in centres):
                score.unknown += 1
            else:
                score.missed += 1
        unlabelled = sum(1 for c in named if c not in cards)
        score.wrong += unlabelled
        score.unlabelled += unlabelled
    return score


def calibrated_split(rec: Recognizer, folder: Path, group: str,
                     say: Callable[[str], object]) -> tuple[Score, Score]:
    """`calibrate-deck` as a card room runs it, one photo per card: for each card of the group's single-card
    photographs, the first (in an order fixed by a hash of the file names) that `calibrate-deck` accepts makes
    the profile; the group's other photographs are scored without and with it."""
    from vision.deck import calibrate_deck
    from vision.errors import VisionInputError

    rows = [r for r in csv.DictReader((folder / "labels.csv").open(encoding="utf-8")) if r["group"] == group]
    # calibrate-deck learns the card a photo's name gives: a photo whose name and label disagree is not taken
    card_of = {r["filename"]: r["card"] for r in rows if r["card"] in _card_codes()}
    card_of = {n: c for n, c in card_of.items() if _named(n) == c}
    chosen: dict[str, Path] = {}
    for name in sorted(card_of, key=lambda n: zlib.crc32(n.encode())):
        if card_of[name] in chosen:
            continue
        try:
            calibrate_deck([folder / "images" / name], reader=rec.reader)
        except VisionInputError:
            continue
        chosen[card_of[name]] = folder / "images" / name
    profile = calibrate_deck(list(chosen.values()), name=group, reader=rec.reader)
    say(f"calibrate-deck from {len(chosen)} {group} photos, one per card")
    used = {p.name for p in chosen.values()}
    before = held_out_photos(rec, folder, (group,), only=lambda n: n not in used)
    after = held_out_photos(Recognizer(profile, reader=rec.reader), folder, (group,), only=lambda n: n not in used)
    return before, after


def calibrated_deck(rec: Recognizer, folder: Path, seeds: Sequence[int],
                    say: Callable[[str], object]) -> tuple[Score, Score]:
    """`calibrate-deck` for a deck design as a card room runs it: each card rendered alone on the felt (anywhere
    in the frame, any rotation) as its photo, shot again (up to `RESHOOTS` times, elsewhere on the table) when
    `calibrate-deck` refuses it; then the deck's rendered scenes scored without and with the profile."""
    import tempfile

    from vision.deck import calibrate_deck

    faces = load_face_set(folder)
    with tempfile.TemporaryDirectory() as tmp:
        accepted, shots = calibration_photos(faces, Path(tmp), zlib.crc32(folder.name.encode()), rec)
        profile = calibrate_deck(accepted, name=folder.name, reader=rec.reader)
    say(f"calibrate-deck from {len(accepted)} rendered {folder.name} photos, one per card ({shots} shots)")
    return rendered(rec, faces, seeds), rendered(Recognizer(profile, reader=rec.reader), faces, seeds)


RESHOOTS = 3


def calibration_photos(faces: object, tmp: Path, seed: int, rec: Recognizer) -> tuple[list[Path], int]:
    """One photo per card that `calibrate-deck` accepts (a card it refuses every time is left out), each card
    lying wholly in the frame, and how many photos were taken."""
    import cv2

    from vision.cards import ALL_CARDS
    from vision.deck import calibrate_deck
    from vision.errors import VisionInputError

    rng = np.random.default_rng(seed)
    accepted, shots = [], 0
    for i, card in enumerate(ALL_CARDS):
        for shot in range(RESHOOTS):
            # the 800 x 450 mm table view: a card's centre this far from its edges leaves all of the card in view
            alone = TableScene(cards=(PlacedCard(card=card, x=float(rng.uniform(100, 700)),
                                                 y=float(rng.uniform(100, 350)), angle=float(rng.uniform(-180, 180))),))
            path = tmp / f"{card}.png"
            cv2.imwrite(str(path), render_with_truth(alone, 300 + i + 1000 * shot,
                                                     RenderOptions(faces=faces)).image)  # type: ignore[arg-type]
            shots += 1
            try:
                calibrate_deck([path], reader=rec.reader)
            except VisionInputError:
                continue
            accepted.append(path)
            break
    return accepted, shots


def _named(file_name: str) -> str | None:
    """The card a photo's file name gives (None: its name gives none)."""
    from vision.cards import card_from_file_name
    from vision.errors import VisionInputError

    try:
        return card_from_file_name(file_name)
    except VisionInputError:
        return None


def _card_codes() -> set[str]:
    from vision.cards import ALL_CARDS

    return set(ALL_CARDS)


# Frame time ------------------------------------------------------------------------------------------------

def frame_times(rec: Recognizer, n: int) -> dict[str, float]:
    """p50 / p95 of a 1280 x 720 frame of 10 cards: wall-clock ms, and CPU ms (this process, all its threads:
    what the frame costs when other work shares the cores, where the wall clock moves with the load)."""
    wall, cpu = [], []
    for seed in range(n):
        image = render_with_truth(random_scene(900 + seed, cards=10, face_down=0.2), 900 + seed,
                                  RenderOptions()).image
        rec.identify(image)  # warm
        c0 = time.process_time()
        wall.append(_timed(rec, image)[1])
        cpu.append((time.process_time() - c0) * 1000.0)
    return {"p50": float(np.percentile(wall, 50)), "p95": float(np.percentile(wall, 95)),
            "CPU p50": float(np.percentile(cpu, 50)), "CPU p95": float(np.percentile(cpu, 95))}


def reader_ms(rec: Recognizer, batches: int = 40) -> float:
    """Median CPU ms per crop of the index reader on batches of 25 crops (about a frame's), as the pipeline
    calls it: the crops' normalisation and the network's forward."""
    from vision.rectify import CROP_H, CROP_W

    rng = np.random.default_rng(0)
    crops = [rng.integers(0, 256, (CROP_H, CROP_W), dtype=np.uint8) for _ in range(25)]
    rec.reader.read(crops)
    per_crop = []
    for _ in range(batches):
        c0 = time.process_time()
        rec.reader.read(crops)
        per_crop.append((time.process_time() - c0) * 1000.0 / len(crops))
    return float(np.median(per_crop))


def photo_p95(rec: Recognizer, paths: Sequence[Path], width: int | None = None) -> float:
    """p95 wall-clock ms of one photograph (as `vision identify` reads it), scaled to `width` pixels when given
    (a phone's full-size photograph)."""
    import cv2

    def image(path: Path) -> np.ndarray:
        img = load_image(path)
        return img if width is None else cv2.resize(img, None, fx=width / img.shape[1], fy=width / img.shape[1],
                                                    interpolation=cv2.INTER_CUBIC)

    return float(np.percentile([_timed(rec, image(p))[1] for p in paths], 95))


# Leave one deck out ----------------------------------------------------------------------------------------

def lodo(seeds: Sequence[int], samples: int, epochs: int, log: Callable[[str], object],
         only: Sequence[str] = ()) -> dict[str, tuple[Score, str]]:
    """Each deck design (or those named in `only`) scored by a reader trained without it: its rendered scenes,
    and the reader's top-1 accuracy on that deck's validation crops (all, and its indices alone), so that a
    weak reader shows as such and not only as cards left unknown. Every fold filters one cached crop set."""
    import tempfile

    from vision.read import IndexReader
    from vision.train import accuracy, cached_samples, export, train
    from vision.trainset import NONE

    vx, vy, vd = cached_samples(DATASETS, "validation", max(2000, samples // 10), 2)
    out = {}
    for folder in deck_folders():
        if only and folder.name not in only:
            continue
        model, temperature, figures = train(DATASETS, seed=1, samples=samples, epochs=epochs,
                                            exclude=(folder.name,), threads=1, log=False)
        mine = vd == folder.name
        index = mine & (vy != NONE)
        top1 = (f"top-1 on its crops {accuracy(model, vx[mine], vy[mine]):.3f}, on its indices "
                f"{accuracy(model, vx[index], vy[index]):.3f} ({int(index.sum())}); validation accuracy "
                f"{figures['validation_accuracy']:.3f}, temperature {temperature:.2f}")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "reader.onnx"
            export(model, temperature, figures, path, {"excluded_decks": [folder.name]})
            rec = Recognizer(reader=IndexReader(path))
            out[folder.name] = (rendered(rec, load_face_set(folder), seeds), top1)
        log(f"lodo {folder.name}: {out[folder.name][0].line()}; {top1}")
    return out


# Report ----------------------------------------------------------------------------------------------------

def _rows(data_set: str, score: Score, note: str = "") -> list[BenchRow]:
    """One line of the vision table per data set: a column per outcome (share of the cards), the time per
    image and the backs named; the counts go in one note."""
    n = max(score.cards, 1)
    outcomes = {"right": score.right, "wrong": score.wrong, "unknown": score.unknown, "not found": score.missed}
    counts = ", ".join(f"{v} {k}" for k, v in outcomes.items())
    detail = f"{counts} of {score.cards} cards in {score.images} images"
    if score.backs:
        detail += f"; {score.backs_named} of {score.backs} backs named"
    if score.cut:
        detail += f"; {score.cut} of the right named with an outline cut short"
    if score.unlabelled:
        detail += f"; {score.unlabelled} of the wrong name a card not labelled in its photograph"
    if score.covered:
        detail += (f"; {score.covered} of the wrong are cards not named whose index lies under a neighbour's "
                   "outline, that neighbour named right at its own index")
    if note:
        detail += f"; {note}"
    rows = [BenchRow(area=AREA, metric=data_set, system=f"{OURS}: {k} %", value=round(100 * v / n, 2), unit="%",
                     note=detail if k == "right" else "")
            for k, v in outcomes.items()]
    rows.append(BenchRow(area=AREA, metric=data_set, system=f"{OURS}: ms", unit="ms",
                         value=round(score.ms / max(score.images, 1), 1)))
    if score.backs:
        rows.append(BenchRow(area=AREA, metric=data_set, system=f"{OURS}: backs named", value=score.backs_named,
                             unit="cards"))
    return rows


def run(quick: bool = False, *, lodo_mode: bool = False, lodo_decks: Sequence[str] = (),
        log: Callable[[str], object] | None = None, main_rows: bool = True,
        lodo_budget: tuple[int, int] | None = None) -> list[BenchRow]:
    say = log or (lambda text: sys.stderr.write(text + "\n"))
    rows = _main_rows(quick, say) if main_rows else []
    if lodo_mode:
        seeds = range(3) if quick else range(6)
        samples, epochs = lodo_budget or ((12000 if quick else 20000), 3)
        scores = lodo(seeds, samples, epochs, say, lodo_decks)
        both = Score()
        budget = f"readers of {samples} crops, {epochs} epochs"
        for name, (score, top1) in scores.items():
            rows += _rows(f"leave-one-deck-out, {name}", score, f"{budget}; {top1}")
            both.add(score)
        rows += _rows("leave-one-deck-out, every deck scored", both, budget)
    return rows


def _main_rows(quick: bool, say: Callable[[str], object]) -> list[BenchRow]:
    rec = Recognizer()
    rows: list[BenchRow] = []
    for name, ms in frame_times(rec, 10 if quick else 40).items():
        rows.append(BenchRow(area=AREA, metric=f"1280x720 frame, 10 cards, {name}", system=f"{OURS}: ms",
                             value=round(ms, 1), unit="ms"))
    rows.append(BenchRow(area=AREA, metric="1280x720 frame, 10 cards, p95", system=GOAL, value=30, unit="ms"))
    per_crop = reader_ms(rec, 10 if quick else 40)
    say(f"index reader: {per_crop:.3f} CPU ms per crop in batches of 25")
    rows.append(BenchRow(area=AREA, metric="index reader, CPU ms per crop (batches of 25)", system=f"{OURS}: ms",
                         value=round(per_crop, 3), unit="ms"))
    seeds = range(3) if quick else range(10)
    total = Score()
    sets = [("simulator's own deck", procedural_faces(0))]
    if not DATASETS.is_dir():
        say(f"bench.vision: {DATASETS} absent: only the simulator's deck is scored")
    sets += [(f"deck {f.name}", load_face_set(f)) for f in deck_folders()]
    for label, faces in sets:
        score = rendered(rec, faces, seeds)
        say(f"rendered {label}: {score.line()}")
        total.add(score)
        if not quick:
            rows += _rows(f"rendered, {label}", score, "deck seen in training")
    rows += _rows("rendered, every deck", total, "decks seen in training; --lodo for unseen decks")
    fans, twice = _all_fanned(rec, fan_face_sets(sets), seeds)
    say(f"rendered fans and piles: {fans.line()}; {twice} cards named twice")
    rows += _rows("rendered fans and piles, card at its uncovered indices", fans,
                  f"{len(fan_face_sets(sets))} face sets, 2 of them black decks; {twice} names given twice")
    if not quick:
        desk = Score()
        for _, faces in sets:
            desk.add(rendered(rec, faces, range(3), "desk"))
        say(f"rendered on a light desk: {desk.line()}")
        rows += _rows("rendered, every deck, light desk", desk, "3 scenes a deck; decks seen in training")
        desk_fans, desk_twice = _all_fanned(rec, fan_face_sets(sets), seeds, "desk")
        say(f"rendered fans and piles on a light desk: {desk_fans.line()}; {desk_twice} cards named twice")
        rows += _rows("rendered fans and piles, light desk", desk_fans,
                      f"the same face sets; {desk_twice} names given twice")
    real = DATASETS / "real-photos-dev"
    if real.is_dir():
        labels = _labels_fixed(real)
        names = sorted(labels)
        names = names[:40] if quick else names
        score = real_ranks(rec, real, names, labels)
        say(f"real-photos-dev: {score.line()}")
        rows.append(BenchRow(area=AREA, metric="one photograph (real-photos-dev), p95", system=f"{OURS}: ms",
                             value=round(photo_p95(rec, [real / n for n in names]), 1), unit="ms"))
        rows.append(BenchRow(area=AREA, metric="one photograph scaled to 4032 px wide (a phone's), p95",
                             system=f"{OURS}: ms", value=round(photo_p95(rec, [real / n for n in names[::10]], 4032)),
                             unit="ms"))
        rows.append(BenchRow(area=AREA, metric="one photograph (real-photos-dev), p95", system=GOAL, value=150,
                             unit="ms"))
        rows += _rows("real-photos-dev (never trained on), rank", score)
    if not quick:
        rows += _calibration_rows(rec, seeds, say)
    ccml = DATASETS / "cardcounterml-photos"
    if ccml.is_dir():
        from vision.train import TEST_GROUPS, is_validation_photo

        score = held_out_photos(rec, ccml, ("phone_a",), only=is_validation_photo)
        say(f"cardcounterml phone_a validation part: {score.line()}")
        rows += _rows("cardcounterml phone_a validation part, card", score,
                      "the reader's validation split (its bars were set on it), photographs never trained on")
        for group in TEST_GROUPS:
            score = held_out_photos(rec, ccml, (group,))
            say(f"cardcounterml {group}: {score.line()}")
            rows += _rows(f"cardcounterml {group} (held out), card", score)
    return rows


def _calibration_rows(rec: Recognizer, seeds: Sequence[int], say: Callable[[str], object]) -> list[BenchRow]:
    """The data sets scored without and with a deck profile: real-photos-dev's scored half (`--labels` from the
    other half), the webcam_a photos not calibrated from, the weakest rendered deck design."""
    rows: list[BenchRow] = []
    real = DATASETS / "real-photos-dev"
    if real.is_dir():
        from vision.deck import calibrate_ranks

        labels = _labels_fixed(real)
        names = sorted(labels)
        cal = calibrate_ranks({str(real / n): labels[n] for n in names if calibration_half(n)}, name="half",
                              reader=rec.reader)
        scored = [n for n in names if not calibration_half(n)]
        before = real_ranks(rec, real, scored, labels)
        after = real_ranks(Recognizer(cal.profile, reader=rec.reader), real, scored, labels)
        say(f"real-photos-dev scored half, no profile: {before.line()}")
        say(f"real-photos-dev scored half, --labels profile of the other half: {after.line()}")
        rows += _rows("real-photos-dev half, no profile", before)
        rows += _rows("real-photos-dev half, --labels profile from the other half", after)
    ccml = DATASETS / "cardcounterml-photos"
    if ccml.is_dir():
        before, after = calibrated_split(rec, ccml, "webcam_a", say)
        say(f"webcam_a photos not calibrated from, no profile: {before.line()}")
        say(f"webcam_a photos not calibrated from, calibrate-deck profile: {after.line()}")
        note = "a training group of the reader: compare the two rows, not with the held-out sets"
        rows += _rows("cardcounterml webcam_a, no profile", before, note)
        rows += _rows("cardcounterml webcam_a, calibrate-deck profile from one other photo per card", after, note)
    weakest = [f for f in deck_folders() if f.name == "minimum"]
    if weakest:
        before, after = calibrated_deck(rec, weakest[0], seeds, say)
        say(f"rendered {weakest[0].name}, no profile: {before.line()}; calibrate-deck profile: {after.line()}")
        note = f"{len(seeds)} scenes; a deck seen in training: compare the two rows"
        rows += _rows(f"rendered, deck {weakest[0].name}, no profile", before, note)
        rows += _rows(f"rendered, deck {weakest[0].name}, calibrate-deck profile from one rendered photo per card",
                      after, note)
    return rows


def main(argv: list[str] | None = None, out: Callable[[str], object] = print) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.vision", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer scenes and photographs")
    p.add_argument("--lodo", action="store_true", help="also the leave-one-deck-out figures (trains 13 readers)")
    p.add_argument("--lodo-deck", action="append", default=[], metavar="DECK",
                   help="leave-one-deck-out for this deck design only (repeatable; implies --lodo)")
    p.add_argument("--skip-main", action="store_true", help="only the leave-one-deck-out rows")
    p.add_argument("--lodo-budget", nargs=2, type=int, metavar=("CROPS", "EPOCHS"),
                   help="each leave-one-deck-out reader's training crops and epochs (default: 12000 3 with "
                        "--quick, else 20000 3)")
    p.add_argument("--calibration", action="store_true",
                   help="only the calibrate-deck rows: each data set scored without and with a deck profile")
    args = p.parse_args(argv)
    if args.calibration:
        out(to_markdown(_calibration_rows(Recognizer(), range(10), lambda text: sys.stderr.write(text + "\n"))))
        return 0
    out(to_markdown(run(args.quick, lodo_mode=args.lodo or bool(args.lodo_deck), lodo_decks=args.lodo_deck,
                        main_rows=not args.skip_main,
                        lodo_budget=tuple(args.lodo_budget) if args.lodo_budget else None)))
    return 0


if __name__ == "__main__":
    from table_controller.cli.closed_pipe import quiet_on_closed_pipe

    sys.exit(quiet_on_closed_pipe(main))
