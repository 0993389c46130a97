"""The recognizer: frame in, detections out (`Recognizer(profile).identify(frame)`). What `detect` finds is cut out
(`rectify`) and read (`read`, sharpened by a `deck` profile) in two batches, named here, and one detection kept per
card (`resolve`). The rules: docs/vision.md, "Name" and "One detection per card".
"""

from __future__ import annotations

import functools
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, Literal, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import ALL_CARDS, RANKS, is_card
from vision.deck import DeckProfile
from vision.detect import Corner, Found, Ground, find_cards, index_corners, index_grounds, moved_out
from vision.errors import VisionInputError
from vision.read import NONE, IndexReader, Readings, default_reader
from vision.rectify import (
    CARD_ASPECT,
    CORNER_H,
    CORNER_W,
    FloatArray,
    Image,
    Pyramid,
    box_quad,
    card_coords,
    corner_crops_at,
    gray,
    holds,
    index_crops,
    index_window,
    quad_area,
    quantiles_u8,
    side_lengths,
    warp_card,
)
from vision.resolve import Mark, Reading, corners_of, join_corners, one_per_card
from vision.settings import SETTINGS, Settings
from vision.spot import IndexSpotter, default_spotter
from vision.stretch import frame_stretch

Face = Literal["up", "down"]
Proposal = tuple[FloatArray, float, bool]  # a card quad, its bar, whether it may mark a card
T = TypeVar("T")
R = TypeVar("R")
_SEEN_W, _SEEN_H = 48, 67  # a card looked at upright for the edges of cards on it, pixels


@dataclass(frozen=True, kw_only=True)
class Detection:
    """One card seen in a frame. `card` is None when it is face down or could not be read surely."""

    card: str | None
    face: Face
    confidence: float
    corners: tuple[tuple[float, float], ...]  # 4 image points, clockwise, first edge a short side
    rank: str | None = None  # read surely even where the suit is not (`card` None); a named card's card[0] if not given

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
        return sum(x for x, _ in self.corners) / 4, sum(y for _, y in self.corners) / 4

    @property
    def quad(self) -> FloatArray:
        return np.array(self.corners, np.float32)

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


def stands_out(image: Image, quad: FloatArray, s: Settings) -> bool:
    """Whether an outline differs in colour from the table just outside it, in its middle and along its rim, as a
    card does (a rectangle drawn on the felt has felt inside, along its rim even where cards lie in it)."""
    view = warp_card(image, _grown(quad, 0.1), 48, 67)
    inside = np.zeros(view.shape[:2], bool)
    inside[6:61, 4:44] = True  # the card itself, 1/1.2 of the view
    rim = inside.copy()
    rim[10:57, 8:40] = False  # a tenth of the card's width along its edge
    middle = quantiles_u8(view[14:53, 10:38].reshape(-1, 3).T)  # median: a card lying partly on a zone
    outside = quantiles_u8(view[~inside].T)
    along = quantiles_u8(view[rim].T)
    return bool(min(np.linalg.norm(middle - outside), np.linalg.norm(along - outside)) >= s.min_edge_contrast)


def open_paper(card: Image) -> float:
    """Share of an upright card image that is light, unsaturated paper (a face's ground; a back has little)."""
    hsv = np.asarray(cv2.cvtColor(card, cv2.COLOR_BGR2HSV), np.uint8)
    h, w = card.shape[:2]
    inner = hsv[h // 10: h - h // 10, w // 10: w - w // 10]
    level = float(quantiles_u8(hsv[:, :, 2].reshape(1, -1), 0.95)[0])
    paper = (inner[:, :, 1] < 70) & (inner[:, :, 2] > 0.7 * level)
    return float(paper.mean())


class Recognizer(AbstractContextManager["Recognizer"]):
    """Finds and reads the cards of frames. `card_size` ((short, long) side in pixels, from a table calibration)
    sizes the corner proposals. `workers` (1 or 2): how many frames `in_order` works on at once, in threads."""

    def __init__(self, profile: DeckProfile | None = None, *, card_size: tuple[float, float] | None = None,
                 workers: int = 1, settings: Settings = SETTINGS, reader: IndexReader | None = None,
                 spotter: IndexSpotter | None = None) -> None:
        if workers not in (1, 2):
            raise VisionInputError(f"workers must be 1 or 2, got {workers}")
        self.profile = profile
        self.card_size = card_size
        self.workers = workers
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="vision") if workers > 1 else None
        self.settings = settings
        self.reader = reader or default_reader()
        self.spotter = spotter or default_spotter()
        if profile is not None:
            profile.check_model(self.reader)
        self.identify(np.full((96, 128, 3), 128, np.uint8))  # OpenCV sets itself up on a first frame

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def in_order(self, work: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """`work` applied to each item, the results in the items' order; with two workers the next item is
        worked on while the caller handles this one's result (items are taken from `items` in this thread)."""
        if self._pool is None:
            yield from map(work, items)
            return
        pending: deque[Future[R]] = deque()
        for item in items:
            pending.append(self._pool.submit(work, item))
            if len(pending) >= self.workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()

    def close(self) -> None:
        """Stops the worker threads (any frame being worked on is finished first)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def read(self, crops: list[Image]) -> Readings:
        """The crops' readings, as the deck profile (if any) decides them. A crop of nearly one grey level (the
        table, blank paper, glare) holds no index: it reads "not an index" without the network."""
        if not crops:
            return self.reader.read(crops)
        inked = np.flatnonzero(np.stack(crops).reshape(len(crops), -1).std(axis=1) >= self.settings.blank_window)
        r = self.reader.read([crops[k] for k in inked])
        if self.profile is not None:
            r = self.profile.sharpen(r, self.settings)
        probs = np.zeros((len(crops), NONE + 1), np.float32)
        probs[:, NONE] = 1.0
        embeddings = np.zeros((len(crops), r.embeddings.shape[1]), np.float32)
        probs[inked], embeddings[inked] = r.probs, r.embeddings
        return Readings(probs, embeddings)

    def identify(self, frame: object) -> list[Detection]:
        image = check_frame(frame)
        # a phone's photograph is halved: outlines and glyphs are looked for narrower anyway, the rest costs time
        scale = 1
        while image.shape[1] > 2 * self.settings.index_width:
            image, scale = np.asarray(cv2.pyrDown(image), np.uint8), 2 * scale
        dets, stretch = self._identify(image, 1 / scale)
        fx = fy = float(scale)
        if stretch != 1.0:  # a photograph stretched out of its camera's shape is read resampled back to it
            ax, ay = (1.0 / stretch, 1.0) if stretch < 1.0 else (1.0, stretch)
            size = (round(image.shape[1] * ax), round(image.shape[0] * ay))
            dets, _ = self._identify(np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_LINEAR), np.uint8),
                                     1 / scale)
            fx, fy = fx / ax, fy / ay
        if (fx, fy) == (1.0, 1.0):
            return dets
        return [replace(d, corners=tuple((x * fx, y * fy) for x, y in d.corners)) for d in dets]

    def _identify(self, image: Image, scale: float) -> tuple[list[Detection], float]:
        """The detections of a checked frame, `scale` times the size the table calibration's card size is for, and
        the frame's stretch (`frame_stretch`) as its glyph pairs read as an index tell it."""
        s = self.settings
        card_width = self.card_size[0] * scale if self.card_size else None
        found = find_cards(image, s, card_width=card_width, indices=False)
        quads = found.outlines
        pyramid = Pyramid(image)
        batch = self.read([crop for q in quads for crop in index_crops(image, q)])
        best = [self._name_outline(image, q, batch, i) for i, q in enumerate(quads)]
        # An outline naming no card is read again, named only where both corners agree (a strip of a card under others
        # shows one corner of some card at most): grown, and moved out to the card's edges (on a light table it can
        # be found inside the card); turned a quarter (a stretched photograph can make a long side look short).
        again = [i for i, x in enumerate(best) if isinstance(x, Detection) and x.face == "up" and x.card is None]
        tries = [(i, q) for i in again for q in (_grown(quads[i], s.regrow), np.roll(quads[i], -1, axis=0))]
        tries += [(i, q) for i in again if (q := moved_out(pyramid.level(0), quads[i], s.move_out, s)) is not None]
        # An unread outline of other proportions than a card's may have lost its index column: read made card-shaped.
        tries += [(i, q) for i, x in enumerate(best) if _misshapen(quads[i], s) and (
                  i in again or (x is None and stands_out(image, quads[i], s))) for q in _card_shaped(quads[i])]
        for (i, _), x in zip(tries, self._name_outlines(image, [q for _, q in tries]), strict=True):
            if isinstance(x, Reading) and x.whole and not isinstance(best[i], Reading):
                best[i] = x
        readings = [x for x in best if isinstance(x, Reading)]  # the cards named
        unnamed = [x for x in best if isinstance(x, Detection)]  # unknown and face-down cards
        down = [i for i, x in enumerate(best) if isinstance(x, Detection) and x.face == "down"]  # the backs
        read = [i for i, x in enumerate(best) if (isinstance(x, Reading) and x.whole) or i in down]  # whole, or backs
        # an unnamed card's corner read as some card, not surely, is read again around its window (framed a little off)
        unsure = [Mark(index_window(np.roll(quads[i], -2 * c, axis=0)), batch.likeliest(row))
                  for i in again if not isinstance(best[i], Reading)
                  for c, row in ((0, 2 * i), (1, 2 * i + 1)) if _shows_a_card(batch, row, s)]
        readings += self._refine(pyramid, unsure, s.refine_votes[0])
        # Then, in a second batch, the cards found off the outlines read whole or as backs (a window there frames a
        # card's own corner, its pips or a back's pattern), by their corners and by their index: off the outlines;
        # anywhere in one named by neither corner (cards outlined as one; a back for light ink: a black deck's cards
        # are dark); along the sides of one named by one corner (further in are its pips), all of one the frame cuts.
        by_corner = [p for p in _proposals(found.corners, s)
                     if not any(holds(quads[i], index_window(p[0]).mean(axis=0)) for i in read)]
        grounds = index_grounds(found, read, down)
        indices = index_corners(image, found, s, grounds=grounds)
        spotted = self._spotted(image, found, read, grounds)
        inner = [c for c in indices if c.within >= 0 and (c.within not in read or (c.light_ink and c.within in down))
                 and (not isinstance(best[c.within], Reading) or _at_edge(quads[c.within], c, s) or
                      _cut_by_frame(quads[c.within], image.shape))]
        pairs = [c for c in indices if c.within < 0] + inner[:s.max_index_pairs]
        # spots as glyph pairs: off the outlines, or in one that may hold more cards (its turns kept together)
        spots = [c for c in spotted if c.within < 0 or (
                 not isinstance(best[c.within], Reading) or _at_edge(quads[c.within], c, s) or
                 _cut_by_frame(quads[c.within], image.shape))]
        proposals = by_corner + _proposals(pairs, s)
        windows = self.read(corner_crops_at(pyramid, [q for q, _, _ in proposals] + [c.cards()[0] for c in spots]))
        shown = [c for j, c in enumerate(pairs, len(by_corner)) if _shows_a_card(windows, j, s)]
        named, marks = _read_proposals(found, proposals, windows, s)
        # a spotted index whose glyph pair's window names a card is read there already (the two windows, framed apart,
        # would be two readings of one index)
        by_pair = [x.windows[0] for x in named]
        spot_named, spot_marks = _read_spots(found, spots, windows, len(proposals), named=by_pair, s=s)
        named += spot_named
        marks += spot_marks
        readings += named

        def resolved(readings: list[Reading]) -> list[Detection]:
            joined = join_corners(readings, s.joined_aspect)
            return one_per_card(_seen_edges(image, pyramid, joined, marks, unnamed, s=s), unnamed, marks)
        dets = resolved(readings)
        # The marks on no card named or face down are read again around their windows: those standing for an unknown
        # card first, then those whose card would hold only table (its outline not found), named by more votes.
        known = [d.quad for d in dets if d.card is not None or d.face == "down"]
        loose = [m for m in marks if not any(holds(q, m.window.mean(axis=0)) for q in known)]
        refined = self._refine(pyramid, [m for m in loose if m.det is not None], s.refine_votes[0])
        loose = [m for m in loose if not any(holds(x.quad, m.window.mean(axis=0)) for x in refined)]
        refined += self._refine(pyramid, [m for m in loose if m.det is None], s.refine_votes[1])
        if refined:
            dets = resolved(readings + refined)
        return dets, frame_stretch(image, shown, s)

    def _spotted(self, image: Image, found: Found, read: list[int], grounds: tuple[Image, Image]) -> list[Corner]:
        """The cards the spotter finds by their index, each tagged `within` the smallest outline holding its index:
        near the `grounds` an index lies on (`index_grounds`) off the outlines `read` (read whole, or backs)."""
        s = self.settings
        quads = found.outlines
        scale = min(1.0, s.spot_width / image.shape[1])
        grey = gray(image)
        spots = []
        for x0, y0, x1, y1 in _spot_boxes(found.ground, grounds, image.shape, s):
            for spot in self.spotter.spots(grey[y0:y1, x0:x1], scale, s.spot_bar):
                spots.append(replace(spot, centre=spot.centre + np.array([x0, y0], np.float32)))
        areas = [quad_area(q) for q in quads]
        out = []
        for spot in spots:
            holding = [i for i, q in enumerate(quads) if holds(q, spot.centre)]
            if any(i in read for i in holding):
                continue
            within = min(holding, key=areas.__getitem__, default=-1)
            for turn in s.spot_turns:
                card = spot.turned(math.radians(turn)).card(self.spotter.index_centre)
                width, length = float(np.linalg.norm(card[1] - card[0])), float(np.linalg.norm(card[3] - card[0]))
                out.append(Corner(card[0], (card[1] - card[0]) / width, (card[3] - card[0]) / length, (width,),
                                  by_index=True, within=within))
        return out

    def _refine(self, pyramid: Pyramid, marks: list[Mark], votes: int) -> list[Reading]:
        """Marks read again in windows shifted and scaled a little about their own (a glyph pair places its window
        only roughly), named where `votes` of them read the mark's card at `index_bar`, at the surest of them."""
        s = self.settings
        shifts = [(-s.refine_jitter, 0.0, 1.0), (s.refine_jitter, 0.0, 1.0), (0.0, -s.refine_jitter, 1.0),
                  (0.0, s.refine_jitter, 1.0), (0.0, 0.0, 1.0 - s.refine_jitter), (0.0, 0.0, 1.0 + s.refine_jitter)]
        quads = [_card_of(m.window, *shift) for m in marks for shift in shifts]
        r = self.read(corner_crops_at(pyramid, quads))
        out: list[Reading] = []
        for k, m in enumerate(marks):
            rows = range(k * len(shifts), (k + 1) * len(shifts))
            sure = [(p, j) for j, (name, p) in ((j, r.best(j)) for j in rows) if name == m.card and p >= s.index_bar]
            if len(sure) >= votes:
                p, j = max(sure)
                det = Detection(card=m.card, face="up", confidence=min(1.0, p), corners=corners_of(quads[j]))
                out.append(Reading(det, (index_window(quads[j]),)))
        return out

    def _name_outlines(self, image: Image, quads: list[FloatArray]) -> list[Reading | Detection | None]:
        r = self.read([crop for q in quads for crop in index_crops(image, q)])
        return [self._name_outline(image, q, r, k) for k, q in enumerate(quads)]

    def _name_outline(self, image: Image, quad: FloatArray, r: Readings, k: int) -> Reading | Detection | None:
        """The detection of outline `k` (its corners in rows 2k and 2k + 1 of `r`): a reading with the windows its name
        was read from, an unnamed detection, or None for no card. Two corners agreeing add no confidence: a card's
        two corners are one point-symmetric image (a back's pattern as much as an index), read twice."""
        s = self.settings
        a, b = 2 * k, 2 * k + 1
        corners = corners_of(quad)
        (ca, pa), (cb, pb) = r.best(a), r.best(b)
        conf = max(pa if ca else 0.0, pb if cb else 0.0)
        for c, p, other, corner in ((ca, pa, b, 0), (cb, pb, a, 1)):
            if c is None or p < s.name_bar:
                continue
            others = r.probs[other, :NONE].copy()
            others[ALL_CARDS.index(c)] = 0.0
            if float(others.max()) < s.other_card:
                agree = ca == cb  # both windows hold this card's glyphs (one detection per card needs both)
                det = Detection(card=c, face="up", confidence=min(1.0, max(pa, pb) if agree else p), corners=corners)
                windows = (index_window(quad), index_window(np.roll(quad, -2, axis=0)))
                used = (windows[corner], windows[1 - corner]) if agree else (windows[corner],)
                return Reading(det, used, corner=2 * corner, whole=agree)
        if conf < 0.5:  # neither corner reads some card at 0.5
            short, long_ = side_lengths(quad)
            if long_ > s.max_unread_aspect * short or not stands_out(image, quad, s):
                return None  # no card's shape, or nothing but table inside: a line drawn on the felt
            if open_paper(warp_card(image, quad)) < s.face_down_paper:
                return Detection(card=None, face="down", confidence=float(max(r.probs[a, NONE], r.probs[b, NONE])),
                                 corners=corners)
        rank = _sure_rank(r.probs[[a, b], :NONE], s)
        return Detection(card=None, face="up", confidence=min(1.0, conf), corners=corners, rank=rank)


def _seen_edges(image: Image, pyramid: Pyramid, readings: list[Reading], marks: list[Mark], unnamed: list[Detection],
                *, s: Settings) -> list[Reading]:
    """The readings, each card read from one index window alone among other cards seen only up to the first straight
    edge past its index along its length: a card lying on it may show no index to cut it by. A card lying alone is
    not cut (its print can draw such lines) but moved out to its paper's edges (`_to_paper_edges`)."""
    centres = [(x.det.card, w.mean(axis=0)) for x in readings for w in x.windows]
    centres += [(m.card, m.window.mean(axis=0)) for m in marks]
    others = [d.quad for d in unnamed]  # backs, unknown cards, piles
    out = []
    for x in readings:
        if x.whole or len(x.windows) > 1:
            out.append(x)
        elif _among_cards(x, readings, others, centres, s):
            out.append(replace(x, seen_across=_first_edge(pyramid, x, s)))
        else:
            out.append(_to_paper_edges(image, x, s))
    return out


_PAPER_W, _PAPER_H = 40, 56  # pixels of the view `_to_paper_edges` looks at, per card width and height


def _to_paper_edges(image: Image, x: Reading, s: Settings) -> Reading:
    """Reading `x` (a card alone, read from one index window) with the card's far sides moved out to where the paper
    around its index ends: walking out from the index window across the card, the end of the paper before a gap
    wider than `paper_gap` of the card (its pips and print are narrower; a court card's picture, with paper beyond it
    inside the card drawn, is crossed). A side stays where the paper runs on to `paper_reach` times the card drawn (a
    white wall behind it), ends unevenly, or ends inside the card drawn (shade and glare change the paper's colour
    across a card)."""
    card = np.roll(x.quad, -x.corner, axis=0)
    to_frame = cv2.getPerspectiveTransform(box_quad(0, 0, 1, 1), card) @ np.diag([1 / _PAPER_W, 1 / _PAPER_H, 1.0])
    size = (round(_PAPER_W * s.paper_reach), round(_PAPER_H * s.paper_reach))
    view = cv2.warpPerspective(image, to_frame, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    ux, vy = round(CORNER_W * _PAPER_W), round(CORNER_H * _PAPER_H)  # the index window in the view
    colour = quantiles_u8(np.ascontiguousarray(view[:vy, :ux].reshape(-1, 3).T), 0.75)
    paper = np.abs(view.astype(np.int16) - colour).sum(axis=2) <= s.paper_colour
    # the lines across each far side from a tenth to six tenths of the card drawn: on the card though it is drawn long
    rows = paper[round(0.1 * _PAPER_H):round(0.6 * _PAPER_H)]
    right = max(_PAPER_W, _paper_end(rows, ux, round(s.paper_gap * _PAPER_W), _PAPER_W, s) or 0)
    columns = paper[:, round(0.1 * _PAPER_W):round(0.6 * _PAPER_W)].T
    bottom = max(_PAPER_H, _paper_end(columns, vy, round(s.paper_gap * _PAPER_H), _PAPER_H, s) or 0)
    if (right, bottom) == (_PAPER_W, _PAPER_H):
        return x
    far = box_quad(0, 0, right, bottom).reshape(-1, 1, 2)
    quad = np.asarray(cv2.perspectiveTransform(far, to_frame).reshape(4, 2), np.float32)
    return replace(x, det=replace(x.det, corners=corners_of(np.roll(quad, x.corner, axis=0))))


def _paper_end(paper: npt.NDArray[np.bool_], start: int, gap: int, drawn: int, s: Settings) -> int | None:
    """Where the lines' paper (rows of `paper`), from column `start` on, ends before a gap of more than `gap` columns
    (the card drawn, up to column `drawn`, is paper up to its last paper column): the median over the lines on paper
    at `start` whose paper ends before the view does, when `paper_rows` of the lines do and their ends agree; else
    None."""
    drawn_card = paper[:, start:drawn]
    last = np.where(drawn_card.any(axis=1), drawn_card.shape[1] - np.argmax(drawn_card[:, ::-1], axis=1), 0)
    paper = paper.copy()
    paper[:, start:drawn] |= np.arange(drawn_card.shape[1]) < last[:, None]
    bridged = np.asarray(cv2.morphologyEx(np.ascontiguousarray(paper, np.uint8), cv2.MORPH_CLOSE,
                                          np.ones((1, gap + 1), np.uint8)), bool)[:, start:]
    end = start + np.argmin(bridged, axis=1)  # each line's first column off the paper
    ends = end[bridged[:, 0] & ~bridged.all(axis=1) & (end <= paper.shape[1] - gap)]  # else no edge seen on the line
    if len(ends) < s.paper_rows * len(paper):
        return None
    middle = float(np.median(ends))
    if float(np.median(np.abs(ends - middle))) > s.paper_straight * paper.shape[1]:
        return None  # no straight edge
    return round(middle)


def _among_cards(x: Reading, readings: list[Reading], unnamed: list[FloatArray],
                 centres: list[tuple[str | None, FloatArray]], s: Settings) -> bool:
    """Whether another card's index window lies on reading `x`'s card (not in its own window), or another card's
    outline, named or `unnamed` (a back, an unknown card, a pile), overlaps it by `seen_overlap` of its area."""
    own = x.windows[0]
    if any(card != x.det.card and holds(x.quad, c) and not holds(own, c) for card, c in centres):
        return True
    least = s.seen_overlap * quad_area(x.quad)
    quads = [y.quad for y in readings if y.det.card != x.det.card] + unnamed
    return any(cv2.intersectConvexConvex(x.quad, q)[0] > least for q in quads)


def _first_edge(pyramid: Pyramid, x: Reading, s: Settings) -> float:
    """Where (share of the width) the first line of edges from top to bottom on reading `x`'s card upright lies beyond
    its index window (tilted at most `seen_tilt` degrees, edge pixels in `seen_support` of its rows and of the top
    `seen_top`'s); 1 where none is."""
    view = warp_card(pyramid.level(0), np.roll(x.quad, -x.corner, axis=0), _SEEN_W, _SEEN_H)
    edges = np.asarray(cv2.Canny(cv2.GaussianBlur(view, (3, 3), 0), *s.seen_canny), np.uint8)
    h, w = edges.shape
    wide = cv2.dilate(edges, np.ones((1, 3), np.uint8)) > 0  # a pixel either side: a line drawn at a slant
    tilt = max(1, round(h * math.tan(math.radians(s.seen_tilt))))
    on_line, middle = _slanted_lines(h, w, tilt)
    hit = np.pad(wide, ((0, 0), (tilt, tilt))).ravel()[on_line]  # column x lean x row; off the card: no edge
    top = max(1, round(s.seen_top * h))
    lines = (hit.sum(axis=2) >= s.seen_support * h) & (hit[:, :, :top].sum(axis=2) >= s.seen_support * top) & \
        (middle >= CORNER_W * w)
    return float(middle[lines].min() / w) if lines.any() else 1.0


@functools.cache
def _slanted_lines(h: int, w: int, tilt: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """The pixels of each straight line from top to bottom of an h x w image, from each column leaning up to `tilt`
    columns either way (column x lean x row: flat indices into the image padded by `tilt` columns each side), and
    each line's middle column: the same for every card looked at."""
    rows, lean = np.arange(h), np.arange(-tilt, tilt + 1)
    cols = np.rint(np.arange(w)[:, None, None] + lean[None, :, None] * (rows / (h - 1))[None, None, :])
    on_line = rows[None, None, :] * (w + 2 * tilt) + cols.astype(np.intp) + tilt
    return on_line, np.arange(w)[:, None] + lean[None, :] / 2


def _spot_boxes(ground: Ground, grounds: tuple[Image, Image], shape: tuple[int, ...],
                s: Settings) -> list[tuple[int, int, int, int]]:
    """The boxes of the frame (x0, y0, x1, y1) the spotter looks in: around the `grounds` an index lies on (at the
    `ground`'s scale), `spot_margin` of the frame's width beyond them; the whole frame where they would cover
    `spot_whole` of it (one run of the network costs less than several that overlap)."""
    region = cv2.bitwise_or(*grounds)
    h, w = shape[:2]
    # the boxes are looked for in the region shrunk 4 times: a few pixels more around each cost nothing
    coarse = cv2.resize(region, (max(1, region.shape[1] // 4), max(1, region.shape[0] // 4)),
                        interpolation=cv2.INTER_AREA)
    n, _, stats, _ = cv2.connectedComponentsWithStats(np.asarray(coarse > 0, np.uint8), connectivity=8)
    to_frame = region.shape[1] / coarse.shape[1] / ground.scale
    pad = s.spot_margin * w
    boxes = [(max(0, int(x * to_frame - pad)), max(0, int(y * to_frame - pad)),
              min(w, int((x + bw) * to_frame + pad) + 1), min(h, int((y + bh) * to_frame + pad) + 1))
             for x, y, bw, bh, _ in stats[1:n].tolist()]
    merged: list[tuple[int, int, int, int]] = []
    while boxes:  # overlapping boxes are joined: an index lies in one of them whole
        a = boxes.pop()
        for k, b in enumerate(merged):
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                boxes.append((min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])))
                del merged[k]
                break
        else:
            merged.append(a)
    if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in merged) >= s.spot_whole * w * h:
        return [(0, 0, w, h)]
    return merged


def _sure_rank(card_probs: FloatArray, s: Settings) -> str | None:
    """The rank one of these windows (rows of card probabilities) reads at `rank_bar` or more, summed over suits."""
    ranks = card_probs.reshape(len(card_probs), 4, len(RANKS)).sum(axis=1)  # window x rank
    best = ranks.max(axis=0)
    k = int(best.argmax())
    return RANKS[k] if float(best[k]) >= s.rank_bar else None


def _proposals(corners: list[Corner], s: Settings) -> list[Proposal]:
    """The card quad of each corner proposal at each of its widths, the bar its reading must reach, and whether a
    reading below it marks a card (not one blob taken for a rank and its suit: more often a pip or a shadow)."""
    return [(q, s.index_bar if c.by_index else s.name_bar, not c.one_blob) for c in corners for q in c.cards()]


def _cut_by_frame(quad: FloatArray, shape: tuple[int, ...]) -> bool:
    """Whether one of the quad's sides runs along the frame's edge: a card the frame cuts (where its index lies on
    it is not told by its sides)."""
    h, w = shape[:2]
    x, y = quad[:, 0], quad[:, 1]
    near = np.stack([x < 2, x > w - 3, y < 2, y > h - 3], axis=1)  # each corner by each edge of the frame
    return bool((near & np.roll(near, -1, axis=0)).any())  # both ends of a side by one edge


def _at_edge(quad: FloatArray, c: Corner, s: Settings) -> bool:
    """Whether a corner proposal's index window centre lies within `index_edge` of its card quad's sides."""
    centre = index_window(c.cards()[0]).mean(axis=0)
    x, y = (float(v) for v in card_coords(quad, centre)[0])
    return min(x, 1 - x) < s.index_edge[0] or min(y, 1 - y) < s.index_edge[1]


def _read_proposals(found: Found, proposals: list[Proposal], r: Readings,
                    s: Settings) -> tuple[list[Reading], list[Mark]]:
    """The proposals whose window reads a card at its bar, and marks at the others read as some card's index at
    `mark_bar` (a card lies there; an unknown card where its outline lies mostly off the table top)."""
    named: list[Reading] = []
    marks: list[Mark] = []
    for j, (quad, bar, marks_a_card) in enumerate(proposals):
        name, p = r.best(j)
        if name is not None and p >= bar:
            det = Detection(card=name, face="up", confidence=min(1.0, p), corners=corners_of(quad))
            named.append(Reading(det, (index_window(quad),)))
        elif marks_a_card and _shows_a_card(r, j, s):
            marks.append(_mark(found, quad, r, j, s))
    return named, marks


def _mark(found: Found, quad: FloatArray, r: Readings, j: int, s: Settings) -> Mark:
    """The mark of a card at `quad`'s index window, read in row `j` as some card: an unknown card too where its
    outline lies mostly off the table top."""
    cards = r.probs[[j], :NONE]
    off_table = found.off_table_share(quad) >= s.mark_card_off_table
    unknown = Detection(card=None, face="up", confidence=float(cards.max()), corners=corners_of(quad),
                        rank=_sure_rank(cards, s)) if off_table else None
    return Mark(index_window(quad), r.likeliest(j), unknown)


def _read_spots(found: Found, spots: list[Corner], r: Readings, start: int, *, named: list[FloatArray],
                s: Settings) -> tuple[list[Reading], list[Mark]]:
    """The spotted indices (each framed at every one of `Settings.spot_turns`, in that order, read from row `start` of
    `r` on) named where `spot_votes` of their windows read one card at the index bar (at the surest of them), else
    marks where one reads as some card's index at `spot_mark_bar`; none whose centre lies in a window `named`."""
    turns = len(s.spot_turns)
    readings: list[Reading] = []
    marks: list[Mark] = []
    for first in range(0, len(spots), turns):
        quads = [c.cards()[0] for c in spots[first:first + turns]]
        if any(holds(w, index_window(quads[0]).mean(axis=0)) for w in named):
            continue
        rows = range(start + first, start + first + len(quads))
        sure = [(p, j) for j in rows for name, p in [r.best(j)] if name is not None and p >= s.index_bar]
        cards = [r.best(j)[0] for _, j in sure]
        card = max(set(cards), key=cards.count, default=None)
        if card is not None and cards.count(card) >= s.spot_votes:
            p, j = max((p, j) for p, j in sure if r.best(j)[0] == card)
            det = Detection(card=card, face="up", confidence=min(1.0, p), corners=corners_of(quads[j - rows[0]]))
            readings.append(Reading(det, (index_window(quads[j - rows[0]]),)))
            continue
        j = max(rows, key=lambda j: 1.0 - float(r.probs[j, NONE]))
        if 1.0 - float(r.probs[j, NONE]) >= s.spot_mark_bar:
            marks.append(_mark(found, quads[j - rows[0]], r, j, s))
    return readings, marks


def _shows_a_card(r: Readings, row: int, s: Settings) -> bool:
    """Whether window `row` reads as some card's index, whichever, at `mark_bar` or more: a card lies there."""
    return 1.0 - float(r.probs[row, NONE]) >= s.mark_bar


def _misshapen(quad: FloatArray, s: Settings) -> bool:
    """Whether an outline's proportions differ from a card's by more than `Settings.card_shape` either way."""
    short, long_ = side_lengths(quad)
    return not CARD_ASPECT / s.card_shape <= long_ / max(short, 1e-6) <= CARD_ASPECT * s.card_shape


def _card_shaped(quad: FloatArray) -> list[FloatArray]:
    """The outline (first edge a short side) made a card's shape by lengthening its sides short of it at one end, at
    the other, and at both by half."""
    short, long_ = side_lengths(quad)
    if long_ > CARD_ASPECT * short:  # too narrow: the short sides lengthened
        side, by, ends = quad[1] - quad[0], long_ / CARD_ASPECT - short, ([1, 2], [0, 3])
    else:  # too short: the long sides lengthened
        side, by, ends = quad[2] - quad[1], CARD_ASPECT * short - long_, ([2, 3], [0, 1])
    step = side / max(float(np.linalg.norm(side)), 1e-6) * by
    out = []
    for there, here in ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5)):
        q = quad.copy()
        q[ends[0]] += there * step
        q[ends[1]] -= here * step
        out.append(q)
    return out


def _grown(quad: FloatArray, by: float) -> FloatArray:
    """The quad grown about its centre by `by` of its width on each side (of its height at top and bottom)."""
    centre = quad.mean(axis=0)
    return np.asarray(centre + (quad - centre) * (1 + 2 * by), np.float32)


def _card_of(window: FloatArray, across: float = 0.0, along: float = 0.0, scale: float = 1.0) -> FloatArray:
    """The card quad whose first corner's index window (`index_window`) is `window` moved `across` and `along` (window
    widths, heights) and scaled about its centre."""
    centre = window.mean(axis=0)
    w = centre + (window - centre) * scale + (window[1] - window[0]) * across + (window[3] - window[0]) * along
    u, v = (w[1] - w[0]) / CORNER_W, (w[3] - w[0]) / CORNER_H
    return np.array([w[0], w[0] + u, w[0] + u + v, w[0] + v], np.float32)
