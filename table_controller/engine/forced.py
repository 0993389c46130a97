"""The start of a deal: the forced bets (each player's ante, the dealer's or one player's ante for all, the blind,
the blind opening, the block system's ante, blind and raise), the dealer's deal of five cards each from the
dealer's left, and the straddles that follow the blind (003 Blind and straddle).

Functions over the deal's public state (:class:`~table_controller.engine.hand_state.HandState`); ``Hand`` runs
:func:`start` when it is built (the hand then waits in DEALING) and offers the deal and the straddles as its acts.
"""

from __future__ import annotations

from typing import Final

from table_controller.engine.acts import ActTaken
from table_controller.engine.config import STRADDLE_FORMS, AnteMode, GameForm
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import CardsDealt, Event, ForcedBetPosted, StraddleDeclined
from table_controller.engine.hand_state import HandState
from table_controller.engine.machine import Phase

__all__ = [
    "HAND_SIZE", "deal", "decline_straddle", "start", "straddle", "verify_deal", "verify_decline_straddle",
    "verify_straddle",
]

HAND_SIZE: Final = 5
R_STRADDLE = "003 Blind and straddle: a straddle doubles the last straddle, made only by the player left of the last"


def post(hand: HandState, i: int, amount: int, what: str, *, live: bool, as_bet: bool) -> int:
    paid = min(amount, hand.stack[i])
    hand.stack[i] -= paid
    if as_bet:
        hand.bets[i] += paid
    else:
        hand.collected += paid
    if live:
        hand.contrib[i] += paid
    else:
        hand.dead += paid
    hand.emit(ForcedBetPosted(seat=hand.seat_no[i], amount=paid, what=what, all_in=hand.stack[i] == 0))
    return paid


def start(hand: HandState) -> None:
    cfg, st, n, b = hand.config, hand.config.stakes, hand.n, hand.button_index
    form = cfg.form
    left = (b + 1) % n
    if st.ante > 0:
        if hand.ante_for_all is not None:
            hand.dead_payer = payer = hand.index[hand.ante_for_all]
            post(hand, payer, st.ante * n, "ante_for_all", live=False, as_bet=False)
        elif cfg.options.ante_mode is AnteMode.DEALER:
            post(hand, b, st.ante * n, "dealer_ante", live=False, as_bet=False)
        else:  # each player antes, from the dealer's left
            for i in _deal_order(n, left):
                hand.ante_paid[i] = post(hand, i, st.ante, "ante", live=True, as_bet=False)
    if form is GameForm.BLOCK_SYSTEM:
        post(hand, b, st.block_ante, "block_ante", live=False, as_bet=False)
        second = (left + 1) % n
        post(hand, left, st.block_blind, "block_blind", live=True, as_bet=True)
        post(hand, second, st.block_raise - hand.bets[second], "block_raise", live=True, as_bet=True)
        hand.current = max(hand.bets)
        hand.last_inc = st.block_raise - st.block_blind
        hand.forced_last = second
        hand.opened = True
    elif form in STRADDLE_FORMS:
        post(hand, left, st.blind, "blind", live=True, as_bet=True)
        hand.current = hand.bets[left]
        hand.forced_last = left
        hand.last_inc = st.blind
    elif form is GameForm.BLIND_OPENING:
        post(hand, left, st.blind, "blind_open", live=True, as_bet=True)
        hand.current = hand.bets[left]
        hand.last_inc = st.blind
        hand.raises = 1
        hand.opened = True
        hand.opener_index = left
        hand.forced_last = left
        if cfg.options.blind_opening_double_to_stay:
            hand.entry_seat = (left + 1) % n
            hand.entry = 2 * st.blind
    hand.move(Phase.DEALING, "start")
    hand.to_act = None
    hand.check_invariants()


def verify_deal(hand: HandState) -> None:
    hand.require_phase("deal")


def deal(hand: HandState) -> list[Event]:
    """The dealer's deal: five cards to each player, one at a time from the dealer's left; then the straddles in
    the blind-and-straddle forms, else the first interval (from the left of the last forced bet)."""
    verify_deal(hand)
    before = len(hand.events)
    hand.log_act(ActTaken(act="deal"))
    n, left = hand.n, (hand.button_index + 1) % hand.n
    _deal_cards(hand, _deal_order(n, left))
    if hand.straddle_form:
        nxt = (left + 1) % n
        if may_straddle(hand, nxt):
            hand.move(Phase.STRADDLING, "deal")
            hand.to_act = nxt
        else:
            begin_first_after_straddles(hand)
    else:
        hand.move(Phase.FIRST_BETTING, "deal")
        hand.open_interval(left if hand.forced_last is None else (hand.forced_last + 1) % n)
    return hand.done(before)


def _deal_cards(hand: HandState, order: tuple[int, ...]) -> None:
    n = hand.n
    stub = hand.stub
    # One card at a time from the dealer's left, five rounds: the k-th card off the top of the stub goes to
    # order[k % n]. Taken in one slice per player rather than card by card.
    top = len(stub)
    dealt = stub[top - HAND_SIZE * n:][::-1]
    del stub[top - HAND_SIZE * n:]
    hands: list[list[int]] = [[] for _ in order]
    for k, i in enumerate(order):
        hands[i] = dealt[k::n]
    hand.hands = hands
    hand.original = list(map(tuple, hands))
    seat_no = hand.seat_no
    hand.emit(CardsDealt(order=tuple(seat_no[i] for i in order), cards_each=HAND_SIZE))


def may_straddle(hand: HandState, i: int) -> bool:
    limit = hand.config.options.straddle_limit
    if limit is not None and hand.straddles >= limit:
        return False
    if hand.straddles >= hand.n - 2:  # a straddle never comes round to the blind again
        return False
    return hand.stack[i] > 0


def verify_straddle(hand: HandState, seat: int) -> None:
    i = hand.index_of(seat)
    hand.require_phase("straddle")
    hand.require_turn(i, R_STRADDLE)


def straddle(hand: HandState, seat: int) -> list[Event]:
    verify_straddle(hand, seat)
    before = len(hand.events)
    i = hand.index_of(seat)
    post(hand, i, 2 * hand.current, "straddle", live=True, as_bet=True)
    hand.current = max(hand.current, hand.bets[i])
    hand.last_inc = hand.current
    hand.forced_last = i
    hand.straddles += 1
    hand.log_act(ActTaken(act="straddle", seat=seat))
    nxt = (i + 1) % hand.n
    if may_straddle(hand, nxt):
        hand.move(Phase.STRADDLING, "straddle")
        hand.to_act = nxt
    else:
        hand.move(Phase.FIRST_BETTING, "straddle")
        begin_first_after_straddles(hand, moved=True)
    return hand.done(before)


def verify_decline_straddle(hand: HandState, seat: int) -> None:
    i = hand.index_of(seat)
    hand.require_phase("decline_straddle")
    hand.require_turn(i, R_STRADDLE)
    if hand.config.options.straddle_compulsory and hand.straddles == 0:
        raise IllegalActionError("straddle_compulsory", "the first straddle is compulsory in this game",
                            rule="003 Blind and straddle: in many games at least one straddle is obligatory")


def decline_straddle(hand: HandState, seat: int) -> list[Event]:
    verify_decline_straddle(hand, seat)
    before = len(hand.events)
    hand.emit(StraddleDeclined(seat=seat))
    hand.log_act(ActTaken(act="decline_straddle", seat=seat))
    hand.move(Phase.FIRST_BETTING, "decline_straddle")
    begin_first_after_straddles(hand, moved=True)
    return hand.done(before)


def begin_first_after_straddles(hand: HandState, *, moved: bool = False) -> None:
    if not moved:
        hand.move(Phase.FIRST_BETTING, "deal")
    assert hand.forced_last is not None
    hand.entry = 2 * hand.current
    hand.open_interval((hand.forced_last + 1) % hand.n)


def _deal_order(n: int, left: int) -> tuple[int, ...]:
    """Player indices in the order served, from the dealer's left."""
    return tuple((left + k) % n for k in range(n))
