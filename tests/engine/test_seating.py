"""First dealer by high card and suit (001), the button's move, and what the next deal inherits."""

from __future__ import annotations

import pytest

from table_controller.engine.cards import parse_card
from table_controller.engine.config import GameConfig, GameForm, Stakes
from table_controller.engine.errors import ConfigError
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.seating import first_dealer, next_button, next_deal
from tests.engine.helpers import dealt


@pytest.mark.parametrize("cut,dealer", [
    ({1: "Kd", 2: "As", 3: "2c"}, 2),
    ({1: "Ah", 2: "As", 3: "Ad"}, 2),  # 001: ties broken spades, hearts, diamonds, clubs
    ({1: "Qc", 4: "Qd", 6: "Jh"}, 4),
])
def test_first_dealer_high_card_then_suit(cut: dict[int, str], dealer: int) -> None:
    assert first_dealer({s: parse_card(c) for s, c in cut.items()}) == dealer


def test_first_dealer_refuses_a_card_twice() -> None:
    with pytest.raises(ConfigError):
        first_dealer({1: parse_card("As"), 2: parse_card("As")})


@pytest.mark.parametrize("seats,button,expected", [([1, 3, 5], 3, 5), ([1, 3, 5], 5, 1), ([1, 3, 5], 4, 5),
                                                  ([2, 7], 8, 2)])
def test_button_moves_clockwise_to_the_next_occupied_seat(seats: list[int], button: int, expected: int) -> None:
    assert next_button(seats, button) == expected


def test_passed_out_deal_carries_the_pot_and_raises_the_progressive_count() -> None:
    config = GameConfig(form=GameForm.PROGRESSIVE_JACKPOTS, stakes=Stakes(ante=1, small_bet=2, big_bet=4))
    hand = dealt(Hand(config, [SeatSpec(seat=s, stack=20) for s in (1, 2, 3)], 3, passed_deals=1, carried_pot=3))
    for seat in (1, 2, 3):
        hand.check(seat)
    nxt = next_deal(hand)
    assert (nxt.button, nxt.carried_pot, nxt.passed_deals) == (1, 6, 2)
    following = Hand(config, [SeatSpec(seat=s, stack=v) for s, v in nxt.stacks.items()], nxt.button,
                     carried_pot=nxt.carried_pot, passed_deals=nxt.passed_deals)
    assert following.requirement is not None and following.requirement.value == "kings"
    assert following.pot == 9  # the carried 6 and everyone antes again
