"""Openers: book 003's examples as tables, and proofs checked against every possible completion."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.engine.cards import Card, card_str, parse_cards
from table_controller.engine.evaluate import evaluate, evaluate_batch
from table_controller.engine.opening import (
    JACKS_OR_BETTER,
    JACKS_OR_BOBTAIL,
    PROGRESSIVE_SERIES,
    OpeningRequirement,
    OpeningRule,
    is_bobtail,
    is_four_flush,
    is_open_ended_bobtail_straight,
    meets_requirement,
    minimum_value,
    progressive_requirement,
    proof,
)

R = OpeningRequirement


def shown(codes: str, requirement: OpeningRequirement, *, bobtail: bool = False) -> str | None:
    found = proof(parse_cards(codes), requirement, bobtail_allowed=bobtail)
    return None if found is None else " ".join(card_str(c) for c in found)


# --- book 003, "Jacks or bobtail to open" ------------------------------------------------------------

BOBTAIL_STRAIGHTS = [
    ("8c 7d 6h 5s", True),  # "either the nine or the four will make it a straight"
    ("Ac Kd Qh Js", False),  # "only a single card, the ten, will fill it"
    ("9c 8d 6h 5s", False),  # "only a seven will fill it ... an inside straight"
    ("Ac 2d 3h 4s", False),  # only the five fills it: nothing ranks below the ace-low end
    ("5c 4d 3h 2s", True),  # the ace or the six
    ("Kc Qd Jh Ts", True),  # the ace or the nine
    ("8c 7d 6h 5s Kc", True),
    ("8c 7d 6h 6s 5c", True),  # a pair inside does not spoil the four in sequence
    ("9c 8d 7h 6s 5c", True),  # a straight contains a bobtail straight
    ("Ac Kd Qh Js Tc", True),  # K-Q-J-T inside the top straight
    ("Ac 2d 3h 4s 5c", True),  # 5-4-3-2 inside the wheel
    ("Ac Kd Qh Js 3c", False),
    ("Qc Kd Ah 2s 3c", False),  # no going round the corner
    ("8c 7d 6h", False),
]


@pytest.mark.parametrize(("codes", "expected"), BOBTAIL_STRAIGHTS)
def test_open_ended_bobtail_straight(codes: str, expected: bool) -> None:
    assert is_open_ended_bobtail_straight(parse_cards(codes)) is expected


FOUR_FLUSHES = [
    ("2h 7h 9h Kh", True),
    ("2h 7h 9h Kh As", True),
    ("2h 7h 9h Kh Ah", True),  # a flush holds four of a suit
    ("2h 7h 9h Ks As", False),
    ("2h 7h 9h", False),
]


@pytest.mark.parametrize(("codes", "expected"), FOUR_FLUSHES)
def test_four_flush(codes: str, expected: bool) -> None:
    assert is_four_flush(parse_cards(codes)) is expected


@pytest.mark.parametrize(
    ("codes", "expected"),
    [("8c 7d 6h 5s 2c", True), ("2h 7h 9h Kh As", True), ("Ac Kd Qh Js 2c", False), ("9c 8d 6h 5s 2c", False)],
)
def test_bobtail_is_either(codes: str, expected: bool) -> None:
    assert is_bobtail(parse_cards(codes)) is expected


# --- meets_requirement and proof: tables ---------------------------------------------------------------

# (hand, requirement, bobtail allowed, cards shown or None when the hand lacks openers)
OPENERS = [
    # book 003 Jackpots: "a pair of jacks, or a hand that would beat a pair of jacks"
    ("Jc Jd 4c 3c 2c", R.JACKS, False, "Jd Jc"),
    ("Tc Td Ac Kc Qd", R.JACKS, False, None),
    ("Ac Kd Qh 9s 8c", R.JACKS, False, None),
    ("5c 5d 3h 3s 9c", R.JACKS, False, "5d 5c 3s 3h"),  # two small pairs beat jacks: show both
    ("4c 4d 4h 9s 2c", R.JACKS, False, "4h 4d 4c"),
    ("9c 8d 7h 6s 5c", R.JACKS, False, "9c 8d 7h 6s 5c"),  # a straight: all five
    ("5d 4c 3h 2s Ac", R.JACKS, False, "Ac 5d 4c 3h 2s"),
    ("Kh 9h 7h 4h 2h", R.JACKS, False, "Kh 9h 7h 4h 2h"),
    ("Qc Qd Qh 5s 5c", R.JACKS, False, "Qh Qd"),  # a pair of queens already proves jacks or better
    ("3c 3d 3h 3s 5c", R.KINGS, False, "3s 3h 3d"),  # three of the four treys beat kings
    # book 003: "holding J-J-10-9-8 he opened" - the pair is the proof
    ("Jc Jd Th 9s 8c", R.JACKS, False, "Jd Jc"),
    ("Jc Jd Th 9s 8c", R.JACKS, True, "Jd Jc"),
    ("Kc Kd Jh Js 2c", R.JACKS, False, "Kd Kc"),  # the higher pair is shown
    # book 003 Progressive jackpots
    ("Jc Jd 4c 3c 2c", R.QUEENS, False, None),
    ("Qc Qd 4c 3c 2c", R.QUEENS, False, "Qd Qc"),
    ("Qc Qd 4c 3c 2c", R.KINGS, False, None),
    ("Kc Kd 4c 3c 2c", R.KINGS, False, "Kd Kc"),
    ("Kc Kd 4c 3c 2c", R.ACES, False, None),
    ("Ac Ad 4c 3c 2c", R.ACES, False, "Ad Ac"),
    ("Ac Ad 4c 3c 2c", R.TWO_PAIR, False, None),
    ("Ac Ad 3c 3h 2c", R.TWO_PAIR, False, "Ad Ac 3h 3c"),
    ("3c 3d 2h 2s 4c", R.TWO_PAIR, False, "3d 3c 2s 2h"),
    ("7c 7d 7h Ks 2c", R.TWO_PAIR, False, "7h 7d 7c"),
    ("Ac Ad 3c 3h 2c", R.ACES, False, "Ad Ac"),
    # book 003 Jacks or bobtail
    ("8c 7d 6h 5s 2c", R.JACKS, True, "8c 7d 6h 5s"),
    ("8c 7d 6h 5s 2c", R.JACKS, False, None),
    ("Ac Kd Qh Js 2c", R.JACKS, True, None),
    ("9c 8d 6h 5s 2c", R.JACKS, True, None),
    ("2h 7h 9h Kh As", R.JACKS, True, "Kh 9h 7h 2h"),
    ("2h 7h 9h Kh As", R.JACKS, False, None),
    ("9c 8d 7h 6s 5c", R.JACKS, True, "9c 8d 7h 6s"),  # four of the straight prove the bobtail
    ("Tc Td 8h 7s 6c", R.JACKS, True, None),  # tens are not enough and 10-8-7-6 is inside
    ("Tc Td 9h 8s 7c", R.JACKS, True, "Td 9h 8s 7c"),  # one ten of the two will do
    # book 003 Open on anything: nothing to show
    ("7c 5d 4h 3s 2c", R.ANYTHING, False, ""),
    ("7c 5d 4h 3s 2c", R.ANYTHING, True, ""),
    # fewer than five cards: do these cards alone prove openers?
    ("Jc Jd", R.JACKS, False, "Jd Jc"),
    ("Jc Td", R.JACKS, False, None),
    ("8c 7d 6h 5s", R.JACKS, True, "8c 7d 6h 5s"),
    ("9c 8d 7h 6s", R.JACKS, False, None),  # a straight is not proved by four of its cards
    ("", R.JACKS, False, None),
    # book 000 False Openers: more than five cards lack openers, whatever they hold
    ("Jc Jd 4c 3c 2c 7h", R.JACKS, False, None),
    ("Ac Ad Ah As Kc Kd", R.JACKS, True, None),
    ("7c 5d 4h 3s 2c 9h", R.ANYTHING, False, None),
]


@pytest.mark.parametrize(("codes", "requirement", "bobtail", "expected"), OPENERS)
def test_openers_table(codes: str, requirement: OpeningRequirement, bobtail: bool, expected: str | None) -> None:
    assert shown(codes, requirement, bobtail=bobtail) == expected
    assert meets_requirement(parse_cards(codes), requirement, bobtail_allowed=bobtail) is (expected is not None)
    rule = OpeningRule(requirement=requirement, bobtail_allowed=bobtail)
    assert rule.meets(parse_cards(codes)) is (expected is not None)


def test_named_rules() -> None:
    hand = parse_cards("8c 7d 6h 5s 2c")
    assert not JACKS_OR_BETTER.meets(hand)
    assert JACKS_OR_BOBTAIL.meets(hand)
    assert JACKS_OR_BOBTAIL.proof(hand) == parse_cards("8c 7d 6h 5s")


@pytest.mark.parametrize(
    "cards",
    [(0, 0, 1, 2, 3), (0, 1, 2, 3, 52), (-1,), (True, 1, 2, 3, 4), ("Jc", "Jd")],
)
def test_bad_cards_raise(cards: Sequence[int]) -> None:
    with pytest.raises(ValueError, match=r"not a card|duplicate"):
        meets_requirement(cards, R.JACKS, bobtail_allowed=False)
    with pytest.raises(ValueError, match=r"not a card|duplicate"):
        is_bobtail(cards)


def test_progressive_series() -> None:
    # book 003: jacks, then queens, kings, aces; "some run the series all the way up to two pair"
    assert [progressive_requirement(n) for n in range(6)] == [R.JACKS, R.QUEENS, R.KINGS, R.ACES, R.ACES, R.ACES]
    assert [progressive_requirement(n, top=R.TWO_PAIR) for n in range(6)] == [*PROGRESSIVE_SERIES, R.TWO_PAIR]
    assert progressive_requirement(9, top=R.JACKS) is R.JACKS
    with pytest.raises(ValueError, match=">= 0"):
        progressive_requirement(-1)
    with pytest.raises(ValueError, match="not a step"):
        progressive_requirement(0, top=R.ANYTHING)


def test_minimum_values_are_the_weakest_qualifying_hands() -> None:
    assert minimum_value(R.JACKS) == evaluate(parse_cards("Jc Jd 4c 3c 2c"))
    assert minimum_value(R.QUEENS) == evaluate(parse_cards("Qc Qd 4c 3c 2c"))
    assert minimum_value(R.KINGS) == evaluate(parse_cards("Kc Kd 4c 3c 2c"))
    assert minimum_value(R.ACES) == evaluate(parse_cards("Ac Ad 4c 3c 2c"))
    assert minimum_value(R.TWO_PAIR) == evaluate(parse_cards("3c 3d 2c 2d 4h"))
    assert minimum_value(R.ANYTHING) < evaluate(parse_cards("7c 5d 4h 3s 2c"))


# --- proofs against every completion -------------------------------------------------------------------

PAIR_RANK = {R.JACKS: 9, R.QUEENS: 10, R.KINGS: 11, R.ACES: 12}


def oracle(hand: Sequence[int], requirement: OpeningRequirement, bobtail: bool) -> bool:
    """Openers for five cards, straight from book 003's words (independent of the module under test)."""
    if requirement is R.ANYTHING:
        return True
    ranks = Counter(c >> 2 for c in hand)
    suits = Counter(c & 3 for c in hand)
    distinct = set(ranks)
    if bobtail:
        if max(suits.values()) >= 4:
            return True
        for low in range(9):  # 2-3-4-5 up to T-J-Q-K; the ace below the deuce fills 5-4-3-2
            if all(r in distinct for r in range(low, low + 4)):
                return True
    counts = sorted(ranks.values(), reverse=True)
    if counts[0] >= 3 or counts[:2] == [2, 2]:
        return True
    straight = len(distinct) == 5 and (max(distinct) - min(distinct) == 4 or distinct == {12, 0, 1, 2, 3})
    if straight or max(suits.values()) == 5:
        return True
    if requirement is R.TWO_PAIR:
        return False
    return any(n == 2 and r >= PAIR_RANK[requirement] for r, n in ranks.items())


def completions(subset: Sequence[int]) -> np.ndarray:
    """Every five-card hand containing ``subset``, as an (N, 5) array."""
    rest = [c for c in range(52) if c not in subset]
    missing = 5 - len(subset)
    if missing == 0:
        return np.array([subset], dtype=np.uint8)
    extra = np.array(list(combinations(rest, missing)), dtype=np.uint8).reshape(-1, missing)
    fixed = np.broadcast_to(np.array(subset, dtype=np.uint8), (len(extra), len(subset)))
    return np.hstack([fixed, extra])


def all_completions_meet(subset: Sequence[int], requirement: OpeningRequirement, bobtail: bool) -> bool:
    hands = completions(subset)
    # Without bobtails, openers are a threshold on the hand's value: check every completion at once.
    threshold = evaluate(parse_cards(oracle_weakest[requirement]))
    short = hands[evaluate_batch(hands) < threshold]
    if not bobtail:
        return len(short) == 0
    # A bobtail can only add openers: ask the book's words about the hands short of the threshold.
    return all(oracle(h, requirement, bobtail) for h in short.tolist())


oracle_weakest = {
    R.JACKS: "Jc Jd 4c 3c 2c",
    R.QUEENS: "Qc Qd 4c 3c 2c",
    R.KINGS: "Kc Kd 4c 3c 2c",
    R.ACES: "Ac Ad 4c 3c 2c",
    R.TWO_PAIR: "3c 3d 2c 2d 4h",
}


def qualifying_hands(count: int, bobtail: bool) -> list[tuple[tuple[Card, ...], OpeningRequirement]]:
    rng = random.Random(3003 + bobtail)
    found: list[tuple[tuple[Card, ...], OpeningRequirement]] = []
    while len(found) < count:
        hand = tuple(Card(c) for c in rng.sample(range(52), 5))
        requirement = rng.choice(PROGRESSIVE_SERIES)
        if oracle(hand, requirement, bobtail):
            found.append((hand, requirement))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("bobtail", [False, True])
def test_proof_is_sound_and_minimal(bobtail: bool) -> None:
    for hand, requirement in qualifying_hands(40 if bobtail else 60, bobtail):
        shown_cards = proof(hand, requirement, bobtail_allowed=bobtail)
        assert shown_cards is not None, hand
        assert set(shown_cards) <= set(hand)
        # Sound: whatever the hidden cards might be, the shown ones guarantee openers.
        assert all_completions_meet(shown_cards, requirement, bobtail), (hand, shown_cards)
        # Minimal: no smaller set of his cards would do (checking one card fewer is enough, since a
        # subset proving openers makes all its supersets prove them too). One card never proves.
        if len(shown_cards) > 2:
            for fewer in combinations(hand, len(shown_cards) - 1):
                assert not all_completions_meet(fewer, requirement, bobtail), (hand, fewer)


@settings(max_examples=300)
@given(
    st.lists(st.integers(min_value=0, max_value=51), min_size=5, max_size=5, unique=True),
    st.sampled_from(list(OpeningRequirement)),
    st.booleans(),
)
def test_meets_requirement_matches_the_book(hand: list[int], requirement: OpeningRequirement, bobtail: bool) -> None:
    assert meets_requirement(hand, requirement, bobtail_allowed=bobtail) is oracle(hand, requirement, bobtail)
    if requirement is not R.ANYTHING and not bobtail:
        assert meets_requirement(hand, requirement, bobtail_allowed=False) is (
            evaluate(hand) >= minimum_value(requirement)
        )


@settings(max_examples=200)
@given(
    st.lists(st.integers(min_value=0, max_value=51), min_size=6, max_size=9, unique=True),
    st.sampled_from(list(OpeningRequirement)),
    st.booleans(),
)
def test_more_than_five_cards_never_qualify(hand: list[int], requirement: OpeningRequirement, bobtail: bool) -> None:
    assert not meets_requirement(hand, requirement, bobtail_allowed=bobtail)
    assert proof(hand, requirement, bobtail_allowed=bobtail) is None


@settings(max_examples=200)
@given(
    st.lists(st.integers(min_value=0, max_value=51), min_size=5, max_size=5, unique=True),
    st.sampled_from(list(OpeningRequirement)),
    st.booleans(),
    st.data(),
)
def test_known_subset_proving_openers_means_the_hand_has_them(
    hand: list[int], requirement: OpeningRequirement, bobtail: bool, data: st.DataObject
) -> None:
    # The engine asks about the cards identified so far; a "yes" then must hold for the whole hand.
    known = data.draw(st.lists(st.sampled_from(hand), max_size=4, unique=True))
    if meets_requirement(known, requirement, bobtail_allowed=bobtail):
        assert meets_requirement(hand, requirement, bobtail_allowed=bobtail)


def fills(four_ranks: set[int]) -> int:
    """How many ranks would turn these four distinct ranks into a straight (the ace plays high or low)."""
    count = 0
    for extra in set(range(13)) - four_ranks:
        five = four_ranks | {extra}
        if max(five) - min(five) == 4 or five == {12, 0, 1, 2, 3}:
            count += 1
    return count


@settings(max_examples=400)
@given(st.lists(st.integers(min_value=0, max_value=51), min_size=0, max_size=5, unique=True))
def test_bobtails_match_the_books_definition(cards: list[int]) -> None:
    # Book 003: four cards in sequence that a card at EITHER end makes a straight, i.e. two ranks fill it.
    open_ended = any(
        len({c >> 2 for c in four}) == 4 and fills({c >> 2 for c in four}) == 2 for four in combinations(cards, 4)
    )
    four_flush = any(n >= 4 for n in Counter(c & 3 for c in cards).values())
    assert is_open_ended_bobtail_straight(cards) is open_ended
    assert is_four_flush(cards) is four_flush
    assert is_bobtail(cards) is (open_ended or four_flush)
