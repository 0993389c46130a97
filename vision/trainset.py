"""Training and validation crops for the index reader, made from deck designs, fonts and labelled photographs.

Every sample is a `CROP_W` x `CROP_H` grey crop framed exactly as `vision.rectify` frames a card's corner at
table time, with a label: a card code's class (0-51, `CLASSES`) or `NONE` (not an index: a back, a pip, a
picture, the felt, half an index). Sources:

- deck designs: one PNG per card in a folder (`<rank><suit>.png` or `<rank>_of_<suit>.png`), each face laid on
  a table surface, seen by a camera (perspective, the outline found a little off, 40-400 px wide), degraded
  (blur, noise, JPEG, uneven light, colour cast) and rectified; upright or turned 180 degrees (a design that
  prints its index in the top-left corner only shows "not an index" turned); a third of them framed as a window
  found by its glyphs is (the index up-left, as `vision.detect` places a rank over its suit) rather than as a
  card's corner; a face drawn without its paper is laid on white paper;
- the simulator's own procedural faces (Hershey-font indices), which the demo's camera draws, drawn together
  as often as one deck design;
- indices set in the DejaVu fonts (Debian's fonts-dejavu) at random size and place, two and four colours;
- real corner indices boxed in photographs (a CSV of `filename, card, xmin, ymin, xmax, ymax`), turned upright
  from the pair of boxes of one card (an index box lies up-left of its twin on an upright card);
- negatives: corners of backs and of jokers (a Draw Poker deck has none in play; a joker seen is named by no
  card), patches of a face away from its index, an index window shifted off its
  index, windows framed as a glyph pair's anywhere on a back and among a face's pips and picture, the table
  surface, and the windows the pipeline reads in the labelled photographs away from every
  labelled card's index (a face, a hand, a room behind the cards, a back's or a joker's corner: what the reader
  wrongly named before).

Nothing here needs torch: the benchmark's leave-one-deck-out mode and the tests use it too.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.cards import ALL_CARDS, RANKS
from vision.rectify import (
    CARD_ASPECT,
    CORNER_H,
    CORNER_W,
    CROP_H,
    CROP_W,
    FloatArray,
    corner_crops_at,
    corner_frame,
    gray,
)

Image = npt.NDArray[np.uint8]
Rng = np.random.Generator

CLASSES: tuple[str, ...] = ALL_CARDS  # class i is ALL_CARDS[i]; class NONE is "not an index"
NONE = len(CLASSES)
_WORDS = {"2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9", "T": "10",
          "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
_SUIT_WORDS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
FACE_W = 240  # deck faces are kept at this width (a camera never sees more of an index)


@dataclass(frozen=True)
class Deck:
    name: str
    faces: dict[str, Image]  # card -> BGRA face, FACE_W wide
    backs: tuple[Image, ...]
    # how often the mix draws this deck, against 1 for a deck design (the simulator's fonts share one design's)
    weight: float = 1.0
    # the cards whose bottom-right corner holds no index (a one-index design): that corner is "not an index"
    one_index: frozenset[str] = frozenset()
    jokers: tuple[Image, ...] = ()  # BGRA faces, FACE_W wide


def _corner_ink(face: Image) -> tuple[float, float]:
    """The share of the top-left and of the bottom-right index window inside the card that is printed (far
    from the paper's grey level)."""
    g = cv2.cvtColor(face[:, :, :3], cv2.COLOR_BGR2GRAY).astype(np.float32)
    inside = face[:, :, 3] > 127
    paper = float(np.median(g[inside]))
    h, w = g.shape
    rows, cols = slice(int(0.04 * h), int(CORNER_H * h)), slice(int(0.05 * w), int(CORNER_W * w))
    shares = []
    for img, mask in ((g, inside), (g[::-1, ::-1], inside[::-1, ::-1])):
        shares.append(float(((np.abs(img[rows, cols] - paper) > 60) & mask[rows, cols]).mean()))
    return shares[0], shares[1]


def one_index_cards(faces: dict[str, Image]) -> frozenset[str]:
    """The cards printed with an index in the top-left corner only: the bottom-right window holds less than
    half the print of the top-left one (a pip's edge at most)."""
    inks = {c: _corner_ink(face) for c, face in faces.items()}
    return frozenset(c for c, (top_left, bottom_right) in inks.items() if bottom_right < 0.5 * top_left)


def make_deck(name: str, faces: dict[str, Image], backs: tuple[Image, ...], weight: float = 1.0,
              jokers: tuple[Image, ...] = ()) -> Deck:
    return Deck(name, faces, backs, weight, one_index_cards(faces), jokers)


def corner_label(deck: Deck, card: str, turned: bool) -> int:
    """The class of the index window at a face's top-left corner, or at its bottom-right one when `turned`."""
    return NONE if turned and card in deck.one_index else CLASSES.index(card)


def _read_bgra(path: Path) -> Image:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FileNotFoundError(path)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    h, w = img.shape[:2]
    return np.asarray(cv2.resize(img, (FACE_W, round(h * FACE_W / w)), interpolation=cv2.INTER_AREA), np.uint8)


def _on_paper(face: Image) -> Image:
    """A face drawn without its paper (only the print opaque) laid on white paper of a card's rounded outline,
    as the printed card is; a face with its paper as it is."""
    if (face[:, :, 3] > 127).mean() >= 0.5:
        return face
    from hardware_sim.camera.art import card_body_mask

    h, w = face.shape[:2]
    a = face[:, :, 3:4].astype(np.float32) / 255.0
    bgr = (face[:, :, :3] * a + 255.0 * (1.0 - a)).astype(np.uint8)
    return np.asarray(np.dstack([bgr, card_body_mask(w, h)]), np.uint8)


def face_path(folder: Path, card: str) -> Path | None:
    for name in (f"{card}.png", f"{_WORDS[card[0]]}_of_{_SUIT_WORDS[card[1]]}.png"):
        if (folder / name).exists():
            return folder / name
    return None


def load_deck(folder: str | Path) -> Deck:
    root = Path(folder)
    faces: dict[str, Image] = {}
    for card in ALL_CARDS:
        p = face_path(root, card)
        if p is None:
            raise FileNotFoundError(f"{root}: no face for {card}")
        faces[card] = _on_paper(_read_bgra(p))
    backs = tuple(_read_bgra(p) for p in sorted(root.glob("back*.png")))
    jokers = tuple(_on_paper(_read_bgra(p)) for p in sorted(root.glob("*joker*.png")))
    return make_deck(root.name, faces, backs, jokers=jokers)


def deck_folders(datasets: Path) -> list[Path]:
    """The complete deck designs under a data-set folder (any folder with a face for every card)."""
    found = []
    for folder in sorted(p for p in datasets.rglob("*") if p.is_dir()):
        if "source" in folder.parts:
            continue
        if all(face_path(folder, c) is not None for c in ALL_CARDS):
            found.append(folder)
    return found


def procedural_decks() -> list[Deck]:
    """The simulator's own faces: its four Hershey index fonts, drawn together as often as one deck design."""
    from hardware_sim.camera.art import card_body_mask, draw_back, procedural_faces

    decks = []
    mask = card_body_mask()
    for style in range(4):
        fs = procedural_faces(style)
        faces = {c: _with_alpha(img, mask) for c, img in fs.faces.items()}
        backs = (_with_alpha(fs.back, mask), _with_alpha(draw_back((30, 30, 30 + 40 * style)), mask))
        decks.append(make_deck(fs.name, faces, backs, weight=0.25))
    return decks


def _with_alpha(bgr: Image, mask: Image) -> Image:
    bgra = np.dstack([bgr, mask])
    h, w = bgra.shape[:2]
    return np.asarray(cv2.resize(bgra, (FACE_W, round(h * FACE_W / w)), interpolation=cv2.INTER_AREA), np.uint8)


# Table surfaces ------------------------------------------------------------------------------------------------

def surface(rng: Rng, w: int, h: int) -> Image:
    """A felt, wood, cloth or plain table top."""
    kind = rng.integers(0, 4)
    base = rng.uniform(20, 200, 3)
    if kind == 0:  # felt
        base = np.array([rng.uniform(20, 90), rng.uniform(60, 150), rng.uniform(10, 70)])[rng.permutation(3)]
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == 1:  # wood grain
        x = np.arange(w, dtype=np.float32)[None, :] + rng.uniform(0, 100)
        y = np.arange(h, dtype=np.float32)[:, None]
        grain = np.sin((x + 6 * np.sin(y / rng.uniform(15, 60))) / rng.uniform(2, 9))
        img += grain[:, :, None] * rng.uniform(5, 30)
    img += rng.normal(0, rng.uniform(2, 14), (h, w, 1 if rng.uniform() < 0.5 else 3))
    return np.asarray(np.clip(img, 0, 255), np.uint8)


# The camera ------------------------------------------------------------------------------------------------------

def _degrade(img: Image, rng: Rng) -> Image:
    """What a table camera does to an image: uneven light, colour cast, blur, noise, JPEG."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    if rng.uniform() < 0.6:
        gx, gy = rng.uniform(-1, 1, 2)
        ramp = 1 + rng.uniform(0.1, 0.5) * (gx * np.linspace(-1, 1, w)[None, :] + gy * np.linspace(-1, 1, h)[:, None])
        f *= ramp[:, :, None]
    f *= rng.uniform(0.55, 1.2) * rng.uniform(0.8, 1.2, 3)
    f += rng.uniform(-30, 20)
    if rng.uniform() < 0.6:
        f = np.asarray(cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.4)), np.float32)
    f += rng.normal(0, rng.uniform(0, 9), f.shape)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.uniform() < 0.15:
        out = np.asarray(cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR), np.uint8)
    if rng.uniform() < 0.5:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 95))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = np.asarray(decoded, np.uint8)
    return np.asarray(out, np.uint8)


def camera_crop(face: Image, rng: Rng, *, turned: bool, window: tuple[float, float] = (0.0, 0.0),
                card: FloatArray | None = None) -> Image:
    """`face` (BGRA) laid on a surface, filmed small, its outline found slightly off, then the index window at
    the card's first corner cut out (`window` shifts it, in window sizes, for negatives). `card` is the card's
    quad in `face` when `face` is a larger scene (a fan, a pile); by default the card is all of `face`."""
    fh, fw = face.shape[:2]
    whole = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    quad0 = whole if card is None else card.astype(np.float32)
    if turned:
        face = np.asarray(cv2.rotate(face, cv2.ROTATE_180), np.uint8)
        quad0 = np.array([fw, fh], np.float32) - quad0[[2, 3, 0, 1]]
    card_w = float(np.linalg.norm(quad0[1] - quad0[0]))
    width = float(math.exp(rng.uniform(math.log(40), math.log(400))))
    scale = width / card_w
    cw, ch = fw * scale * 1.5, fh * scale * 1.5
    persp = rng.normal(0, 0.04 * width, (4, 2)).astype(np.float32)
    angle = rng.uniform(-0.25, 0.25)
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], np.float32)
    centre = np.array([cw / 2, ch / 2], np.float32)
    dst = ((whole * scale - np.array([fw * scale / 2, fh * scale / 2], np.float32)) @ rot.T + centre + persp)
    m0 = cv2.getPerspectiveTransform(whole, dst.astype(np.float32))
    true_quad = cv2.perspectiveTransform(quad0.reshape(-1, 1, 2), m0).reshape(4, 2)
    # The outline the detector would find: the true corners, a little off.
    quad = (true_quad + rng.normal(0, 0.015 * width, (4, 2))).astype(np.float32)
    if rng.uniform() < 0.3:  # a stretched photograph or a card of other proportions
        quad[2:] = quad[1:3][::-1] + (quad[2:] - quad[1:3][::-1]) * rng.uniform(0.9, 1.1)
    sx, sy = window
    u, v = quad[1] - quad[0], quad[3] - quad[0]
    quad = quad + (sx * 0.3 * u + sy * 0.34 * v)
    # Only the part of the scene around the index window is rendered.
    win = np.array([quad[0], quad[0] + 0.3 * u, quad[0] + 0.3 * u + 0.34 * v, quad[0] + 0.34 * v])
    x0, y0 = np.floor(win.min(axis=0)) - 6
    x1, y1 = np.ceil(win.max(axis=0)) + 6
    sw, sh = int(x1 - x0), int(y1 - y0)
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    bgra = cv2.warpPerspective(face, shift @ m0, (sw, sh), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    a = bgra[:, :, 3:4].astype(np.float32) / 255.0
    scene = (bgra[:, :, :3] * a + surface(rng, sw, sh) * (1 - a)).astype(np.uint8)
    scene = _degrade(scene, rng)
    quad = quad - np.array([x0, y0], np.float32)
    return corner_crops_at(scene, [quad])[0]


def index_glyphs(face: Image) -> tuple[FloatArray, FloatArray, float] | None:
    """The top-left index of a face (BGRA): the centres of its rank and of its suit, and the rank's size (the
    larger of its first glyph's height and width, as `vision.detect` sizes a glyph); None
    when no print keeps to that corner. The rank is the print nearest the corner (with what stands beside it:
    the 1 and 0 of a 10), its suit the print below it."""
    h, w = face.shape[:2]
    bw, bh = round(0.35 * w), round(0.45 * h)  # jumbo indices too
    corner = face[:bh, :bw]
    card = corner[:, :, 3] > 127
    lowest = cv2.min(cv2.min(corner[:, :, 0], corner[:, :, 1]), corner[:, :, 2]).astype(np.float32)
    paper = float(np.median(lowest[card])) if card.any() else 255.0
    ink = ((lowest < paper - 60) & card).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    # what touches the card's edge or runs out of the corner (a border line, the picture's frame) and specks are
    # no index
    parts = np.array([s for s in stats[1:n].tolist() if s[4] >= 0.0005 * bw * bh and s[0] > 0 and s[1] > 0 and
                      s[0] + s[2] < bw - 1 and
                      s[1] + s[3] < bh - 1 and s[2] < 0.6 * bw and s[3] < 0.5 * bh], np.float32).reshape(-1, 5)
    if not len(parts):
        return None
    x0, y0, pw, ph = parts[:, 0], parts[:, 1], parts[:, 2], parts[:, 3]
    seed = int(np.argmin(x0 + y0))
    g = float(ph[seed])
    beside = (np.abs((y0 + ph / 2) - (y0[seed] + ph[seed] / 2)) < 0.3 * g) & (x0 < x0[seed] + pw[seed] + 0.6 * g)
    rx0, rx1 = float(x0[beside].min()), float((x0 + pw)[beside].max())
    ry0, ry1 = float(y0[beside].min()), float((y0 + ph)[beside].max())
    cx = x0 + pw / 2
    below = ~beside & (y0 >= ry1 - 0.1 * g) & (y0 <= ry1 + 0.8 * g) & (np.abs(cx - (rx0 + rx1) / 2) < 0.6 * g) & \
        (ph > 0.3 * g) & (ph < 1.5 * g)
    if not below.any():
        return None
    s = int(np.flatnonzero(below)[np.argmin(y0[below])])
    rank = np.array([(rx0 + rx1) / 2, (ry0 + ry1) / 2], np.float32)
    suit = np.array([x0[s] + pw[s] / 2, y0[s] + ph[s] / 2], np.float32)
    return rank, suit, max(g, float(pw[seed]))


def index_crop(face: Image, rng: Rng, *, turned: bool) -> Image | None:
    """A face's index window framed as a window found by its glyphs is at table time (a rank over its suit:
    `vision.detect`), filmed as `camera_crop` films it; None when the face shows no index there."""
    if turned:
        face = np.asarray(cv2.rotate(face, cv2.ROTATE_180), np.uint8)
    glyphs = index_glyphs(face)
    if glyphs is None:
        return None
    rank, suit, g = glyphs
    ih = float(suit[1] - rank[1]) + g
    centre = (rank + suit) / 2
    # the window as the glyph pair places it, give or take what a pair's sizes make of it
    width = 1.7 * g * rng.uniform(0.85, 1.2)
    corner = np.asarray(centre - np.array([0.75 * g * rng.uniform(0.75, 1.25), 0.65 * ih * rng.uniform(0.85, 1.15)]),
                        np.float32)
    card = corner_frame(corner, np.array([1.0, 0.0], np.float32), np.array([0.0, 1.0], np.float32), width / CORNER_W)
    return camera_crop(face, rng, turned=False, card=card)


def inner_window(face: Image, rng: Rng, within: tuple[float, float, float, float]) -> Image:
    """A window framed as a glyph pair's is (a tenth to a fifth of the card wide) anywhere within the share
    `within` (x0, y0, x1, y1) of a face or a back: what the reader is shown where a back's pattern, a face's pips
    or its picture pair up as glyphs."""
    h, w = face.shape[:2]
    width = w * rng.uniform(0.1, 0.22) / CORNER_W  # the card whose corner window this is
    win_w, win_h = width * CORNER_W, width * CARD_ASPECT * CORNER_H
    x0, y0, x1, y1 = within
    x = rng.uniform(x0 * w, max(x0 * w, x1 * w - win_w))
    y = rng.uniform(y0 * h, max(y0 * h, y1 * h - win_h))
    turn = rng.uniform(0, 2 * math.pi)
    u = np.array([math.cos(turn), math.sin(turn)], np.float32)
    v = np.array([-u[1], u[0]], np.float32)
    centre = np.array([x + win_w / 2, y + win_h / 2], np.float32)
    corner = np.asarray(centre - u * win_w / 2 - v * win_h / 2, np.float32)
    return camera_crop(face, rng, turned=False, card=corner_frame(corner, u, v, width))


def light_ink(face: Image) -> Image:
    """A face printed light on dark (a black deck): its colours inverted, its outline kept."""
    out = face.copy()
    out[:, :, :3] = 255 - out[:, :, :3]
    return out


# Fanned hands and piles -----------------------------------------------------------------------------------------

# The index of a card lies within this share of its width and height from its corner (jumbo indices too).
INDEX_BOX = (0.2, 0.3)


@dataclass(frozen=True)
class Spread:
    """Cards overlapping as in a hand held fanned or a pile spread on the table: the scene (BGRA), each card's
    quad in it (first corner top-left) and, per pixel, which card is on top (-1: none)."""

    image: Image
    quads: list[FloatArray]
    top: npt.NDArray[np.int8]


def spread(faces: list[Image], rng: Rng) -> Spread:
    """The cards `faces` laid in order, each one on top of the one before: fanned about a point below the hand,
    or shifted as in a pile, mostly to the right (the left indices show) and now and then the other way."""
    fh, fw = faces[0].shape[:2]
    n = len(faces)
    fan = rng.uniform() < 0.6
    step = rng.uniform(0.08, 0.45) * fw * (1 if rng.uniform() < 0.85 else -1)
    down = 0.0 if fan else rng.uniform(-0.2, 0.2) * fh
    turn = rng.uniform(2.0, 14.0) if fan else rng.normal(0, 3.0)
    size = int(fw * 1.2 + abs(step) * n + fh * 1.2)
    w, h = size, int(fh * 2.2 + abs(down) * n)
    image = np.zeros((h, w, 4), np.uint8)
    top = np.full((h, w), -1, np.int8)
    corners = np.array([[0, 0, 1], [fw, 0, 1], [fw, fh, 1], [0, fh, 1]], np.float64).T
    quads = []
    for j, face in enumerate(faces):
        k = j - (n - 1) / 2
        origin = (w / 2 - fw / 2 + k * step, h / 2 - fh / 2 + k * down)
        pivot = (origin[0] + fw / 2, origin[1] + (fh * 1.3 if fan else fh / 2))
        m = cv2.getRotationMatrix2D(pivot, -k * turn, 1.0) @ np.array(
            [[1, 0, origin[0]], [0, 1, origin[1]], [0, 0, 1]], np.float64)
        quad = (m @ corners).T.astype(np.float32)
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 2, (w, h))
        shifted = m - np.array([[0, 0, x0], [0, 0, y0]], np.float64)
        layer = cv2.warpAffine(face, shifted, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_LINEAR,
                               borderValue=(0, 0, 0, 0))
        a = layer[:, :, 3:4].astype(np.float32) / 255.0
        under = image[y0:y1, x0:x1]
        blended = (layer * a + under * (1 - a)).astype(np.uint8)
        blended[:, :, 3] = np.maximum(under[:, :, 3], layer[:, :, 3])
        image[y0:y1, x0:x1] = blended
        top[y0:y1, x0:x1][layer[:, :, 3] > 127] = j
        quads.append(quad)
    return Spread(image, quads, top)


def index_cover(s: Spread, j: int, turned: bool) -> float:
    """How much of card j's index (top-left, or bottom-right when `turned`) other cards cover: 0 to 1."""
    q = s.quads[j][[2, 3, 0, 1]] if turned else s.quads[j]
    u, v = q[1] - q[0], q[3] - q[0]
    iw, ih = INDEX_BOX
    poly = np.array([q[0], q[0] + iw * u, q[0] + iw * u + ih * v, q[0] + ih * v], np.int32)
    mask = np.zeros(s.top.shape, np.uint8)
    cv2.fillConvexPoly(mask, poly, 1)
    inside = s.top[mask > 0]
    return float(((inside >= 0) & (inside != j)).mean()) if inside.size else 1.0


def spread_crop(deck: Deck, rng: Rng) -> tuple[Image, int] | None:
    """A window of a card in a fan or a pile of 2-5 cards of `deck`: its index as it shows (the card), or what a
    detector is misled into reading there (not an index): the index half covered by the next card, or the
    window slid along the card onto the edge and index of its neighbour. None: an ambiguous draw."""
    n = int(rng.integers(2, 6))
    codes = [CLASSES[int(i)] for i in rng.choice(len(CLASSES), n, replace=False)]
    ink = rng.uniform() < 0.1
    # at 0.6 of the face size, which a table camera's view of a fanned hand never exceeds by much
    faces = [np.asarray(cv2.resize(deck.faces[c], None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA), np.uint8)
             for c in codes]
    s = spread([light_ink(f) if ink else f for f in faces], rng)
    j = int(rng.integers(0, n))
    turned = bool(rng.uniform() < 0.3)
    cover = index_cover(s, j, turned)
    card = s.quads[j]
    own = rng.uniform() < 0.5
    if own:  # the card's own window
        if cover < 0.03:
            label = corner_label(deck, codes[j], turned)
        elif cover > 0.3:
            label = NONE
        else:
            return None
        window = (0.0, 0.0)
    else:  # slid along the card towards (or away from) its neighbours, a little up or down
        window = (rng.uniform(0.25, 2.0) * (1 if rng.uniform() < 0.8 else -1), rng.uniform(-0.35, 0.35))
        label = NONE
    q = card[[2, 3, 0, 1]] if turned else card
    u, v = q[1] - q[0], q[3] - q[0]
    corner = q[0] + window[0] * 0.3 * u + window[1] * 0.34 * v
    fw = float(np.linalg.norm(u))
    for i, other in enumerate(s.quads):  # a window falling on another card's index frames that card: skip
        o = other[[2, 3, 0, 1]] if turned else other
        if i != j and float(np.linalg.norm(o[0] - corner)) < 0.12 * fw:
            return None
    return camera_crop(s.image, rng, turned=turned, window=window, card=card), label


# Indices set in fonts -------------------------------------------------------------------------------------------

_FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
_FONTS = ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSerif-Bold.ttf",
          "DejaVuSerif.ttf", "DejaVuSerifCondensed-Bold.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSansCondensed.ttf")
_SUIT_CHARS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
_RANK_TEXT = {r: r for r in RANKS} | {"T": "10"}


def font_face(card: str, rng: Rng) -> Image | None:
    """A plain card (BGRA) whose only print is a corner index of `card` set in a DejaVu font, or None when
    the fonts (or Pillow, in the `train` extra) are not installed."""
    try:
        from PIL import Image as PILImage
        from PIL import ImageDraw, ImageFont
    except ImportError:
        return None
    fonts = [p for p in (_FONT_DIR / f for f in _FONTS) if p.exists()]
    if not fonts:
        return None
    w, h = FACE_W, round(FACE_W * CARD_ASPECT)
    colours = {"s": (20, 20, 20), "c": (20, 20, 20), "h": (200, 25, 30), "d": (200, 25, 30)}
    if rng.uniform() < 0.25:
        colours |= {"c": (20, 120, 40), "d": (30, 60, 200)}
    colour = tuple(int(max(0, min(255, c + rng.normal(0, 15)))) for c in colours[card[1]])
    paper = tuple(int(v) for v in rng.uniform(225, 255, 3))
    img = PILImage.new("RGB", (w, h), paper)
    draw = ImageDraw.Draw(img)
    size = int(h * rng.uniform(0.07, 0.15))
    font = ImageFont.truetype(str(fonts[int(rng.integers(0, len(fonts)))]), size)
    text = _RANK_TEXT[card[0]]
    x0, y0 = w * rng.uniform(0.03, 0.09), h * rng.uniform(0.02, 0.06)
    box = draw.textbbox((0, 0), text, font=font)
    tw = box[2] - box[0]
    if text == "10" and tw > w * 0.22:
        font = ImageFont.truetype(font.path, int(size * w * 0.22 / tw))
        box = draw.textbbox((0, 0), text, font=font)
        tw = box[2] - box[0]
    draw.text((x0 - box[0], y0 - box[1]), text, fill=colour, font=font)
    suit_size = int(size * rng.uniform(0.7, 1.1))
    sfont = ImageFont.truetype(str(_FONT_DIR / "DejaVuSans.ttf"), suit_size)
    sbox = draw.textbbox((0, 0), _SUIT_CHARS[card[1]], font=sfont)
    sx = x0 + tw / 2 - (sbox[2] - sbox[0]) / 2
    sy = y0 + (box[3] - box[1]) + h * rng.uniform(0.005, 0.025)
    draw.text((sx - sbox[0], sy - sbox[1]), _SUIT_CHARS[card[1]], fill=colour, font=sfont)
    # Something in the middle of the card: a big pip.
    big = ImageFont.truetype(str(_FONT_DIR / "DejaVuSans.ttf"), int(h * 0.3))
    draw.text((w * 0.35, h * 0.32), _SUIT_CHARS[card[1]], fill=colour, font=big)
    rgb = np.asarray(img, np.uint8)[:, :, ::-1]
    half = rgb.copy()
    out = np.ascontiguousarray(rgb)
    out[h // 2:] = cv2.rotate(half, cv2.ROTATE_180)[h // 2:]
    from hardware_sim.camera.art import card_body_mask

    mask = cv2.resize(card_body_mask(), (w, h), interpolation=cv2.INTER_NEAREST)
    return np.asarray(np.dstack([out, mask]), np.uint8)


# Real corner indices boxed in photographs -----------------------------------------------------------------------

LABEL_ERRATA = Path(__file__).with_name("label_errata.csv")


def label_errata(path: Path = LABEL_ERRATA) -> dict[tuple[str, str], str]:
    """Cards of the labelled photographs checked by eye to be labelled wrong, both index boxes of each (a data file:
    `filename, labelled, actual`): (photograph, card labelled) -> the card it is."""
    with path.open(encoding="utf-8") as f:
        return {(r["filename"], r["labelled"]): r["actual"] for r in csv.DictReader(f)}


@dataclass(frozen=True)
class IndexBox:
    image: Path
    card: str
    box: tuple[float, float, float, float]
    angle: float  # degrees the index is turned from upright (counter-clockwise turns it upright)


def index_boxes(labels_csv: Path, *, keep: Callable[[dict[str, str]], bool]) -> list[IndexBox]:
    """Upright-able index boxes of the rows `keep` accepts (their cards as `label_errata` corrects them): each card's
    pair of boxes in an image gives both their turns (the index of an upright card lies up-left of its twin); a lone
    box only when it is a tight crop of one index (box_kind "crop")."""
    rows = [r for r in csv.DictReader(labels_csv.open(encoding="utf-8")) if keep(r)]
    fixed = label_errata()
    by_card: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in rows:
        card = fixed.get((r["filename"], r["card"]), r["card"])
        if r.get("suspect") == "1" or card not in CLASSES:
            continue
        by_card.setdefault((r["filename"], card), []).append(r)
    folder = labels_csv.parent / "images"
    out = []
    for (name, card), group in by_card.items():
        boxes = [(float(r["xmin"]), float(r["ymin"]), float(r["xmax"]), float(r["ymax"])) for r in group]
        if len(group) == 1 and group[0].get("box_kind") == "crop":
            out.append(IndexBox(folder / name, card, boxes[0], 0.0))
        elif len(group) == 2:
            (a, b) = boxes
            ca = ((a[0] + a[2]) / 2, (a[1] + a[3]) / 2)
            cb = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
            turn = math.degrees(math.atan2(cb[1] - ca[1], cb[0] - ca[0])) - math.degrees(math.atan2(CARD_ASPECT, 1))
            out.append(IndexBox(folder / name, card, a, turn))
            out.append(IndexBox(folder / name, card, b, turn + 180.0))
    return out


class PhotoCache:
    def __init__(self) -> None:
        self._images: dict[Path, Image] = {}

    def get(self, path: Path) -> Image:
        if path not in self._images:
            img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
            if img is None:
                raise FileNotFoundError(path)
            self._images[path] = np.asarray(img, np.uint8)
        return self._images[path]


def photo_crop(photos: PhotoCache, ib: IndexBox, rng: Rng) -> Image:
    """The index window around a boxed index, turned upright, framed as at table time (the index up-left,
    open paper right of and below it), with small jitter."""
    img = photos.get(ib.image)
    x0, y0, x1, y1 = ib.box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    bw, bh = x1 - x0, y1 - y0
    t = math.radians(ib.angle)
    # the box is axis-aligned around a turned index: its upright size, roughly
    c, s = abs(math.cos(t)), abs(math.sin(t))
    denom = max(c * c - s * s, 0.35)
    iw = max((bw * c - bh * s) / denom, 0.45 * max(bw, bh)) if denom > 0.35 else 0.6 * min(bw, bh)
    ih = max((bh * c - bw * s) / denom, 0.7 * max(bw, bh)) if denom > 0.35 else 0.95 * max(bw, bh)
    # the window: the index occupies its top-left, as on a card
    win_w = iw * rng.uniform(1.35, 2.1)
    win_h = win_w * (CROP_H / CROP_W) * rng.uniform(0.9, 1.15)
    left = iw * rng.uniform(0.08, 0.45)
    top = ih * rng.uniform(0.05, 0.3)
    # window corner in the index's upright frame, relative to the index centre
    ox, oy = -iw / 2 - left, -ih / 2 - top
    u = np.array([math.cos(t), math.sin(t)], np.float32)  # upright x axis in the image
    v = np.array([-math.sin(t), math.cos(t)], np.float32)  # upright y axis in the image
    origin = np.array([cx, cy], np.float32) + ox * u + oy * v
    quad = np.array([origin, origin + u * win_w, origin + u * win_w + v * win_h, origin + v * win_h], np.float32)
    # corner_crops_at frames CORNER_W x CORNER_H of the quad: give it the card that has this window
    card = quad.copy()
    card[1] = quad[0] + (quad[1] - quad[0]) / 0.30
    card[3] = quad[0] + (quad[3] - quad[0]) / 0.34
    card[2] = card[1] + card[3] - card[0]
    crop = corner_crops_at(img, [card])[0]
    if rng.uniform() < 0.5:
        f = cv2.GaussianBlur(crop.astype(np.float32), (0, 0), rng.uniform(0.3, 1.0))
        f = f * rng.uniform(0.7, 1.2) + rng.normal(0, rng.uniform(0, 6), f.shape)
        crop = np.clip(f, 0, 255).astype(np.uint8)
    return crop


# The mix -----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sources:
    decks: list[Deck]
    photo_boxes: list[IndexBox]
    back_boxes: list[IndexBox]
    fonts: bool = True
    scene_windows: list[SceneWindow] = field(default_factory=list)


@dataclass(frozen=True)
class SceneWindow:
    """A card quad whose index window (its first corner's) holds no labelled index of the photograph."""

    image: Path
    quad: FloatArray


def scene_windows(labels_csv: Path, *, keep: Callable[[dict[str, str]], bool],
                  propose: Callable[[Image], list[FloatArray]]) -> list[SceneWindow]:
    """The card quads `propose` gives for each kept photograph whose index window is clear of every card's index
    box labelled in it (grown by half its size: half an index is no index either, but a tight miss may be one); a
    back's or a joker's box is no index."""
    by_image: dict[str, list[tuple[float, float, float, float]]] = {}
    fixed = label_errata()
    for r in csv.DictReader(labels_csv.open(encoding="utf-8")):
        if not keep(r):
            continue
        boxes = by_image.setdefault(r["filename"], [])
        if fixed.get((r["filename"], r["card"]), r["card"]) in CLASSES:
            boxes.append((float(r["xmin"]), float(r["ymin"]), float(r["xmax"]), float(r["ymax"])))
    folder = labels_csv.parent / "images"
    out = []
    for name, boxes in sorted(by_image.items()):
        img = cv2.imread(str(folder / name))
        if img is None:
            continue
        for quad in propose(np.asarray(img, np.uint8)):
            w = quad[0] + (quad[1] - quad[0]) * CORNER_W
            h = quad[0] + (quad[3] - quad[0]) * CORNER_H
            window = np.array([quad[0], w, w + h - quad[0], h], np.float32)
            centre = window.mean(axis=0)
            grown = (centre + 1.5 * (window - centre)).reshape(-1, 1, 2)
            if not any(cv2.pointPolygonTest(grown, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), False) >= 0 or
                       (b[0] <= centre[0] <= b[2] and b[1] <= centre[1] <= b[3]) for b in boxes):
                out.append(SceneWindow(folder / name, quad))
    return out


def samples(src: Sources, n: int, seed: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64],
                                                       npt.NDArray[np.int16]]:
    """`n` crops, their labels and the deck design each was made from (an index of `src.decks`; -1: a font or
    a photograph), reproducible from `seed`. The first n of a larger set are the set of n."""
    rng = np.random.default_rng(seed)
    photos = PhotoCache()
    xs = np.empty((n, CROP_H, CROP_W), np.uint8)
    ys = np.empty(n, np.int64)
    ds = np.empty(n, np.int16)
    for i, (crop, label, deck) in enumerate(_stream(src, rng, photos)):
        if i >= n:
            break
        xs[i], ys[i], ds[i] = crop, label, deck
    return xs, ys, ds


# Shares of the mix (cumulative): deck faces, fonts, real photographs, fans and piles; the rest are negatives.
_MIX = (0.30, 0.38, 0.62, 0.76)


def _stream(src: Sources, rng: Rng, photos: PhotoCache) -> Iterator[tuple[Image, int, int]]:
    weights = np.array([deck.weight for deck in src.decks])
    weights /= weights.sum()
    while True:
        r = rng.uniform()
        card = CLASSES[int(rng.integers(0, len(CLASSES)))]
        label = CLASSES.index(card)
        d = int(rng.choice(len(src.decks), p=weights))
        deck = src.decks[d]
        if r < _MIX[0]:
            face = light_ink(deck.faces[card]) if rng.uniform() < 0.1 else deck.faces[card]
            turned = bool(rng.uniform() < 0.5)
            label = corner_label(deck, card, turned)
            # a third framed as a window found by its glyphs is (how a card is read when no outline closes
            # round it), where its corner holds an index
            framed = index_crop(face, rng, turned=turned) if label != NONE and rng.uniform() < 1 / 3 else None
            yield (camera_crop(face, rng, turned=turned) if framed is None else framed), label, d
        elif r < _MIX[1] and src.fonts:
            set_in_font = font_face(card, rng)
            if set_in_font is not None:
                yield camera_crop(set_in_font, rng, turned=bool(rng.uniform() < 0.5)), label, -1
        elif r < _MIX[2] and src.photo_boxes:
            ib = src.photo_boxes[int(rng.integers(0, len(src.photo_boxes)))]
            yield photo_crop(photos, ib, rng), CLASSES.index(ib.card), -1
        elif r < _MIX[3]:
            drawn = spread_crop(deck, rng)
            if drawn is not None:
                yield drawn[0], drawn[1], d
        else:
            yield _negative(src, deck, photos, rng)


def _negative(src: Sources, deck: Deck, photos: PhotoCache, rng: Rng) -> tuple[Image, int, int]:
    """Not an index, and the deck design it was made from (-1: none)."""
    d = src.decks.index(deck)
    kind = rng.uniform()
    face = deck.faces[CLASSES[int(rng.integers(0, len(CLASSES)))]]
    if kind >= 0.6 and src.scene_windows:  # what the pipeline reads in a photo away from any index
        sw = src.scene_windows[int(rng.integers(0, len(src.scene_windows)))]
        quad = sw.quad + rng.normal(0, 0.02 * float(np.linalg.norm(sw.quad[1] - sw.quad[0])), (4, 2))
        return corner_crops_at(photos.get(sw.image), [quad.astype(np.float32)])[0], NONE, -1
    kind /= 0.6 if src.scene_windows else 1.0
    if kind < 0.1 and deck.jokers:  # a joker's corner, framed as a card's is at table time
        joker = deck.jokers[int(rng.integers(0, len(deck.jokers)))]
        return camera_crop(joker, rng, turned=bool(rng.uniform() < 0.5)), NONE, d
    if kind < 0.3 and deck.backs:
        back = deck.backs[int(rng.integers(0, len(deck.backs)))]
        if rng.uniform() < 0.5:
            return inner_window(back, rng, (0.0, 0.0, 1.0, 1.0)), NONE, d
        return camera_crop(back, rng, turned=bool(rng.uniform() < 0.5),
                           window=(rng.uniform(0, 2.3), rng.uniform(0, 2.0))), NONE, d
    if kind < 0.4 and src.back_boxes:
        ib = src.back_boxes[int(rng.integers(0, len(src.back_boxes)))]
        img = photos.get(ib.image)
        x0, y0, x1, y1 = (int(v) for v in ib.box)
        patch = img[y0:y1, x0:x1]
        if patch.size > 400:
            ph, pw = patch.shape
            cw = int(pw * rng.uniform(0.2, 0.5))
            chh = min(ph, int(cw * CROP_H / CROP_W))
            px, py = int(rng.integers(0, max(1, pw - cw))), int(rng.integers(0, max(1, ph - chh)))
            return np.asarray(cv2.resize(patch[py:py + chh, px:px + cw], (CROP_W, CROP_H)), np.uint8), NONE, -1
    if kind < 0.75:  # a window away from the index: pips, the picture, the other corners
        if rng.uniform() < 1 / 3:
            return inner_window(face, rng, (INDEX_BOX[0], INDEX_BOX[1], 1 - INDEX_BOX[0], 1 - INDEX_BOX[1])), NONE, d
        sx, sy = rng.uniform(0.6, 2.4), rng.uniform(0.0, 2.0)
        if rng.uniform() < 0.5:
            sx, sy = rng.uniform(0.0, 2.4), rng.uniform(0.8, 2.0)
        return camera_crop(face, rng, turned=bool(rng.uniform() < 0.5), window=(sx, sy)), NONE, d
    if kind < 0.85:  # half an index: the window shifted half off it
        sx, sy = rng.choice([-0.55, 0.55]) * rng.uniform(0.9, 1.3), rng.uniform(-0.3, 0.3)
        if rng.uniform() < 0.5:
            sx, sy = rng.uniform(-0.2, 0.2), rng.choice([-0.5, 0.5]) * rng.uniform(0.9, 1.3)
        return camera_crop(face, rng, turned=bool(rng.uniform() < 0.5), window=(sx, sy)), NONE, d
    table = _degrade(surface(rng, CROP_W * 2, CROP_H * 2), rng)
    return np.asarray(cv2.resize(gray(table), (CROP_W, CROP_H), interpolation=cv2.INTER_AREA), np.uint8), NONE, -1
