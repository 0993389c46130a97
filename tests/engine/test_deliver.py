"""Cards fed to a hand as the shoe delivers them: the same hand as one dealt from the whole deck at once."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, Stakes
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import CardsDelivered, CardsForgotten
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.record import ActionModel, apply_action, replay
from table_controller.engine.simulate import play_random
from tests.engine.helpers import dealt, draw_served

CODES = [card_str(c) for c in FULL_DECK]
CONFIG = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=Betting.FIXED_LIMIT,
                    stakes=Stakes(ante=1, small_bet=2, big_bet=4, cap=4))


def _seats(n: int) -> list[SeatSpec]:
    return [SeatSpec(seat=k + 1, stack=60) for k in range(n)]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 6))
def test_a_fed_hand_plays_as_the_whole_deck(seed: int, players: int) -> None:
    rng = random.Random(seed)
    deck = list(CODES)
    rng.shuffle(deck)
    whole = play_random(Hand(CONFIG, _seats(players), 1, deck=deck), rng)
    fed = Hand(CONFIG, _seats(players), 1, deck=deck[:5 * players])
    assert fed.delivered == 5 * players
    for act in whole.actions:
        if act["act"] == "draw":
            kinds = fed.shoe_cards_for_draw(act["seat"], len(act["discard"]))
            assert set(kinds) <= {"burn", "deal"}
            cards = deck[fed.delivered:fed.delivered + len(kinds)]
            assert fed.can_deliver(cards)
            events = fed.deliver(cards)
            assert events == [CardsDelivered(first=fed.delivered - len(cards), cards=tuple(cards))]
        apply_action(fed, ActionModel.model_validate(act))
    assert fed.result() == whole.result()
    assert fed.undelivered_in_stub() == len(deck) - fed.delivered  # no card left the stub before it came
    record = fed.to_record()
    assert record["deck"][:fed.delivered] == deck[:fed.delivered]
    assert set(record["deck"][fed.delivered:]) <= {"??"}
    assert replay(record) == fed.result()


def test_the_draw_asks_for_the_burn_then_the_cards() -> None:
    deck = list(CODES)
    hand = dealt(Hand(CONFIG, _seats(3), 3, deck=deck[:15]))
    while hand.legal_actions().acts != ("announce", "draw"):
        seat = hand.legal_actions().seat
        assert seat is not None
        if "check" in hand.legal_actions().acts:
            hand.check(seat)
        else:
            hand.call(seat)
    seat = hand.legal_actions().seat
    assert seat is not None
    assert hand.shoe_cards_for_draw(seat, 0) == ()
    assert hand.shoe_cards_for_draw(seat, 2) == ("burn", "deal", "deal")
    hand.deliver(deck[15:18])
    assert hand.shoe_cards_for_draw(seat, 2) == ()
    served = draw_served(hand, seat, list(hand.hole_cards(seat)[:2]))
    assert [e.to_json()["served"] for e in served if e.to_json()["event"] == "draw"] == [deck[16:18]]
    assert hand.events[-len(served) - 1:-len(served)] == [CardsDelivered(first=15, cards=tuple(deck[15:18]))]


def test_the_shoe_cannot_deliver_a_card_twice_or_more_than_the_pack() -> None:
    deck = list(CODES)
    hand = dealt(Hand(CONFIG, _seats(2), 1, deck=deck[:10]))
    with pytest.raises(IllegalActionError) as known:
        hand.deliver([deck[3]])  # a card already in a hand
    assert known.value.code == "card_elsewhere"
    with pytest.raises(IllegalActionError) as twice:
        hand.deliver([deck[20], deck[20]])
    assert twice.value.code == "duplicate_card"
    with pytest.raises(IllegalActionError) as bad:
        hand.deliver(["Zz"])
    assert bad.value.code == "bad_card"
    with pytest.raises(IllegalActionError) as many:
        hand.deliver(["??"] * 43)
    assert many.value.code == "pack_exhausted"
    assert hand.delivered == 10
    assert not hand.can_deliver([deck[3]])
    hand.deliver(["??", deck[11]])
    assert hand.delivered == 12
    assert hand.to_record()["deck"][10:13] == ["??", deck[11], "??"]


def test_a_forgotten_seat_holds_unknown_cards_and_its_record_replays() -> None:
    deck = list(CODES)
    hand = dealt(Hand(CONFIG, _seats(3), 3, deck=deck[:15]))
    held = hand.hole_cards(1)
    events = hand.forget(1)
    assert events == [CardsForgotten(seat=1, count=5)]
    assert hand.hole_cards(1) == ("??",) * 5
    assert hand.hole_cards(2) != ("??",) * 5
    record = hand.to_record()
    assert not set(held) & set(record["deck"])
    assert replay(record) == hand.result()
    assert all(e["event"] not in ("forgotten", "delivered") for e in hand.result()["events"])


def _code_of(exc: IllegalActionError | None) -> str | None:
    return None if exc is None else exc.code


def _refusal(act: Callable[..., None], *args: object) -> IllegalActionError | None:
    try:
        act(*args)
    except IllegalActionError as exc:
        return exc
    return None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 6))
def test_a_draw_by_count_is_verified_as_if_the_seat_were_forgotten(seed: int, players: int) -> None:
    """verify_draw_count answers what forget then a draw of "??" cards would (on a hand replayed to the same
    point), for every count, and changes nothing."""
    rng = random.Random(seed)
    deck = list(CODES)
    rng.shuffle(deck)
    hand = dealt(Hand(CONFIG, _seats(players), 1, deck=deck))
    while not hand.is_over and hand.legal_actions().acts != ("announce", "draw"):
        legal = hand.legal_actions()
        assert legal.seat is not None
        hand.check(legal.seat) if "check" in legal.acts else hand.call(legal.seat)
    if hand.is_over:
        return
    seat = hand.legal_actions().seat
    assert seat is not None
    before = (hand.result(), hand.card_identities(), len(hand.events))
    for count in range(7):
        twin = Hand(CONFIG, _seats(players), 1, deck=deck)
        for act in hand.actions:
            apply_action(twin, ActionModel.model_validate(act))
        twin.forget(seat)
        expected = _refusal(twin.verify_draw, seat, ["??"] * count)
        assert _code_of(_refusal(hand.verify_draw_count, seat, count)) == _code_of(expected), count
    assert (hand.result(), hand.card_identities(), len(hand.events)) == before
