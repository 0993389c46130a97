"""Vision benchmark: recognition time per 1280x720 frame, and accuracy on rendered scenes (our deck and
the card-faces deck, which our renderer did not draw) and on real photographs, beside the goals and the
reference figures of issue 6.

Data in ../shared/datasets is used when present (rows are skipped, with a note, when it is absent).
The real photographs are split by a hash of the file name: a quarter is held out and only that
quarter is scored; nothing in the recognizer was tuned on it. Its rows are given over all labelled cards,
over the cards standing alone (`standing_alone`, computed from the boxes) and over the cards judged fully
visible by eye (`bench.visible`: the goal's own set). Run: `python -m bench.vision [--quick]`.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench._report import OURS, BenchRow, to_markdown
from bench.visible import hidden_cards
from hardware_sim.camera import RenderOptions, load_face_set, random_scene, render_with_truth
from vision.deck import calibrate_deck
from vision.images import load_image
from vision.labelled import calibrate_ranks, read_labels
from vision.pipeline import Detection, Recognizer
from vision.profile import DeckProfile

AREA = "vision"
DATASETS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets"
GOAL = "goal (issue 6)"
REPORTED = "reported in issue 6, not run here"
RANK_WORDS = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
_RANK_FILE = {"2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9", "10": "T",
              "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
_SUIT_FILE = {"clubs": "c", "diamonds": "d", "hearts": "h", "spades": "s"}


@dataclass
class Score:
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    missed: int = 0
    backs_named: int = 0
    backs: int = 0

    @property
    def cards(self) -> int:
        return self.right + self.wrong + self.unknown + self.missed


Label = tuple[str, float, float, float, float]


class LabelErratumError(ValueError):
    """An erratum that names no labelled card: the labels changed, and the erratum must be checked again."""


@dataclass(frozen=True, kw_only=True)
class LabelErratum:
    """A labelled card whose rank the data set has wrong, checked by eye against the photograph.

    The bench prints its figures both as labelled and with these corrected, so a reader sees each and
    the difference is never hidden in one number."""

    filename: str
    box: tuple[float, float, float, float]
    labelled: str
    actual: str
    why: str


LABEL_ERRATA = (
    LabelErratum(filename="IMG_2396.JPG", box=(126.0, 172.0, 254.0, 350.0), labelled="9", actual="T",
                 why="ten diamond pips, and '10' over a diamond at both index corners"),
)


def corrected_labels(labels: dict[str, list[Label]],
                     errata: Sequence[LabelErratum] = LABEL_ERRATA) -> dict[str, list[Label]]:
    """`labels` with each erratum's card given its actual rank. A new dict; `labels` is left as it was."""
    fixed = {name: list(cards) for name, cards in labels.items()}
    for erratum in errata:
        cards = fixed.get(erratum.filename, [])
        at = [i for i, (rank, *box) in enumerate(cards)
              if rank == erratum.labelled and tuple(box) == erratum.box]
        if len(at) != 1:
            raise LabelErratumError(f"{erratum.filename}: {len(at)} labelled {erratum.labelled} cards at "
                                    f"{erratum.box}, expected exactly one")
        cards[at[0]] = (erratum.actual, *erratum.box)
    return fixed


def held_out(name: str) -> bool:
    """A fixed quarter of the real photographs, chosen by file name only."""
    return hashlib.sha256(name.encode()).digest()[0] % 4 == 0


def _nearest(detections: list[Detection], center: np.ndarray, within: float = 20.0) -> Detection | None:
    best = min(detections, key=lambda d: float(np.hypot(*(np.array(d.center) - center))), default=None)
    if best is None or float(np.hypot(*(np.array(best.center) - center))) > within:
        return None
    return best


def _count(score: Score, found: Detection | None, card: str, *, face_up: bool, scored: bool) -> None:
    """One rendered card into `score`: a back read as anything counts against us whether or not it is
    scored; a face-up card counts only when `scored` (fully visible, or its index uncovered)."""
    if not face_up:
        score.backs += 1
        score.backs_named += found is not None and (found.card is not None or found.rank is not None)
    elif not scored:
        return
    elif found is None:
        score.missed += 1
    elif found.card == card:
        score.right += 1
    elif found.card is None:
        score.unknown += 1
    else:
        score.wrong += 1


def rendered_accuracy(recognizer: Recognizer, seeds: range, options: RenderOptions,
                      times: list[float] | None = None, cpu: list[float] | None = None,
                      *, keep: list[np.ndarray] | None = None) -> Score:
    """Fully visible face-up cards named right / wrong / unknown; backs named (must stay 0)."""
    score = Score()
    for seed in seeds:
        frame = render_with_truth(random_scene(seed, cards=10, face_down=0.2), seed, options)
        if keep is not None:
            keep.append(frame.image)
        start, start_cpu = time.perf_counter(), time.process_time()
        detections = recognizer.identify(frame.image)
        if times is not None:
            times.append((time.perf_counter() - start) * 1000.0)
        if cpu is not None:
            cpu.append((time.process_time() - start_cpu) * 1000.0)
        for truth in frame.truth:
            found = _nearest(detections, np.mean(np.array(truth.corners), axis=0))
            _count(score, found, truth.card, face_up=truth.face_up, scored=truth.visible >= 0.999)
    return score


def _timed(recognizer: Recognizer, image: np.ndarray) -> float:
    start = time.perf_counter()
    recognizer.identify(image)
    return (time.perf_counter() - start) * 1000.0


def _two_process_rows(images: list[np.ndarray], alone: Recognizer) -> list[BenchRow]:
    """The same frames read by a recognizer with a second reading process (`Recognizer(workers=2)`: the
    goal's two cores), timed frame by frame alternately with the one-process recognizer, so that both meet
    the same load; its detections are checked to be the one-process recognizer's."""
    ours = "cardtable, 2 processes"
    with Recognizer(alone.profile, workers=2) as both:
        both.start_workers()  # about a second, once
        # Untimed, as the one-process recognizer's first frame: the worker's first frames pay its one-off
        # costs (measured: its first four frames read 5-20 ms slower than the rest).
        for image in images[:4]:
            both.identify(image)
        one: list[float] = []
        two: list[float] = []
        same = 0
        for image in images:
            one.append(_timed(alone, image))
            start = time.perf_counter()
            found = both.identify(image)
            two.append((time.perf_counter() - start) * 1000.0)
            same += found == alone.identify(image)
        best = [min(_timed(both, image) for _ in range(3)) for image in images]
    note = f"wall clock, {len(images)} frames; {same} of {len(images)} frames read exactly as by one process"
    return [
        BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p50", system=ours,
                 value=float(np.percentile(two, 50)), unit="ms", note="wall clock"),
        BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p95", system=ours,
                 value=float(np.percentile(two, 95)), unit="ms", note=note),
        BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p95 of each frame's best of 3", system=ours,
                 value=float(np.percentile(best, 95)), unit="ms", note="wall clock"),
        BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p95, one process, alternating with the above",
                 system=OURS, value=float(np.percentile(one, 95)), unit="ms",
                 note="the same frames timed between the two-process ones: the same load"),
    ]


def fanned_hands(seeds: range) -> Score:
    """Seats holding fanned five-card hands (each card partly under the next): face-up cards whose
    index corner is uncovered, read with the camera's calibration (card size known)."""
    import random

    from hardware_sim.camera import TableScene

    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    score = Score()
    for seed in seeds:
        rnd = random.Random(seed)
        cards = rnd.sample(deck, 15)
        scene = TableScene.dealt({1: [(c, True) for c in cards[:5]], 3: [(c, True) for c in cards[5:10]],
                                  5: [(c, rnd.random() < 0.5) for c in cards[10:]]})
        frame = render_with_truth(scene, seed)
        detections = Recognizer(card_size=frame.calibration.card_size_px()).identify(frame.image)
        for truth in frame.truth:
            found = _nearest(detections, np.mean(np.array(truth.corners), axis=0), 25.0)
            _count(score, found, truth.card, face_up=truth.face_up, scored=truth.index_visible)
    return score


Box = tuple[float, float, float, float]


def real_photo_ranks(recognizer: Recognizer, folder: Path, *, holdout: bool = True,
                     alone: Score | None = None, corrected: tuple[Score, Score] | None = None,
                     visible: tuple[Score, Score] | None = None) -> Score:
    """Rank accuracy on the labelled real photographs (rank only: the labels carry no suit).

    Each detection stands for at most one labelled card, among the boxes holding its centre, matched one
    to one by overlap (`_owners`). Where two cards' boxes overlap, a detection of one of them is not also
    counted as a reading of the other. A card with no detection of its own is not found.
    `alone`, when given, also receives the cards standing alone (`standing_alone`); `corrected`, when given,
    receives both (all cards, standing alone) scored against the labels with `LABEL_ERRATA` corrected, from
    the same detections. `visible`, when given (the held-out quarter only: the cards judged by eye are
    its cards), receives the cards judged fully visible (`bench.visible`), as labelled and corrected."""
    if visible is not None and not holdout:
        raise ValueError("only the held-out quarter's cards were judged fully visible")
    score = Score()
    labels = _labelled(folder)
    fixed = corrected_labels(labels)
    for name, boxes in sorted(labels.items()):
        if held_out(name) != holdout:
            continue
        image = load_image(folder / name)
        height, width = image.shape[:2]
        detections = recognizer.identify(image)
        score_ranks(detections, boxes, (width, height), score, alone)
        if corrected is not None:
            score_ranks(detections, fixed[name], (width, height), *corrected)
        if visible is not None:
            hidden = hidden_cards(name, [(x0, y0, x1, y1) for _, x0, y0, x1, y1 in boxes])
            seen = [i for i in range(len(boxes)) if i not in hidden]
            for cards, into in zip((boxes, fixed[name]), visible, strict=True):
                score_ranks(detections, cards, (width, height), Score(), into, picked=seen)
    return score


def score_ranks(detections: Sequence[Detection], cards: Sequence[Label],
                size: tuple[int, int], score: Score, alone: Score | None = None, *,
                picked: Collection[int] | None = None) -> None:
    """Add one photo's detections against its labelled cards (rank, box) to `score` (see `real_photo_ranks`).
    `alone` receives the cards standing alone, or with `picked` the cards of those indices instead."""
    boxes: list[Box] = [(x0, y0, x1, y1) for _, x0, y0, x1, y1 in cards]
    owned: list[list[Detection]] = [[] for _ in boxes]
    for d, owner in zip(detections, _owners(detections, boxes), strict=True):
        if owner is not None:
            owned[owner].append(d)
    for i, (rank, *_box) in enumerate(cards):
        _count_rank(score, owned[i], rank)
        if alone is not None and (i in picked if picked is not None else standing_alone(i, boxes, *size)):
            _count_rank(alone, owned[i], rank)


def _count_rank(score: Score, mine: list[Detection], rank: str) -> None:
    named = [d for d in mine if d.rank is not None]
    if not mine:
        score.missed += 1
    elif not named:
        score.unknown += 1
    elif any(d.rank == rank for d in named):
        score.right += 1
    else:
        score.wrong += 1


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two axis-aligned boxes (x0, y0, x1, y1)."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def _rect(detection: Detection) -> Box:
    xs = [p[0] for p in detection.corners]
    ys = [p[1] for p in detection.corners]
    return min(xs), min(ys), max(xs), max(ys)


def _owners(detections: Sequence[Detection], boxes: Sequence[Box]) -> list[int | None]:
    """The labelled box each detection stands for, among the boxes holding its centre (None: no box holds
    it). Pairs are matched one to one, best overlap (IoU of the detection's bounding rectangle with the box)
    first: an ace lying on a ten, whose centre lies in both boxes, stands for the ace once the ten's own
    detection has taken the ten's box. A detection left over (a second outline on one card) goes to the
    box it overlaps most."""
    holding = [[i for i, (x0, y0, x1, y1) in enumerate(boxes) if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
               for d in detections]
    rects = [_rect(d) for d in detections]
    pairs = sorted(((iou(rects[k], boxes[i]), k, i) for k, inside in enumerate(holding) for i in inside), reverse=True)
    owners: list[int | None] = [None] * len(detections)
    taken: set[int] = set()
    for _, k, i in pairs:
        if owners[k] is None and i not in taken:
            owners[k] = i
            taken.add(i)
    for k, inside in enumerate(holding):
        if owners[k] is None and inside:
            owners[k] = max(inside, key=lambda i: iou(rects[k], boxes[i]))
    return owners


STANDING_MARGIN = 3.0
# A whole card's bounding box, at any turn, is between 1/1.4 and 1.4 times as wide as high (a card is 1.4
# times as long as wide); perspective and the stretched camera photographs widen that a little. A box
# outside these proportions is a strip of a card whose rest is hidden.
WHOLE_CARD_BOX = (0.6, 1.7)


def standing_alone(i: int, boxes: Sequence[Box], width: int, height: int) -> bool:
    """Whether labelled card `i` stands alone: its box at least `STANDING_MARGIN` px inside the photo (no
    card cut by the photo's edge), with a whole card's proportions (`WHOLE_CARD_BOX`: no strip of a card
    under something) and touching no other card's box (no card lying on it or under it). The
    goal of issue 6 is set for fully visible cards; the labels do not say which cards are, and this rule,
    taken from the labels alone, is the nearest that can be computed. It is strict (a card whose box merely
    touches a neighbour's is left out) and not complete (a card under a book or a hand, not a card, stays
    in). The figure over all cards is reported beside it."""
    x0, y0, x1, y1 = boxes[i]
    if min(x0, y0, width - x1, height - y1) < STANDING_MARGIN:
        return False
    if not WHOLE_CARD_BOX[0] <= (x1 - x0) / max(y1 - y0, 1.0) <= WHOLE_CARD_BOX[1]:
        return False
    return not any(j != i and min(x1, b[2]) > max(x0, b[0]) and min(y1, b[3]) > max(y0, b[1])
                   for j, b in enumerate(boxes))


def _labelled(folder: Path) -> dict[str, list[Label]]:
    rows: dict[str, list[Label]] = {}
    with (folder / "labels.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            rows.setdefault(row["filename"], []).append(
                (RANK_WORDS[row["class"]], float(row["xmin"]), float(row["ymin"]), float(row["xmax"]),
                 float(row["ymax"])))
    return rows


def tuned_real_profile(folder: Path) -> DeckProfile:
    """The rank-only calibration (`vision.labelled.calibrate_ranks`) from the tuning three quarters of
    the real photographs (their labels: box and rank, no suit), as a technician would calibrate ranks
    for a house deck; the reject rule is cross-validated on those photographs only."""
    labels = read_labels(folder / "labels.csv")
    tuning = {folder / name: cards for name, cards in sorted(labels.items()) if not held_out(name)}
    return calibrate_ranks(tuning, name="real-photos tuning split").profile


def card_faces_profile(folder: Path) -> DeckProfile:
    """Calibrate from the 52 face images, named by card code in a temporary folder (links, not copies)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for png in sorted(folder.glob("*_of_*.png")):
            rank, suit = png.stem.split("_of_")
            link = Path(tmp) / f"{_RANK_FILE[rank]}{_SUIT_FILE[suit]}.png"
            link.symlink_to(png.resolve())
            paths.append(link)
        return calibrate_deck(paths, name="card-faces")


def _accuracy_rows(label: str, score: Score, goal_right: float | None) -> list[BenchRow]:
    n = max(1, score.right + score.wrong + score.unknown + score.missed)
    note = f"{score.right}/{n} right, {score.wrong} wrong, {score.unknown} unknown, {score.missed} not found"
    rows = [BenchRow(area=AREA, metric=f"{label}: right", system=OURS, value=100.0 * score.right / n, unit="%",
                     note=note),
            BenchRow(area=AREA, metric=f"{label}: wrong", system=OURS, value=100.0 * score.wrong / n, unit="%")]
    if goal_right is not None:
        rows.append(BenchRow(area=AREA, metric=f"{label}: right", system=GOAL, value=goal_right, unit="%"))
        rows.append(BenchRow(area=AREA, metric=f"{label}: wrong", system=GOAL, value=0.5, unit="% (at most)"))
    return rows


def run(quick: bool = False) -> list[BenchRow]:
    rows: list[BenchRow] = []
    recognizer = Recognizer()
    frames = 10 if quick else 60
    # One frame first, untimed: the first call pays one-off costs (lazy imports, template grouping)
    # that a camera running all evening never pays again.
    recognizer.identify(render_with_truth(random_scene(999, cards=10, face_down=0.2), 999, RenderOptions()).image)
    times: list[float] = []
    cpu: list[float] = []
    images: list[np.ndarray] = []
    ours = rendered_accuracy(recognizer, range(1000, 1000 + frames), RenderOptions(), times, cpu, keep=images)
    best = [min(_timed(recognizer, image) for _ in range(3)) for image in images]
    rows.append(BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p50", system=OURS,
                         value=float(np.percentile(times, 50)), unit="ms", note="wall clock"))
    rows.append(BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p95", system=OURS,
                         value=float(np.percentile(times, 95)), unit="ms",
                         note=f"wall clock, {len(times)} frames, one thread; shares the machine with anything else"))
    rows.append(BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p95 CPU time", system=OURS,
                         value=float(np.percentile(cpu, 95)), unit="ms",
                         note="process CPU time (other processes on the same cores still slow it: caches, SMT)"))
    rows.append(BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p95 of each frame's best of 3", system=OURS,
                         value=float(np.percentile(best, 95)), unit="ms",
                         note="wall clock; the best of three runs leaves out most of other processes' load"))
    rows += _two_process_rows(images, recognizer)
    rows.append(BenchRow(area=AREA, metric="1280x720 frame, 10 cards: p95", system=GOAL, value=30.0, unit="ms"))
    rows += _accuracy_rows("rendered, own deck, default profile", ours, None)
    rows.append(BenchRow(area=AREA, metric="backs read as a face", system=OURS, value=float(ours.backs_named),
                         unit="cards", note=f"of {ours.backs} backs"))
    fans = fanned_hands(range(3000, 3000 + (3 if quick else 12)))
    rows += _accuracy_rows("rendered fanned hands (index uncovered)", fans, None)
    faces_dir = DATASETS / "card-faces"
    if faces_dir.is_dir():
        options = RenderOptions(faces=load_face_set(faces_dir))
        seeds = range(2000, 2000 + (8 if quick else 40))
        rows += _accuracy_rows("rendered card-faces deck, default profile",
                               rendered_accuracy(recognizer, seeds, options), None)
        calibrated = Recognizer(card_faces_profile(faces_dir))
        cf = rendered_accuracy(calibrated, seeds, options)
        rows += _accuracy_rows("rendered card-faces deck, calibrated profile", cf, 99.0)
        rows.append(BenchRow(area=AREA, metric="backs read as a face (card-faces back)", system=OURS,
                             value=float(cf.backs_named), unit="cards", note=f"of {cf.backs} backs"))
    else:
        rows.append(BenchRow(area=AREA, metric="rendered card-faces deck", system=OURS, value=float("nan"), unit="",
                             note=f"skipped: {faces_dir} absent"))
    photos = DATASETS / "real-photos-dev"
    if photos.is_dir():
        real = real_photo_ranks(recognizer, photos)
        rows += _accuracy_rows("real photos (held-out quarter), rank, default profile", real, None)
        alone = Score()
        fixed, fixed_alone = Score(), Score()
        seen, fixed_seen = Score(), Score()
        tuned = real_photo_ranks(Recognizer(tuned_real_profile(photos)), photos, alone=alone,
                                 corrected=(fixed, fixed_alone), visible=(seen, fixed_seen))
        label = "real photos (held-out quarter), rank, ranks from tuning split"
        rows += _accuracy_rows(label, tuned, 97.0)
        rows += _accuracy_rows(f"{label}, cards standing alone", alone, 97.0)
        # The goal's own set: the cards judged fully visible by eye (bench.visible), beside the computed proxy.
        rows += _accuracy_rows(f"{label}, cards fully visible (judged by eye)", seen, 97.0)
        # The same detections against the labels with the data set's known errors corrected (LABEL_ERRATA),
        # printed beside the figures as labelled rather than in their place.
        errata = ", ".join(f"{e.filename} {e.labelled}->{e.actual}" for e in LABEL_ERRATA)
        rows += _accuracy_rows(f"{label}, labels corrected ({errata})", fixed, 97.0)
        rows += _accuracy_rows(f"{label}, cards standing alone, labels corrected", fixed_alone, 97.0)
        rows += _accuracy_rows(f"{label}, cards fully visible (judged by eye), labels corrected", fixed_seen, 97.0)
    else:
        rows.append(BenchRow(area=AREA, metric="real photos", system=OURS, value=float("nan"), unit="",
                             note=f"skipped: {photos} absent"))
    rows.append(BenchRow(area=AREA, metric="real single-card photos, right", system="EdjeElectronics detector",
                         value=100.0 * 27 / 52, unit="%", note=REPORTED + " (27 of 52, 4 wrong)"))
    rows.append(BenchRow(area=AREA, metric="real photo, right", system="YOLO on synthetic cards", value=70.0,
                         unit="%", note=REPORTED + " (60-80%)"))
    rows.append(BenchRow(area=AREA, metric="wrong identities", system="industrial shoe reader", value=0.02,
                         unit="%", note=REPORTED + " (about 1 in 5,000, known deck, fixed light)"))
    return rows


def main(argv: list[str] | None = None, out: Callable[[str], object] = print) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vision")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    out(to_markdown(run(args.quick)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
