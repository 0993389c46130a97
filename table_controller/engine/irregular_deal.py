"""Irregularities in the deal: exposed cards and misdeals, too many or too few cards (000 Irregularities,
001 IV 5a, 003 Incorrect dealing in the draw 1 for a card found faced in the pack).

Each handler takes ``(hand, report, apply_it)``: with ``apply_it`` false it only verifies (raising
:class:`IllegalActionError` and changing nothing), else it applies the remedy; either way it returns the moves
the remedy makes on the stub, decided before anything changes (``irregular_core.StubMove``). docs/irregularities.md.
"""

from __future__ import annotations

from table_controller.engine.cards import UNKNOWN_CODE
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.hand_state import HandState
from table_controller.engine.irregular_core import (
    NO_MOVES,
    R_EXPOSED_DEAL,
    R_FACED_PACK,
    R_MISDEAL,
    R_MISDEAL_000,
    R_MISDEAL_CP,
    R_NO_OPENERS_SIX,
    R_TOO_FEW_BUTTON_001,
    R_TOO_FEW_DEAL_000,
    R_TOO_FEW_DEAL_001,
    R_TOO_MANY_DEAL,
    Moves,
    Report,
    Take,
    available,
    deal_window,
    excess_named,
    exposed_position,
    foul,
    foul_moves,
    illegal,
    may_draw,
    next_off_the_pack,
    pending,
    put_back,
    require_live,
    require_phases,
    return_to_stub,
    ruled,
    seat_index,
    state,
    take_from_stub,
    void,
    voluntary_betting_started,
)
from table_controller.engine.irregular_openers import before_the_draw
from table_controller.engine.irregular_options import (
    MisdealAntes,
    MisdealCall,
    ShortDeal,
)
from table_controller.engine.machine import Phase


def exposed_in_deal(hand: HandState, report: Report, apply_it: bool) -> Moves:
    rule = R_FACED_PACK if report.kind == "faced_in_pack" else R_EXPOSED_DEAL
    i = seat_index(hand, report.seat, report.kind)
    if not deal_window(hand):
        raise illegal("too_late", "an exposed card in the deal is dealt with before anyone acts on his cards",
                       rule)
    if report.card is None or report.card == UNKNOWN_CODE:
        raise IllegalActionError("bad_report", f"'{report.kind}' needs the exposed 'card' (an exposed card is seen)")
    pos = exposed_position(hand, hand.hands[i], report, rule, learn=apply_it)
    if pos in pending(hand).exposed_deal.get(i, []):
        raise illegal("already_exposed", f"{report.card} was already reported exposed", rule)
    if not apply_it:
        return NO_MOVES
    st = state(hand)
    st.exposed_deal.setdefault(i, []).append(pos)
    total = sum(len(v) for v in st.exposed_deal.values())
    if total == 1:
        remedy = "the player keeps the exposed card; no misdeal"
    else:
        callers = ", ".join(str(hand.seat_no[j]) for j in sorted(st.exposed_deal))
        remedy = f"{total} cards exposed in the deal: seat(s) {callers} may call a misdeal"
    ruled(hand, report, remedy, rule, [pos])
    return NO_MOVES


def misdeal(hand: HandState, report: Report, apply_it: bool) -> Moves:
    i = seat_index(hand, report.seat, report.kind)
    st = pending(hand)
    until_seen = hand.config.options.misdeal_call is MisdealCall.UNTIL_SEEN
    if until_seen and hand.phase in (Phase.STRADDLING, Phase.FIRST_BETTING):
        require_live(hand, i, R_MISDEAL_000)
    elif not deal_window(hand):
        raise illegal("too_late", "a misdeal is called before anyone acts on his cards", R_MISDEAL_CP)
    total = sum(len(v) for v in st.exposed_deal.values())
    if total < 2:
        raise illegal("no_misdeal", "a misdeal needs more than one card exposed in the deal", R_EXPOSED_DEAL)
    if not st.exposed_deal.get(i):
        raise illegal("not_entitled", f"seat {report.seat} received no exposed card", R_MISDEAL)
    if report.looked != "none":
        raise illegal("saw_another_card", f"seat {report.seat} has intentionally seen another card dealt to him",
                       R_MISDEAL)
    if apply_it:
        rule = f"{R_MISDEAL}; {R_MISDEAL_000 if until_seen else R_MISDEAL_CP}"
        void(hand, report, antes_back=hand.config.options.misdeal_antes is MisdealAntes.RETURN, status="misdeal",
              rule=rule)
    return NO_MOVES


def too_many_in_deal(hand: HandState, report: Report, apply_it: bool) -> Moves:
    i = seat_index(hand, report.seat, report.kind)
    count = report.count or 0
    if not (hand.phase is Phase.DRAWING and before_the_draw(hand)):  # found before the first draw card is served
        require_phases(hand, (Phase.STRADDLING, Phase.FIRST_BETTING), report, R_TOO_MANY_DEAL)
    require_live(hand, i, R_TOO_MANY_DEAL)
    if count < 1 or count > available(hand):
        raise IllegalActionError("bad_report", f"'count' must be the number of extra cards, 1..{available(hand)}")
    if len(hand.hands[i]) != 5:
        raise illegal("bad_report", f"seat {report.seat} does not hold five cards", R_TOO_MANY_DEAL)
    if report.looked == "none" and not deal_window(hand):
        raise illegal("too_late", "too many cards must be announced before acting on the hand", R_TOO_MANY_DEAL)
    if report.looked != "none" and hand.phase is Phase.STRADDLING:
        raise illegal("wrong_phase", "nobody looks at his cards during the straddles", R_TOO_MANY_DEAL)
    if report.looked != "none" and report.cards is not None:
        raise illegal("bad_report", "a hand seen with too many cards is foul: no card is drawn from it",
                       R_TOO_MANY_DEAL)
    back: list[int] = []
    if report.looked == "none":  # the excess he was dealt (the next cards off the pack), or the cards named
        pool = next_off_the_pack(hand, count) + hand.hands[i]
        back = excess_named(hand, report, pool, count, rule=R_TOO_MANY_DEAL, learn=apply_it)
    # The excess comes off the pack to him; unseen, it goes back on top; seen, his hand is foul.
    moves = (Take(count=count), *((put_back(back),) if report.looked == "none" else foul_moves(hand, i)))
    if not apply_it:
        return moves
    take_from_stub(hand, i, count)
    if report.looked == "none":
        return_to_stub(hand, i, back)
        ruled(hand, report, "announced before looking: the dealer draws the excess from his hand and restores it "
               "to the top of the pack", R_TOO_MANY_DEAL, back)
        return moves
    rule = R_NO_OPENERS_SIX if i == hand.opener_index and hand.requirement is not None else R_TOO_MANY_DEAL
    foul(hand, i, report, rule)
    return moves


def too_few_in_deal(hand: HandState, report: Report, apply_it: bool) -> Moves:
    i = seat_index(hand, report.seat, report.kind)
    count = report.count or 0
    require_phases(hand, (Phase.STRADDLING, Phase.FIRST_BETTING), report, R_TOO_FEW_DEAL_000)
    require_live(hand, i, R_TOO_FEW_DEAL_000)
    if not 1 <= count <= 4 or len(hand.hands[i]) != 5:
        raise IllegalActionError("bad_report", "'count' is the number of missing cards, 1..4, of a five-card hand")
    if i in pending(hand).owed_with_draw:
        raise illegal("already_reported", f"seat {report.seat} is already owed cards", R_TOO_FEW_DEAL_001)
    missing = hand.hands[i][5 - count:]
    option = hand.config.options.short_deal
    with_draw = option in (ShortDeal.WITH_THE_DRAW, ShortDeal.BUTTON_WITH_THE_DRAW)
    later = with_draw and voluntary_betting_started(hand)  # the betting has begun: no card is dealt now
    is_foul = later and option is ShortDeal.BUTTON_WITH_THE_DRAW and i != hand.button_index
    # The cards he should have had go back on the pack; then his hand is foul, or he is owed them with his
    # draw, or they are dealt to him now.
    moves: Moves = (put_back(missing),)
    if is_foul:
        moves += foul_moves(hand, i)
    elif not later:
        moves += (Take(count=count),)
    if not apply_it:
        return moves
    return_to_stub(hand, i, missing)  # the cards he should have had are still on the pack
    if is_foul:
        foul(hand, i, report, R_TOO_FEW_BUTTON_001)
        return moves
    if later:
        state(hand).owed_with_draw[i] = (count, R_TOO_FEW_DEAL_001)
        then = (f"receives the {count} missing with his draw" if may_draw(hand, i) else
                "may not draw without five cards (003 Other rules governing the draw, 2)")
        ruled(hand, report, f"the betting has begun: he plays the first round with {5 - count} cards and {then}",
               R_TOO_FEW_DEAL_001)
        return moves
    taken = take_from_stub(hand, i, count)
    if with_draw:
        ruled(hand, report, "the missing cards are dealt at the end of the deal", R_TOO_FEW_DEAL_001, taken)
    else:
        ruled(hand, report, "the dealer deals him enough cards from the top of the pack", R_TOO_FEW_DEAL_000)
    return moves
