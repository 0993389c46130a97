"""The recognizer: frame in, detections out (`Recognizer(profile).identify(frame)`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import RANKS, is_card
from vision.covered import covered_cards
from vision.detect import DETECT_WIDTH, find_cards
from vision.errors import VisionInputError
from vision.exposure import exposed, level_gain, levelled
from vision.focus import sharpened
from vision.geometry import side_lengths
from vision.identify import (
    SEARCH_MIN_PX,
    SMALL_CARD_PX,
    CardReading,
    CornerReading,
    iter_index_corners,
    name_card,
    name_guessed,
    name_partials,
    read_outline,
    read_partials,
    side_by_side_cards,
)
from vision.lattice import is_lattice, repeats
from vision.pips import named_by_pips
from vision.profile import DeckProfile, default_profile
from vision.reoutline import PAPER_LEVEL, Reoutlined, paper_share, reoutline
from vision.workers import ReadingWorkers

Image = npt.NDArray[np.uint8]
Face = Literal["up", "down"]


@dataclass(frozen=True, kw_only=True)
class Detection:
    """One card seen in a frame. `card` is None when it is face down or could not be read surely."""

    card: str | None
    face: Face
    confidence: float
    corners: tuple[tuple[float, float], ...]  # 4 image points, clockwise, first edge a short side
    # The rank when it is read surely, even if the suit is not (then `card` stays None); always
    # card[0] for a named card (filled in when not given).
    rank: str | None = None

    def __post_init__(self) -> None:
        if self.card is not None and not is_card(self.card):
            raise ValueError(f"not a card code: {self.card!r}")
        if self.face == "down" and (self.card is not None or self.rank is not None):
            raise ValueError("a face-down card cannot be named")
        if self.card is not None and self.rank is None:
            object.__setattr__(self, "rank", self.card[0])
        if self.rank is not None and (len(self.rank) != 1 or self.rank not in RANKS):
            raise ValueError(f"not a rank: {self.rank!r}")
        if self.card is not None and self.rank != self.card[0]:
            raise ValueError(f"rank {self.rank!r} is not the rank of {self.card!r}")
        if len(self.corners) != 4:
            raise ValueError("a detection has 4 corners")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError("confidence must be in [0, 1]")

    @property
    def center(self) -> tuple[float, float]:
        xs = [p[0] for p in self.corners]
        ys = [p[1] for p in self.corners]
        return sum(xs) / 4, sum(ys) / 4

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "rank": self.rank, "face": self.face, "confidence": round(self.confidence, 3),
                "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners]}


def check_frame(frame: object) -> Image:
    """A BGR uint8 image, or a typed error saying what is wrong with it."""
    if not isinstance(frame, np.ndarray):
        raise VisionInputError("frame is not an image array")
    if frame.dtype != np.uint8:
        raise VisionInputError(f"frame must be 8-bit, got {frame.dtype}")
    if frame.ndim == 2:
        frame = np.repeat(frame[:, :, None], 3, axis=2)
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise VisionInputError(f"frame must be H x W x 3 (BGR), got shape {frame.shape}")
    if frame.shape[2] == 4:
        frame = frame[:, :, :3]
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise VisionInputError(f"frame too small: {frame.shape[1]}x{frame.shape[0]}")
    return np.ascontiguousarray(frame)


MIN_NAMED_ASPECT = 1.1
# Frames at most this wide are found at full size (`detect.DETECT_WIDTH`): photographs, where an outline that
# reads no rank is outlined again from its indices (`Recognizer._reoutlined`).
REOUTLINE_MAX_WIDTH = DETECT_WIDTH * 1.4


def may_be_named(quad: npt.NDArray[np.float32]) -> bool:
    """Whether an outline may be named at all. A near-square outline is two overlapping cards taken for
    one: its corners may show the index of either card, so neither is named (a card is 1.4 times as long
    as wide; stretched photos and perspective give 1.1-1.8: on the real photographs' tuning split 4 of
    the 6 wrongly named outlines were under 1.1, 2 of 179 right ones; later, with the detector's fourth
    pass, the outlines from 1.1 to 1.15 that read a rank read it right, 4 of 4, two of them upright cards
    in a camera's horizontally stretched frames, and the one wrong was at 1.05). With a searching profile
    the recognizer may still read it as the two cards side by side that it holds (`Recognizer._side_by_side`),
    each from its own outer index."""
    short, long_ = side_lengths(quad)
    return long_ >= MIN_NAMED_ASPECT * short


# A face's index corner is open paper around its ink (`reoutline.paper_share`); a back's corner is its rim and
# lattice. A profile calibrated from photographs of another deck accepts ranks at 0.5-0.65, and such shapes
# come out of a back's lattice: with the tuning photographs' rank-only profile, the simulated camera's backs
# (960 x 540 and 1280 x 720, seeds 100-129) were named 52 times, every one with both index corners at most
# 25% open paper; the rendered faces read right had 54% or more, the photographs' cards read right 35% or
# more (tuning split, the outline's better corner). A reading whose outline shows no open paper at either
# index corner is a back's, whatever the ranks scored. Every reading of a searching profile (many views of
# each corner at a bar set by photographs); the built-in and `calibrate-deck` profiles read one view at 0.72
# or more, and only their unsure readings are checked (UNSURE_FACE): the 1280 x 720 frame's budget.
MIN_FACE_PAPER = 0.3
# The built-in and `calibrate-deck` profiles (one view of each corner, a bar of 0.72) check a reading under
# this confidence too. Simulated camera, the card-faces deck's `calibrate-deck` profile, overlapping cards
# with hands over them at 1280 x 720 (seeds 605, 606, 616, 618): outlines inside a back's lattice read
# "6", "9", "4" and "4" at 0.42-0.74, their naming corners 5-24% open paper. Checking every reading, tint
# too, cost the 1280 x 720 frame about 8 ms at p50: only the unsure ones are checked, for open paper only
# (the tint check is twice the cost and was needed only by the searching profiles' lower bar).
UNSURE_FACE = 0.76
FACE_DOWN = CardReading(card=None, face_up=False, confidence=0.0)


def on_paper(image: Image, quad: npt.NDArray[np.float32], reading: CardReading,
             corners: Sequence[CornerReading | None] = (), *, tint: bool = True) -> CardReading:
    """`reading` of the outline `quad`, or face down when it is a face but no index corner of the outline
    that may have named it is open paper (MIN_FACE_PAPER), as a back's corners are not. `corners`: the
    corners' readings as they were taken (`kept_readings`); when one of them read the rank named, only
    those that read it count. A small outline over a back's rim and lattice (two overlapping backs cut into
    a wedge or a strip) can have one corner on the rim's white paper, reading nothing, while the other, in
    the lattice, reads a rank at a photographs' profile's low bar: simulated camera, tuning photographs'
    profile, overlapping cards, a "9" at 0.53 on a back from the corner with 28% open paper while the
    other had 32%. `tint`: a tinted corner with shallow ink is no paper either (`tinted_lattice`), nor is a
    corner whose pattern repeats in two directions (`lattice.is_lattice`: a back's lattice under a hand that
    tints it a little less than TINTED_PAPER)."""
    if not reading.face_up:
        return reading
    views = list(iter_index_corners(image, quad))
    naming = [k for k, corner in enumerate(corners) if corner is not None and corner.rank == reading.rank]
    if reading.rank is not None and naming:
        views = [views[k] for k in naming]
    if any(paper_share(corner) >= MIN_FACE_PAPER and not (tint and (tinted_lattice(corner) or is_lattice(corner)))
           for corner in views):
        return reading
    return FACE_DOWN


# A face's index is ink on white or grey paper: the paper is the card's own, nearly as neutral as the light
# that falls on it, and the ink is far darker than it. A coloured back's lattice seen by a photographs'
# profile has "paper" too (its lighter cells, a whole 4 x 4 patch wide at 1280 x 720), but tinted the back's
# colour, and its darkest marks are the lattice's own lines, a shade of that colour; a hand over a back is
# skin-coloured, the lattice showing through it faintly. Simulated camera, tuning photographs' profile: a
# "9" at 0.58 on a red back (1280 x 720, seed 511: its naming corner's paper tinted 0.48, its darkest
# marks 0.68 under the paper), a "9" at 0.59 on a green one (overlap with hands, seed 500: 0.31, 0.49), a
# "Q" at 0.53 from a hand over a back (960 x 540 with hands, seed 213: 0.35, 0.19); the simulated faces'
# paper is tinted 0.02-0.04. On the real photographs' tuning split, 264 corners that let a reading through
# were tinted at most 0.35, and the few over 0.25 had ink 0.31-0.99 under the paper; the one tinted 0.3 or
# more (0.35, a warm light) had ink 0.98 under it. Both together mark the lattice or the hand. So does tinted
# paper whose pattern repeats at all (`lattice.repeats`), however deep its darkest marks: a red back's lattice
# under a hand's edge, tinted 0.5 with marks 0.76 under it, whose one repeat left shows in the warped corner
# (1280 x 720, overlapping cards with hands, seed 368: "7" at 0.53). That real corner tinted 0.35 repeats
# nowhere; the tuning split's one corner that repeats (in one direction: an ace, 2 repeats) is tinted 0.26.
TINTED_PAPER = 0.3
DEEP_INK = 0.75


def tinted_lattice(corner: Image) -> bool:
    """Whether an index corner's open paper is tinted (the median (max - min) / max of its channels, at least
    TINTED_PAPER) while its darkest marks (2nd percentile of the darkest channel) are under DEEP_INK below
    the paper level, or its pattern repeats: a coloured back's lattice, or a hand over a back, not a card's
    index."""
    low = np.asarray(cv2.min(cv2.min(corner[:, :, 0], corner[:, :, 1]), corner[:, :, 2]))
    high = np.asarray(cv2.max(cv2.max(corner[:, :, 0], corner[:, :, 1]), corner[:, :, 2]))
    paper, ink = (float(v) for v in np.percentile(low, (85, 2)))
    light = low >= PAPER_LEVEL * paper
    if not light.any():
        return False
    tint = float(np.median((high[light].astype(np.float32) - low[light]) / np.maximum(high[light], 1)))
    return tint >= TINTED_PAPER and (1.0 - ink / max(paper, 1.0) < DEEP_INK or bool(repeats(corner)))


def is_small(quad: npt.NDArray[np.float32]) -> bool:
    """A card so small in the frame that its suit glyphs are a few pixels (see `read_corners`)."""
    return side_lengths(quad)[1] < SMALL_CARD_PX


class Recognizer:
    """Finds the cards in a frame and names the face-up ones it can read surely."""

    def __init__(self, profile: DeckProfile | None = None, *, card_size: tuple[float, float] | None = None,
                 opencv_threads: int | None = 1, workers: int = 1) -> None:
        if workers not in (1, 2):
            raise ValueError(f"workers must be 1 or 2 (processes reading a frame's outlines), not {workers!r}")
        self.profile = profile if profile is not None else default_profile()
        self.card_size = card_size
        # workers=2: a second process reads half of each frame's outlines (`vision.workers`), for the frame
        # time on two cores; the detections are the same.
        self._workers = ReadingWorkers(self.profile) if workers == 2 else None
        if opencv_threads is not None:
            # The work per frame is many small images: OpenCV's thread pool costs more than it gives,
            # and on a busy 2-core table computer it steals from the other services. Scale out by
            # running one recognizer per camera instead. (A process-wide OpenCV setting.)
            cv2.setNumThreads(opencv_threads)

    @property
    def workers(self) -> int:
        return 1 if self._workers is None else 2

    def start_workers(self, timeout: float = 60.0) -> bool:
        """With workers=2, start the second reading process now and wait until it is ready (by default it
        starts on the first frame and helps from the first frame after it is ready). False: it is not."""
        return self._workers is not None and self._workers.start(timeout)

    def close(self) -> None:
        """Stop the second reading process, if any (the recognizer reads alone afterwards)."""
        if self._workers is not None:
            self._workers.close()
            self._workers = None

    def __enter__(self) -> Recognizer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def identify(self, frame: Image) -> list[Detection]:
        image = check_frame(frame)
        out = self._identify(image)
        if self.profile.search and image.shape[1] <= REOUTLINE_MAX_WIDTH:
            # A photograph is read again smaller (SECOND_LOOK), and what only that reading names is kept.
            height, width = image.shape[:2]
            size = (round(width * SECOND_LOOK), round(height * SECOND_LOOK))
            smaller = np.ascontiguousarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
            scale = (width / size[0], height / size[1])
            out = with_second_look(out, [scaled(d, scale) for d in self._identify(smaller)])
            # And a third time levelled for its light (`exposure.levelled`), when it is not evenly lit: what
            # only that reading names surely (LEVELLED_SURE) is kept, as the second look's.
            gain = level_gain(image)
            level = levelled(image, gain)
            if level is not None:
                out = with_second_look(out, [d for d in self._identify(level) if levelled_surely(d, gain)])
            # And sharpened (`vision.focus`): what only that reading names surely (SHARPENED_SURE) is kept.
            out = with_second_look(out, [d for d in self._identify(sharpened(image))
                                         if d.confidence >= SHARPENED_SURE])
            # And, when it stays a frame found at full size, a fourth time enlarged (ENLARGED_LOOK).
            size = (round(width * ENLARGED_LOOK), round(height * ENLARGED_LOOK))
            if size[0] <= REOUTLINE_MAX_WIDTH:
                larger = np.ascontiguousarray(cv2.resize(image, size, interpolation=cv2.INTER_CUBIC), dtype=np.uint8)
                scale = (width / size[0], height / size[1])
                out = with_second_look(out, [scaled(d, scale) for d in self._identify(larger)])
            # Last, an outline no look named, of a number card whose pips and index agree (`vision.pips`).
            out = [self._by_pips(image, d) for d in out]
        return out

    def _by_pips(self, image: Image, detection: Detection) -> Detection:
        """`detection`, named by its pips when it is an unnamed face whose pips and index agree (`vision.pips`)."""
        if detection.rank is not None or detection.face != "up":
            return detection
        quad = np.array(detection.corners, np.float32)
        rank = named_by_pips(image, quad, list(read_outline(image, quad, self.profile)),
                             rank_bar=self.profile.min_rank_score)
        return detection if rank is None else replace(detection, rank=rank)

    def _identify(self, image: Image) -> list[Detection]:
        """One reading of a checked frame: outlines found, read, outlined again and the covered cards."""
        if self.profile.search and image.shape[1] <= REOUTLINE_MAX_WIDTH:
            # A photograph (a searching profile, a frame found at full size) is read as if exposed for its
            # paper when it is dim (`vision.exposure`); the 1280 x 720 frame path pays nothing.
            image = exposed(image)
        quads = find_cards(image, card_size=self.card_size)
        reads = self._workers.read(image, quads) if self._workers is not None and len(quads) > 1 else \
            [read_found(image, quad, self.profile) for quad in quads]
        out: list[Detection] = []
        # The detections named from one corner while the other read another rank (`_reoutlined`).
        torn: set[int] = set()
        # ... of those, the ones whose naming corner did not clearly beat the other (`torn_unsure`).
        unsure: set[int] = set()
        for read in reads:
            if read.torn:
                torn.add(len(out))
            if read.unsure:
                unsure.add(len(out))
            out += read.detections
        found = out
        out = self._reoutlined(image, out, torn)
        # A torn outline named from a corner that did not clearly beat the other, whose indices placed no card
        # of another rank, stays unnamed.
        out = [unnamed(d) if k in unsure and d is found[k] else d for k, d in enumerate(out)]
        return out + self._covered(image, out)

    def _covered(self, image: Image, detections: list[Detection]) -> list[Detection]:
        """The cards under others, under an object or cut by the frame that one corner index places outside
        the detections, reported by their visible part (`vision.covered`). As `_reoutlined`: a searching
        profile and a frame found at full size only; the card length from the cards read, when any are."""
        if not self.profile.search or image.shape[1] > REOUTLINE_MAX_WIDTH:
            return []
        read = [np.array(d.corners, np.float32) for d in detections if d.rank is not None]
        unread = [np.array(d.corners, np.float32) for d in detections if d.rank is None]
        length = float(np.median([side_lengths(q)[1] for q in read])) if read else None
        ranks = [d.rank for d in detections if d.rank is not None]
        out = []
        for c in covered_cards(image, read, self.profile, card_length=length, unread=unread):
            card_length = max(length or 0.0, side_lengths(c.card)[1])
            # Its visible part is only what is evidenced as its own paper (`covered.own_paper`), which may
            # stop short of the read piece it makes one card with (an ace cut in two by a knife, tuning
            # photographs): the placed card is checked too.
            if not any(rank == c.reading.rank and (one_card(q, c.outline, card_length)
                                                   or one_card(q, c.card, card_length))
                       for q, rank in zip(read, ranks, strict=True)):
                out.append(_detection(c.outline, c.reading, named=True))
        return out

    def _reoutlined(self, image: Image, detections: list[Detection], torn: set[int]) -> list[Detection]:
        """The detections whose outline reads no rank, outlined again from the indices in and around them
        where those read a rank surely (`vision.reoutline`); and those named from one corner while the
        other read another rank (`torn`), replaced by the card their indices place when it reads another
        rank (below). A searching profile only, and on a frame found at full size only (at most 1008
        pixels wide: photographs; a 1280 x 720 frame's 30 ms budget has no room for it)."""
        if not self.profile.search or image.shape[1] > REOUTLINE_MAX_WIDTH:
            return detections

        def find(k: int, others: list[npt.NDArray[np.float32]], length: float | None, grow: bool) -> Reoutlined | None:
            return reoutline(image, outlines[k], self.profile, card_length=length, grow=grow, others=others)

        outlines = [np.array(d.corners, np.float32) for d in detections]
        found = reoutline_detections(outlines, [d.rank for d in detections], torn, find)
        out = list(detections)
        for k, card in found.items():
            out[k] = _detection(card.quad, card.reading, named=True)
        return out

# A photograph (a searching profile, a frame found at full size) is read a second time at this share of its
# width and height, and a card that only the second reading names is added (`with_second_look`). At another
# scale every fixed pixel measure of detection (the mask's windows, the Hough and Canny lengths, the glyph and
# border sizes) meets the photograph differently, and a card lying on another whose outline one scale never
# closes, the other may. Real photographs' tuning split (219 photographs, 391 cards), each read again in ten
# ways (`bench.vision_robust`'s variants) and merged offline: the readings at 0.75 of the size added 5 cards
# right (371 -> 376, in two of the three folds, the third unchanged), none wrong, no name on no labelled card;
# each other variant added 1 to 3, and adding a second one to 0.75 at most 1 more, with names on no labelled
# card. Every card gained was one lying on or beside another; the cards standing alone did not move. The
# second reading costs about three quarters of the first (a smaller frame).
SECOND_LOOK = 0.75

# A photograph is read a third time levelled for its light (`vision.exposure.levelled`: each region's paper
# brought up to the frame's brightest), and a card only that reading names is added as the second look's are,
# when its reading is this sure (`Detection.confidence`: both its rank and the suit under it score this much).
# Real photographs' tuning split (219 photographs, 391 cards), as photographed and in five variants of light and
# compression (`bench.vision_robust`: dark, gamma, shade-x, shade-y, jpeg45), each look cached and merged
# offline: with this bar alone 2,204 -> 2,234 right, wrong 2 -> 2, names on no labelled card 6 -> 6 (without it
# 2,237 and 11: the names it added under 0.5 were on no labelled card but two, read right at 0.34 and 0.48); with
# the LEVELLED_GAIN bar too, 2,226 right, in all three folds. As photographed nothing moved. At 0.5, the whole
# robustness bench read `cam_image41`'s blurred nine, standing alone, as a jack at 0.57 when turned a quarter
# either way: a third reading is a third chance of a misreading, so its bar is above the first look's.
LEVELLED_SURE = 0.6
# ... and only where the levelling changed the light: its gain at the card's centre at least LEVELLED_GAIN. Where
# the gain is about 1 the third look is the first again, and a name only it gives comes from the outlines the
# changed light elsewhere made, by chance: on the wrong-name bench's simulated frames, a "9" read off a pile of
# backs (gain 1.01). On the tuning split's variants this gives up 8 of the cards the third look added (2,234 ->
# 2,226 right), every one lying among others; it keeps all of the cards standing alone it added (8).
LEVELLED_GAIN = 1.05

# A photograph whose frame, this much larger, is still one found at full size (REOUTLINE_MAX_WIDTH: at most 755
# pixels wide) is read a fourth time so enlarged (cubic), and a card only that reading names is added as the
# second look's are. A small card's index is a few pixels tall, and every fixed pixel measure of detection and
# reading meets it differently enlarged. Real photographs' tuning split (219 photographs, 391 cards), as
# photographed and in ten variants (`bench.vision_robust`), the looks cached and merged offline: see
# docs/vision.md, "Seventeenth pass".
ENLARGED_LOOK = 1 / SECOND_LOOK


SHARPENED_SURE = 0.6


def levelled_surely(detection: Detection, gain: npt.NDArray[np.float32]) -> bool:
    """Whether the levelled look's `detection` is added (LEVELLED_SURE, LEVELLED_GAIN), given the frame's
    `exposure.level_gain` map."""
    if detection.confidence < LEVELLED_SURE:
        return False
    height, width = gain.shape
    x, y = detection.center
    return float(gain[min(height - 1, max(0, int(y))), min(width - 1, max(0, int(x)))]) >= LEVELLED_GAIN


def scaled(detection: Detection, scale: tuple[float, float]) -> Detection:
    """`detection` with its corners multiplied by `scale` (x, y): from a resized frame's pixels to the frame's."""
    sx, sy = scale
    return replace(detection, corners=tuple((x * sx, y * sy) for x, y in detection.corners))


def inside(point: tuple[float, float], quad: tuple[tuple[float, float], ...]) -> bool:
    """Whether `point` lies inside (or on) the outline `quad`."""
    contour = np.array(quad, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) >= 0


def same_place(a: Detection, b: Detection) -> bool:
    """Whether two detections are of one card: the centre of either lies inside the other's outline."""
    return inside(a.center, b.corners) or inside(b.center, a.corners)


def merged_outline(detection: Detection, named: Sequence[Detection]) -> bool:
    """Whether `detection` (of the first reading) is several cards taken for one: it is in the place
    (`same_place`) of two or more cards the second reading names (`named`), each in a place of its own, and it
    names none or one of their ranks. Such an outline (the hull of a row of cards, of a card and the one it
    lies on) shows one card's index at a corner, or none, and stands in the place of all of them."""
    held = [card for card in named if same_place(card, detection)]
    if len(held) < 2 or any(same_place(a, b) for k, a in enumerate(held) for b in held[k + 1:]):
        return False
    return detection.rank is None or detection.rank in {card.rank for card in held}


def with_second_look(first: list[Detection], second: Sequence[Detection]) -> list[Detection]:
    """A frame's detections (`first`) with what a second reading of it (`second`, in the same pixels) adds:
    each card it names that no detection of the first names or reports face down in the same place
    (`same_place`) is added, in place of the unnamed outlines of the first there. A detection of the first
    that is several cards taken for one (`merged_outline`) gives way to the cards the second names in it.
    Nothing else the first named is changed or dropped, and a back stays a back."""
    named = [card for card in second if card.rank is not None]
    out = [d for d in first if not merged_outline(d, named)]
    for card in named:
        here = [d for d in out if same_place(card, d)]
        if any(d.rank is not None or d.face == "down" for d in here):
            continue
        out = [d for d in out if d not in here] + [card]
    return out


# Two pieces of one card (an outline of half a court card, by its picture's frame, and the other half placed
# from its index; a card's two sides of a knife across it): together they make a card, whose rectangle is a
# card's proportions (PIECES_ASPECT) and at most PIECES_LENGTH of the card's length long (the frame's, or as
# its index placed it, whichever is longer: a piece read may be the only card read in the frame). A card of the
# same rank lying over another shows it as a strip along its side (their rectangle nearly square: 1.1 on the
# real photographs' tuning split) or beyond its end (0.25 of a card or more: 1.75 long). (Tuning split: the
# three second outlines of cards read, all from the covered cards' step, 1.35-1.39 times as long as wide.)
PIECES_ASPECT = (1.25, 1.6)
PIECES_LENGTH = 1.3
# ... which touch, or nearly (a knife, a pen or a cable between them: within this share of the card length).
PIECES_GAP = 0.1


def one_card(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32], length: float) -> bool:
    """Whether the outlines `a` and `b` may be two pieces of one card of about `length` pixels (see
    PIECES_ASPECT)."""
    near = max(cv2.pointPolygonTest(one.reshape(-1, 1, 2), (float(x), float(y)), True)
               for one, other in ((a, b), (b, a)) for x, y in other)
    if near < -PIECES_GAP * length:
        return False
    _, (w, h), _ = cv2.minAreaRect(np.concatenate([a, b]).astype(np.float32))
    short, long_ = sorted((float(w), float(h)))
    return long_ <= PIECES_LENGTH * length and PIECES_ASPECT[0] * short <= long_ <= PIECES_ASPECT[1] * short


def kept_readings(readings: Iterator[CornerReading | None], into: list[CornerReading | None]
          ) -> Iterator[CornerReading | None]:
    """`readings`, each also kept in `into` as it is taken (`name_card` takes the second corner only when
    the first is not sure: nothing more is read than before)."""
    for reading in readings:
        into.append(reading)
        yield reading


def disagree(corners: list[CornerReading | None]) -> bool:
    """Whether both index corners were read, each as a different rank."""
    return len(corners) == 2 and corners[0] is not None and corners[1] is not None \
        and corners[0].rank != corners[1].rank


# `reoutline_detections`'s way to outline detection k again: (k, the outlines of the other cards read, the
# frame's card length if known, whether it may be read grown) -> the card placed, or None.
FindCard = Callable[[int, list[npt.NDArray[np.float32]], float | None, bool], Reoutlined | None]


# An outline named from one corner while its other corner read another rank (`disagree`) may be two cards taken
# for one, an index of each in its corners. `name_card` lets the better corner win by TORN_MARGIN when both pass
# the profile's bar, but not when the other one fails it (its margin over its runner-up, or the blob under it,
# short), however close their rank scores: the outline is then named from a corner no surer than the other.
# Such a name is kept only when the naming corner's rank beat the other corner's by TORN_MARGIN too, unless the
# re-outlining replaces it (`_reoutlined`). Robustness bench (`bench.vision_robust`, tuning split, 8e38a4b):
# at 0.75 of the size, a jack 62 px long read "Q" at 0.60 against "9" at 0.61 (suit under it -0.01), and a
# jack 126 px long read "9" at 0.70 against "A" at 0.55 (margin 0.02): the variants' two wrong names of cards
# standing alone. The torn outlines of the photographs as taken (tuning split) that read right won by 0.18 to
# 0.85; the two named centred on no labelled card won by 0.19 and 0.30.
TORN_MARGIN = 0.15


def torn_unsure(corners: Sequence[CornerReading | None], rank: str | None) -> bool:
    """Whether an outline whose two corners read two ranks (`disagree`) was named `rank` from a corner whose
    rank score beat the other corner's by less than TORN_MARGIN."""
    if not disagree(list(corners)) or rank is None:
        return False
    naming = [c.rank_score for c in corners if c is not None and c.rank == rank]
    other = [c.rank_score for c in corners if c is not None and c.rank != rank]
    return not naming or max(naming) - max(other) < TORN_MARGIN


def unnamed(detection: Detection) -> Detection:
    """`detection` face up but neither named nor given a rank."""
    return replace(detection, card=None, rank=None)


def reoutline_detections(outlines: Sequence[npt.NDArray[np.float32]], ranks: Sequence[str | None], torn: set[int],
                         find: FindCard) -> dict[int, Reoutlined]:
    """Which of a frame's detections (their outlines and ranks, in order) `Recognizer._reoutlined` replaces,
    and by what: each that reads no rank, or is `torn`, is outlined again (`find`, with the outlines read
    so far: one outlined again counts as read for the ones after it) and replaced when the card found reads
    another rank than its own. Apart from `find`, nothing here looks at the frame: the calibration
    (`vision.labelled`) runs it with its own readings, so that it measures what the recognizer does."""
    outlines = list(outlines)
    read = {k for k, rank in enumerate(ranks) if rank is not None}
    if len(read) == len(ranks) and not torn:
        return {}
    length = float(np.median([side_lengths(outlines[k])[1] for k in read])) if read else None
    out: dict[int, Reoutlined] = {}
    for k, rank in enumerate(ranks):
        if rank is not None and k not in torn:
            continue
        found = find(k, [outlines[j] for j in sorted(read) if j != k], length, rank is None)
        # An outline named from one corner while the other corner read another rank may hold two cards
        # (a card and the one lying under it, the index of each in a corner): when the cards its indices
        # place read another rank than its own, it is that card's. (Real photographs' tuning split: of 17
        # such outlines, 16 read right and their placed cards read their rank or nothing; the one wrong,
        # a queen's outline running onto the ten under it, read "T" from the ten's index, and its placed
        # cards read "Q" from both indices.)
        if found is not None and found.reading.rank != rank:
            out[k] = found
            outlines[k] = found.quad
            read.add(k)
    return out


def _detection(quad: npt.NDArray[np.float32], reading: CardReading, *, named: bool) -> Detection:
    """The detection of the outline `quad` read as `reading`; unnamed (face only) unless `named`."""
    return Detection(card=reading.card if named else None, face="up" if reading.face_up else "down",
                     confidence=reading.confidence, rank=reading.rank if named else None,
                     corners=tuple((float(x), float(y)) for x, y in quad))


@dataclass(frozen=True, kw_only=True)
class FoundRead:
    """What `read_found` made of one outline that `find_cards` found: its detections (one, or the two cards
    side by side that a near-square outline holds), and for the one, whether its two corners read two ranks
    (`disagree`) and whether the naming corner then did not clearly beat the other (`torn_unsure`)."""

    detections: tuple[Detection, ...]
    torn: bool = False
    unsure: bool = False


def read_found(image: Image, quad: npt.NDArray[np.float32], profile: DeckProfile) -> FoundRead:
    """One outline of the frame read on its own: nothing here looks at another outline, so the outlines of a
    frame may be read in any order, or in another process (`vision.workers`)."""
    halves = side_by_side(image, quad, profile)
    if halves:
        return FoundRead(detections=tuple(halves))
    small = is_small(quad)
    corners: list[CornerReading | None] = []
    reading = name_card(kept_readings(read_outline(image, quad, profile), corners), profile, small=small)
    torn = unsure = False
    if reading.rank is None:
        # The outline may be only the visible end of its card (a searching profile only).
        reading = name_partials(read_partials(image, quad, profile), profile, small=small) or reading
    elif disagree(corners):
        torn = True
        unsure = torn_unsure(corners, reading.rank)
    if profile.search or reading.confidence < UNSURE_FACE:
        reading = on_paper(image, quad, reading, corners, tint=profile.search)
    return FoundRead(detections=(_detection(quad, reading, named=may_be_named(quad)),), torn=torn, unsure=unsure)


def side_by_side(image: Image, quad: npt.NDArray[np.float32], profile: DeckProfile) -> list[Detection]:
    """A near-square outline (never named itself) read as two cards side by side (`side_by_side_cards`),
    when one of them reads a rank and the two cards the other way (the outline turned a quarter) read
    none; else nothing (the outline stays as it is). A searching profile only: the rendered-frame path
    pays nothing for it."""
    if not profile.search or may_be_named(quad) or side_lengths(quad)[1] < SEARCH_MIN_PX:
        return []
    read = [[(half, on_paper(image, half, name_guessed(list(read_outline(image, half, profile)), profile,
                                                       small=is_small(half)))) for half in pair]
            for pair in side_by_side_cards(quad)]
    ranked = [pair for pair in read if any(reading.rank is not None for _, reading in pair)]
    if len(ranked) != 1:
        return []
    return [_detection(half, reading, named=True) for half, reading in ranked[0]]
