"""Five-card hand evaluation: one integer per hand, higher is better, equal means an exact tie.

How it works. Every card is mapped to a precomputed integer ``_CARD_KEY[card]`` holding two fields:

* high bits: a *rank weight*. The weights (``_RANK_WEIGHTS``) were chosen so that the sum over any five
  ranks, with at most four of a rank, is different for every multiset of ranks. So the sum of the five
  weights is a perfect hash of the hand's ranks, and indexes ``_RANK_TABLE`` directly (no search, no dict).
* low 12 bits: a *suit counter*, 1, 8, 64 or 512 for clubs, diamonds, hearts, spades. Five cards never
  overflow an octal digit, so a hand is a flush exactly when one digit is 5; ``_FLUSH_BONUS`` (4096
  entries) says so.

The value of a hand is ``_RANK_TABLE[key >> 12] + _FLUSH_BONUS[key & 0xFFF]``: four additions, one shift,
one mask and two list reads. The numpy batch path does the same arithmetic on whole columns.

Value layout: ``code << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5`` where ``r1..r5`` are rank
indices (see :mod:`.cards`) in order of significance (the pair before its kickers, the trips before the
pair of a full house, ...). A straight keeps only its top card (a five for the wheel A-2-3-4-5, the lowest
straight). The category code is the :class:`HandCategory` except that a straight flush is coded 9, not 8:
then a flush always adds exactly ``5 << 20`` to the same five ranks unsuited (high card 0 -> flush 5,
straight 4 -> straight flush 9), which is what lets the flush bonus be a plain addition.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import IntEnum
from itertools import combinations, permutations
from typing import Final

import numpy as np
import numpy.typing as npt

from table_controller.engine.cards import RANK_NAMES, RANK_PLURALS

__all__ = [
    "HandCategory",
    "category_of",
    "describe",
    "evaluate",
    "evaluate5",
    "evaluate_batch",
    "hand_value",
    "significant_ranks",
]


class HandCategory(IntEnum):
    """The nine kinds of poker hand, lowest first. A royal flush is the ace-high straight flush."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    PAIR = 1  # alias of ONE_PAIR


_CATEGORY_SHIFT: Final = 20
_STRAIGHT_FLUSH_CODE: Final = 9
_FLUSH_STEP: Final = 5 << _CATEGORY_SHIFT
_CODE_TO_CATEGORY: Final[dict[int, HandCategory]] = {
    **{int(c): c for c in HandCategory if c is not HandCategory.STRAIGHT_FLUSH},
    _STRAIGHT_FLUSH_CODE: HandCategory.STRAIGHT_FLUSH,
}

# Ascending greedy search: each weight is the smallest keeping all five-rank multiset sums distinct.
_RANK_WEIGHTS: Final = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
_SUIT_COUNTERS: Final = (1, 8, 64, 512)
_SUIT_BITS: Final = 12
_SUIT_MASK: Final = (1 << _SUIT_BITS) - 1
_ACE: Final = 12
_WHEEL_HIGH: Final = 3  # the five


def hand_value(category: HandCategory, ranks: Sequence[int]) -> int:
    """The value of a hand from its category and its significant ranks (most significant first).

    For a straight or straight flush give only the top card (3, the five, for the wheel). Useful for
    thresholds such as "a pair of jacks": ``hand_value(HandCategory.ONE_PAIR, (9, 2, 1, 0))``.
    """
    code = _STRAIGHT_FLUSH_CODE if category is HandCategory.STRAIGHT_FLUSH else int(category)
    value = code
    for i in range(5):
        rank = ranks[i] if i < len(ranks) else 0
        if not 0 <= rank <= _ACE:
            raise ValueError(f"rank index out of range: {rank!r}")
        value = (value << 4) | rank
    return value


def _rank_multisets() -> Iterator[tuple[tuple[int, ...], int]]:
    """Every multiset of five ranks one deck can deal (6175 of them), with its value when not a flush."""
    down = range(_ACE, -1, -1)
    for five in combinations(down, 5):  # five ranks, highest first
        if five[0] - five[4] == 4:
            yield five, hand_value(HandCategory.STRAIGHT, five[:1])
        elif five == (_ACE, 3, 2, 1, 0):  # the wheel: the ace plays low
            yield five, hand_value(HandCategory.STRAIGHT, (_WHEEL_HIGH,))
        else:
            yield five, hand_value(HandCategory.HIGH_CARD, five)
    for pair in down:
        for kickers in combinations([r for r in down if r != pair], 3):
            yield (pair, pair, *kickers), hand_value(HandCategory.ONE_PAIR, (pair, *kickers))
    for high, low in combinations(down, 2):
        for kicker in (r for r in down if r not in (high, low)):
            yield (high, high, low, low, kicker), hand_value(HandCategory.TWO_PAIR, (high, low, kicker))
    for trips in down:
        for two_kickers in combinations([r for r in down if r != trips], 2):
            yield (trips, trips, trips, *two_kickers), hand_value(HandCategory.THREE_OF_A_KIND, (trips, *two_kickers))
    for trips, pair in permutations(down, 2):
        yield (trips, trips, trips, pair, pair), hand_value(HandCategory.FULL_HOUSE, (trips, pair))
    for quads, kicker in permutations(down, 2):
        yield (quads, quads, quads, quads, kicker), hand_value(HandCategory.FOUR_OF_A_KIND, (quads, kicker))


def _build_tables() -> tuple[list[int], list[int], list[int], frozenset[int]]:
    rank_table = [0] * (5 * _RANK_WEIGHTS[-1] + 1)
    unsuited: set[int] = set()
    for ranks, value in _rank_multisets():
        slot = sum(_RANK_WEIGHTS[r] for r in ranks)
        if rank_table[slot]:  # pragma: no cover - guards the weight table against an edit mistake
            raise AssertionError("rank weights are not a perfect hash")
        rank_table[slot] = value
        unsuited.add(value)
    if len(unsuited) != 6175:  # pragma: no cover - guards the enumeration against an edit mistake
        raise AssertionError("rank multisets miscounted")
    flush_bonus = [0] * (1 << _SUIT_BITS)
    for counter in _SUIT_COUNTERS:
        flush_bonus[5 * counter] = _FLUSH_STEP
    card_key = [(_RANK_WEIGHTS[card >> 2] << _SUIT_BITS) | _SUIT_COUNTERS[card & 3] for card in range(52)]
    return rank_table, flush_bonus, card_key, frozenset(unsuited)


# Unused slots of the rank table hold 0, which no hand has (the lowest, 7-5-4-3-2, is nonzero).
_RANK_TABLE, _FLUSH_BONUS, _CARD_KEY, _UNSUITED_VALUES = _build_tables()
_CHECKED_KEY: Final = {card: (1 << (32 + card)) | key for card, key in enumerate(_CARD_KEY)}
# Exactly these classes take the fast path of evaluate(): not bool (an int, but never a card), not float.
_PLAIN_INTS: Final = frozenset({int, *(np.dtype(code).type for code in "bBhHiIlLqQ")})
_VALID_VALUES: Final = _UNSUITED_VALUES | frozenset(
    v + _FLUSH_STEP for v in _UNSUITED_VALUES if v >> _CATEGORY_SHIFT in (HandCategory.HIGH_CARD, HandCategory.STRAIGHT)
)

# numpy copies: every key fits in int32 ((5 * 79415) << 12 | 2560 < 2**31).
_NP_CARD_KEY: Final[npt.NDArray[np.int32]] = np.asarray(_CARD_KEY, dtype=np.int32)
_NP_RANK_TABLE: Final[npt.NDArray[np.int32]] = np.asarray(_RANK_TABLE, dtype=np.int32)
_NP_FLUSH_BONUS: Final[npt.NDArray[np.int32]] = np.asarray(_FLUSH_BONUS, dtype=np.int32)
_BATCH_SLICE: Final = 32768


def evaluate5(a: int, b: int, c: int, d: int, e: int) -> int:
    """Value of five distinct cards, unchecked: the caller guarantees five distinct ints in 0..51."""
    k = _CARD_KEY
    key = k[a] + k[b] + k[c] + k[d] + k[e]
    return _RANK_TABLE[key >> 12] + _FLUSH_BONUS[key & 0xFFF]


def evaluate(cards: Sequence[int]) -> int:
    """Value of a five-card hand: higher is better, equal values tie exactly.

    Raises ``ValueError`` unless ``cards`` holds exactly five distinct cards (ints 0..51). Draw poker
    hands are exactly five cards; a hand of more is foul (book 000, "False Openers"), never "best five".
    """
    if len(cards) != 5:
        raise ValueError(f"a poker hand is exactly five cards, got {len(cards)}")
    a, b, c, d, e = cards
    try:
        # Each card's key with a bit of its own above bit 32: the five bits add without a carry (five set
        # bits) exactly when the cards are distinct. A lookup that fails is not a card at all.
        total = _CHECKED_KEY[a] + _CHECKED_KEY[b] + _CHECKED_KEY[c] + _CHECKED_KEY[d] + _CHECKED_KEY[e]
    except (KeyError, TypeError):
        total = 0
    if (total >> 32).bit_count() == 5 and {
        a.__class__,
        b.__class__,
        c.__class__,
        d.__class__,
        e.__class__,
    } <= _PLAIN_INTS:
        key = total & 0xFFFFFFFF
        return _RANK_TABLE[key >> 12] + _FLUSH_BONUS[key & 0xFFF]
    # The slow way, for a clear error (or for int subclasses, which the fast path leaves alone).
    for card in cards:
        if isinstance(card, bool) or not isinstance(card, int | np.integer) or not 0 <= card < 52:
            raise ValueError(f"not a card: {card!r} (cards are integers 0..51)")
    if len(set(cards)) != 5:
        raise ValueError(f"duplicate cards in hand: {sorted(int(x) for x in cards)!r}")
    return evaluate5(int(a), int(b), int(c), int(d), int(e))


def evaluate_batch(hands: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """Values of many hands at once: an (N, 5) array of card ints in, N values (int32) out.

    Gives exactly :func:`evaluate`'s values. Cards are checked to be in 0..51 (an out-of-range card would
    read past a table); distinct cards within a row are the caller's promise, as with :func:`evaluate5`.
    """
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] != 5:
        raise ValueError(f"expected an (N, 5) array of cards, got shape {arr.shape}")
    if arr.dtype != np.uint8:
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"expected integer card numbers, got dtype {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() > 51):
            raise ValueError("card numbers must be in 0..51")
        arr = arr.astype(np.uint8)
    elif arr.size and arr.max() > 51:
        raise ValueError("card numbers must be in 0..51")
    # Work in slices small enough for the scratch arrays to stay in cache beside the rank table;
    # one pass over the whole array at once is about half as fast on large batches.
    columns = np.ascontiguousarray(arr.T)
    out = np.empty(len(arr), dtype=np.int32)
    size = min(_BATCH_SLICE, len(arr))
    keys = np.empty(size, dtype=np.int32)
    scratch = np.empty(size, dtype=np.int32)
    for start in range(0, len(arr), _BATCH_SLICE):
        stop = min(start + _BATCH_SLICE, len(arr))
        n = stop - start
        key, tmp, result = keys[:n], scratch[:n], out[start:stop]
        np.take(_NP_CARD_KEY, columns[0, start:stop], out=key)
        for col in range(1, 5):
            np.take(_NP_CARD_KEY, columns[col, start:stop], out=tmp)
            key += tmp
        np.right_shift(key, _SUIT_BITS, out=tmp)
        np.take(_NP_RANK_TABLE, tmp, out=result)
        np.bitwise_and(key, _SUIT_MASK, out=tmp)
        np.take(_NP_FLUSH_BONUS, tmp, out=key)
        result += key
    return out


def _check_value(value: int) -> None:
    if value not in _VALID_VALUES:
        raise ValueError(f"not a hand value: {value!r}")


def category_of(value: int) -> HandCategory:
    """The category of a hand value from :func:`evaluate`."""
    _check_value(value)
    return _CODE_TO_CATEGORY[value >> _CATEGORY_SHIFT]


def significant_ranks(value: int) -> tuple[int, ...]:
    """The ranks that decide ties, most significant first (e.g. pair rank then kickers).

    A straight or straight flush gives its top card only (3, the five, for the wheel).
    """
    count = _SIGNIFICANT_COUNT[category_of(value)]
    return tuple((value >> (16 - 4 * i)) & 0xF for i in range(count))


_SIGNIFICANT_COUNT = {
    HandCategory.HIGH_CARD: 5,
    HandCategory.ONE_PAIR: 4,
    HandCategory.TWO_PAIR: 3,
    HandCategory.THREE_OF_A_KIND: 3,
    HandCategory.STRAIGHT: 1,
    HandCategory.FLUSH: 5,
    HandCategory.FULL_HOUSE: 2,
    HandCategory.FOUR_OF_A_KIND: 2,
    HandCategory.STRAIGHT_FLUSH: 1,
}


def describe(value: int) -> str:
    """A dealer's wording of a hand value, e.g. "two pair, kings and fives", "straight, five high"."""
    category = category_of(value)
    r = significant_ranks(value)
    name, plural = RANK_NAMES, RANK_PLURALS
    match category:
        case HandCategory.HIGH_CARD:
            return f"high card, {name[r[0]]}"
        case HandCategory.ONE_PAIR:
            return f"pair of {plural[r[0]]}"
        case HandCategory.TWO_PAIR:
            return f"two pair, {plural[r[0]]} and {plural[r[1]]}"
        case HandCategory.THREE_OF_A_KIND:
            return f"three of a kind, {plural[r[0]]}"
        case HandCategory.STRAIGHT:
            return f"straight, {name[r[0]]} high"
        case HandCategory.FLUSH:
            return f"flush, {name[r[0]]} high"
        case HandCategory.FULL_HOUSE:
            return f"full house, {plural[r[0]]} over {plural[r[1]]}"
        case HandCategory.FOUR_OF_A_KIND:
            return f"four of a kind, {plural[r[0]]}"
        case HandCategory.STRAIGHT_FLUSH:
            return "royal flush" if r[0] == _ACE else f"straight flush, {name[r[0]]} high"
    raise AssertionError(f"unhandled category {category!r}")  # pragma: no cover
