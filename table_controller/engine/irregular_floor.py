"""Floor rulings: where the books are silent a supervisor voids the hand, awards the pot or moves chips
between the pot and a stack, naming who ruled and why (common card-room practice). Conservation still holds:
the hand checks its chips and cards after every ruling as after every act. No ruling moves a card on the stub
(each handler returns no stub moves: see :mod:`irregular_deal`).
"""

from __future__ import annotations

from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import (
    PotAwarded,
)
from table_controller.engine.hand_state import HandState
from table_controller.engine.irregular_core import (
    NO_MOVES,
    R_FLOOR,
    FloorRuled,
    Moves,
    Report,
    seat_index,
    void,
)
from table_controller.engine.machine import Phase


def _floor_common(report: Report) -> None:
    if not report.by.strip() or not report.reason.strip():
        raise IllegalActionError("bad_ruling", "a floor ruling names who ruled ('by') and why ('reason')",
                                 rule=R_FLOOR)


def void_hand(hand: HandState, report: Report, apply_it: bool) -> Moves:
    _floor_common(report)
    if apply_it:
        void(hand, report, antes_back=True, status="void", rule=f"{R_FLOOR}: {report.reason}")
    return NO_MOVES


def award_pot(hand: HandState, report: Report, apply_it: bool) -> Moves:
    _floor_common(report)
    seats = report.seats or ([report.seat] if report.seat is not None else [])
    if not seats or len(set(seats)) != len(seats):
        raise IllegalActionError("bad_ruling", "'seats' names who is awarded the pot", rule=R_FLOOR)
    players = [hand.index_of(s) for s in seats]
    total = hand.collected + sum(hand.bets)
    if report.shares is not None:
        if len(report.shares) != len(seats) or sum(report.shares) != total:
            raise IllegalActionError("bad_ruling", f"'shares' must give each awarded seat its part of {total}",
                                     rule=R_FLOOR)
        shares = list(report.shares)
    else:
        b, n = hand.button_index, hand.n
        players.sort(key=lambda j: (j - b - 1) % n)
        share, odd = divmod(total, len(players))
        shares = [share + (1 if k < odd else 0) for k in range(len(players))]
    if not apply_it:
        return NO_MOVES
    h = hand
    h.collect()
    for j, s in zip(players, shares, strict=True):
        h.stack[j] += s
    h.collected -= sum(shares)
    h.to_act = None
    h.emit(FloorRuled(ruling=report.kind, by=report.by, reason=report.reason))
    h.move(Phase.COMPLETE, "floor_ruling")
    h.emit(PotAwarded(pot_index=0, amount=sum(shares), seats=tuple(h.seat_no[j] for j in players),
                       shares=tuple(shares), hand="floor ruling"))
    h.status = "complete"
    h.end()
    return NO_MOVES


def move_chips(hand: HandState, report: Report, apply_it: bool) -> Moves:
    _floor_common(report)
    i = seat_index(hand, report.seat, report.kind)
    amount = report.amount or 0
    if amount <= 0 or report.to_pot is None:
        raise IllegalActionError("bad_ruling", "'amount' (> 0) and 'to_pot' (true: stack to pot; false: pot to "
                                 "stack) are needed", rule=R_FLOOR)
    h = hand
    if report.to_pot:
        if amount > h.stack[i]:
            raise IllegalActionError("bad_ruling", f"seat {report.seat} has only {h.stack[i]} chips", rule=R_FLOOR)
        if h.to_act == i and amount == h.stack[i] and h.phase in (Phase.FIRST_BETTING, Phase.FINAL_BETTING):
            raise IllegalActionError("bad_ruling", "that would leave the player to act without chips", rule=R_FLOOR)
    else:
        free = h.collected + sum(h.bets) - sum(h.contrib)  # the carried pot and dead antes
        limit = min(h.collected, h.contrib[i] - h.bets[i] + max(free, 0))
        if amount > limit:
            raise IllegalActionError("bad_ruling", f"at most {limit} chips of the collected pot can go to seat "
                                     f"{report.seat}", rule=R_FLOOR)
    if not apply_it:
        return NO_MOVES
    if report.to_pot:
        h.stack[i] -= amount
        h.collected += amount
        h.contrib[i] += amount
    else:
        own = min(amount, h.contrib[i] - h.bets[i])
        # Beyond his own chips the amount comes from the carried pot, then from the dead antes: what it takes of
        # these is no longer dead money (a later void must not hand it back to the button as well).
        carried = max(h.collected + sum(h.bets) - sum(h.contrib) - h.dead, 0)
        h.dead -= min(max(amount - own - carried, 0), h.dead)
        h.contrib[i] -= own
        h.collected -= amount
        h.stack[i] += amount
    h.emit(FloorRuled(ruling=report.kind, by=report.by, reason=report.reason, seat=report.seat, amount=amount))
    return NO_MOVES
