"""False openers: 003 False openers 2 (the opener lacks openers "before the draw", and another player may open in
his place) and 3 with 000 False openers (nobody called the false opener: who withdraws what).

"Before the draw" is the first betting interval and the draw until its first card is served (or a card is
thrown): the last call closes the interval and the phase becomes ``drawing``, but the draw has not begun. An
announcement by the opener (``Hand.declare_no_openers``) and a foul opener's hand found then (a ``false_openers``
or ``foul_hand`` report, a six-card opener) both take this procedure: the others are asked in turn from his left
whether they open in his place (``take_open`` / ``decline_open``); a new opener takes his place and the game
proceeds where it stood (the betting, or the draw); if none, every other player takes back what he put in
except his ante, and the antes and the false opener's chips stay for the next deal.

When nobody called him (:func:`false_opener_uncalled`) the books agree after the draw (the others withdraw all
but their antes; a player may choose to leave his chips in) and disagree before it (003: every chip stays; 000:
the others withdraw): house option ``uncalled_false_opener``.

Like the other ``irregular_*`` modules this works on the deal's public state, ``HandState`` (machine.py's
transition table stays the single source of truth). docs/irregularities.md.
"""

from __future__ import annotations

from table_controller.engine import wagers
from table_controller.engine.acts import ActTaken
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import BetReturned, DrawServed, Event, OpenersJudged, PotCarried
from table_controller.engine.hand_state import HandState
from table_controller.engine.irregular_options import UncalledFalseOpener
from table_controller.engine.machine import Phase

R_FALSE2 = "003 False openers 2"
R_FALSE3 = "003 False openers 3"
R_FALSE_000 = "000 False openers"



def return_bets(h: HandState, *, antes_back: bool, reason: str, keep: int | None = None) -> None:
    """Every player's chips in the pot go back to him (his ante too when ``antes_back``), except the player at
    index ``keep``: what is still in front of him comes off his bet, the rest out of the pot."""
    for j in range(h.n):
        back = h.contrib[j] if antes_back else h.contrib[j] - h.ante_paid[j]
        if j == keep or back <= 0:
            continue
        from_bet = min(back, h.bets[j])
        h.bets[j] -= from_bet
        h.collected -= back - from_bet
        h.contrib[j] -= back
        h.stack[j] += back
        h.emit(BetReturned(seat=h.seat_no[j], amount=back, reason=reason))

def before_the_draw(hand: HandState) -> bool:
    """The first betting interval, or the draw before any card of it is served or thrown (003 False openers 2)."""
    if hand.phase is Phase.FIRST_BETTING:
        return True
    if hand.phase is not Phase.DRAWING:
        return False
    return not any(isinstance(e, DrawServed) and (e.served or e.discards) for e in hand.events)


def ask_for_a_new_opener(h: HandState, i: int, trigger: str) -> None:
    """Player i, the opener, lacks openers before the draw: his hand is foul and kept apart; the others are asked
    in turn from his left whether they open in his place."""
    h.foul[i] = True
    h.folded[i] = True
    h.false_opener_case = 2
    h.held[i] += h.hands[i]
    h.hands[i] = []
    # Where the game resumes if someone takes over: the player to act in the betting, or (None) the draw.
    h.resume_at = h.to_act if h.phase is Phase.FIRST_BETTING else None
    n = h.n
    h.reopen_queue = [(i + k) % n for k in range(1, n) if not h.folded[(i + k) % n]]
    h.reopen_pos = 0
    if not h.reopen_queue:
        no_new_opener(h, trigger)
    else:
        h.move(Phase.REOPENING, trigger)
        h.to_act = h.reopen_queue[0]


def resume_the_draw(h: HandState, trigger: str) -> None:
    """A new opener took the false opener's place after the betting closed: the draw proceeds without the
    false opener (players who stood pat before the announcement keep their turn taken)."""
    folded = h.folded
    done = [d for d in h.drawers[:h.draw_pos] if not folded[d]]
    rest = [d for d in h.drawers[h.draw_pos:] if not folded[d]]
    h.drawers = done + rest
    h.draw_pos = len(done)
    if rest:
        h.move(Phase.DRAWING, trigger)
        h.to_act = rest[0]
        return
    h.to_act = None  # nothing is owed after the draw: no card of it was served
    h.begin_final(trigger)


def no_new_opener(h: HandState, trigger: str) -> None:
    """Nobody takes over: every other player withdraws what he put in except his ante (his bet of this interval,
    or, once the interval has closed, his chips already in the pot); the antes and the false opener's chips stay
    for the next deal."""
    h.to_act = None
    return_bets(h, antes_back=False, reason=R_FALSE2, keep=h.opener_index)
    h.collect()
    h.move(Phase.PASSED_OUT, trigger)
    h.status = "passed_out"
    h.emit(PotCarried(amount=h.collected, reason=f"{R_FALSE2}: no other opener; the antes and the false opener's "
                       "bets stay for the next deal"))
    h.end()


def false_opener_uncalled(h: HandState, w: int, trigger: str) -> None:
    """Nobody called the false opener w (003 False openers 3; 000 False openers). After the draw both books let
    every other player withdraw what he put in except his ante; before the draw 003 keeps every chip in the pot
    (house option ``uncalled_false_opener``: ``others_withdraw`` reads 000, which makes no such difference). A
    player who chose to leave his chips in (report ``leave_in_pot``: "may withdraw") does not withdraw them. The
    opener's chips and the antes stay for the next deal."""
    h.foul[w] = True
    h.false_opener_case = 3
    h.move(Phase.COMPLETE, trigger)
    h.collect()
    before_draw = h.interval == "first"
    withdraw = not before_draw or h.config.options.uncalled_false_opener is UncalledFalseOpener.OTHERS_WITHDRAW
    rule = R_FALSE3 if not before_draw or not withdraw else f"{R_FALSE_000} (house option)"
    if not withdraw:
        reason = f"{R_FALSE3}: nobody called the false opener before the draw; all chips stay for the next deal"
    else:
        st = h.irregular_state
        staying = st.leave_in_pot if st is not None else set()
        for j in range(h.n):
            back = h.contrib[j] - h.ante_paid[j]
            if j == w or back <= 0 or j in staying:
                continue
            h.contrib[j] -= back
            h.collected -= back
            h.stack[j] += back
            h.emit(BetReturned(seat=h.seat_no[j], amount=back, reason=rule))
        left = "".join(f"; seat {h.seat_no[j]} left his chips in the pot" for j in sorted(staying) if j != w)
        reason = f"{rule}: the opener's chips and the antes stay for the next deal{left}"
    h.emit(PotCarried(amount=h.collected, reason=reason))
    h.status = "carried"
    h.end()


# The acts of 003 False openers 2: the opener declares he lacks openers; another player may take the open.

def verify_declare_no_openers(hand: HandState, seat: int) -> None:
    i = hand.index_of(seat)
    hand.require_phase("declare_no_openers")
    if i != hand.opener_index or hand.requirement is None or hand.interval != "first":
        raise IllegalActionError("not_the_opener", f"seat {seat} did not open this pot", rule=R_FALSE2)
    if not before_the_draw(hand):
        raise IllegalActionError("too_late", "the draw has begun: a card of it has been served", rule=R_FALSE2)


def declare_no_openers(hand: HandState, seat: int) -> list[Event]:
    """The opener announces before the draw (until its first card is served) that he lacks openers: his hand
    is foul, and another player holding openers may take his place (003 False openers 2)."""
    verify_declare_no_openers(hand, seat)
    before = len(hand.events)
    i = hand.index_of(seat)
    hand.log_act(ActTaken(act="declare_no_openers", seat=seat))
    hand.openers_proved = False
    hand.emit(OpenersJudged(seat=seat, proved=False, cards=(), rule=R_FALSE2))
    ask_for_a_new_opener(hand, i, "declare_no_openers")
    return hand.done(before)


def verify_take_open(hand: HandState, seat: int) -> None:
    i = hand.index_of(seat)
    hand.require_phase("take_open")
    hand.require_turn(i, R_FALSE2)
    wagers.verify_openers(hand, i)


def take_open(hand: HandState, seat: int) -> list[Event]:
    """A player with openers takes the false opener's place; the betting goes on (003 False openers 2)."""
    verify_take_open(hand, seat)
    before = len(hand.events)
    i = hand.index_of(seat)
    hand.log_act(ActTaken(act="take_open", seat=seat))
    hand.opener_index = i
    hand.openers_proved = None
    live = hand.live()
    if len(live) == 1:
        hand.finish_uncontested(live[0], "take_open")
        return hand.done(before)
    resume = hand.resume_at
    hand.to_act = None
    if hand.drawers:  # announced after the betting closed: the draw proceeds
        resume_the_draw(hand, "take_open")
    elif resume is None or hand.set_next(resume, inclusive=True) is None:
        hand.close_interval("take_open")
    else:
        hand.move(Phase.FIRST_BETTING, "take_open")
    return hand.done(before)


def verify_decline_open(hand: HandState, seat: int) -> None:
    i = hand.index_of(seat)
    hand.require_phase("decline_open")
    hand.require_turn(i, R_FALSE2)


def decline_open(hand: HandState, seat: int) -> list[Event]:
    verify_decline_open(hand, seat)
    before = len(hand.events)
    hand.log_act(ActTaken(act="decline_open", seat=seat))
    hand.reopen_pos += 1
    if hand.reopen_pos < len(hand.reopen_queue):
        hand.to_act = hand.reopen_queue[hand.reopen_pos]
        hand.move(Phase.REOPENING, "decline_open")
    else:
        no_new_opener(hand, "decline_open")
    return hand.done(before)
