"""What a player may wager now: the amount to call, the bounds of a bet or raise (the betting structure's range,
the entry a straddle or a blind opening asks, an all-in for less), and the checks of an amount and of openers.

Pure questions over the deal's public state (:class:`~table_controller.engine.hand_state.HandState`): the betting
acts (``Hand.bet``, ``raise_to`` ...) and the legal view (``legal.py``) ask them; nothing here changes the deal.
"""

from __future__ import annotations

from table_controller.engine.betting import R_BLOCK, R_LIMITS, Round
from table_controller.engine.config import STRADDLE_FORMS, Betting, GameForm, PassMeaning
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.hand_state import HandState
from table_controller.engine.opening import meets_requirement

__all__ = [
    "R_CHECK",
    "R_DOUBLE",
    "R_OPEN",
    "R_PASS_OUT",
    "R_STAY",
    "blind_entry_open",
    "can_bet_chips",
    "entry_pending",
    "full_threshold",
    "lacks_openers",
    "pass_and_out_unopened",
    "pass_is_check",
    "raise_bounds",
    "raise_limits",
    "to_call",
    "verify_amount",
    "verify_bet",
    "verify_call",
    "verify_check",
    "verify_fold",
    "verify_openers",
    "verify_pass_",
    "verify_raise_to",
]

R_CHECK = "003 Jackpots: pass (check) only while nobody has bet"
R_PASS_OUT = "003 Pass and out: each player in turn must either bet or drop"
R_OPEN = "003 Jackpots: a player may not open unless he has the requirement"
R_STAY = "003 Blind and straddle: the first player who stays must bet double the last straddle"
R_DOUBLE = "003 Blind opening: the player left of the blind opener must double the blind to stay (house option)"


def can_bet_chips(hand: HandState, i: int) -> bool:
    return not hand.folded[i] and hand.stack[i] > 0


def to_call(hand: HandState, i: int) -> int:
    return min(hand.current - hand.bets[i], hand.stack[i])


def entry_pending(hand: HandState, i: int) -> bool:
    if hand.entry <= 0:
        return False
    return hand.entry_seat is None or hand.entry_seat == i


def raise_bounds(hand: HandState, i: int) -> tuple[int, int] | None:
    """(min_to, max_to) for a bet or raise by player i now, or None if he may not bet or raise."""
    limits = raise_limits(hand, i)
    return None if limits is None else (limits[1], limits[2])


def raise_limits(hand: HandState, i: int) -> tuple[int, int, int] | None:
    """(full_to, min_to, max_to): the smallest full bet or raise, and the bounds once an all-in is allowed
    for less (an all-in below ``full_to`` is a short raise that does not reopen the betting)."""
    all_in_to = hand.bets[i] + hand.stack[i]
    cur = hand.current
    if all_in_to <= cur or hand.acted_full[i]:
        return None
    if not _could_be_called(hand, i):
        return None  # common practice: nobody is left who could call a raise
    entry = entry_pending(hand, i)
    bounds = hand.structure.raise_range(Round(
        current=cur, last_increment=hand.last_inc, raises=hand.raises, first=hand.interval == "first",
        pot_after_call=hand.pot + (cur - hand.bets[i]), all_in_to=all_in_to, predraw_level=hand.predraw_level,
        entry=entry))
    if bounds is None:
        return None
    lo, hi = bounds
    if entry:
        lo = max(lo, hand.entry)
        hi = max(hi, lo) if hand.config.betting is not Betting.FIXED_LIMIT else lo
    full = lo
    hi = min(hi, all_in_to)
    lo = min(lo, all_in_to)
    return full, lo, max(hi, lo)


def _could_be_called(hand: HandState, i: int) -> bool:
    """Whether another player still in could call a raise above the current bet."""
    return any(not hand.folded[j] and hand.stack[j] + hand.bets[j] > hand.current for j in hand.others[i])


def blind_entry_open(hand: HandState) -> bool:
    """In the straddle forms, nobody has stayed voluntarily yet: the only acts are fold and bet."""
    return hand.straddle_form and hand.interval == "first" and not hand.opened


def pass_and_out_unopened(hand: HandState) -> bool:
    return hand.pass_and_out and hand.interval == "first" and not hand.opened


def verify_amount(hand: HandState, i: int, to: int, act: str) -> None:
    if isinstance(to, bool) or not isinstance(to, int):
        raise IllegalActionError("bad_amount", f"'{act}' needs a whole number of chips 'to', got {to!r}")
    bounds = raise_bounds(hand, i)
    if bounds is None:
        if hand.config.betting is Betting.FIXED_LIMIT and hand.config.stakes.cap and \
                hand.raises >= hand.config.stakes.cap:
            raise IllegalActionError("cap_reached", f"the cap of {hand.config.stakes.cap} bets and raises is "
                                     "reached", rule="fixed limit: the cap on bets and raises per interval")
        raise IllegalActionError("cannot_raise", f"seat {hand.seat_no[i]} may not {act} now: "
                            "an all-in short raise does not reopen the betting to a player who already acted",
                            rule=R_LIMITS[hand.config.betting])
    lo, hi = bounds
    if not lo <= to <= hi:
        rule = R_BLOCK if hand.config.form is GameForm.BLOCK_SYSTEM else R_LIMITS[hand.config.betting]
        if entry_pending(hand, i) and to < hand.entry:
            rule = R_STAY if hand.config.form in STRADDLE_FORMS else R_DOUBLE
        raise IllegalActionError("bad_amount", f"{act} to {to} is outside {lo}..{hi}", rule=rule)


def lacks_openers(hand: HandState, i: int) -> bool:
    """Known cards that do not meet the requirement (unseen cards are proved later: 003 False openers)."""
    req = hand.requirement
    if req is None or not hand.config.options.refuse_false_open:
        return False
    cards = [hand.ident[p] for p in hand.hands[i]]
    known = [c for c in cards if c is not None]
    return len(known) == len(cards) and not meets_requirement(known, req,
                                                              bobtail_allowed=hand.config.bobtail_allowed)


def verify_openers(hand: HandState, i: int) -> None:
    req = hand.requirement
    if req is not None and lacks_openers(hand, i):
        raise IllegalActionError("no_openers", f"seat {hand.seat_no[i]} does not hold {req.value} or better "
                                 "to open", rule=R_OPEN)


def full_threshold(hand: HandState, i: int) -> int:
    limits = raise_limits(hand, i)
    return limits[0] if limits else 0


def pass_is_check(hand: HandState, i: int) -> bool:
    return (hand.config.options.pass_meaning is PassMeaning.CHECK_IF_FREE
            and not pass_and_out_unopened(hand) and hand.current <= hand.bets[i])


def _unit(hand: HandState) -> int:
    st = hand.config.stakes
    return st.small_bet if hand.interval == "first" else st.big_bet


# The checks of the betting acts (Hand.check, bet, call, raise_to, fold, pass_): raise the rule broken.

def _betting_common(hand: HandState, seat: int, act: str) -> int:
    i = hand.index_of(seat)
    hand.require_phase(act)
    hand.require_turn(i)
    return i


def verify_check(hand: HandState, seat: int) -> None:
    i = _betting_common(hand, seat, "check")
    if hand.current > hand.bets[i]:
        raise IllegalActionError("cannot_check", f"seat {seat} cannot check: {to_call(hand, i)} to call",
                                 rule=R_CHECK)
    if pass_and_out_unopened(hand):
        raise IllegalActionError("must_bet_or_drop", "before the pot is opened a player must bet or drop",
                            rule=R_PASS_OUT)


def verify_bet(hand: HandState, seat: int, to: int) -> None:
    i = _betting_common(hand, seat, "bet")
    if hand.current > 0 and not blind_entry_open(hand):
        raise IllegalActionError("cannot_bet", f"there is already a bet of {hand.current}: raise instead",
                            rule=R_LIMITS[hand.config.betting])
    verify_amount(hand, i, to, "bet")
    if hand.interval == "first" and not hand.opened:
        verify_openers(hand, i)


def verify_call(hand: HandState, seat: int) -> None:
    i = _betting_common(hand, seat, "call")
    if hand.current <= hand.bets[i]:
        raise IllegalActionError("nothing_to_call", f"seat {seat} has nothing to call: check instead", rule=R_CHECK)
    if blind_entry_open(hand):
        raise IllegalActionError("must_bet_to_stay", f"to stay, bet {hand.entry}", rule=R_STAY)
    if entry_pending(hand, i):
        raise IllegalActionError("must_double_to_stay", f"to stay, raise to {hand.entry}", rule=R_DOUBLE)


def verify_raise_to(hand: HandState, seat: int, to: int) -> None:
    i = _betting_common(hand, seat, "raise")
    if hand.current <= 0 or blind_entry_open(hand):
        raise IllegalActionError("cannot_raise", "there is no bet to raise: bet instead",
                                 rule=R_LIMITS[hand.config.betting])
    verify_amount(hand, i, to, "raise")


def verify_fold(hand: HandState, seat: int) -> None:
    i = _betting_common(hand, seat, "fold")
    if hand.current <= hand.bets[i] and not pass_and_out_unopened(hand):
        raise IllegalActionError("cannot_fold", f"seat {seat} faces no bet: check instead", rule=R_CHECK)


def verify_pass_(hand: HandState, seat: int) -> None:
    i = _betting_common(hand, seat, "fold")
    if pass_is_check(hand, i):
        verify_check(hand, seat)
