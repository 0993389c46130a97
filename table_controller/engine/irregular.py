"""Irregularities, misdeals, foul hands and floor rulings: what the dealer, the shoe or the camera reports, and
the remedy the rule books give for it.

How it works: a report is a :class:`Report` (a frozen pydantic model: the record stores it as it is). The
:class:`~table_controller.engine.hand.Hand` has two thin entry points, ``irregularity(report)`` and
``floor_ruling(report)`` (each with its ``verify_``), which call :func:`verify` and :func:`apply` here.
``verify`` raises :class:`IllegalActionError` naming the rule and changes nothing; ``apply`` first puts the
cards where the report says they physically are (an extra card taken from the top of the pack, a missing
card still on it), then applies the remedy, and appends events that name the rule applied with its book
and paragraph, for the dealer console. The hand's own bookkeeping (chips, the 52 positions) is checked
after every report exactly as after every act.

The dry run: each kind's handler, given ``(hand, report, apply_it)``, decides from the hand as it stands the
moves its remedy makes on the stub (``irregular_core.StubMove``: cards taken off the top, cards put back) and
returns them, verifying only or then applying. :func:`shoe_cards_for_report` plays those moves on a copy of the
stub list to tell a live shoe what it must deliver before the act, changing nothing; :func:`apply` checks that
the act left the stub exactly as its moves say, so the answer and the act cannot disagree unnoticed.

Where the books differ the remedy follows a house option (``table_controller.engine.irregular_options``);
where they are silent we follow common card-room practice and say so in the rule text. docs/irregularities.md
is the reference, with the record syntax and the scripted hands that the tests replay.

This module works on the deal's public state (``hand_state.HandState``): the engine's invariants, phases and
transition table (machine.py, trigger ``irregularity`` / ``floor_ruling``) stay the single source of truth.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from table_controller.engine.acts import ActTaken
from table_controller.engine.errors import IllegalActionError, InvariantError
from table_controller.engine.events import Event, OpenersJudged
from table_controller.engine.hand_state import HandState, IrregularState
from table_controller.engine.irregular_core import (
    FLOOR_KINDS,
    NO_MOVES,
    R_AFTER_DRAW_001,
    R_FALSE2,
    R_FALSE_OPENERS,
    R_FOUL,
    REPORT_FIELDS,
    REPORT_KINDS,
    DrawCountAnswered,
    FloorRuled,
    IrregularityRuled,
    MixedCardsShuffled,
    Moves,
    ReplacementServed,
    Report,
    cannot_draw_short,
    deal_window,
    draw_open,
    end_of_draw,
    foul,
    foul_moves,
    illegal,
    last_serve,
    may_draw,
    owed_at_end_of_draw,
    owed_with_draw,
    owed_with_draw_pending,
    pending,
    refuse_taking_back,
    require_live,
    require_phases,
    ruled,
    run_moves,
    seat_index,
    state,
)
from table_controller.engine.irregular_deal import (
    exposed_in_deal,
    misdeal,
    too_few_in_deal,
    too_many_in_deal,
)
from table_controller.engine.irregular_draw import (
    ask_draw_count,
    asked_wrong_count,
    card_known,
    dealer_draw_miscount,
    draw_card_seen,
    draw_count_info,
    draw_miscount,
    draw_out_of_turn,
    exposed_in_draw,
    mixed_cards,
    mixed_pool,
    visible_draw_counts,
)
from table_controller.engine.irregular_floor import (
    award_pot,
    move_chips,
    void_hand,
)
from table_controller.engine.irregular_openers import (
    ask_for_a_new_opener,
    before_the_draw,
    declare_no_openers,
    decline_open,
    false_opener_uncalled,
    no_new_opener,
    resume_the_draw,
    take_open,
    verify_declare_no_openers,
    verify_decline_open,
    verify_take_open,
)
from table_controller.engine.irregular_options import (
    FalseOpenerPenalty,
    MisdealCall,
)
from table_controller.engine.machine import TERMINAL, Phase

__all__ = [
    "FLOOR_KINDS",
    "REPORT_FIELDS",
    "REPORT_KINDS",
    "DrawCountAnswered",
    "FloorRuled",
    "IrregularState",
    "IrregularityRuled",
    "MixedCardsShuffled",
    "ReplacementServed",
    "Report",
    "apply",
    "apply_report",
    "ask_for_a_new_opener",
    "before_the_draw",
    "cannot_draw_short",
    "declare_no_openers",
    "decline_open",
    "draw_count_info",
    "end_of_draw",
    "false_opener_uncalled",
    "may_draw",
    "mixed_pool",
    "no_new_opener",
    "owed_at_end_of_draw",
    "owed_with_draw",
    "owed_with_draw_pending",
    "refuse_taking_back",
    "reports_open",
    "result_fields",
    "resume_the_draw",
    "shoe_cards_for_report",
    "take_open",
    "verify",
    "verify_declare_no_openers",
    "verify_decline_open",
    "verify_report",
    "verify_take_open",
    "visible_draw_counts",
]


def verify_report(hand: HandState, trigger: str, report: Report) -> None:
    """Irregularities and floor rulings are one family of reports; each trigger (``irregularity``,
    ``floor_ruling``) takes only its own kinds. Changes nothing."""
    _plan_report(hand, trigger, report)


def shoe_cards_for_report(hand: HandState, trigger: str, report: Report) -> tuple[str, ...]:
    """What a live shoe must deliver before this report's remedy: "deal" for each card the remedy takes off the
    stub that the shoe has not delivered yet, in the order taken (no remedy burns a card). A card taken and
    restored to the pack counts: it came out of the shoe, and is dealt again from the dealer's hand. Raises what
    the report would raise; changes nothing."""
    _, taken = run_moves(hand.stub, _plan_report(hand, trigger, report), hand.reserve())
    return tuple("deal" for pos in dict.fromkeys(taken) if pos >= hand.delivered)


def _plan_report(hand: HandState, trigger: str, report: Report) -> Moves:
    hand.require_phase(trigger)
    own, other = ((REPORT_KINDS, "a floor ruling, not an irregularity") if trigger == "irregularity"
                  else (FLOOR_KINDS, "an irregularity, not a floor ruling"))
    if report.kind not in own:
        raise IllegalActionError("bad_report", f"'{report.kind}' is {other}")
    return _dispatch(hand, report, apply_it=False)


def apply_report(hand: HandState, trigger: str, report: Report) -> list[Event]:
    """The act of reporting: verified, entered in the log, its remedy applied; returns the events it produced."""
    verify_report(hand, trigger, report)
    before = len(hand.events)
    hand.log_act(ActTaken(act=trigger, report=report))
    apply(hand, report)
    return hand.done(before)


def verify(hand: HandState, report: Report) -> None:
    """Raise :class:`IllegalActionError` unless the report can be applied now. Changes nothing."""
    _dispatch(hand, report, apply_it=False)


def apply(hand: HandState, report: Report) -> None:
    """Apply a verified report (``Hand.irregularity`` / ``Hand.floor_ruling`` verify first). The stub it leaves
    must be the one its planned moves give (what :func:`shoe_cards_for_report` answered): else a bug."""
    stub = list(hand.stub)
    moves = _dispatch(hand, report, apply_it=True)
    if hand.stub != run_moves(stub, moves, hand.reserve())[0]:
        raise InvariantError(f"the '{report.kind}' remedy moved other cards on the stub than it planned")


def _dispatch(hand: HandState, report: Report, *, apply_it: bool) -> Moves:
    if hand.phase is None or hand.phase in TERMINAL:
        raise IllegalActionError("hand_over", "the hand is already over")
    handler = _HANDLERS.get(report.kind)
    if handler is None:  # pragma: no cover - the Literal type makes this unreachable
        raise IllegalActionError("bad_report", f"unknown report kind {report.kind!r}")
    return handler(hand, report, apply_it)


def _faced_in_pack(hand: HandState, report: Report, apply_it: bool) -> Moves:
    """A card found faced in the pack is an exposed card of the player it falls to, in the deal or the draw."""
    if hand.phase in (Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN):
        return exposed_in_draw(hand, report, apply_it)
    return exposed_in_deal(hand, report, apply_it)


def _foul_hand(hand: HandState, report: Report, apply_it: bool) -> Moves:
    i = seat_index(hand, report.seat, report.kind)
    require_phases(hand, (Phase.FIRST_BETTING, Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN, Phase.PROVING),
                   report, R_FOUL)
    require_live(hand, i, R_FOUL)
    if hand.phase is Phase.PROVING and i != hand.to_act:
        raise illegal("not_in_hand", f"seat {report.seat} is no longer in the hand", R_FOUL)
    rule = R_FOUL
    if report.kind == "wrong_number_after_draw":
        if hand.interval != "final" and not (hand.phase is Phase.DRAWING and last_serve(hand, i) is not None):
            raise illegal("wrong_phase", "reported after the player's draw", R_AFTER_DRAW_001)
        rule = R_AFTER_DRAW_001
    elif report.kind == "false_openers":
        if i != hand.opener_index or hand.requirement is None:
            raise illegal("not_the_opener", f"seat {report.seat} did not open a pot that needs openers",
                           R_FALSE_OPENERS)
        rule = R_FALSE_OPENERS
    moves = foul_moves(hand, i)
    if apply_it:
        foul(hand, i, report, rule)
    return moves


R_MAY_WITHDRAW = "000 False openers: each other player may withdraw from the pot any chips, except his ante"


def _leave_in_pot(h: HandState, report: Report, apply_it: bool) -> Moves:
    """A player's choice not to withdraw: should the opener prove false with nobody calling him, this player's
    chips stay in the pot with the antes (000 False openers and 003 False openers 3: he "may withdraw"). Made
    while the hand is on, up to the opener's proving his openers."""
    i = seat_index(h, report.seat, report.kind)
    if h.requirement is None or h.opener_index is None:
        raise illegal("no_false_opener", "only a pot opened on a requirement can be found falsely opened",
                       R_MAY_WITHDRAW)
    if i == h.opener_index:
        raise illegal("not_entitled", "the opener's chips stay in any case", R_MAY_WITHDRAW)
    if h.contrib[i] - h.ante_paid[i] <= 0:
        raise illegal("not_entitled", f"seat {report.seat} has no chips but his ante in the pot", R_MAY_WITHDRAW)
    if i in pending(h).leave_in_pot:
        raise illegal("already_reported", f"seat {report.seat} already leaves his chips in", R_MAY_WITHDRAW)
    if apply_it:
        state(h).leave_in_pot.add(i)
        ruled(h, report, "should the opener be found false with nobody calling him, this player leaves his chips in "
               "the pot for the next deal", R_MAY_WITHDRAW)
    return NO_MOVES


_HANDLERS: dict[str, Callable[[HandState, Report, bool], Moves]] = {
    "exposed_in_deal": exposed_in_deal,
    "faced_in_pack": _faced_in_pack,
    "misdeal": misdeal,
    "too_many_in_deal": too_many_in_deal,
    "too_few_in_deal": too_few_in_deal,
    "exposed_in_draw": exposed_in_draw,
    "card_known": card_known,
    "draw_miscount": draw_miscount,
    "dealer_draw_miscount": dealer_draw_miscount,
    "asked_wrong_count": asked_wrong_count,
    "draw_out_of_turn": draw_out_of_turn,
    "mixed_cards": mixed_cards,
    "ask_draw_count": ask_draw_count,
    "foul_hand": _foul_hand,
    "wrong_number_after_draw": _foul_hand,
    "false_openers": _foul_hand,
    "draw_card_seen": draw_card_seen,
    "leave_in_pot": _leave_in_pot,
    "void_hand": void_hand,
    "award_pot": award_pot,
    "move_chips": move_chips,
}


def reports_open(hand: HandState) -> tuple[str, ...]:
    """The report kinds the phase admits now (a hint for the dealer console; each is still verified)."""
    phase = hand.phase
    if phase is None or phase in TERMINAL:
        return ()
    kinds: list[str] = []
    if deal_window(hand):
        kinds += ["exposed_in_deal", "faced_in_pack", "too_many_in_deal", "too_few_in_deal"]
        if sum(len(v) for v in pending(hand).exposed_deal.values()) >= 2:
            kinds.append("misdeal")
    elif phase is Phase.FIRST_BETTING:
        kinds += ["too_many_in_deal", "too_few_in_deal"]
        if hand.config.options.misdeal_call is MisdealCall.UNTIL_SEEN and \
                sum(len(v) for v in pending(hand).exposed_deal.values()) >= 2:
            kinds.append("misdeal")
    elif before_the_draw(hand):
        kinds.append("too_many_in_deal")
    if draw_open(hand):
        kinds += ["exposed_in_draw", "faced_in_pack", "card_known", "draw_miscount", "dealer_draw_miscount",
                  "asked_wrong_count", "mixed_cards", "ask_draw_count"]
    if phase is Phase.DRAWING:
        kinds.append("draw_out_of_turn")
    if phase in (Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN) and not before_the_draw(hand):
        kinds.append("draw_card_seen")
    if phase in (Phase.FIRST_BETTING, Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN, Phase.PROVING):
        kinds += ["foul_hand", "false_openers"]
        if hand.interval == "final" or phase is Phase.DRAWING:
            kinds.append("wrong_number_after_draw")
    if hand.requirement is not None and hand.opener is not None:
        kinds.append("leave_in_pot")
    if phase is Phase.FINAL_BETTING and "ask_draw_count" not in kinds:
        kinds.append("ask_draw_count")
    return tuple(dict.fromkeys(kinds))


def result_fields(hand: HandState) -> dict[str, Any]:
    """What the reports add to ``Hand.result()``: the next deal's consequences, the seats playing short, and
    during the draw and the final interval the draw counts the house rule lets the public display show."""
    out: dict[str, Any] = {}
    st = hand.irregular_state
    next_deal = dict(st.next_deal) if st is not None else {}
    if hand.config.options.false_opener_penalty is FalseOpenerPenalty.ANTE_FOR_ALL and hand.false_opener_case == 2:
        seat = st.false_opener if st is not None and st.false_opener is not None else next(
            (e.seat for e in hand.events if isinstance(e, OpenersJudged) and not e.proved), None)
        if seat is not None:
            next_deal["antes_for_all"] = seat
            next_deal["rule"] = f"{R_FALSE2} (house option: the false opener antes for all on the next deal)"
    if next_deal:
        out["next_deal"] = next_deal
    if st is not None and st.short:
        out["short_hands"] = sorted(hand.seat_no[i] for i in st.short)
    if not hand.is_over and hand.phase in (Phase.DRAWING, Phase.FINAL_BETTING):
        out["draw_counts"] = draw_count_info(hand)  # what the public display may show (001 IV 4 / 003 Other 5)
    return out
