"""Card faces and backs for the simulated camera: drawn procedurally, or taken from a face set on disk
(one PNG per card, named as `load_face_set` expects), laid on a white card body."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from hardware_sim.camera.glyphs import RANK_FONTS, draw_rank, draw_suit
from vision.cards import RANKS, RED_SUITS, SUITS

Image = npt.NDArray[np.uint8]

ART_W = 252
ART_H = 352
PAPER = (246, 248, 250)
RED = (40, 30, 205)
BLACK = (25, 25, 25)

# Pip positions (x, y as fractions of the card) of the number cards.
_L, _M, _R = 0.3, 0.5, 0.7
_FOUR = [(_L, 0.2), (_R, 0.2), (_L, 0.8), (_R, 0.8)]
_SIDES = [(_L, 0.4), (_R, 0.4), (_L, 0.6), (_R, 0.6)]
PIPS: dict[str, list[tuple[float, float]]] = {
    "2": [(_M, 0.2), (_M, 0.8)],
    "3": [(_M, 0.2), (_M, 0.5), (_M, 0.8)],
    "4": _FOUR,
    "5": [*_FOUR, (_M, 0.5)],
    "6": [*_FOUR, (_L, 0.5), (_R, 0.5)],
    "7": [*_FOUR, (_L, 0.5), (_R, 0.5), (_M, 0.35)],
    "8": [*_FOUR, (_L, 0.5), (_R, 0.5), (_M, 0.35), (_M, 0.65)],
    "9": [*_FOUR, *_SIDES, (_M, 0.5)],
    "T": [*_FOUR, *_SIDES, (_M, 0.3), (_M, 0.7)],
}


def card_body_mask(width: int = ART_W, height: int = ART_H) -> Image:
    """A card's outline with rounded corners (255 inside)."""
    mask = np.zeros((height, width), np.uint8)
    r = round(width * 0.055)
    cv2.rectangle(mask, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in ((r, r), (width - 1 - r, r), (r, height - 1 - r), (width - 1 - r, height - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def draw_face(card: str, font: int = cv2.FONT_HERSHEY_DUPLEX) -> Image:
    """A procedurally drawn standard face: corner indices at top-left and bottom-right, pips or a picture."""
    rank, suit = card[0], card[1]
    color = RED if suit in RED_SUITS else BLACK
    img = np.full((ART_H, ART_W, 3), PAPER, np.uint8)
    half = np.full((ART_H, ART_W, 3), PAPER, np.uint8)
    # Index drawn once, then copied turned 180 degrees into the opposite corner.
    draw_rank(half, rank, ART_W * 0.1, ART_H * 0.035, ART_H * 0.1, color=color, font=font)
    draw_suit(half, suit, (ART_W * 0.1, ART_H * 0.19), ART_H * 0.07, color)
    iw, ih = round(ART_W * 0.2), round(ART_H * 0.3)
    img[:ih, :iw] = half[:ih, :iw]
    img[ART_H - ih:, ART_W - iw:] = cv2.rotate(half[:ih, :iw], cv2.ROTATE_180)
    if rank in PIPS:
        for px, py in PIPS[rank]:
            draw_suit(img, suit, (ART_W * px, ART_H * py), ART_H * 0.11, color, upside_down=py > 0.5)
    elif rank == "A":
        draw_suit(img, suit, (ART_W * 0.5, ART_H * 0.5), ART_H * 0.3, color)
    else:
        x0, y0, x1, y1 = round(ART_W * 0.22), round(ART_H * 0.15), round(ART_W * 0.78), round(ART_H * 0.85)
        cv2.rectangle(img, (x0, y0), (x1, y1), (60, 170, 220), -1)
        cv2.rectangle(img, (x0, y0), (x1, y1), color, 2)
        for k in range(6):
            cv2.line(img, (x0, y0 + k * 40), (x1, y0 + k * 40 + 30), (150, 90, 40), 3)
        draw_rank(img, rank, ART_W * 0.5, ART_H * 0.3, ART_H * 0.22, color=color, font=font)
        draw_suit(img, suit, (ART_W * 0.5, ART_H * 0.68), ART_H * 0.14, color)
    return img


def draw_back(color: tuple[int, int, int] = (140, 40, 30)) -> Image:
    """A back: white border, a coloured field with a lattice of lighter lines (the lattice is connected)."""
    img = np.full((ART_H, ART_W, 3), PAPER, np.uint8)
    b = round(ART_W * 0.06)
    cv2.rectangle(img, (b, b), (ART_W - 1 - b, ART_H - 1 - b), color, -1)
    light = tuple(min(255, c + 90) for c in color)
    for k in range(-ART_H, ART_W + ART_H, 14):
        cv2.line(img, (k, b), (k + ART_H, b + ART_H), light, 2, cv2.LINE_AA)
        cv2.line(img, (k, b), (k - ART_H, b + ART_H), light, 2, cv2.LINE_AA)
    img[:b] = PAPER
    img[-b:] = PAPER
    img[:, :b] = PAPER
    img[:, -b:] = PAPER
    return img


@dataclass(frozen=True)
class FaceSet:
    """Where a scene's card faces and back come from."""

    faces: dict[str, Image]
    back: Image
    name: str

    def face(self, card: str) -> Image:
        return self.faces[card]

    def black(self) -> FaceSet:
        """The same faces printed as a black deck: the paper near black, the ink gold."""

        def one(face: Image) -> Image:
            paper = face.astype(np.float32).mean(axis=2, keepdims=True) / 255
            out = np.array([28, 26, 24], np.float32) * paper + np.array([80, 190, 230], np.float32) * (1 - paper)
            return np.asarray(np.clip(out, 0, 255), np.uint8)

        return FaceSet({k: one(v) for k, v in self.faces.items()}, self.back, self.name + "-black")


_CACHE: dict[tuple[str, int], FaceSet] = {}
_BACK_COLORS = ((140, 40, 30), (35, 35, 160), (50, 110, 40))


def procedural_faces(style: int = 0) -> FaceSet:
    """A deck drawn here; `style` picks the index font and back colour."""
    key = ("procedural", style)
    if key not in _CACHE:
        font = RANK_FONTS[style % len(RANK_FONTS)]
        faces = {r + s: draw_face(r + s, font) for r in RANKS for s in SUITS}
        _CACHE[key] = FaceSet(faces, draw_back(_BACK_COLORS[style % len(_BACK_COLORS)]), f"procedural-{style}")
    return _CACHE[key]


_RANK_WORDS = {"2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9", "T": "10",
               "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
_SUIT_WORDS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}


def load_face_set(folder: str | Path) -> FaceSet:
    """A face set stored as `<rank>_of_<suit>.png` (rank 2..10, jack, queen, king, ace) or `<rank><suit>.png`
    (rank in 23456789TJQKA, suit in cdhs), plus `back.png`.

    Each image is the whole card as the design prints it (its own margin and border included), so it is
    printed edge to edge on the card body; transparent pixels (its rounded corners) become the white paper.
    """
    root = Path(folder)
    key = (str(root.resolve()), -1)
    if key in _CACHE:
        return _CACHE[key]
    faces: dict[str, Image] = {}
    for r in RANKS:
        for s in SUITS:
            path = root / f"{_RANK_WORDS[r]}_of_{_SUIT_WORDS[s]}.png"
            if not path.exists():
                path = root / f"{r}{s}.png"
            faces[r + s] = _lay_on_paper(_read_rgba(path))
    back_path = root / "back.png"
    back = _lay_on_paper(_read_rgba(back_path)) if back_path.exists() else draw_back()
    _CACHE[key] = FaceSet(faces, back, root.name)
    return _CACHE[key]


def _read_rgba(path: Path) -> Image:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FileNotFoundError(f"cannot read face image {path}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    if img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return np.asarray(img, dtype=np.uint8)


def _lay_on_paper(rgba: Image) -> Image:
    """`rgba` stretched over the whole card body, on white paper where it is transparent."""
    art = cv2.resize(rgba, (ART_W, ART_H), interpolation=cv2.INTER_AREA)
    alpha = art[:, :, 3:4].astype(np.float32) / 255.0
    return (art[:, :, :3].astype(np.float32) * alpha + np.array(PAPER, np.float32) * (1 - alpha)).astype(np.uint8)
