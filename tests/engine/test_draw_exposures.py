"""Cards exposed in the draw are found by their place in the draw as served, however many of its cards were exposed
and replaced before (003 Incorrect dealing in the draw 1; 000 Card exposed in the draw; 001 IV 6), and a remedy that
counts a draw again is refused once a card of it has left the player's hand.

A player's draw is not the last cards of his hand: once an exposed card of it has gone among the discards, those are
other cards (a card he kept from his original hand, or, the hand then shorter than the draw, only its last card). With
a shoe that reads no card, a later exposed card must still be learnt on the card served at its place, so that the
player's true cards are accepted at the showdown.
"""

from __future__ import annotations

import pytest

from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, HouseOptions, Stakes
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.irregular import IrregularityRuled, Report, mixed_pool
from table_controller.engine.irregular_options import ExposedDrawCard
from table_controller.engine.machine import Phase
from table_controller.engine.record import replay
from tests.engine.helpers import dealt, draw_served

# Seats 2, 3 and 4, the button at seat 3, so the deal and the draw go 4, 2, 3.
HANDS = {4: ["9d", "3s", "Kd", "3d", "8d"], 2: ["8h", "Jc", "Jd", "Ts", "Qd"], 3: ["4d", "7h", "Qh", "6d", "4c"]}
STUB = ["Ac",  # burnt before the draw
        "6s", "7c",  # seat 4's draw
        "Ks", "8c", "7s", "2c",  # seat 2's draw, in the order served
        "7d", "Ah",  # seat 3's draw
        "Td", "5d", "Th", "5c", "9h", "As", "Qc", "2d"]
SEAT_2_DRAW = ["Ks", "8c", "7s", "2c"]
REPLACEMENTS = ["Td", "5d"]  # served to seat 2 for his two exposed cards when the draw is over


def _deck() -> list[str]:
    """The shoe's order: the deal, one card at a time, the stub above, then the cards no one reaches."""
    cards = [HANDS[seat][k] for k in range(5) for seat in (4, 2, 3)] + STUB
    cards += [c for c in map(card_str, FULL_DECK) if c not in cards]
    assert len(set(cards)) == len(cards) == 52
    return cards


def _hand(exposed_draw_card: ExposedDrawCard, *, reader: bool) -> tuple[Hand, list[str]]:
    """The hand dealt, its first betting interval checked round; ``reader``: the shoe reads the cards it deals
    (else each is "??" until named), and the deck's true order."""
    config = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=Betting.FIXED_LIMIT,
                        stakes=Stakes(ante=1, small_bet=2, big_bet=4, cap=4),
                        options=HouseOptions(exposed_draw_card=exposed_draw_card))
    truth = _deck()
    hand = dealt(Hand(config, [SeatSpec(seat=s, stack=100) for s in (2, 3, 4)], 3, deck=truth if reader else None))
    for seat in (4, 2, 3):
        hand.check(seat)
    assert hand.phase is Phase.DRAWING
    return hand, truth


def _held(hand: Hand, truth: list[str], seat: int) -> list[str]:
    """The cards the seat truly holds (the engine knows them by shoe position)."""
    return [truth[p] for p in hand.card_positions(seat)]


def _known_truly(hand: Hand, truth: list[str]) -> bool:
    """Every card the engine has identified lies where it says."""
    return all(code in ("??", truth[p]) for p, code in enumerate(hand.card_identities()))


def _seat_2_served(hand: Hand) -> None:
    """Seat 4 throws 9d 3s and draws two, then seat 2 throws 8h Jc Jd Ts and is served Ks 8c 7s 2c; he keeps Qd.
    Without a reader the dealer enters the discards unnamed ("??": the first cards of the hand, the same ones)."""
    unread = hand.hole_cards(2)[0] == "??"
    draw_served(hand, 4, ["??"] * 2 if unread else ["9d", "3s"])
    draw_served(hand, 2, ["??"] * 4 if unread else ["8h", "Jc", "Jd", "Ts"])


def test_a_second_card_exposed_in_the_draw_is_the_one_served_at_its_place() -> None:
    """The breaking sequence, a shoe without a reader: the second card of seat 2's draw (8c) is exposed, then the
    first (Ks), each reported by its place in the draw as served. Each goes among the discards (001 IV 6: an open
    card is never kept) and is replaced at the end of the draw; the kept Qd stays in his hand. The engine learnt Ks
    on the Qd and threw that out instead, and refused seat 2's show ("Ks is known to be elsewhere"); now the hand
    ends at the showdown, every player showing his true cards, and replays from its record."""
    hand, truth = _hand(ExposedDrawCard.NEVER_KEPT, reader=False)
    _seat_2_served(hand)
    assert _held(hand, truth, 2) == ["Qd", *SEAT_2_DRAW]

    hand.irregularity(Report(kind="exposed_in_draw", seat=2, card="8c", count=2))
    assert _held(hand, truth, 2) == ["Qd", "Ks", "7s", "2c"]
    ruling = hand.irregularity(Report(kind="exposed_in_draw", seat=2, card="Ks", count=1))[-1]
    assert isinstance(ruling, IrregularityRuled) and ruling.cards == ("Ks",)
    assert "goes among the discards" in ruling.remedy
    assert _held(hand, truth, 2) == ["Qd", "7s", "2c"]
    assert _known_truly(hand, truth)

    draw_served(hand, 3, ["??", "??"])  # the last drawer: the draw is over, seat 2's replacements are served
    assert hand.phase is Phase.FINAL_BETTING
    assert _held(hand, truth, 2) == ["Qd", "7s", "2c", *REPLACEMENTS]
    for seat in (4, 2, 3):
        hand.check(seat)
    while not hand.is_over:  # every player shows his true cards, as the camera reads them
        shows = hand.legal_actions().seat
        assert shows is not None
        hand.show(shows, _held(hand, truth, shows))
    assert _known_truly(hand, truth)
    assert sum(hand.stacks().values()) + hand.carried_pot == 300
    assert replay(hand.to_record()) == hand.result()


def test_the_first_card_drawn_is_kept_after_a_later_one_was_replaced() -> None:
    """003 Incorrect dealing in the draw 1: "a player must accept such exposed card if it is the first card drawn";
    a later card of the draw exposed first does not make the next one the first."""
    hand, _ = _hand(ExposedDrawCard.FIRST_KEPT, reader=True)
    _seat_2_served(hand)
    hand.irregularity(Report(kind="exposed_in_draw", seat=2, card="8c"))
    ruling = hand.irregularity(Report(kind="exposed_in_draw", seat=2, card="Ks"))[-1]
    assert isinstance(ruling, IrregularityRuled)
    assert ruling.remedy == "the first card drawn must be accepted"
    assert hand.hole_cards(2) == ("Qd", "Ks", "7s", "2c")


@pytest.mark.parametrize("reader", [True, False])
def test_a_card_kept_from_the_original_hand_is_not_a_card_of_the_draw(reader: bool) -> None:
    """After 8c is replaced seat 2 holds Qd and three cards of his draw: the first card of his draw is Ks (place 1),
    never Qd, and a place whose card was replaced names nothing. Refused, and nothing changes; the places still
    count the replaced card."""
    hand, truth = _hand(ExposedDrawCard.NEVER_KEPT, reader=reader)
    _seat_2_served(hand)
    hand.irregularity(Report(kind="exposed_in_draw", seat=2, card="8c", count=2))
    before = (hand.result(), hand.actions[:], hand.card_identities())
    refused = [(Report(kind="exposed_in_draw", seat=2, card="8c", count=2), "not_held")]
    if reader:  # without one, Qd at place 1 is a false report the engine cannot tell: it learns Qd there
        refused += [(Report(kind="exposed_in_draw", seat=2, card="Qd", count=1), "card_elsewhere"),
                    (Report(kind="exposed_in_draw", seat=2, card="Qd"), "card_elsewhere")]
    for report, code in refused:
        with pytest.raises(IllegalActionError) as exc:
            hand.irregularity(report)
        assert exc.value.code == code, report
    assert (hand.result(), hand.actions, hand.card_identities()) == before
    # The last card served is at place 4 still, although seat 2 now holds only four cards.
    hand.irregularity(Report(kind="exposed_in_draw", seat=2, card="2c", count=4))
    assert _held(hand, truth, 2) == ["Qd", "Ks", "7s"]
    assert _known_truly(hand, truth)


def test_mixed_cards_after_an_exposed_card_leave_the_kept_cards_alone() -> None:
    """003 Other rules governing the draw 4: the mixed draw is shuffled with the discards and the unclean cards, not
    the cards he kept from his original hand. Seat 2's draw, less its exposed 8c, is served again (three cards);
    the replacement for 8c still comes when the draw is over."""
    hand, _ = _hand(ExposedDrawCard.NEVER_KEPT, reader=True)
    _seat_2_served(hand)
    hand.irregularity(Report(kind="exposed_in_draw", seat=2, card="8c"))
    pool = mixed_pool(hand, [2])
    assert sorted(pool) == sorted(["8c", "9d", "3s", "8h", "Jc", "Jd", "Ts", "Ks", "7s", "2c"])
    hand.irregularity(Report(kind="mixed_cards", seats=[2], order=list(pool)))
    assert hand.hole_cards(2)[0] == "Qd" and len(hand.hole_cards(2)) == 4
    draw_served(hand, 3, ["4d", "7h"])
    assert hand.phase is Phase.FINAL_BETTING
    assert hand.hole_cards(2)[0] == "Qd" and len(hand.hole_cards(2)) == 5
    assert replay(hand.to_record()) == hand.result()


@pytest.mark.parametrize("count", [3, 5])
def test_a_draw_with_a_card_replaced_is_not_counted_again(count: int) -> None:
    """A miscount reported after an exposed card of the draw went among the discards: the cards it would put back
    on the pack, or name as the surplus, are no longer the draw he asked for. Refused (the floor rules)."""
    hand, _ = _hand(ExposedDrawCard.NEVER_KEPT, reader=True)
    _seat_2_served(hand)
    hand.irregularity(Report(kind="exposed_in_draw", seat=2, card="8c"))
    before = (hand.result(), hand.actions[:], hand.card_identities())
    with pytest.raises(IllegalActionError) as exc:
        hand.irregularity(Report(kind="draw_miscount", seat=2, count=count, looked="none", cards=["Qd"]))
    assert exc.value.code == "draw_changed"
    assert (hand.result(), hand.actions, hand.card_identities()) == before
