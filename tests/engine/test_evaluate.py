"""Hand evaluation: exact tables, tricky orderings, an exhaustive census, properties, and reference engines."""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter
from collections.abc import Callable
from itertools import combinations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.engine.cards import Card, card_str, parse_cards
from table_controller.engine.evaluate import (
    HandCategory,
    category_of,
    describe,
    evaluate,
    evaluate5,
    evaluate_batch,
    hand_value,
    significant_ranks,
)


def value(codes: str) -> int:
    return evaluate(parse_cards(codes))


# --- exact tables --------------------------------------------------------------------------------

KNOWN = [
    ("As Ks Qs Js Ts", HandCategory.STRAIGHT_FLUSH, "royal flush"),
    ("9h 8h 7h 6h 5h", HandCategory.STRAIGHT_FLUSH, "straight flush, nine high"),
    ("5c 4c 3c 2c Ac", HandCategory.STRAIGHT_FLUSH, "straight flush, five high"),
    ("Ac Ad Ah As 2c", HandCategory.FOUR_OF_A_KIND, "four of a kind, aces"),
    ("3c 3d 3h 2s 2c", HandCategory.FULL_HOUSE, "full house, threes over twos"),
    ("Kc Kd 5h 5s 5c", HandCategory.FULL_HOUSE, "full house, fives over kings"),
    ("Ah Kh 9h 5h 2h", HandCategory.FLUSH, "flush, ace high"),
    ("7d 5d 4d 3d 2d", HandCategory.FLUSH, "flush, seven high"),
    ("Ad Kc Qh Js Td", HandCategory.STRAIGHT, "straight, ace high"),
    ("5d 4c 3h 2s Ah", HandCategory.STRAIGHT, "straight, five high"),
    ("6d 5c 4h 3s 2h", HandCategory.STRAIGHT, "straight, six high"),
    ("Qc Qd Qh 9s 2c", HandCategory.THREE_OF_A_KIND, "three of a kind, queens"),
    ("Kd Kc 5h 5s 2h", HandCategory.TWO_PAIR, "two pair, kings and fives"),
    ("Jc Jd 4c 3c 2c", HandCategory.ONE_PAIR, "pair of jacks"),
    ("Ac Kd Qh Js 9c", HandCategory.HIGH_CARD, "high card, ace"),
    ("7c 5d 4h 3s 2c", HandCategory.HIGH_CARD, "high card, seven"),
    # Not straights: around-the-corner and a gap.
    ("Kc Ad 2h 3s 4c", HandCategory.HIGH_CARD, "high card, ace"),
    ("Qc Kd Ah 2s 3c", HandCategory.HIGH_CARD, "high card, ace"),
    ("9c 8d 6h 5s 4c", HandCategory.HIGH_CARD, "high card, nine"),
]


@pytest.mark.parametrize(("codes", "category", "words"), KNOWN)
def test_known_hands(codes: str, category: HandCategory, words: str) -> None:
    v = value(codes)
    assert category_of(v) is category
    assert describe(v) == words


# Each pair: (lower, higher).
ORDERED = [
    ("5d 4c 3h 2s Ah", "6d 5c 4h 3s 2h"),  # the wheel is the lowest straight
    ("5c 4c 3c 2c Ac", "6h 5h 4h 3h 2h"),  # and the lowest straight flush
    ("Ad Kc Qh Js Td", "2c 3c 5c 7c 8c"),  # any flush beats any straight
    ("Ah Kh Qh Jh 9h", "2c 2d 2h 3s 3c"),  # any full house beats any flush
    ("Kd Kc 5h 5s 2h", "Kd Kc 5h 5s 3h"),  # two pair: kicker decides
    ("Kd Kc 5h 5s Ah", "Kd Kc 6h 6s 2h"),  # two pair: second pair before kicker
    ("Qd Qc Jh Js Ah", "Kd Kc 2h 2s 3h"),  # two pair: top pair first
    ("Jc Jd 9c 3c 2c", "Jc Jd Tc 3d 2c"),  # pair: first kicker
    ("Jc Jd Tc 3d 2c", "Jc Jd Tc 4d 2c"),  # pair: third kicker
    ("Ac Kd Qh Js 8c", "Ac Kd Qh Js 9c"),  # high card: last card
    ("Ac Kd Qh Js 9c", "2c 2d 3h 4s 5c"),  # the lowest pair beats the best high card
    ("3c 3d 3h As Kc", "4c 4d 4h 2s 3c"),  # trips: rank before kickers
    ("Ac Ad Ah Kc Ks", "2c 2d 2h 2s 3c"),  # quads beat any full house
    ("2c 2d 2h Ac As", "3c 3d 3h 2c 2s"),  # full house: trips before pair
    ("Ac Ad Ah As Kc", "5c 4c 3c 2c Ac"),  # any straight flush beats quads
    ("Kh Qh Jh Th 9h", "As Ks Qs Js Ts"),  # royal flush on top
    ("Ah Kh 9h 5h 2h", "Ah Kh 9h 6h 2h"),  # flush: fourth card
]


@pytest.mark.parametrize(("lower", "higher"), ORDERED)
def test_ordering(lower: str, higher: str) -> None:
    assert value(lower) < value(higher)


# Exact ties across suits: same ranks, different suits, no flush either side.
TIES = [
    ("Kd Kc 5h 5s 2h", "Kh Ks 5d 5c 2c"),
    ("Ad Kc Qh Js Td", "As Kh Qd Jc Th"),
    ("5d 4c 3h 2s Ah", "5s 4h 3d 2c Ad"),
    ("Ah Kh 9h 5h 2h", "As Ks 9s 5s 2s"),
    ("Jc Jd 4c 3c 2c", "Jh Js 4d 3h 2s"),
    ("As Ks Qs Js Ts", "Ad Kd Qd Jd Td"),
]


@pytest.mark.parametrize(("first", "second"), TIES)
def test_exact_ties_across_suits(first: str, second: str) -> None:
    assert value(first) == value(second)


def test_significant_ranks_and_hand_value() -> None:
    v = value("Kd Kc 5h 5s 2h")
    assert significant_ranks(v) == (11, 3, 0)
    assert hand_value(HandCategory.TWO_PAIR, (11, 3, 0)) == v
    assert significant_ranks(value("5d 4c 3h 2s Ah")) == (3,)
    assert hand_value(HandCategory.ONE_PAIR, (9, 2, 1, 0)) == value("Jc Jd 4c 3c 2c")
    assert hand_value(HandCategory.STRAIGHT_FLUSH, (12,)) == value("As Ks Qs Js Ts")
    with pytest.raises(ValueError, match="rank index"):
        hand_value(HandCategory.ONE_PAIR, (13,))


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ((0, 1, 2, 3), "exactly five"),
        ((0, 1, 2, 3, 4, 5), "exactly five"),
        ((), "exactly five"),
        ((0, 1, 2, 3, 3), "duplicate"),
        ((0, 1, 2, 3, 52), "not a card"),
        ((0, 1, 2, 3, -1), "not a card"),
        ((0, 1, 2, 3, True), "not a card"),
        ((0, 1, 2, 3, "As"), "not a card"),
        ((0, 1, 2, 3, 4.0), "not a card"),
        ((0, 1, 2, 3, None), "not a card"),
        ((0, 1, 2, 3, [4]), "not a card"),
    ],
)
def test_evaluate_rejects_bad_hands(cards: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(cards)


@pytest.mark.parametrize("bad", [-1, 0, 8 << 20, (9 << 20) + 1, 12345])
def test_bad_values_are_rejected(bad: int) -> None:
    with pytest.raises(ValueError, match="not a hand value"):
        category_of(bad)
    with pytest.raises(ValueError, match="not a hand value"):
        describe(bad)


def test_evaluate_accepts_numpy_and_int_subclasses() -> None:
    expected = value("As Ks Qs Js Ts")
    cards = parse_cards("As Ks Qs Js Ts")
    assert evaluate(list(np.array(cards, dtype=np.uint8))) == expected
    assert evaluate(list(np.array(cards, dtype=np.int64))) == expected

    class Numbered(int):
        pass

    assert evaluate([Numbered(c) for c in cards]) == expected


def test_evaluate_batch_rejects_bad_arrays() -> None:
    with pytest.raises(ValueError, match=r"\(N, 5\)"):
        evaluate_batch(np.zeros((3, 4), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        evaluate_batch(np.array([[0, 1, 2, 3, 52]], dtype=np.uint8))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        evaluate_batch(np.array([[0, 1, 2, 3, -1]], dtype=np.int64))
    with pytest.raises(ValueError, match="integer"):
        evaluate_batch(np.zeros((1, 5), dtype=np.float64))
    assert evaluate_batch(np.zeros((0, 5), dtype=np.uint8)).shape == (0,)


# --- every one of the 2,598,960 hands -------------------------------------------------------------


@functools.cache
def every_hand() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32]]:
    hands = np.array(list(combinations(range(52), 5)), dtype=np.uint8)
    return hands, evaluate_batch(hands)


@pytest.mark.slow
def test_census_of_all_hands() -> None:
    hands, values = every_hand()
    # Frequencies of each category among all five-card hands (standard combinatorics).
    expected = {
        HandCategory.STRAIGHT_FLUSH: 40,
        HandCategory.FOUR_OF_A_KIND: 624,
        HandCategory.FULL_HOUSE: 3744,
        HandCategory.FLUSH: 5108,
        HandCategory.STRAIGHT: 10200,
        HandCategory.THREE_OF_A_KIND: 54912,
        HandCategory.TWO_PAIR: 123552,
        HandCategory.ONE_PAIR: 1098240,
        HandCategory.HIGH_CARD: 1302540,
    }
    distinct, counts = np.unique(values, return_counts=True)
    census: Counter[HandCategory] = Counter()
    for v, n in zip(distinct.tolist(), counts.tolist(), strict=True):
        census[category_of(v)] += n
    assert dict(census) == expected
    assert len(distinct) == 7462  # the number of distinct five-card poker hand ranks
    # Every distinct value has a description, and the scalar path agrees on a spread of hands.
    assert all(describe(v) for v in distinct.tolist())
    for i in range(0, len(hands), 9973):
        row = hands[i].tolist()
        assert evaluate(row) == values[i]


# --- properties -----------------------------------------------------------------------------------

hands_st = st.lists(st.integers(min_value=0, max_value=51), min_size=5, max_size=5, unique=True)


@settings(max_examples=300)
@given(st.lists(hands_st, min_size=1, max_size=20))
def test_batch_equals_scalar(hands: list[list[int]]) -> None:
    batch = evaluate_batch(np.array(hands, dtype=np.uint8)).tolist()
    assert batch == [evaluate(h) for h in hands]
    assert batch == [evaluate5(*h) for h in hands]
    # Any integer dtype is accepted.
    assert evaluate_batch(np.array(hands, dtype=np.int64)).tolist() == batch


@settings(max_examples=300)
@given(hands_st, st.permutations(range(5)))
def test_permutation_invariance(hand: list[int], order: list[int]) -> None:
    assert evaluate([hand[i] for i in order]) == evaluate(hand)


@settings(max_examples=300)
@given(hands_st, st.permutations(range(4)))
def test_suit_relabelling_invariance(hand: list[int], suit_map: list[int]) -> None:
    relabelled = [(c & ~3) | suit_map[c & 3] for c in hand]
    assert evaluate(relabelled) == evaluate(hand)


@settings(max_examples=300)
@given(hands_st)
def test_value_round_trips_through_category_and_ranks(hand: list[int]) -> None:
    v = evaluate(hand)
    assert hand_value(category_of(v), significant_ranks(v)) == v


# --- reference engines ------------------------------------------------------------------------------

N_REFERENCE_HANDS = 4000
CATEGORY_BY_NAME = {
    "royal flush": HandCategory.STRAIGHT_FLUSH,
    "straight flush": HandCategory.STRAIGHT_FLUSH,
    "four of a kind": HandCategory.FOUR_OF_A_KIND,
    "quads": HandCategory.FOUR_OF_A_KIND,
    "full house": HandCategory.FULL_HOUSE,
    "flush": HandCategory.FLUSH,
    "straight": HandCategory.STRAIGHT,
    "three of a kind": HandCategory.THREE_OF_A_KIND,
    "trips": HandCategory.THREE_OF_A_KIND,
    "two pair": HandCategory.TWO_PAIR,
    "pair": HandCategory.ONE_PAIR,
    "high card": HandCategory.HIGH_CARD,
}
# phevaluator ranks 1 (royal flush) .. 7462 (7-5-4-3-2); the last rank of each category, best first.
PH_CATEGORY_ENDS = [
    (10, HandCategory.STRAIGHT_FLUSH),
    (166, HandCategory.FOUR_OF_A_KIND),
    (322, HandCategory.FULL_HOUSE),
    (1599, HandCategory.FLUSH),
    (1609, HandCategory.STRAIGHT),
    (2467, HandCategory.THREE_OF_A_KIND),
    (3325, HandCategory.TWO_PAIR),
    (6185, HandCategory.ONE_PAIR),
    (7462, HandCategory.HIGH_CARD),
]


def sample_hands() -> list[tuple[Card, ...]]:
    rng = random.Random(20260303)
    deck = list(range(52))
    hands = [tuple(Card(c) for c in rng.sample(deck, 5)) for _ in range(N_REFERENCE_HANDS)]
    # Rare categories and tricky hands would seldom come up at random.
    hands += [parse_cards(codes) for codes, _, _ in KNOWN]
    hands += [parse_cards(h) for pair in ORDERED + TIES for h in pair]
    return hands


def treys_engine() -> Callable[[tuple[Card, ...]], tuple[int, HandCategory]]:
    treys = pytest.importorskip("treys")
    evaluator = treys.Evaluator()

    def run(hand: tuple[Card, ...]) -> tuple[int, HandCategory]:
        cards = [treys.Card.new(card_str(c)) for c in hand]
        rank = evaluator.evaluate(cards[:2], cards[2:])
        name = evaluator.class_to_string(evaluator.get_rank_class(rank))
        return -rank, CATEGORY_BY_NAME[name.lower()]

    return run


def phevaluator_engine() -> Callable[[tuple[Card, ...]], tuple[int, HandCategory]]:
    ph = pytest.importorskip("phevaluator")

    def run(hand: tuple[Card, ...]) -> tuple[int, HandCategory]:
        rank = int(ph.evaluate_cards(*(card_str(c) for c in hand)))
        category = next(cat for end, cat in PH_CATEGORY_ENDS if rank <= end)
        return -rank, category

    return run


def eval7_engine() -> Callable[[tuple[Card, ...]], tuple[int, HandCategory]]:
    eval7 = pytest.importorskip("eval7")

    def run(hand: tuple[Card, ...]) -> tuple[int, HandCategory]:
        v = int(eval7.evaluate([eval7.Card(card_str(c)) for c in hand]))
        return v, CATEGORY_BY_NAME[str(eval7.handtype(v)).lower()]

    return run


@pytest.mark.parametrize("make_engine", [treys_engine, phevaluator_engine, eval7_engine])
def test_agrees_with_reference_engine(
    make_engine: Callable[[], Callable[[tuple[Card, ...]], tuple[int, HandCategory]]],
) -> None:
    engine = make_engine()
    hands = sample_hands()
    ours = [evaluate(h) for h in hands]
    theirs = [engine(h) for h in hands]
    # Same category for every hand.
    mismatched = [
        (" ".join(card_str(c) for c in h), category_of(o), t[1])
        for h, o, t in zip(hands, ours, theirs, strict=True)
        if category_of(o) != t[1]
    ]
    assert not mismatched, mismatched[:5]
    # Same order for every pair of hands in the sample: the map from our value to theirs is a strictly
    # increasing bijection (equal exactly when equal, greater exactly when greater).
    pairs = sorted({(o, t[0]) for o, t in zip(ours, theirs, strict=True)})
    our_values = [o for o, _ in pairs]
    their_values = [t for _, t in pairs]
    assert len(set(our_values)) == len(pairs), "one of our values maps to two of theirs (we tie, they don't)"
    assert their_values == sorted(their_values), "orders differ"
    assert len(set(their_values)) == len(pairs), "two of our values map to one of theirs (they tie, we don't)"
    # And explicitly on random pairs: the sign of the comparison is identical.
    rng = random.Random(7)
    for _ in range(2000):
        i, j = rng.randrange(len(hands)), rng.randrange(len(hands))
        ours_sign = (ours[i] > ours[j]) - (ours[i] < ours[j])
        theirs_sign = (theirs[i][0] > theirs[j][0]) - (theirs[i][0] < theirs[j][0])
        assert ours_sign == theirs_sign


# --- the benchmark runs and reports every system ---------------------------------------------------------


def test_benchmark_hands_are_valid() -> None:
    from bench.evaluator import random_hands

    hands = random_hands(5000, seed=1)
    assert hands.shape == (5000, 5)
    assert hands.max() <= 51
    assert all(len(set(row)) == 5 for row in hands.tolist())
    assert np.array_equal(random_hands(100, seed=1), hands[:100])


@pytest.mark.slow
def test_benchmark_quick_run_reports_every_system() -> None:
    from bench.evaluator import run

    rows = run(quick=True)
    systems = {row.system for row in rows}
    assert {"cardtable", "treys", "phevaluator", "eval7"} <= systems
    assert all(row.value > 0 and row.unit == "hands/s" and row.area == "evaluator" for row in rows)


@pytest.mark.slow
@pytest.mark.parametrize("make_engine", [treys_engine, phevaluator_engine, eval7_engine])
def test_agrees_with_reference_engine_on_every_class_of_hand(
    make_engine: Callable[[], Callable[[tuple[Card, ...]], tuple[int, HandCategory]]],
) -> None:
    # One hand for each of our 7462 values, weakest first: the reference must rank them in the same strict
    # order (so no two of our classes are one of theirs, and the reverse), in the same categories.
    engine = make_engine()
    hands, values = every_hand()
    distinct, first = np.unique(values, return_index=True)
    theirs = [engine(tuple(Card(c) for c in hands[i].tolist())) for i in first.tolist()]
    assert [t[1] for t in theirs] == [category_of(v) for v in distinct.tolist()]
    their_values = [t[0] for t in theirs]
    assert all(x < y for x, y in itertools.pairwise(their_values))
