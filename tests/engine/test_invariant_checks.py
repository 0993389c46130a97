"""The invariant check after every act still catches every misplaced card and chip.

The card check re-proves the 52 places in full only when some pile or hand differs from its copy taken at the
last full check. These tests play random hands to a random point, then corrupt the state the way a bug
would (a card written over another in place, a card lost, a card twice, a chip made or lost) and expect an
:class:`InvariantError`; moves that keep every card in exactly one place (a swap between piles) must pass.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, Stakes
from table_controller.engine.errors import InvariantError
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.simulate import random_step

CONFIG = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=Betting.FIXED_LIMIT,
                    stakes=Stakes(ante=1, small_bet=2, big_bet=4, cap=4))


def _piles(hand: Hand) -> list[list[int]]:
    return [hand.stub, hand.burn_pile, hand.muck_pile, *hand.hands, *hand.held, *hand.discards]


def _played(seed: int) -> Hand:
    rng = random.Random(seed)
    n = rng.randrange(2, 7)
    deck = [card_str(c) for c in FULL_DECK]
    rng.shuffle(deck)
    hand = Hand(CONFIG, [SeatSpec(seat=k + 1, stack=60) for k in range(n)], 1, deck=deck)
    for _ in range(rng.randrange(25)):
        if hand.is_over:
            break
        random_step(hand, rng)
    hand.check_invariants()  # the state the engine left is sound
    return hand


def _slots(hand: Hand) -> list[tuple[int, int]]:
    return [(k, j) for k, pile in enumerate(_piles(hand)) for j in range(len(pile))]


CARD_CORRUPTIONS = ("overwrite", "lose", "twice")
CORRUPTIONS = [*CARD_CORRUPTIONS, "chip_made", "chip_lost", "negative"]


def _corrupt_cards(hand: Hand, how: str, pick: random.Random) -> None:
    """Break the card layout as a bug could: a card written over another, one lost, or one in two places."""
    piles, slots = _piles(hand), _slots(hand)
    if how == "overwrite":  # same lengths everywhere: one card written over another, in place
        (a, i), (b, j) = pick.sample(slots, 2)
        piles[a][i] = piles[b][j]
    elif how == "lose":
        a, i = pick.choice(slots)
        del piles[a][i]
    else:
        assert how == "twice"
        a, i = pick.choice(slots)
        pick.choice(piles).append(piles[a][i])


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), how=st.sampled_from(CORRUPTIONS), pick=st.randoms(use_true_random=False))
def test_every_corruption_is_caught_at_the_next_check(seed: int, how: str, pick: random.Random) -> None:
    hand = _played(seed)
    hand.check_invariants()  # twice: the second one takes the cheap path, the corruption must not hide there
    if how in CARD_CORRUPTIONS:
        _corrupt_cards(hand, how, pick)
    elif how == "chip_made":
        hand.stack[pick.randrange(len(hand.stack))] += 1
    elif how == "chip_lost":
        hand.collected -= 1
    else:  # a negative stack, the total kept right
        k = pick.randrange(len(hand.stack))
        hand.collected += hand.stack[k] + 1
        hand.stack[k] = -1
    with pytest.raises(InvariantError):
        hand.check_invariants()


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), pick=st.randoms(use_true_random=False))
def test_a_card_moved_or_swapped_between_piles_is_still_sound(seed: int, pick: random.Random) -> None:
    hand = _played(seed)
    piles, slots = _piles(hand), _slots(hand)
    (a, i), (b, j) = pick.sample(slots, 2)
    piles[a][i], piles[b][j] = piles[b][j], piles[a][i]
    hand.check_invariants()
    a, i = pick.choice(_slots(hand))
    pick.choice(piles).append(piles[a].pop(i))
    hand.check_invariants()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), how=st.sampled_from(CARD_CORRUPTIONS), pick=st.randoms(use_true_random=False))
def test_the_full_count_without_a_kept_copy_catches_them_too(seed: int, how: str, pick: random.Random) -> None:
    hand = _played(seed)
    hand.checked_layout = ()  # as before the first proof: all 52 places are counted
    _corrupt_cards(hand, how, pick)
    with pytest.raises(InvariantError):
        hand.check_invariants()


def test_the_kept_copy_is_never_a_live_pile() -> None:
    hand = _played(7)
    hand.check_invariants()
    live = {id(p) for p in _piles(hand)} | {id(hand.hands), id(hand.held), id(hand.discards)}
    kept = hand.checked_layout
    assert not live & ({id(p) for p in kept[:3]} | {id(g) for g in kept[3:]} | {id(p) for g in kept[3:] for p in g})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), how=st.sampled_from(CARD_CORRUPTIONS), pick=st.randoms(use_true_random=False))
def test_a_corruption_once_caught_is_caught_again(seed: int, how: str, pick: random.Random) -> None:
    # The kept copies are brought up to date in place while a changed layout is proved: a failed proof must not
    # leave them holding the bad layout as if it had been proved.
    hand = _played(seed)
    _corrupt_cards(hand, how, pick)
    for _ in range(2):
        with pytest.raises(InvariantError):
            hand.check_invariants()
