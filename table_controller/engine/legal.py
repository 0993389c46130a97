"""The legal view: what the dealer console shows, whose turn it is and exactly what that seat (or the dealer) may do
now, with the amounts. Computed directly from the deal's public state; the acts' verify methods accept exactly
what it lists (``tests/engine/test_properties.py`` checks that they agree), so ``Hand`` lets an act the view
already listed skip its separate verification.
"""

from __future__ import annotations

from typing import ClassVar, Final

from table_controller.engine import wagers
from table_controller.engine.events import Frozen
from table_controller.engine.hand_state import HandState
from table_controller.engine.machine import DEALER_ACTS, TERMINAL, Phase
from table_controller.engine.showdown import unmucked_left

__all__ = ["LegalActions", "legal_view"]


class LegalActions(Frozen):
    """What the dealer console shows: the phase, whose turn, and each act allowed with its amounts.

    ``acts`` lists the act names ``seat`` (or the dealer when ``seat`` is None) may take now: the dealer's are
    ``deal``, ``burn``, ``serve`` (each alone, due with the shoe's cards) and ``reshuffle``. ``min_to`` /
    ``max_to`` bound the total for ``bet`` or ``raise`` in this interval; ``call_amount`` is what a call puts
    in; ``max_discard`` the most cards ``draw`` may throw; ``reshuffle_size`` how many cards ``reshuffle``
    must order.
    """

    fields: ClassVar[tuple[str, ...]] = ("phase", "seat", "acts", "call_amount", "min_to", "max_to", "max_discard",
                                         "reshuffle_size")

    def __init__(self, *, phase: Phase, seat: int | None, acts: tuple[str, ...], call_amount: int = 0,
                 min_to: int = 0, max_to: int = 0, max_discard: int = 0, reshuffle_size: int = 0) -> None:
        self.phase: Final = phase
        self.seat: Final = seat
        self.acts: Final = acts
        self.call_amount: Final = call_amount
        self.min_to: Final = min_to
        self.max_to: Final = max_to
        self.max_discard: Final = max_discard
        self.reshuffle_size: Final = reshuffle_size


def legal_view(hand: HandState) -> LegalActions:
    phase, i = hand.phase, hand.to_act
    assert phase is not None
    hand.legal_full = 0
    if phase in TERMINAL:
        return LegalActions(phase=phase, seat=None, acts=())
    dealer_act = DEALER_ACTS.get(phase)
    if dealer_act is not None:
        return LegalActions(phase=phase, seat=None, acts=(dealer_act,))
    if phase is Phase.RESHUFFLING:
        return LegalActions(phase=phase, seat=None, acts=("reshuffle",), reshuffle_size=len(hand.reshuffle_pool()))
    assert i is not None
    seat = hand.seat_no[i]
    if phase is Phase.DRAWING:
        return LegalActions(phase=phase, seat=seat, acts=("announce", "draw"), max_discard=hand.max_discard(seat))
    if phase is Phase.SHOWDOWN:
        acts = ("show", "muck") if unmucked_left(hand) > 1 else ("show",)
        return LegalActions(phase=phase, seat=seat, acts=acts)
    if phase is Phase.STRADDLING:
        acts = ("straddle", "decline_straddle") if hand.can_decline_straddle(seat) else ("straddle",)
        return LegalActions(phase=phase, seat=seat, acts=acts, call_amount=0,
                            min_to=2 * hand.current, max_to=2 * hand.current)
    if phase is Phase.PROVING:
        return LegalActions(phase=phase, seat=seat, acts=("show", "muck"))
    if phase is Phase.REOPENING:
        acts = ("take_open", "decline_open") if hand.can_take_open(seat) else ("decline_open",)
        return LegalActions(phase=phase, seat=seat, acts=acts)
    return _legal_betting(hand, i, phase)


def _legal_betting(hand: HandState, i: int, phase: Phase) -> LegalActions:
    """The betting acts open to player i, computed directly (the verify methods give the same answers;
    tests/engine/test_properties.py checks that they agree)."""
    cur, bet = hand.current, hand.bets[i]
    owes = cur > bet
    unopened = hand.interval == "first" and not hand.opened
    blind_open = wagers.blind_entry_open(hand)
    acts: list[str] = []
    if not owes and not wagers.pass_and_out_unopened(hand):
        acts.append("check")
    lo = hi = 0
    limits = wagers.raise_limits(hand, i)
    if limits is not None:
        full, lo, hi = limits
        kind_bet = cur == 0 or blind_open
        if kind_bet and unopened and hand.requirement is not None and wagers.lacks_openers(hand, i):
            lo = hi = 0
        else:
            acts.append("bet" if kind_bet else "raise")
            hand.legal_full = full
    call_amount = 0
    if owes and not blind_open and not wagers.entry_pending(hand, i):
        acts.append("call")
        call_amount = wagers.to_call(hand, i)
    if owes or wagers.pass_and_out_unopened(hand):
        acts.append("fold")
    if hand.interval == "first" and i == hand.opener_index and hand.requirement is not None:
        acts.append("declare_no_openers")
    return LegalActions(phase=phase, seat=hand.seat_no[i], acts=tuple(acts), call_amount=call_amount,
                        min_to=lo, max_to=hi)
