"""Card codes: a rank from "23456789TJQKA" then a suit from "cdhs" (e.g. "Qs", "Th")."""

from __future__ import annotations

import re

from vision.errors import VisionInputError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
RED_SUITS = "dh"
ALL_CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)

_FILE_CODE = re.compile(r"^(10|[2-9TJQKAtjqka])([cdhsCDHS])(?![a-zA-Z0-9])")
_FILE_WORDS = re.compile(r"^(10|[2-9]|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king|ace)[_ -]of[_ -]"
                         r"(club|diamond|heart|spade)s?(?![a-zA-Z])", re.IGNORECASE)
# A rank as a word or as printed ("10"), as file names and labels give it.
RANK_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
              "nine": "9", "ten": "T", "10": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}


def is_card(code: str) -> bool:
    return len(code) == 2 and code[0] in RANKS and code[1] in SUITS


def card_from_file_name(name: str) -> str:
    """The card code a calibration image's file name starts with: `Qs.jpg`, `Th_2.png`, `10h-front.png`,
    `queen_of_spades.png`, `10_of_hearts.jpg`."""
    stem = name.replace("\\", "/").rsplit("/", 1)[-1]
    match = _FILE_WORDS.match(stem) or _FILE_CODE.match(stem)
    if match is None:
        raise VisionInputError(f"{name}: file name must start with a card code such as Qs or Th (got {stem!r})")
    rank = match.group(1).lower()
    return RANK_WORDS.get(rank, rank.upper()) + match.group(2)[0].lower()
