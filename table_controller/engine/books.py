"""The rule books by name: the one mapping from a book's source code to the citation a person reads.

The engine and the records cite a book by its short source code ("000", "001", "003": the number of its file
in the rule-book folder), which keeps records compact and stable. A screen names the book by its title
instead, with the section after it: :func:`cite` rewrites every code in a rule text, so
"003 Incorrect dealing in the draw 1; 000; 001 IV 5a" reads
"Draw Poker Rules Info · Incorrect dealing in the draw 1; Draw Poker Rules; Rules for Draw Poker · IV 5a".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["BOOKS", "Book", "cite"]


@dataclass(frozen=True, kw_only=True)
class Book:
    code: str
    title: str  # the title the book carries on its first page
    covers: str  # what a reader finds in it, for docs and tooltips


BOOKS: dict[str, Book] = {
    "000": Book(code="000", title="Draw Poker Rules",
                covers="final betting and showdown, proving openers, irregularities, false openers"),
    "001": Book(code="001", title="Rules for Draw Poker",
                covers="the casino procedure of five-card draw; section IV, special draw rules"),
    "003": Book(code="003", title="Draw Poker Rules Info",
                covers="the forms of Draw Poker, the draw, incorrect dealing in the draw, false openers"),
}

# A code stands alone (not inside a longer number) and is followed by a section, punctuation or the end.
_CODE = re.compile(r"(?<![\w.])(" + "|".join(BOOKS) + r")(?![\w.])( (?=[A-Za-z0-9]))?")


def cite(text: str) -> str:
    """``text`` with each book's code replaced by its title ("000 Foul hand" -> "Draw Poker Rules · Foul hand")."""
    if not text:
        return text
    return _CODE.sub(lambda m: BOOKS[m.group(1)].title + (" · " if m.group(2) else ""), text)
