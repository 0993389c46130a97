"""Cards: codes, numbering and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.engine.cards import (
    FULL_DECK,
    RANKS,
    SUITS,
    UNKNOWN_CODE,
    CardCodeError,
    card_str,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)


@pytest.mark.parametrize(
    ("code", "number", "rank", "suit"),
    [
        ("2c", 0, 0, 0),
        ("2d", 1, 0, 1),
        ("2h", 2, 0, 2),
        ("2s", 3, 0, 3),
        ("Td", 33, 8, 1),
        ("Jc", 36, 9, 0),
        ("Kh", 46, 11, 2),
        ("Ac", 48, 12, 0),
        ("As", 51, 12, 3),
    ],
)
def test_known_codes(code: str, number: int, rank: int, suit: int) -> None:
    card = parse_card(code)
    assert card == number
    assert rank_of(card) == rank
    assert suit_of(card) == suit
    assert card_str(card) == code
    assert make_card(rank, suit) == card


@pytest.mark.parametrize(
    "code",
    ["", "A", "as", "AS", "10h", "1s", "Ax", " As", "As ", "Ass", UNKNOWN_CODE, "sA", "T", "0c"],
)
def test_bad_codes_are_rejected_with_a_clear_error(code: str) -> None:
    with pytest.raises(CardCodeError, match="bad card code"):
        parse_card(code)


def test_card_code_error_is_a_value_error() -> None:
    assert issubclass(CardCodeError, ValueError)


def test_non_string_code_is_rejected() -> None:
    with pytest.raises(CardCodeError):
        parse_card(51)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 52, 1000, True, 3.0, "As", None])
def test_card_str_rejects_non_cards(bad: int) -> None:
    with pytest.raises(CardCodeError, match="not a card"):
        card_str(bad)


def test_card_str_accepts_numpy_integers() -> None:
    assert card_str(np.uint8(51)) == "As"  # type: ignore[arg-type]
    assert card_str(np.int64(0)) == "2c"  # type: ignore[arg-type]


@pytest.mark.parametrize(("rank", "suit"), [(-1, 0), (13, 0), (0, 4), (0, -1)])
def test_make_card_rejects_out_of_range(rank: int, suit: int) -> None:
    with pytest.raises(CardCodeError):
        make_card(rank, suit)


def test_full_deck_is_52_distinct_cards_in_order() -> None:
    assert list(FULL_DECK) == list(range(52))
    codes = {card_str(c) for c in FULL_DECK}
    assert len(codes) == 52
    assert codes == {r + s for r in RANKS for s in SUITS}


def test_higher_suit_breaks_ties_for_first_deal() -> None:
    # Spades > hearts > diamonds > clubs within one rank, and rank dominates suit.
    assert parse_card("As") > parse_card("Ah") > parse_card("Ad") > parse_card("Ac") > parse_card("Ks")


def test_parse_cards_accepts_string_and_iterable() -> None:
    assert parse_cards("As Kd  2c") == (51, 45, 0)
    assert parse_cards(["As", "Kd", "2c"]) == (51, 45, 0)
    assert parse_cards("") == ()
    with pytest.raises(CardCodeError):
        parse_cards("As 10d")


@given(st.integers(min_value=0, max_value=51))
def test_round_trip(card: int) -> None:
    assert parse_card(card_str(card)) == card
    assert make_card(rank_of(card), suit_of(card)) == card
