"""A betting interval's flow: who acts next, what follows each betting act, and how an interval closes
(the uncalled bet returned, the bets collected, then the draw, the showdown or a deal passed out), over the
deal's public state (:class:`~table_controller.engine.hand_state.HandState`). ``Hand`` offers these as its
steps; the acts themselves and their checks are ``Hand``'s and ``wagers``'.
"""

from __future__ import annotations

from table_controller.engine import draw as draw_
from table_controller.engine import showdown, wagers
from table_controller.engine.config import FORCED_BLIND_FORMS, PASS_AND_BACK_IN_FORMS, GameForm
from table_controller.engine.events import BetReturned, IntervalClosed, PotCarried
from table_controller.engine.hand_state import HandState
from table_controller.engine.machine import Phase

__all__ = ["after_act", "begin_final", "close_interval", "collect", "open_interval", "return_uncalled", "set_next"]


def open_interval(hand: HandState, first: int) -> None:
    """Start a betting interval with the first player from ``first`` who can act; none: close it at once."""
    can_bet = [wagers.can_bet_chips(hand, i) for i in range(hand.n)]
    # A player acts only if someone else could answer him, or he has a bet to meet.
    if can_bet.count(True) >= 2:
        hand.needs = can_bet
    else:
        hand.needs = [can_bet[i] and hand.bets[i] < hand.current for i in range(hand.n)]
    hand.acted_full = [False] * hand.n
    hand.aggressor = None
    # The turn is read back from set_next, not from hand.to_act: a type checker keeps the None stored just
    # before a call, and the compiled build would trust it.
    if hand.set_next(first, inclusive=True) is None:
        hand.close_interval("no_action")


def set_next(hand: HandState, start: int, *, inclusive: bool) -> int | None:
    """Give the turn to the next player from ``start`` who still has to act; returns him (None: nobody)."""
    order = (start, *hand.after[start]) if inclusive else hand.after[start]
    hand.to_act = next((j for j in order if hand.needs[j] and wagers.can_bet_chips(hand, j)), None)
    return hand.to_act


def after_act(hand: HandState, i: int, trigger: str) -> None:
    hand.needs[i] = False
    hand.acted_full[i] = True
    live = hand.live()
    if len(live) == 1:
        hand.finish_uncontested(live[0], trigger)
        return
    if hand.set_next(i, inclusive=False) is not None:
        hand.move(hand.phase or Phase.FIRST_BETTING, trigger)  # the interval stays open
        return
    hand.close_interval(trigger)


def return_uncalled(hand: HandState) -> None:
    if hand.n < 2:
        return
    bets = hand.bets
    top = 0  # the first highest bet
    for i in range(1, hand.n):
        if bets[i] > bets[top]:
            top = i
    called = 0  # the highest of the others' bets (another's equal to the top: nothing returns)
    for i in range(hand.n):
        if i != top and bets[i] > called:
            called = bets[i]
    excess = bets[top] - called
    if excess > 0:
        hand.bets[top] -= excess
        hand.contrib[top] -= excess
        hand.stack[top] += excess
        hand.emit(BetReturned(seat=hand.seat_no[top], amount=excess, reason="uncalled"))


def collect(hand: HandState) -> None:
    hand.collected += sum(hand.bets)
    hand.bets = [0] * hand.n


def close_interval(hand: HandState, trigger: str) -> None:
    """The bets are equalized (or nobody can act): collect, then the draw, the showdown or a passed deal."""
    hand.to_act = None
    if hand.interval == "first":
        if not hand.opened and hand.config.form in PASS_AND_BACK_IN_FORMS | {GameForm.PASS_AND_OUT}:
            hand.collect()
            hand.move(Phase.PASSED_OUT, trigger)
            hand.status = "passed_out"
            hand.emit(PotCarried(amount=hand.collected, reason="nobody opened: the pot stays for the next deal "
                                  "(003 Jackpots)"))
            hand.end()
            return
        hand.return_uncalled()
        hand.predraw_level = max(hand.bets)
        hand.collect()
        hand.emit(IntervalClosed(interval="first", pot=hand.collected))
        hand.move(Phase.DRAWING, trigger)
        draw_.begin_draw(hand)
        return
    hand.return_uncalled()
    hand.collect()
    hand.emit(IntervalClosed(interval="final", pot=hand.collected))
    hand.move(Phase.SHOWDOWN, trigger)
    showdown.begin_showdown(hand)


def begin_final(hand: HandState, trigger: str) -> None:
    hand.interval = "final"
    hand.current = 0
    hand.last_inc = 0
    hand.raises = 0
    hand.entry = 0
    hand.entry_seat = None
    folded, stack = hand.folded, hand.stack
    bettors = [i for i in range(hand.n) if not folded[i] and stack[i] > 0]  # _can_bet_chips of each
    if len(bettors) < 2 and not any(hand.bets):
        hand.move(Phase.SHOWDOWN, trigger)
        showdown.begin_showdown(hand)
        return
    form = hand.config.form
    if form is GameForm.FIVE_CARD_DRAW:
        first = (hand.button_index + 1) % hand.n  # 001 Game procedure 6
    elif form in FORCED_BLIND_FORMS and hand.forced_last is not None:
        first = (hand.forced_last + 1) % hand.n
    elif hand.opener_index is not None:
        first = hand.opener_index  # 003 Final betting interval: the opener, or the next active to his left
    else:
        first = (hand.button_index + 1) % hand.n
    hand.final_first = first
    hand.move(Phase.FINAL_BETTING, trigger)
    hand.open_interval(first)
