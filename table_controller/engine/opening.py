"""Opening requirements for Jackpots and its variants, and what an opener shows to prove them.

Sources (the rule books in ``../shared/rules``):

* book 003, "Jackpots": "A player may not open unless he has jacks or better - a pair of jacks, or a hand
  that would beat a pair of jacks in a showdown."
* book 003, "Progressive jackpots": after a deal nobody opens, queens or better are needed, then kings,
  then aces, "and some run the series all the way up to two pair or better".
* book 003, "Jacks or bobtail to open": one may also open on any bobtail, a four-flush or a bobtail
  straight: "four cards in sequence that can become a straight if the card at either end of the sequence
  is drawn" (8-7-6-5 is one; A-K-Q-J is not, only the ten fills it; 9-8-6-5 is not, it is inside).
* book 003, "Open on anything": no minimum, and the opener "need not show openers at any stage".
* book 003, "Jackpots": the opener "need show only as many cards as will prove to the other players that
  he had the requirements" - see :func:`proof`.
* book 000, "False Openers": "The opener is deemed to lack openers if his hand contains more than five
  cards."

How it works. A set of shown cards *proves* a requirement when every five-card hand containing them
meets it. Only a few shapes can do that with fewer than five cards: a pair of the required rank or
higher (two cards), three of a kind (three), two pair (four) and, where allowed, a bobtail (four). With
five cards the hand itself is judged by :func:`table_controller.engine.evaluate.evaluate`. So
:func:`proof` lists those candidates and keeps the smallest, and :func:`meets_requirement` asks whether
there is one. That also makes both functions answer sensibly for fewer than five cards (for instance only
the cards a camera has identified so far): they say whether *those* cards already prove openers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

import numpy as np

from table_controller.engine.cards import Card, rank_of, suit_of
from table_controller.engine.evaluate import HandCategory, evaluate, hand_value

__all__ = [
    "JACKS_OR_BETTER",
    "JACKS_OR_BOBTAIL",
    "PROGRESSIVE_SERIES",
    "OpeningRequirement",
    "OpeningRule",
    "is_bobtail",
    "is_four_flush",
    "is_open_ended_bobtail_straight",
    "meets_requirement",
    "minimum_value",
    "progressive_requirement",
    "proof",
]


class OpeningRequirement(StrEnum):
    """The least hand that may open (book 003: Jackpots, Progressive jackpots, Open on anything)."""

    ANYTHING = "anything"
    JACKS = "jacks"
    QUEENS = "queens"
    KINGS = "kings"
    ACES = "aces"
    TWO_PAIR = "two_pair"


# Book 003, "Progressive jackpots": jacks, then queens, kings, aces, and for some, two pair.
PROGRESSIVE_SERIES: Final = (
    OpeningRequirement.JACKS,
    OpeningRequirement.QUEENS,
    OpeningRequirement.KINGS,
    OpeningRequirement.ACES,
    OpeningRequirement.TWO_PAIR,
)

_PAIR_RANK: Final = {
    OpeningRequirement.JACKS: 9,
    OpeningRequirement.QUEENS: 10,
    OpeningRequirement.KINGS: 11,
    OpeningRequirement.ACES: 12,
}
_KING: Final = 11
_MAX_HAND: Final = 5


def progressive_requirement(
    passed_out_deals: int, *, top: OpeningRequirement = OpeningRequirement.ACES
) -> OpeningRequirement:
    """The requirement after ``passed_out_deals`` deals in a row that nobody opened (book 003).

    The series climbs jacks, queens, kings, aces and stops at ``top`` (aces by default; two pair where the
    house runs "the series all the way up to two pair or better").
    """
    if passed_out_deals < 0:
        raise ValueError(f"passed_out_deals must be >= 0, got {passed_out_deals}")
    if top not in PROGRESSIVE_SERIES:
        raise ValueError(f"{top.value!r} is not a step of the progressive series")
    return PROGRESSIVE_SERIES[min(passed_out_deals, PROGRESSIVE_SERIES.index(top))]


def minimum_value(requirement: OpeningRequirement) -> int:
    """The value (see :func:`.evaluate.evaluate`) of the weakest five-card hand meeting ``requirement``.

    For ``ANYTHING`` this is 0, below every hand.
    """
    if requirement is OpeningRequirement.ANYTHING:
        return 0
    if requirement is OpeningRequirement.TWO_PAIR:
        return hand_value(HandCategory.TWO_PAIR, (1, 0, 2))  # threes and twos, four kicker
    rank = _PAIR_RANK[requirement]
    kickers = [r for r in range(4) if r != rank][:3]
    return hand_value(HandCategory.ONE_PAIR, (rank, *sorted(kickers, reverse=True)))


def _checked(cards: Sequence[int]) -> tuple[Card, ...]:
    hand: list[Card] = []
    for card in cards:
        if isinstance(card, bool) or not isinstance(card, int | np.integer) or not 0 <= card < 52:
            raise ValueError(f"not a card: {card!r} (cards are integers 0..51)")
        hand.append(Card(int(card)))
    if len(set(hand)) != len(hand):
        raise ValueError(f"duplicate cards in hand: {sorted(hand)!r}")
    return tuple(hand)


def _high_first(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, reverse=True))


def _four_flush(hand: Sequence[Card]) -> tuple[Card, ...] | None:
    by_suit: dict[int, list[Card]] = defaultdict(list)
    for card in hand:
        by_suit[suit_of(card)].append(card)
    best = [_high_first(cards)[:4] for cards in by_suit.values() if len(cards) >= 4]
    return max(best) if best else None


def _open_ended_four(hand: Sequence[Card]) -> tuple[Card, ...] | None:
    # One card per rank (the highest suit), then look for four ranks in a row r..r+3 whose both ends can
    # be drawn: below it the ace counts low (so 5-4-3-2 is open), above it nothing comes after the ace
    # (so A-K-Q-J is not). A-2-3-4 is never open: only a five fills it.
    top_of_rank: dict[int, Card] = {}
    for card in hand:
        r = rank_of(card)
        if r not in top_of_rank or card > top_of_rank[r]:
            top_of_rank[r] = card
    for low in range(_KING - 3, -1, -1):  # highest sequence first: K-Q-J-T down to 5-4-3-2
        if all(r in top_of_rank for r in range(low, low + 4)):
            return _high_first([top_of_rank[r] for r in range(low, low + 4)])
    return None


def is_four_flush(cards: Sequence[int]) -> bool:
    """Four (or more) of the cards are of one suit: a four-flush, one kind of bobtail (book 003)."""
    return _four_flush(_checked(cards)) is not None


def is_open_ended_bobtail_straight(cards: Sequence[int]) -> bool:
    """Four of the cards are in sequence and a card at either end would make a straight (book 003).

    8-7-6-5 and 5-4-3-2 (the four or the ace) are; A-K-Q-J and A-2-3-4 (one end is past the ace) and the
    inside 9-8-6-5 are not. A five-card straight contains such a four.
    """
    return _open_ended_four(_checked(cards)) is not None


def is_bobtail(cards: Sequence[int]) -> bool:
    """A four-flush or an open-ended bobtail straight (book 003, "Jacks or bobtail to open")."""
    hand = _checked(cards)
    return _four_flush(hand) is not None or _open_ended_four(hand) is not None


def _candidates(
    hand: tuple[Card, ...], requirement: OpeningRequirement, bobtail_allowed: bool
) -> list[tuple[Card, ...]]:
    """Subsets of the hand that prove ``requirement`` whatever the other cards are, best first per size."""
    if requirement is OpeningRequirement.ANYTHING:
        return [()]
    by_rank: dict[int, list[Card]] = defaultdict(list)
    for card in hand:
        by_rank[rank_of(card)].append(card)
    groups = sorted(((r, _high_first(cs)) for r, cs in by_rank.items()), reverse=True)
    found: list[tuple[Card, ...]] = []
    pair_rank = _PAIR_RANK.get(requirement)
    if pair_rank is not None:
        found += [cs[:2] for r, cs in groups if r >= pair_rank and len(cs) >= 2]
    found += [cs[:3] for _, cs in groups if len(cs) >= 3]
    pairs = [cs[:2] for _, cs in groups if len(cs) >= 2]
    if len(pairs) >= 2:
        found.append(pairs[0] + pairs[1])
    if bobtail_allowed:
        found += [shown for shown in (_four_flush(hand), _open_ended_four(hand)) if shown is not None]
    if len(hand) == _MAX_HAND and evaluate(hand) >= minimum_value(requirement):
        found.append(_high_first(hand))
    return found


def proof(cards: Sequence[int], requirement: OpeningRequirement, *, bobtail_allowed: bool) -> tuple[Card, ...] | None:
    """The fewest of these cards that prove openers, highest card first; None if they do not.

    Book 003: the opener "need show only as many cards as will prove to the other players that he had the
    requirements" - the pair, the trips, both pairs, the four cards of a bobtail, or all five for a
    straight, flush or better. For ``ANYTHING`` nothing need be shown (book 003, "Open on anything"): the
    proof is ``()``. A hand of more than five cards never has openers (book 000, "False Openers").
    With several proofs of one size the stronger is shown (e.g. the higher pair).
    Raises ``ValueError`` for card numbers outside 0..51 or repeated cards.
    """
    hand = _checked(cards)
    if len(hand) > _MAX_HAND:
        return None
    found = _candidates(hand, requirement, bobtail_allowed)
    if not found:
        return None
    # min() keeps the first of the smallest, and candidates are listed strongest first within a size.
    return min(found, key=len)


def meets_requirement(cards: Sequence[int], requirement: OpeningRequirement, *, bobtail_allowed: bool) -> bool:
    """Do these cards give openers? ("jacks or better": a pair of jacks or any hand that beats it).

    With five cards this judges the hand; with fewer it says whether those cards alone already prove
    openers whatever the rest are. More than five cards never qualify (book 000, "False Openers").
    ``bobtail_allowed`` is the house option "jacks or bobtail to open" (book 003): a four-flush or an
    open-ended bobtail straight also opens, at any requirement other than ``ANYTHING``.
    """
    return proof(cards, requirement, bobtail_allowed=bobtail_allowed) is not None


@dataclass(frozen=True, kw_only=True)
class OpeningRule:
    """A requirement together with the bobtail option, for callers that carry both as one value."""

    requirement: OpeningRequirement = OpeningRequirement.JACKS
    bobtail_allowed: bool = False

    def meets(self, cards: Sequence[int]) -> bool:
        return meets_requirement(cards, self.requirement, bobtail_allowed=self.bobtail_allowed)

    def proof(self, cards: Sequence[int]) -> tuple[Card, ...] | None:
        return proof(cards, self.requirement, bobtail_allowed=self.bobtail_allowed)


JACKS_OR_BETTER: Final = OpeningRule(requirement=OpeningRequirement.JACKS)
JACKS_OR_BOBTAIL: Final = OpeningRule(requirement=OpeningRequirement.JACKS, bobtail_allowed=True)
