"""Between deals: the first dealer, the button's move, and what the next deal inherits from this one.

001 Game procedure 1: one card open to each player from the dealer's left; the high card takes the button,
ties between equal ranks broken by suit, spades, hearts, diamonds, clubs. The button then moves clockwise
after each deal (001 Introduction); players join and leave between deals, never during one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from table_controller.engine.cards import Card
from table_controller.engine.errors import ConfigError
from table_controller.engine.hand import Hand


def first_dealer(cut: Mapping[int, Card]) -> int:
    """The seat that takes the first button: the highest card, suits ranking spades > hearts > diamonds > clubs.

    Cards are ``rank * 4 + suit`` with suits clubs, diamonds, hearts, spades in that order, so the highest
    number is the highest card by rank and then by the book's suit order.
    """
    if len(cut) < 2:
        raise ConfigError("the cut for the deal needs at least two players")
    if len(set(cut.values())) != len(cut):
        raise ConfigError("the same card appears twice in the cut for the deal")
    return max(cut, key=lambda seat: cut[seat])


def next_button(seats: Sequence[int], button: int) -> int:
    """The button's seat for the next deal: the next occupied seat clockwise (seat numbers rise clockwise).

    ``button`` may have left the table; the button still moves to the next seat after it.
    """
    if not seats:
        raise ConfigError("no players for the next deal")
    ordered = sorted(seats)
    return next((s for s in ordered if s > button), ordered[0])


@dataclass(frozen=True, kw_only=True)
class NextDeal:
    """What a finished hand leaves for the next deal at the same table."""

    button: int
    carried_pot: int
    passed_deals: int
    stacks: dict[int, int]
    ante_for_all: int | None = None  # 003 False openers 2, house option: the false opener antes for everyone


def next_deal(hand: Hand, *, seats_next: Sequence[int] | None = None) -> NextDeal:
    """The next deal's button, carried pot, passed-deal count (for progressive jackpots) and stacks.

    A passed-out deal counts towards the progressive requirement; any other ending resets it. The carried pot
    is whatever stays on the table (003 Jackpots: "everyone antes again" on the next deal).
    """
    if not hand.is_over:
        raise ConfigError("the hand is not over")
    seats = list(seats_next) if seats_next is not None else [s.seat for s in hand.seats]
    if hand.status in ("misdeal", "void"):  # a voided deal is dealt again (docs/irregularities.md)
        passes = hand.irregular_state is not None and bool(hand.irregular_state.next_deal.get("deal_passes"))
        button = next_button(seats, hand.button) if passes or hand.button not in seats else hand.button
        return NextDeal(button=button, carried_pot=hand.carried_pot, passed_deals=hand.passed_deals,
                        stacks=hand.stacks())
    passed = hand.passed_deals + 1 if hand.status == "passed_out" else 0
    penalty = hand.result().get("next_deal", {}).get("antes_for_all")
    return NextDeal(button=next_button(seats, hand.button), carried_pot=hand.carried_pot, passed_deals=passed,
                    stacks=hand.stacks(), ante_for_all=penalty if penalty in seats else None)
