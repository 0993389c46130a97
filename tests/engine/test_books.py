"""The one mapping from a rule book's source code to the title a person reads."""

from __future__ import annotations

import re

from table_controller.controller.hand import IRREGULARITIES
from table_controller.engine.books import BOOKS, cite


def test_codes_become_titles_with_their_sections() -> None:
    assert cite("003 Incorrect dealing in the draw 1; 000; 001 IV 5a") == (
        "Draw Poker Rules Info · Incorrect dealing in the draw 1; Draw Poker Rules; Rules for Draw Poker · IV 5a")
    assert cite("(misdeal, 000)") == "(misdeal, Draw Poker Rules)"
    assert cite("003 Jackpots / 000 Proving openers") == (
        "Draw Poker Rules Info · Jackpots / Draw Poker Rules · Proving openers")


def test_numbers_that_are_not_codes_stay() -> None:
    for text in ("Seat 3 bets 1000", "pot of 3000", "a0001", "2.000", ""):
        assert cite(text) == text


def test_every_irregularity_button_names_its_books_by_title() -> None:
    for irr in IRREGULARITIES.values():
        cited = cite(irr.rule)
        assert not re.search(r"\b00[013]\b", cited), cited
        if re.search(r"\b00[013]\b", irr.rule):
            assert any(book.title in cited for book in BOOKS.values())
