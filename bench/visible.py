"""Which labelled cards of the real photographs' held-out quarter are fully visible, judged by eye.

Issue 6 sets its real-photograph goal for fully visible face-up cards, and the data set's labels do not say
which cards those are. `bench.vision.standing_alone` computes a proxy from the boxes alone; it leaves out a
card lying whole on top of another (their boxes overlap) and keeps a card half under a book (a book has no
box). So every labelled card of the held-out quarter (136 cards, 77 photographs) was also looked at, once,
before any reading of it was seen, and judged by one rule: a card is fully visible when all four of its
corners and sides lie inside the photograph and nothing (another card, a hand, a book, a cord) lies over
any part of it; shade and glare do not hide a card; a card lying on another is fully visible; in doubt (a
blurred pile), it is. The 35 cards judged not fully visible are listed below, each with what hides it; the
other 101 are fully visible. (76 of them stand alone; 9 cards standing alone are hidden, 25 fully visible
cards do not stand alone.)

The list names cards by photograph and labelled box, as `bench.vision.LABEL_ERRATA` does: an entry that no
longer names exactly one labelled card (the labels changed) stops the bench with `HiddenCardError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Box = tuple[float, float, float, float]


class HiddenCardError(ValueError):
    """An entry of `HIDDEN` that names no labelled card, or several: the labels changed."""


@dataclass(frozen=True, kw_only=True)
class HiddenCard:
    """A labelled card that is not fully visible, and what hides it."""

    filename: str
    box: Box
    why: str


def _hidden(filename: str, box: Box, why: str) -> HiddenCard:
    return HiddenCard(filename=filename, box=box, why=why)


HIDDEN: tuple[HiddenCard, ...] = (
    _hidden("IMG_2450.JPG", (109.0, 286.0, 231.0, 417.0), "a black cord lies across its upper part"),
    _hidden("IMG_2471.JPG", (99.0, 183.0, 254.0, 392.0), "a black metal frame lies over its right side"),
    _hidden("IMG_2472.JPG", (97.0, 183.0, 248.0, 391.0), "a black metal frame lies over its right side"),
    _hidden("IMG_2505.JPG", (151.0, 183.0, 267.0, 365.0), "a book covers its left side"),
    _hidden("IMG_2520.JPG", (144.0, 194.0, 292.0, 435.0), "a book covers its left side"),
    _hidden("IMG_2538.JPG", (146.0, 171.0, 304.0, 331.0), "a newspaper covers its upper end"),
    _hidden("IMG_2556.JPG", (74.0, 195.0, 201.0, 386.0), "a book covers its right side"),
    _hidden("IMG_2577.JPG", (1.0, 65.0, 105.0, 196.0), "cut by the photo's left edge"),
    _hidden("IMG_2586.JPG", (114.0, 42.0, 212.0, 101.0), "under the game box"),
    _hidden("IMG_2586.JPG", (50.0, 139.0, 120.0, 211.0), "under the game box's edge"),
    _hidden("IMG_2603.JPG", (114.0, 202.0, 217.0, 406.0), "under the king"),
    _hidden("IMG_2603.JPG", (19.0, 212.0, 130.0, 411.0), "under the ten"),
    _hidden("IMG_2612.JPG", (293.0, 190.0, 378.0, 299.0), "cut by the photo's right edge"),
    _hidden("IMG_2616.JPG", (126.0, 55.0, 171.0, 205.0), "under the queen"),
    _hidden("IMG_2616.JPG", (139.0, 294.0, 181.0, 436.0), "under the ten"),
    _hidden("IMG_2617.JPG", (224.0, 122.0, 300.0, 348.0), "under the nine"),
    _hidden("IMG_2623.JPG", (215.0, 18.0, 310.0, 262.0), "under the ace"),
    _hidden("IMG_2626.JPG", (160.0, 75.0, 260.0, 254.0), "under the king"),
    _hidden("IMG_2626.JPG", (247.0, 51.0, 360.0, 254.0), "under the ace"),
    _hidden("IMG_2628.JPG", (203.0, 100.0, 365.0, 349.0), "under the queen"),
    _hidden("IMG_2635.JPG", (153.0, 54.0, 273.0, 260.0), "under the queen"),
    _hidden("IMG_2635.JPG", (260.0, 36.0, 343.0, 244.0), "under the king"),
    _hidden("IMG_2637.JPG", (1.0, 178.0, 161.0, 410.0), "cut by the photo's left edge"),
    _hidden("IMG_2648.JPG", (247.0, 197.0, 323.0, 407.0), "under the ten"),
    _hidden("IMG_2648.JPG", (180.0, 194.0, 249.0, 415.0), "under the ace"),
    _hidden("IMG_2657.JPG", (40.0, 296.0, 105.0, 454.0), "under the next card"),
    _hidden("IMG_2657.JPG", (100.0, 281.0, 167.0, 433.0), "under the ten"),
    _hidden("IMG_2660.JPG", (121.0, 119.0, 236.0, 322.0), "under the ten"),
    _hidden("IMG_2665.JPG", (39.0, 172.0, 192.0, 401.0), "under the ten"),
    _hidden("IMG_2666.JPG", (57.0, 255.0, 206.0, 454.0), "under the ace"),
    _hidden("IMG_2669.JPG", (114.0, 218.0, 228.0, 413.0), "under the jack of spades"),
    _hidden("IMG_2669.JPG", (20.0, 220.0, 126.0, 414.0), "under the jack of diamonds"),
    _hidden("IMG_2681.JPG", (29.0, 262.0, 108.0, 459.0), "under the ten"),
    _hidden("IMG_2682.JPG", (33.0, 137.0, 174.0, 408.0), "under the ace of spades"),
    _hidden("IMG_2684.JPG", (55.0, 223.0, 139.0, 430.0), "under the ace"),
)


def hidden_cards(filename: str, boxes: Sequence[Box], hidden: Sequence[HiddenCard] = HIDDEN) -> frozenset[int]:
    """The indices, among a held-out photograph's labelled `boxes`, of the cards judged not fully visible."""
    out: set[int] = set()
    for card in hidden:
        if card.filename != filename:
            continue
        at = [i for i, box in enumerate(boxes) if tuple(box) == card.box]
        if len(at) != 1:
            raise HiddenCardError(f"{filename}: {len(at)} labelled cards at {card.box}, expected exactly one")
        out.add(at[0])
    return frozenset(out)
