"""Side pots and split pots (engine/pots.py), on the books' arithmetic."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from table_controller.engine.pots import Award, award_pots, side_pots, split


def test_one_pot_when_nobody_is_all_in_for_less() -> None:
    assert side_pots(30, [10, 10, 10], [0, 1, 2], [0, 2]) == [(30, [0, 2])]


def test_a_short_all_in_makes_a_side_pot_he_cannot_win() -> None:
    # Player 0 is all in for 4; 1 and 2 put in 10 each; 3 folded after 2. Two carried chips are dead money.
    pots = side_pots(28, [4, 10, 10, 2], [0, 1, 2], [0, 1, 2])
    assert pots == [(4 + 4 + 4 + 2 + 2, [0, 1, 2]), (12, [1, 2])]
    assert sum(amount for amount, _ in pots) == 28


def test_a_layer_nobody_may_win_is_listed_with_nobody() -> None:
    assert side_pots(24, [4, 10, 10], [0, 1, 2], [0]) == [(12, [0]), (12, [])]


def test_odd_chips_go_from_the_first_named_winner() -> None:
    assert split(10, 3) == [4, 3, 3]
    assert split(11, 3) == [4, 4, 3]
    assert split(10, 3, odd_first=2) == [3, 3, 4]
    assert split(11, 3, odd_first=1) == [4, 4, 3]
    assert split(9, 3, odd_first=1) == [3, 3, 3]


@given(amount=st.integers(0, 10_000), winners=st.integers(1, 8), data=st.data())
def test_a_split_conserves_every_chip(amount: int, winners: int, data: st.DataObject) -> None:
    first = data.draw(st.integers(0, winners - 1))
    shares = split(amount, winners, first)
    assert sum(shares) == amount
    assert max(shares) - min(shares) <= 1
    assert shares[first] == max(shares)


@given(contrib=st.lists(st.integers(0, 50), min_size=2, max_size=8), dead=st.integers(0, 20), data=st.data())
def test_side_pots_narrow_from_the_main_pot_up(contrib: list[int], dead: int, data: st.DataObject) -> None:
    n = len(contrib)
    contenders = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1)))
    pots = side_pots(sum(contrib) + dead, contrib, contenders, contenders)
    assert pots[0][1] == contenders  # everyone still in may win the main pot
    assert all(amount >= 0 for amount, _ in pots)
    for (_, lower), (_, upper) in pairwise(pots):
        assert set(upper) < set(lower)  # each side pot: fewer players, those who put in more


def test_the_short_all_in_wins_the_main_pot_and_the_best_other_hand_the_side_pot() -> None:
    # Player 0 all in for 4 holds the best hand; 1 beats 2 for the side pot; 3 folded after 2 chips.
    awards, carried = award_pots(28, [4, 10, 10, 2], [0, 1, 2], [0, 1, 2], values={0: 900, 1: 500, 2: 100}, button=3)
    assert awards == [Award(pot_index=0, amount=16, winners=(0,), shares=(16,), value=900),
                      Award(pot_index=1, amount=12, winners=(1,), shares=(12,), value=500)]
    assert carried == 0


def test_tied_winners_take_the_odd_chip_from_the_buttons_left_or_by_the_highest_card() -> None:
    # Players 0 and 2 tie for 11 chips with the button on 1: player 2 sits first to the button's left.
    awards, _ = award_pots(11, [4, 3, 4], [0, 2], [0, 2], values={0: 700, 2: 700}, button=1)
    assert awards[0].winners == (2, 0) and awards[0].shares == (6, 5)
    top = {0: 51, 2: 10}  # player 0 holds the highest card
    awards, _ = award_pots(11, [4, 3, 4], [0, 2], [0, 2], values={0: 700, 2: 700}, button=1, top_card=top.__getitem__)
    assert awards[0].winners == (2, 0) and awards[0].shares == (5, 6)


def test_chips_no_eligible_hand_may_win_are_carried() -> None:
    awards, carried = award_pots(24, [4, 10, 10], [0, 1, 2], [0], values={0: 300}, button=0)
    assert [a.amount for a in awards] == [12] and carried == 12
