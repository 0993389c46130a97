"""Irregularities, misdeals, foul hands and floor rulings: what the dealer, the shoe or the camera reports, and
the remedy the rule books give for it.

How it works: a report is a :class:`Report` (a frozen pydantic model: the record stores it as it is). The
:class:`~table_controller.engine.hand.Hand` has two thin entry points, ``irregularity(report)`` and
``floor_ruling(report)`` (each with ``verify_`` and ``can_``), which call :func:`verify` and :func:`apply` here.
``verify`` raises :class:`IllegalActionError` naming the rule and changes nothing; ``apply`` first puts the
cards where the report says they physically are (an extra card taken from the top of the pack, a missing
card still on it), then applies the remedy, and appends events that name the rule applied with its book
and paragraph, for the dealer console. The hand's own bookkeeping (chips, the 52 positions) is checked
after every report exactly as after every act.

Where the books differ the remedy follows a house option (``table_controller.engine.irregular_options``);
where they are silent we follow common card-room practice and say so in the rule text. docs/irregularities.md
is the reference, with the record syntax and the scripted hands that the tests replay.

This module works on the ``Hand``'s private state on purpose: the engine's invariants, phases and
transition table (machine.py, trigger ``irregularity`` / ``floor_ruling``) stay the single source of truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from table_controller.engine.cards import UNKNOWN_CODE, Card, CardCodeError, parse_card
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.evaluate import evaluate
from table_controller.engine.events import (
    BetReturned,
    DrawServed,
    Event,
    OpenersJudged,
    PotAwarded,
    PotCarried,
)
from table_controller.engine.irregular_options import (
    DealerShortDraw,
    DrawCountInfo,
    ExposedDrawCard,
    FalseOpenerPenalty,
    LateDrawMiscount,
    MisdealAntes,
    OutOfTurnDiscarded,
    ShortDeal,
)
from table_controller.engine.machine import TERMINAL, Phase

if TYPE_CHECKING:
    from table_controller.engine.hand import Hand

__all__ = [
    "FLOOR_KINDS",
    "REPORT_KINDS",
    "DrawCountAnswered",
    "FloorRuled",
    "IrregularityRuled",
    "MixedCardsShuffled",
    "ReplacementServed",
    "Report",
    "apply",
    "draw_count_info",
    "hand_value",
    "mixed_pool",
    "reports_open",
    "verify",
    "visible_draw_counts",
]

# ------------------------------------------------------------------------------------------------ rule texts

R_EXPOSED_DEAL = "000 Irregularities, Card exposed in the deal"
R_FACED_PACK = "003 Incorrect dealing in the draw, 1 (a card found faced in the pack is an exposed card)"
R_MISDEAL = "000 Irregularities, Card exposed in the deal: more than one exposed card, a misdeal may be called"
R_MISDEAL_CP = "common practice: a misdeal voids the deal, bets come back, the cards are shuffled anew"
R_TOO_MANY_DEAL = "000 Irregularities, Incorrect hand: too many cards"
R_TOO_FEW_DEAL_000 = "000 Irregularities, Incorrect hand: too few cards, dealt from the top of the pack"
R_TOO_FEW_DEAL_001 = "001 IV 5a Too many or too few cards, before the first betting round"
R_FOUL = "000 Irregularities, Foul hand"
R_FOUL_UNCALLED = "000 Irregularities, Foul hand: the final bet was not called, the chips remain for the next deal"
R_NO_OPENERS_SIX = "000 False openers: a hand of more than five cards lacks openers"
R_FALSE_OPENERS = "000 False openers: an opener who cannot prove openers has a foul hand"
R_FALSE1 = "003 False openers, 1"
R_FALSE2 = "003 False openers, 2"
R_FALSE3 = "003 False openers, 3"
R_FALSE4 = "003 False openers, 4"
R_EXPOSED_DRAW_003 = "003 Incorrect dealing in the draw, 1"
R_EXPOSED_DRAW_000 = "000 Card exposed in the draw"
R_EXPOSED_DRAW_001 = "001 IV 6 Open cards"
R_KNOWN = "003 Incorrect dealing in the draw, 4"
R_MISCOUNT_003 = "003 Incorrect dealing in the draw, 2"
R_MISCOUNT_000 = "000 Incorrect number of cards drawn"
R_OUT_OF_TURN_003 = "003 Incorrect dealing in the draw, 3"
R_OUT_OF_TURN_000 = "000 Incorrect number of cards drawn (draw out of turn)"
R_DEALER_DRAW = "003 Incorrect dealing in the draw, 5"
R_ASKED = "003 Incorrect dealing in the draw, 6"
R_MIXED = "003 Other rules governing the draw, 4"
R_AFTER_DRAW_001 = "001 IV 5b Too many or too few cards, after the draw"
R_INFO_001 = "001 IV 4 Information concerning draw cards"
R_INFO_003 = "003 Other rules governing the draw, 5"
R_CHANGE_001 = "001 IV 3 Decision on amount of draw cards"
_PACK = 52
R_NO_CARDS = "no card left to play on with: the hand is dead (common practice)"
R_FLOOR = "floor ruling (the books are silent: common practice, a supervisor decides)"

REPORT_KINDS = ("exposed_in_deal", "faced_in_pack", "misdeal", "too_many_in_deal", "too_few_in_deal",
                "exposed_in_draw", "card_known", "draw_miscount", "dealer_draw_miscount", "asked_wrong_count",
                "draw_out_of_turn", "mixed_cards", "ask_draw_count", "foul_hand", "wrong_number_after_draw",
                "false_openers")
FLOOR_KINDS = ("void_hand", "award_pot", "move_chips")

Looked = Literal["none", "some", "all"]
Choice = Literal["stand_pat", "drop", "play_short", "discard_more", "leave_excess"]
Seat = Annotated[int, Field(ge=1, le=10)]


def _check_code(code: str) -> str:
    if code == UNKNOWN_CODE:
        return code
    try:
        parse_card(code)
    except CardCodeError as exc:
        raise ValueError(str(exc)) from None
    return code


class Report(BaseModel):
    """One irregularity report or floor ruling; only the fields its ``kind`` uses are set.

    - ``seat``: the player concerned (for ``misdeal`` the player calling it; for ``ask_draw_count`` the asker).
    - ``card`` / ``cards``: the exposed card; cards discarded or named (``"??"`` for an unread card).
    - ``count``: cards in excess or missing (deal), cards received (``draw_miscount``, ``dealer_draw_miscount``),
      the count the player meant to ask for (``asked_wrong_count``), chips (``move_chips``: see ``amount``).
    - ``looked``: whether the player saw the faces of the cards concerned: ``none``, ``some`` or ``all``.
    - ``choice``: the player's choice where the book gives him one.
    - ``seats``: the players whose draws were mixed (``mixed_cards``), the winners (``award_pot``).
    - ``order``: the dealer's shuffled and cut order (top first) for ``mixed_cards``.
    - ``about``: whose draw count is asked (``ask_draw_count``).
    - ``by``, ``reason``: who ruled and why (floor rulings; also accepted on any report).
    - ``amount``, ``to_pot``, ``shares``: chips for ``move_chips`` and ``award_pot``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["exposed_in_deal", "faced_in_pack", "misdeal", "too_many_in_deal", "too_few_in_deal",
                  "exposed_in_draw", "card_known", "draw_miscount", "dealer_draw_miscount", "asked_wrong_count",
                  "draw_out_of_turn", "mixed_cards", "ask_draw_count", "foul_hand", "wrong_number_after_draw",
                  "false_openers", "void_hand", "award_pot", "move_chips"]
    seat: Seat | None = None
    card: str | None = None
    cards: list[str] | None = None
    count: Annotated[int, Field(ge=0, le=_PACK)] | None = None
    looked: Looked = "none"
    choice: Choice | None = None
    seats: list[Seat] | None = None
    order: list[str] | None = None
    about: Seat | None = None
    by: str = ""
    reason: str = ""
    amount: Annotated[int, Field(ge=0)] | None = None
    to_pot: bool | None = None
    shares: list[Annotated[int, Field(ge=0)]] | None = None

    @field_validator("card")
    @classmethod
    def _card(cls, value: str | None) -> str | None:
        return None if value is None else _check_code(value)

    @field_validator("cards", "order")
    @classmethod
    def _codes(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            for code in value:
                _check_code(code)
        return value

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(exclude_defaults=True)


# ---------------------------------------------------------------------------------------------------- events


@dataclass(frozen=True, kw_only=True)
class IrregularityRuled(Event):
    """An irregularity and the remedy applied, naming the rule (book, paragraph) for the dealer console."""

    kind: ClassVar[str] = "irregularity"
    irregularity: str
    seat: int | None
    remedy: str
    rule: str
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ReplacementServed(Event):
    """Cards owed after the draw (an exposed card replaced, missing cards dealt) served from the top."""

    kind: ClassVar[str] = "replacement"
    seat: int
    cards: tuple[str, ...]
    rule: str


@dataclass(frozen=True, kw_only=True)
class MixedCardsShuffled(Event):
    kind: ClassVar[str] = "mixed_shuffle"
    size: int
    seats: tuple[int, ...]
    rule: str


@dataclass(frozen=True, kw_only=True)
class DrawCountAnswered(Event):
    kind: ClassVar[str] = "draw_count"
    seat: int
    about: int
    count: int
    rule: str


@dataclass(frozen=True, kw_only=True)
class FloorRuled(Event):
    kind: ClassVar[str] = "floor_ruling"
    ruling: str
    by: str
    reason: str
    seat: int | None = None
    amount: int = 0


_OWN_EVENTS = (IrregularityRuled, ReplacementServed, MixedCardsShuffled, DrawCountAnswered, FloorRuled)


# ----------------------------------------------------------------------------------------------------- state


@dataclass
class IrregularState:
    """What the reports have left pending on a hand (kept on ``Hand.irregular_state``)."""

    exposed_deal: dict[int, list[int]] = field(default_factory=dict)  # player index -> exposed positions
    owed_after_draw: list[tuple[int, int, str]] = field(default_factory=list)  # (index, cards, rule)
    owed_with_draw: dict[int, tuple[int, str]] = field(default_factory=dict)  # index -> (cards, rule)
    short: set[int] = field(default_factory=set)  # players playing on with too few cards
    false_opener: int | None = None  # the seat whose foul hand made the opening false
    next_deal: dict[str, Any] = field(default_factory=dict)


def state(hand: Hand) -> IrregularState:
    st = hand.irregular_state
    if st is None:
        st = IrregularState()
        hand.irregular_state = st
    return st


# ------------------------------------------------------------------------------------------ hand evaluation


def hand_value(cards: Sequence[Card]) -> int:
    """A hand's showdown value. Five cards: :func:`evaluate`. A short hand (a player allowed to play on with
    too few cards) counts its missing cards as nothing: its value is that of its worst five-card completion."""
    if len(cards) == 5 or not 0 < len(cards) < 5:
        return evaluate(list(cards))
    need = 5 - len(cards)
    held = set(cards)
    if need <= 2:
        pool = [Card(c) for c in range(_PACK) if c not in held]
    else:
        # One card of each missing rank, suits varied so that no flush can form: the worst completion never
        # pairs, so this smaller pool holds it.
        ranks = sorted({c // 4 for c in range(_PACK)} - {c // 4 for c in cards})
        pool = [Card(r * 4 + k % 4) for k, r in enumerate(ranks)]
    return min(evaluate([*cards, *extra]) for extra in combinations(pool, need))


# ------------------------------------------------------------------------------------------------ helpers


def _illegal(code: str, message: str, rule: str) -> IllegalActionError:
    return IllegalActionError(code, message, rule=rule)


def _seat_index(hand: Hand, seat: int | None, kind: str) -> int:
    if seat is None:
        raise IllegalActionError("bad_report", f"'{kind}' needs a 'seat'")
    return hand._i(seat)


def _voluntary_betting_started(hand: Hand) -> bool:
    return any(a.get("act") in ("check", "bet", "call", "raise", "fold", "pass") for a in hand.actions)


def _deal_window(hand: Hand) -> bool:
    """The deal has just ended: nobody has yet acted on his cards (straddles are made blind)."""
    return hand.phase in (Phase.STRADDLING, Phase.FIRST_BETTING) and not _voluntary_betting_started(hand)


def _last_engine_event(hand: Hand) -> Event | None:
    for event in reversed(hand.events):
        if not isinstance(event, _OWN_EVENTS):
            return event
    return None


def _last_serve(hand: Hand, i: int) -> DrawServed | None:
    seat = hand._seat_no[i]
    for event in reversed(hand.events):
        if isinstance(event, DrawServed) and event.seat == seat:
            return event
    return None


def _just_served(hand: Hand, i: int) -> bool:
    """Player i was the last served, and nothing has happened since (the next player is not served)."""
    last = _last_engine_event(hand)
    return isinstance(last, DrawServed) and last.seat == hand._seat_no[i]


def _draw_open(hand: Hand) -> bool:
    """The draw is under way, or has just ended with no act since."""
    if hand.phase is Phase.DRAWING:
        return True
    if hand.phase in (Phase.FINAL_BETTING, Phase.SHOWDOWN):
        return isinstance(_last_engine_event(hand), (DrawServed, ReplacementServed))
    return False


def _served_positions(hand: Hand, i: int) -> list[int]:
    last = _last_serve(hand, i)
    n = 0 if last is None else len(last.served)
    return hand._hands[i][len(hand._hands[i]) - n:] if n else []


def _resolve(hand: Hand, positions: Sequence[int], codes: Sequence[str], what: str, *, learn: bool) -> list[int]:
    snapshot = list(hand._ident)
    learnt = hand._learnt
    try:
        return hand._resolve_cards(list(positions), list(codes), what)
    finally:
        if not learn:
            hand._ident = snapshot
            hand._learnt = learnt


def _ruled(hand: Hand, report: Report, remedy: str, rule: str, cards: Sequence[int] = ()) -> None:
    hand._emit(IrregularityRuled(irregularity=report.kind, seat=report.seat, remedy=remedy, rule=rule,
                                 cards=hand._codes(list(cards))))


def _take_from_stub(hand: Hand, i: int, count: int) -> list[int]:
    taken = []
    for _ in range(count):
        pos = hand._stub.pop()
        hand._hands[i].append(pos)
        taken.append(pos)
    return taken


def _return_to_stub(hand: Hand, i: int, positions: Sequence[int]) -> None:
    """Put these cards of player i back on the top of the pack, in the order they came off it."""
    for pos in positions:
        hand._hands[i].remove(pos)
    for pos in reversed(positions):
        hand._stub.append(pos)


def _available(hand: Hand) -> int:
    return len(hand._stub) - hand._reserve()


def _draw_info_mode(hand: Hand) -> DrawCountInfo:
    from table_controller.engine.config import GameForm

    mode = hand.config.options.draw_count_info
    if mode is not None:
        return mode
    return DrawCountInfo.ANY_PLAYER if hand.config.form is GameForm.FIVE_CARD_DRAW else DrawCountInfo.DEALER_ONLY


def _final_betting_started(hand: Hand) -> bool:
    if hand._interval != "final":
        return False
    last_draw = max((k for k, e in enumerate(hand.events) if isinstance(e, (DrawServed, ReplacementServed))),
                    default=-1)
    from table_controller.engine.events import BetMade, Called, Checked, Folded, Raised

    return any(isinstance(e, (Checked, BetMade, Called, Raised, Folded)) for e in hand.events[last_draw + 1:])


# ---------------------------------------------------------------------------------------------- foul hands


def _foul(hand: Hand, i: int, report: Report, rule: str) -> None:
    """Player i's hand is foul: he cannot win, is deemed to drop, and forfeits his chips (000 Foul hand).
    An opener's foul hand is a false opening (003 False openers: "or has a foul hand")."""
    h = hand
    seat = h._seat_no[i]
    phase = h.phase
    if i == h._opener and h.requirement is not None:
        if phase is Phase.FIRST_BETTING:
            _false_opener_before_draw(h, i, report, rule)
            return
        if _about_openers(report, rule):
            h.openers_proved = False
            h._emit(OpenersJudged(seat=seat, proved=False, cards=(), rule=rule))
        state(h).false_opener = seat
        if phase is Phase.PROVING:
            _ruled(h, report, "the opener's hand is foul: nobody called him", R_FALSE3)
            h._false_opener_uncontested(i, "irregularity")
            return
        h.false_opener_case = 4 if phase is Phase.SHOWDOWN else 1
    carry = (phase in (Phase.FIRST_BETTING, Phase.FINAL_BETTING) and h._aggressor == i and h._current > 0
             and h._bet[i] == h._current and all(h._bet[j] < h._current for j in range(h._n) if j != i))
    h._foul[i] = True
    h._folded[i] = True
    h._needs[i] = False
    h._muck += h._hands[i]
    h._hands[i] = []
    if carry:
        _ruled(h, report, "foul hand with the last bet uncalled: every chip stays in the pot for the next deal",
               R_FOUL_UNCALLED)
        h.to_act = None
        h._collect()
        h._move(Phase.COMPLETE, "irregularity")
        h._emit(PotCarried(amount=h._pot, reason=R_FOUL_UNCALLED))
        h.status = "carried"
        h._end()
        return
    # His chips are forfeited: a bet of his in this interval joins the pot and is never returned as uncalled.
    h._pot += h._bet[i]
    h._bet[i] = 0
    case = {1: f"; {R_FALSE1}: the others play on", 4: f"; {R_FALSE4}"}.get(h.false_opener_case or 0, "") \
        if i == h._opener and h.requirement is not None else ""
    _ruled(h, report, f"foul hand: deemed to drop, chips forfeited{case}", rule)
    _after_drop(h, i)


def _about_openers(report: Report, rule: str) -> bool:
    """A foul that says the opener lacked openers (rather than a foul hand for another reason)."""
    return report.kind == "false_openers" or rule == R_NO_OPENERS_SIX


def _after_drop(h: Hand, i: int) -> None:
    """Player i is out of the hand between turns: move the turn on as the phase requires."""
    phase = h.phase
    live = h._live()
    if phase is Phase.SHOWDOWN:
        queue = h._show_queue
        k = queue.index(i)
        queue.pop(k)
        if k < h._show_pos:
            h._show_pos -= 1
        elif k == h._show_pos:
            if h._show_pos < len(queue):
                h.to_act = queue[h._show_pos]
            elif live:
                h.to_act = None
                h._move(Phase.COMPLETE, "irregularity")
                h._award_showdown()
        if not live:  # every hand foul or abandoned: the pot remains for the next deal (003 False openers 4)
            h.to_act = None
            h._collect()
            h._move(Phase.COMPLETE, "irregularity")
            h._emit(PotCarried(amount=h._pot, reason=f"{R_FALSE4}: no fair hand is left; the pot remains on the "
                               "table for the next deal"))
            h.status = "carried"
            h._end()
        return
    if len(live) == 1:
        h._finish_uncontested(live[0], "irregularity")
        return
    if phase is Phase.DRAWING:
        k = h._drawers.index(i) if i in h._drawers else -1
        if k >= h._draw_pos:
            h._drawers.pop(k)
            if k == h._draw_pos:
                if h._draw_pos < len(h._drawers):
                    h.to_act = h._drawers[h._draw_pos]
                else:
                    end_of_draw(h)
                    h._begin_final("irregularity")
        return
    if phase in (Phase.FIRST_BETTING, Phase.FINAL_BETTING) and h.to_act == i:
        h._set_next(i, inclusive=False)
        if h.to_act is None:
            h._close_interval("irregularity")


def _drop(h: Hand, i: int) -> None:
    """A drop that is not a foul (the player's choice where a remedy offers it): an ordinary fold."""
    h._folded[i] = True
    h._needs[i] = False
    if i == h._opener and h.requirement is not None:
        h._held[i] += h._hands[i]
        h._hands[i] = []
        h._judge_and_emit(i, final=False)
    else:
        h._muck += h._hands[i]
        h._hands[i] = []
    _after_drop(h, i)


def _false_opener_before_draw(h: Hand, i: int, report: Report, rule: str) -> None:
    """The opener's hand is found foul before the draw: as if he had announced it (003 False openers 2)."""
    seat = h._seat_no[i]
    h._foul[i] = True
    h._folded[i] = True
    h.false_opener_case = 2
    state(h).false_opener = seat
    h._held[i] += h._hands[i]
    h._hands[i] = []
    if _about_openers(report, rule):
        h.openers_proved = False
        h._emit(OpenersJudged(seat=seat, proved=False, cards=(), rule=rule))
    _ruled(h, report, "the opener's hand is foul before the draw: another player with openers may open in his "
           "place; if none, the others take back their bets and the antes and his bets stay", R_FALSE2)
    h._resume_at = h.to_act
    n = h._n
    h._reopen_queue = [(i + k) % n for k in range(1, n) if not h._folded[(i + k) % n]]
    h._reopen_pos = 0
    if not h._reopen_queue:
        h._no_new_opener("irregularity")
    else:
        h._move(Phase.REOPENING, "irregularity")
        h.to_act = h._reopen_queue[0]


# ---------------------------------------------------------------------------------------------- the draw hooks


def end_of_draw(hand: Hand) -> None:
    """Called by the hand when the last drawer has been served: replace exposed cards from the top."""
    st = hand.irregular_state
    if st is None or not st.owed_after_draw:
        return
    owed, st.owed_after_draw = st.owed_after_draw, []
    for i, count, rule in owed:
        _serve_owed(hand, i, count, rule)


def _serve_owed(hand: Hand, i: int, count: int, rule: str) -> None:
    if hand._folded[i] or count <= 0:
        return
    take = min(count, _available(hand))
    served = _take_from_stub(hand, i, take)
    if take < count:
        state(hand).short.add(i)
        rule = f"{rule}; the pack is exhausted: he plays on short (common practice)"
    hand._emit(ReplacementServed(seat=hand._seat_no[i], cards=hand._codes(served), rule=rule))


def owed_with_draw(hand: Hand, i: int) -> int:
    """Cards a player is owed with his draw (001 IV 5a after the open); called by ``Hand.draw``."""
    st = hand.irregular_state
    if st is None or i not in st.owed_with_draw:
        return 0
    count, _ = st.owed_with_draw.pop(i)
    return count


# -------------------------------------------------------------------------------------------- verification


def verify(hand: Hand, report: Report) -> None:
    """Raise :class:`IllegalActionError` unless the report can be applied now. Changes nothing."""
    _dispatch(hand, report, apply_it=False)


def apply(hand: Hand, report: Report) -> None:
    """Apply a verified report (``Hand.irregularity`` / ``Hand.floor_ruling`` verify first)."""
    _dispatch(hand, report, apply_it=True)


def _dispatch(hand: Hand, report: Report, *, apply_it: bool) -> None:
    if hand.phase is None or hand.phase in TERMINAL:
        raise IllegalActionError("hand_over", "the hand is already over")
    handler = _HANDLERS.get(report.kind)
    if handler is None:  # pragma: no cover - the Literal type makes this unreachable
        raise IllegalActionError("bad_report", f"unknown report kind {report.kind!r}")
    handler(hand, report, apply_it)


def _require_phase(hand: Hand, phases: tuple[Phase, ...], report: Report, rule: str) -> None:
    if hand.phase not in phases:
        raise _illegal("wrong_phase", f"'{report.kind}' cannot be reported during {hand.phase}", rule)


def _require_live(hand: Hand, i: int, rule: str) -> None:
    if hand._folded[i]:
        raise _illegal("not_in_hand", f"seat {hand._seat_no[i]} is no longer in the hand", rule)


# ------------------------------------------------------------------------------------------- the deal


def _exposed_in_deal(hand: Hand, report: Report, apply_it: bool) -> None:
    rule = R_FACED_PACK if report.kind == "faced_in_pack" else R_EXPOSED_DEAL
    if report.kind == "faced_in_pack" and hand.phase in (Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN):
        _exposed_in_draw(hand, report, apply_it)
        return
    i = _seat_index(hand, report.seat, report.kind)
    if not _deal_window(hand):
        raise _illegal("too_late", "an exposed card in the deal is dealt with before anyone acts on his cards",
                       rule)
    if report.card is None or report.card == UNKNOWN_CODE:
        raise IllegalActionError("bad_report", f"'{report.kind}' needs the exposed 'card' (an exposed card is seen)")
    st = state(hand)
    pos = _exposed_position(hand, hand._hands[i], report, rule, learn=apply_it)
    if pos in st.exposed_deal.get(i, []):
        raise _illegal("already_exposed", f"{report.card} was already reported exposed", rule)
    if not apply_it:
        return
    st.exposed_deal.setdefault(i, []).append(pos)
    total = sum(len(v) for v in st.exposed_deal.values())
    if total == 1:
        remedy = "the player keeps the exposed card; no misdeal"
    else:
        callers = ", ".join(str(hand._seat_no[j]) for j in sorted(st.exposed_deal))
        remedy = f"{total} cards exposed in the deal: seat(s) {callers} may call a misdeal"
    _ruled(hand, report, remedy, rule, [pos])


def _exposed_position(hand: Hand, cards: Sequence[int], report: Report, rule: str, *, learn: bool) -> int:
    """Which of these cards (a hand in the order dealt, or this draw in the order served) was exposed. With a shoe
    that cannot read cards, ``count`` gives its place (1 = first) and the exposed card is learnt there."""
    assert report.card is not None
    if report.count is None:
        return _resolve(hand, cards, [report.card], f"seat {report.seat} exposed card", learn=learn)[0]
    if not 1 <= report.count <= len(cards):
        raise _illegal("bad_report", f"'count' is the exposed card's place, 1..{len(cards)}", rule)
    pos = cards[report.count - 1]
    return _resolve(hand, [pos], [report.card], f"seat {report.seat} exposed card", learn=learn)[0]


def _misdeal(hand: Hand, report: Report, apply_it: bool) -> None:
    i = _seat_index(hand, report.seat, report.kind)
    st = state(hand)
    if not _deal_window(hand):
        raise _illegal("too_late", "a misdeal is called before anyone acts on his cards", R_MISDEAL_CP)
    total = sum(len(v) for v in st.exposed_deal.values())
    if total < 2:
        raise _illegal("no_misdeal", "a misdeal needs more than one card exposed in the deal", R_EXPOSED_DEAL)
    if not st.exposed_deal.get(i):
        raise _illegal("not_entitled", f"seat {report.seat} received no exposed card", R_MISDEAL)
    if report.looked != "none":
        raise _illegal("saw_another_card", f"seat {report.seat} has intentionally seen another card dealt to him",
                       R_MISDEAL)
    if apply_it:
        _void(hand, report, antes_back=hand.config.options.misdeal_antes is MisdealAntes.RETURN, status="misdeal",
              rule=f"{R_MISDEAL}; {R_MISDEAL_CP}")


def _void(hand: Hand, report: Report, *, antes_back: bool, status: str, rule: str) -> None:
    """The deal is void: bets (and, if so, antes) go back; the cards are gathered for a new shuffle."""
    h = hand
    for j in range(h._n):
        back = h._contrib[j] if antes_back else h._contrib[j] - h._ante_paid[j]
        if back <= 0:
            continue
        from_bet = min(back, h._bet[j])
        h._bet[j] -= from_bet
        h._pot -= back - from_bet
        h._contrib[j] -= back
        h._stack[j] += back
        h._emit(BetReturned(seat=h._seat_no[j], amount=back, reason=rule))
    if antes_back and h._dead:
        b = h._button
        h._stack[b] += h._dead
        h._pot -= h._dead
        h._emit(BetReturned(seat=h._seat_no[b], amount=h._dead, reason=rule))
        h._dead = 0
    h._collect()
    for j in range(h._n):
        h._muck += h._hands[j]
        h._hands[j] = []
    h.to_act = None
    opts = h.config.options
    deal_passes = opts.misdeal_deal_passes if status == "misdeal" else False
    state(h).next_deal.update({"new_shuffle": True, "deal_passes": deal_passes,
                               "antes": "returned" if antes_back else "stay"})
    remedy = (f"the deal is void: bets returned, antes {'returned' if antes_back else 'stay in the pot'}, "
              f"{'the deal passes' if deal_passes else 'the same dealer deals again'}, a new shuffle")
    if report.kind in FLOOR_KINDS:
        h._emit(FloorRuled(ruling=report.kind, by=report.by, reason=report.reason))
    else:
        _ruled(h, report, remedy, rule)
    h._move(Phase.PASSED_OUT, "floor_ruling" if report.kind in FLOOR_KINDS else "irregularity")
    if h._pot:
        h._emit(PotCarried(amount=h._pot, reason=f"{rule}: the chips stay for the next deal"))
    h.status = status
    h._end()


def _too_many_in_deal(hand: Hand, report: Report, apply_it: bool) -> None:
    i = _seat_index(hand, report.seat, report.kind)
    count = report.count or 0
    _require_phase(hand, (Phase.STRADDLING, Phase.FIRST_BETTING), report, R_TOO_MANY_DEAL)
    _require_live(hand, i, R_TOO_MANY_DEAL)
    if count < 1 or count > _available(hand):
        raise IllegalActionError("bad_report", f"'count' must be the number of extra cards, 1..{_available(hand)}")
    if len(hand._hands[i]) != 5:
        raise _illegal("bad_report", f"seat {report.seat} does not hold five cards", R_TOO_MANY_DEAL)
    if report.looked == "none" and not _deal_window(hand):
        raise _illegal("too_late", "too many cards must be announced before acting on the hand", R_TOO_MANY_DEAL)
    if report.looked != "none" and hand.phase is Phase.STRADDLING:
        raise _illegal("wrong_phase", "nobody looks at his cards during the straddles", R_TOO_MANY_DEAL)
    if not apply_it:
        return
    extra = _take_from_stub(hand, i, count)
    if report.looked == "none":
        _return_to_stub(hand, i, extra)
        _ruled(hand, report, "announced before looking: the excess goes back on top of the pack", R_TOO_MANY_DEAL)
        return
    rule = R_NO_OPENERS_SIX if i == hand._opener and hand.requirement is not None else R_TOO_MANY_DEAL
    _foul(hand, i, report, rule)


def _too_few_in_deal(hand: Hand, report: Report, apply_it: bool) -> None:
    i = _seat_index(hand, report.seat, report.kind)
    count = report.count or 0
    _require_phase(hand, (Phase.STRADDLING, Phase.FIRST_BETTING), report, R_TOO_FEW_DEAL_000)
    _require_live(hand, i, R_TOO_FEW_DEAL_000)
    if not 1 <= count <= 4 or len(hand._hands[i]) != 5:
        raise IllegalActionError("bad_report", "'count' is the number of missing cards, 1..4, of a five-card hand")
    st = state(hand)
    if i in st.owed_with_draw:
        raise _illegal("already_reported", f"seat {report.seat} is already owed cards", R_TOO_FEW_DEAL_001)
    if not apply_it:
        return
    missing = hand._hands[i][5 - count:]
    _return_to_stub(hand, i, missing)  # the cards he should have had are still on the pack
    with_draw = hand.config.options.short_deal is ShortDeal.WITH_THE_DRAW
    if with_draw and _voluntary_betting_started(hand):
        st.owed_with_draw[i] = (count, R_TOO_FEW_DEAL_001)
        _ruled(hand, report, f"the betting has begun: he plays the first round with {5 - count} cards and receives "
               f"the {count} missing with his draw", R_TOO_FEW_DEAL_001)
        return
    taken = _take_from_stub(hand, i, count)
    if with_draw:
        _ruled(hand, report, "the missing cards are dealt at the end of the deal", R_TOO_FEW_DEAL_001, taken)
    else:
        _ruled(hand, report, "the dealer deals him enough cards from the top of the pack", R_TOO_FEW_DEAL_000)


# ---------------------------------------------------------------------------------------------------- the draw


def _served_seat(hand: Hand, report: Report, rule: str) -> tuple[int, list[int]]:
    i = _seat_index(hand, report.seat, report.kind)
    if not _draw_open(hand):
        raise _illegal("wrong_phase", f"'{report.kind}' is reported during the draw", rule)
    _require_live(hand, i, rule)
    if _last_serve(hand, i) is None:
        raise _illegal("not_served", f"seat {report.seat} has not drawn yet", rule)
    return i, _served_positions(hand, i)


def _exposed_in_draw(hand: Hand, report: Report, apply_it: bool) -> None:
    option = hand.config.options.exposed_draw_card
    rule = R_EXPOSED_DRAW_001 if option is ExposedDrawCard.NEVER_KEPT else f"{R_EXPOSED_DRAW_003}; {R_EXPOSED_DRAW_000}"
    i, served = _served_seat(hand, report, rule)
    if not _just_served(hand, i):
        raise _illegal("too_late", "an exposed card is dealt with as it is served", rule)
    if report.card is None or report.card == UNKNOWN_CODE:
        raise IllegalActionError("bad_report", f"'{report.kind}' needs the exposed 'card' (an exposed card is seen)")
    pos = _exposed_position(hand, served, report, rule, learn=apply_it)
    if not apply_it:
        return
    first = served.index(pos) == 0
    if option is ExposedDrawCard.FIRST_KEPT and first:
        _ruled(hand, report, "the first card drawn must be accepted", rule, [pos])
        return
    hand._hands[i].remove(pos)
    hand._muck.append(pos)
    draw_over = hand.phase is not Phase.DRAWING
    _ruled(hand, report, "the exposed card goes among the discards; it is replaced from the top "
           + ("now: every other player has drawn" if draw_over else "after all other players have drawn"),
           rule, [pos])
    if draw_over:
        _serve_owed(hand, i, 1, rule)
    else:
        state(hand).owed_after_draw.append((i, 1, rule))


def _card_known(hand: Hand, report: Report, apply_it: bool) -> None:
    i, _ = _served_seat(hand, report, R_KNOWN)
    if not _just_served(hand, i):
        raise _illegal("too_late", "reported as the card is served", R_KNOWN)
    if apply_it:
        _ruled(hand, report, "a card the player could see before it was dealt to him, not exposed on the table: he "
               "must take it", R_KNOWN)


def _named_from_hand(hand: Hand, i: int, report: Report, count: int, *, exclude: Sequence[int], rule: str,
                     apply_it: bool) -> list[int]:
    codes = report.cards or []
    if len(codes) != count:
        raise _illegal("bad_report", f"name the {count} card(s) discarded from the original hand in 'cards'", rule)
    pool = [p for p in hand._hands[i] if p not in exclude]
    return _resolve(hand, pool, codes, f"seat {report.seat} discards", learn=apply_it)


def _discard(hand: Hand, i: int, positions: Sequence[int]) -> None:
    for pos in positions:
        hand._hands[i].remove(pos)
    held = i == hand._opener and hand.requirement is not None and hand.config.options.opener_holds_discards
    (hand._held if held else hand._discards)[i].extend(positions)


def _draw_miscount(hand: Hand, report: Report, apply_it: bool) -> None:
    option = hand.config.options.late_draw_miscount
    rule = R_MISCOUNT_003 if option is LateDrawMiscount.DISCARD_OR_DROP else R_MISCOUNT_000
    i, served = _served_seat(hand, report, rule)
    asked = len(served)
    got = report.count
    if got is None or got == asked:
        raise IllegalActionError("bad_report", f"'count' must be the number of cards received, not {asked}")
    if got > asked and got - asked > _available(hand):
        raise _illegal("bad_report", "not that many cards are left on the pack", rule)
    too_many = got > asked
    next_served = not _just_served(hand, i)
    looked = report.looked
    # What the remedy will be, decided before anything changes.
    if option is LateDrawMiscount.DISCARD_OR_DROP:
        if looked != "none":
            remedy = "foul"
        elif not next_served:
            remedy = "correct"
        elif report.choice == "drop":
            remedy = "drop"
        elif too_many and report.choice == "discard_more":
            remedy = "discard_more"
        else:
            raise _illegal("choose", "a later player has been served: he may only increase his discard to make "
                           "room for the excess ('discard_more'), or drop", rule)
    elif too_many and looked == "all":
        remedy = "foul"
    elif not next_served and looked == "none":
        remedy = "correct"
    elif report.choice == "drop":
        remedy = "drop"
    else:
        remedy = "leave_excess" if too_many else "play_short"
    extra_cards: list[int] = []
    if remedy == "discard_more":
        extra_cards = _named_from_hand(hand, i, report, got - asked, exclude=served, rule=rule, apply_it=apply_it)
    if not apply_it:
        return
    if too_many:
        moved = _take_from_stub(hand, i, got - asked)
    else:
        moved = served[got:]
        _return_to_stub(hand, i, moved)
    if remedy == "foul":
        _foul(hand, i, report, f"{rule}: he looked at the drawn cards")
    elif remedy == "correct":
        if too_many:
            _return_to_stub(hand, i, moved)
            _ruled(hand, report, "corrected: the surplus card goes back on top of the pack", rule)
        else:
            _take_from_stub(hand, i, asked - got)
            _ruled(hand, report, "corrected: the missing cards are supplied at once", rule)
    elif remedy == "drop":
        _ruled(hand, report, "he drops", rule)
        _drop(hand, i)
    elif remedy == "discard_more":
        _discard(hand, i, extra_cards)
        _ruled(hand, report, "he increases his discard to make room for the excess", rule, extra_cards)
    elif remedy == "leave_excess":
        hand._hands[i] = [p for p in hand._hands[i] if p not in moved]
        hand._muck += moved
        _ruled(hand, report, "the excess is left on the table unseen (among the discards)", rule)
    elif not hand._hands[i]:
        _foul(hand, i, report, f"{rule}: {R_NO_CARDS}")
    else:
        state(hand).short.add(i)
        _ruled(hand, report, f"he plays on with a short hand of {len(hand._hands[i])} cards", rule)


def _dealer_draw_miscount(hand: Hand, report: Report, apply_it: bool) -> None:
    from table_controller.engine.config import GameForm

    i, served = _served_seat(hand, report, R_DEALER_DRAW)
    if i != hand._button:
        raise _illegal("not_the_dealer", f"seat {report.seat} is not the dealer", R_DEALER_DRAW)
    if hand.config.form is GameForm.FIVE_CARD_DRAW:
        raise _illegal("house_dealer", "in the casino game the croupier deals and does not play", "001 Game procedure")
    asked, got = len(served), report.count
    if got is None or got == asked:
        raise IllegalActionError("bad_report", f"'count' must be the number of cards he took, not {asked}")
    if got > asked and got - asked > _available(hand):
        raise _illegal("bad_report", "not that many cards are left on the pack", R_DEALER_DRAW)
    extra: list[int] = []
    if got > asked and report.looked == "none":
        extra = _named_from_hand(hand, i, report, got - asked, exclude=served, rule=R_DEALER_DRAW, apply_it=apply_it)
    if not apply_it:
        return
    if got > asked:
        _take_from_stub(hand, i, got - asked)
        if report.looked != "none":
            _foul(hand, i, report, f"{R_DEALER_DRAW}: he looked before discarding to make room")
            return
        _discard(hand, i, extra)
        _ruled(hand, report, "the dealer must take the cards and discard enough from his original hand", R_DEALER_DRAW,
               extra)
        return
    _return_to_stub(hand, i, served[got:])
    if hand.config.options.dealer_short_draw is DealerShortDraw.FOUL:
        _foul(hand, i, report, f"{R_DEALER_DRAW}: the dealer took too few cards")
        return
    if not hand._hands[i]:
        _foul(hand, i, report, f"{R_DEALER_DRAW}: {R_NO_CARDS}")
        return
    state(hand).short.add(i)
    _ruled(hand, report, "the dealer plays on with an insufficient number of cards (house option)", R_DEALER_DRAW)


def _asked_wrong_count(hand: Hand, report: Report, apply_it: bool) -> None:
    i, served = _served_seat(hand, report, R_ASKED)
    asked, meant = len(served), report.count
    if meant is None or meant == asked or meant > hand.max_discard(hand._seat_no[i]) + asked:
        raise IllegalActionError("bad_report", "'count' must be the number of cards he meant to ask for")
    next_served = not _just_served(hand, i)
    if report.looked != "none":
        if apply_it:
            _foul(hand, i, report, f"{R_ASKED}: he looked at the cards drawn")
        return
    if next_served:
        if meant < asked:
            if apply_it:
                _ruled(hand, report, "the next player has been served: he keeps the draw, having discarded enough "
                       "from his original hand to make a correct number", R_ASKED)
            return
        raise _illegal("too_late", "the next player has been served: asking for too few can no longer be corrected",
                       R_ASKED)
    if meant > asked:
        if meant - asked > _available(hand):
            raise _illegal("bad_report", "not that many cards are left on the pack", R_ASKED)
        more = _named_from_hand(hand, i, report, meant - asked, exclude=served, rule=R_ASKED, apply_it=apply_it)
        if apply_it:
            _discard(hand, i, more)
            _take_from_stub(hand, i, meant - asked)
            _ruled(hand, report, "corrected: he discards more and is served the difference", R_ASKED, more)
        return
    # Asked for too many, not yet discarded: the surplus goes back on the pack and cards return to his hand.
    pile = hand._held[i] if i == hand._opener and hand.requirement is not None and \
        hand.config.options.opener_holds_discards else hand._discards[i]
    codes = report.cards or []
    if len(codes) != asked - meant:
        raise _illegal("bad_report", f"name in 'cards' the {asked - meant} card(s) he keeps after all", R_ASKED)
    back = _resolve(hand, list(pile), codes, f"seat {report.seat} keeps", learn=apply_it)
    if apply_it:
        _return_to_stub(hand, i, served[meant:])
        for pos in back:
            pile.remove(pos)
            hand._hands[i].append(pos)
        _ruled(hand, report, "corrected before discarding: the surplus goes back on top of the pack", R_ASKED)


def _draw_out_of_turn(hand: Hand, report: Report, apply_it: bool) -> None:
    option = hand.config.options.out_of_turn_discarded
    rule = R_OUT_OF_TURN_003 if option is OutOfTurnDiscarded.DEAD else f"{R_OUT_OF_TURN_000}; {R_OUT_OF_TURN_003}"
    i = _seat_index(hand, report.seat, report.kind)
    _require_phase(hand, (Phase.DRAWING,), report, rule)
    if hand.to_act != i:
        raise _illegal("not_skipped", f"seat {report.seat} is not the player whose turn was taken", rule)
    discarded = report.cards or []
    thrown = _resolve(hand, hand._hands[i], discarded, f"seat {report.seat} discards", learn=apply_it)
    if report.choice not in (None, "stand_pat", "drop", "play_short"):
        raise IllegalActionError("bad_report", "choice is 'stand_pat', 'play_short' or 'drop'")
    if not apply_it:
        return
    if report.choice == "drop":
        _ruled(hand, report, "he abandons his hand", rule)
        _drop(hand, i)
        return
    if thrown and (option is OutOfTurnDiscarded.DEAD or len(thrown) == len(hand._hands[i])):
        hand._hands[i] = [p for p in hand._hands[i] if p not in thrown]
        hand._muck += thrown
        dead = "he had discarded, his hand is dead" if option is OutOfTurnDiscarded.DEAD else R_NO_CARDS
        _foul(hand, i, report, f"{rule}: {dead}")
        return
    if thrown:
        state(hand).short.add(i)
        _ruled(hand, report, f"he had discarded: he plays on short with {5 - len(thrown)} cards, receiving none",
               rule)
    else:
        _ruled(hand, report, "he may not draw: he stands pat and plays on", rule)
    hand._hands[i] = [p for p in hand._hands[i] if p not in thrown]
    held = i == hand._opener and hand.requirement is not None and hand.config.options.opener_holds_discards
    (hand._held if held else hand._discards)[i].extend(thrown)
    hand._serve(i, 0, [], list(thrown), "irregularity")


def mixed_pool(hand: Hand, seats: Sequence[int]) -> tuple[str, ...]:
    """The cards the dealer must shuffle and cut when these players' draws got mixed with the discards."""
    return hand._codes(_mixed_positions(hand, [hand._i(s) for s in seats]))


def _mixed_positions(hand: Hand, players: Sequence[int]) -> list[int]:
    pool = list(hand._muck)
    for k in range(hand._n):
        pool += hand._discards[k]
    for i in players:
        pool += _served_positions(hand, i)
    return sorted(pool)


def _mixed_cards(hand: Hand, report: Report, apply_it: bool) -> None:
    seats = report.seats or ([report.seat] if report.seat is not None else [])
    if not seats or len(set(seats)) != len(seats):
        raise IllegalActionError("bad_report", "'seats' lists the players whose draws were mixed")
    if not _draw_open(hand):
        raise _illegal("wrong_phase", "cards mixed in the draw are reported during the draw", R_MIXED)
    players = [hand._i(s) for s in seats]
    for i in players:
        _require_live(hand, i, R_MIXED)
        if _last_serve(hand, i) is None:
            raise _illegal("not_served", f"seat {hand._seat_no[i]} has not drawn yet", R_MIXED)
    pool = _mixed_positions(hand, players)
    order = report.order or []
    if len(order) != len(pool):
        raise _illegal("bad_order", f"the shuffled cards must list the {len(pool)} unclean cards, got {len(order)}",
                       R_MIXED)
    new_order = _resolve(hand, pool, order, "mixed cards", learn=apply_it)
    if not apply_it:
        return
    counts = {i: len(_served_positions(hand, i)) for i in players}
    taken = set(new_order)
    for k in range(hand._n):
        hand._hands[k] = [p for p in hand._hands[k] if p not in taken]
        hand._discards[k] = [p for p in hand._discards[k] if p not in taken]
    hand._muck = [p for p in hand._muck if p not in taken]
    hand._stub = list(reversed(new_order)) + hand._stub  # under the pack: its order is not changed (003 Other 1)
    hand._emit(MixedCardsShuffled(size=len(new_order), seats=tuple(seats), rule=R_MIXED))
    _ruled(hand, report, "the unclean cards, discards and mixed cards are shuffled together and cut, and the draw "
           "proceeds: each mixed draw is served again from the top", R_MIXED)
    for i in players:
        served = _take_from_stub(hand, i, counts[i])
        hand._emit(ReplacementServed(seat=hand._seat_no[i], cards=hand._codes(served), rule=R_MIXED))


def _ask_draw_count(hand: Hand, report: Report, apply_it: bool) -> None:
    mode = _draw_info_mode(hand)
    rule = R_INFO_001 if mode is DrawCountInfo.ANY_PLAYER else R_INFO_003
    i = _seat_index(hand, report.seat, report.kind)
    if report.about is None:
        raise IllegalActionError("bad_report", "'about' names whose draw is asked")
    j = hand._i(report.about)
    _require_live(hand, i, rule)
    if i == j:
        raise IllegalActionError("bad_report", "a player knows his own draw")
    allowed, why = _may_ask(hand, i, j, mode)
    if not allowed:
        raise _illegal("no_information", why, rule)
    if apply_it:
        last = _last_serve(hand, j)
        assert last is not None
        hand._emit(DrawCountAnswered(seat=hand._seat_no[i], about=hand._seat_no[j], count=len(last.served),
                                     rule=rule))


def _may_ask(hand: Hand, i: int, j: int, mode: DrawCountInfo) -> tuple[bool, str]:
    if hand.phase not in (Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN) or _last_serve(hand, j) is None:
        return False, "that player has not drawn"
    if hand._folded[i]:
        return False, "only a player still in the hand may ask"
    if mode is DrawCountInfo.ANY_PLAYER:
        if _final_betting_started(hand) or hand.phase is Phase.SHOWDOWN:
            return False, "the second betting round has started"
        return True, ""
    if j != hand._button:
        return False, "no information is given about another player's draw, only about the dealer's"
    if hand._interval == "final" and (hand._bet[i] > 0 or (hand.phase is Phase.SHOWDOWN)):
        return False, "only a player who has not yet bet may ask"
    if hand._interval == "final" and _has_bet_after_draw(hand, i):
        return False, "only a player who has not yet bet may ask"
    return True, ""


def _has_bet_after_draw(hand: Hand, i: int) -> bool:
    from table_controller.engine.events import BetMade, Called, Raised

    seat = hand._seat_no[i]
    last_draw = max((k for k, e in enumerate(hand.events) if isinstance(e, (DrawServed, ReplacementServed))),
                    default=-1)
    return any(isinstance(e, (BetMade, Called, Raised)) and e.seat == seat for e in hand.events[last_draw + 1:])


def visible_draw_counts(hand: Hand) -> dict[int, int]:
    """The draw counts the public display may show now, as the house option allows (seat -> cards drawn):
    001 IV 4, every drawn player's count until the second betting round starts; 003 Other rules 5, only the
    dealer's, while some player still in has not yet bet after the draw."""
    mode = _draw_info_mode(hand)
    if hand.phase not in (Phase.DRAWING, Phase.FINAL_BETTING):
        return {}
    counts = {e.seat: len(e.served) for e in hand.events if isinstance(e, DrawServed)}
    if mode is DrawCountInfo.ANY_PLAYER:
        return {} if _final_betting_started(hand) else counts
    dealer = hand._seat_no[hand._button]
    askers = [k for k in range(hand._n) if not hand._folded[k] and k != hand._button
              and not (hand._interval == "final" and _has_bet_after_draw(hand, k))]
    return {dealer: counts[dealer]} if dealer in counts and askers else {}


def draw_count_info(hand: Hand) -> dict[str, Any]:
    """The house rule on draw information, for the displays: which book, and the counts that may be shown."""
    mode = _draw_info_mode(hand)
    return {"rule": R_INFO_001 if mode is DrawCountInfo.ANY_PLAYER else R_INFO_003, "mode": mode.value,
            "visible": {str(s): c for s, c in visible_draw_counts(hand).items()}}


# -------------------------------------------------------------------------------------------- foul reports


def _foul_hand(hand: Hand, report: Report, apply_it: bool) -> None:
    i = _seat_index(hand, report.seat, report.kind)
    _require_phase(hand, (Phase.FIRST_BETTING, Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN, Phase.PROVING),
                   report, R_FOUL)
    _require_live(hand, i, R_FOUL)
    if hand.phase is Phase.PROVING and i != hand.to_act:
        raise _illegal("not_in_hand", f"seat {report.seat} is no longer in the hand", R_FOUL)
    rule = R_FOUL
    if report.kind == "wrong_number_after_draw":
        if hand._interval != "final" and not (hand.phase is Phase.DRAWING and _last_serve(hand, i) is not None):
            raise _illegal("wrong_phase", "reported after the player's draw", R_AFTER_DRAW_001)
        rule = R_AFTER_DRAW_001
    elif report.kind == "false_openers":
        if i != hand._opener or hand.requirement is None:
            raise _illegal("not_the_opener", f"seat {report.seat} did not open a pot that needs openers",
                           R_FALSE_OPENERS)
        rule = R_FALSE_OPENERS
    if apply_it:
        _foul(hand, i, report, rule)


# ----------------------------------------------------------------------------------------------- floor rulings


def _floor_common(report: Report) -> None:
    if not report.by.strip() or not report.reason.strip():
        raise IllegalActionError("bad_ruling", "a floor ruling names who ruled ('by') and why ('reason')",
                                 rule=R_FLOOR)


def _void_hand(hand: Hand, report: Report, apply_it: bool) -> None:
    _floor_common(report)
    if apply_it:
        _void(hand, report, antes_back=True, status="void", rule=f"{R_FLOOR}: {report.reason}")


def _award_pot(hand: Hand, report: Report, apply_it: bool) -> None:
    _floor_common(report)
    seats = report.seats or ([report.seat] if report.seat is not None else [])
    if not seats or len(set(seats)) != len(seats):
        raise IllegalActionError("bad_ruling", "'seats' names who is awarded the pot", rule=R_FLOOR)
    players = [hand._i(s) for s in seats]
    total = hand._pot + sum(hand._bet)
    if report.shares is not None:
        if len(report.shares) != len(seats) or sum(report.shares) != total:
            raise IllegalActionError("bad_ruling", f"'shares' must give each awarded seat its part of {total}",
                                     rule=R_FLOOR)
        shares = list(report.shares)
    else:
        b, n = hand._button, hand._n
        players.sort(key=lambda j: (j - b - 1) % n)
        share, odd = divmod(total, len(players))
        shares = [share + (1 if k < odd else 0) for k in range(len(players))]
    if not apply_it:
        return
    h = hand
    h._collect()
    for j, s in zip(players, shares, strict=True):
        h._stack[j] += s
    h._pot -= sum(shares)
    h.to_act = None
    h._emit(FloorRuled(ruling=report.kind, by=report.by, reason=report.reason))
    h._move(Phase.COMPLETE, "floor_ruling")
    h._emit(PotAwarded(pot_index=0, amount=sum(shares), seats=tuple(h._seat_no[j] for j in players),
                       shares=tuple(shares), hand="floor ruling"))
    h.status = "complete"
    h._end()


def _move_chips(hand: Hand, report: Report, apply_it: bool) -> None:
    _floor_common(report)
    i = _seat_index(hand, report.seat, report.kind)
    amount = report.amount or 0
    if amount <= 0 or report.to_pot is None:
        raise IllegalActionError("bad_ruling", "'amount' (> 0) and 'to_pot' (true: stack to pot; false: pot to "
                                 "stack) are needed", rule=R_FLOOR)
    h = hand
    if report.to_pot:
        if amount > h._stack[i]:
            raise IllegalActionError("bad_ruling", f"seat {report.seat} has only {h._stack[i]} chips", rule=R_FLOOR)
        if h.to_act == i and amount == h._stack[i] and h.phase in (Phase.FIRST_BETTING, Phase.FINAL_BETTING):
            raise IllegalActionError("bad_ruling", "that would leave the player to act without chips", rule=R_FLOOR)
    else:
        free = h._pot + sum(h._bet) - sum(h._contrib)  # the carried pot and dead antes
        limit = min(h._pot, h._contrib[i] - h._bet[i] + max(free, 0))
        if amount > limit:
            raise IllegalActionError("bad_ruling", f"at most {limit} chips of the collected pot can go to seat "
                                     f"{report.seat}", rule=R_FLOOR)
    if not apply_it:
        return
    if report.to_pot:
        h._stack[i] -= amount
        h._pot += amount
        h._contrib[i] += amount
    else:
        own = min(amount, h._contrib[i] - h._bet[i])
        h._contrib[i] -= own
        h._pot -= amount
        h._stack[i] += amount
    h._emit(FloorRuled(ruling=report.kind, by=report.by, reason=report.reason, seat=report.seat, amount=amount))


# --------------------------------------------------------------------------------------------------- the table

_HANDLERS = {
    "exposed_in_deal": _exposed_in_deal,
    "faced_in_pack": _exposed_in_deal,
    "misdeal": _misdeal,
    "too_many_in_deal": _too_many_in_deal,
    "too_few_in_deal": _too_few_in_deal,
    "exposed_in_draw": _exposed_in_draw,
    "card_known": _card_known,
    "draw_miscount": _draw_miscount,
    "dealer_draw_miscount": _dealer_draw_miscount,
    "asked_wrong_count": _asked_wrong_count,
    "draw_out_of_turn": _draw_out_of_turn,
    "mixed_cards": _mixed_cards,
    "ask_draw_count": _ask_draw_count,
    "foul_hand": _foul_hand,
    "wrong_number_after_draw": _foul_hand,
    "false_openers": _foul_hand,
    "void_hand": _void_hand,
    "award_pot": _award_pot,
    "move_chips": _move_chips,
}


def reports_open(hand: Hand) -> tuple[str, ...]:
    """The report kinds the phase admits now (a hint for the dealer console; each is still verified)."""
    phase = hand.phase
    if phase is None or phase in TERMINAL:
        return ()
    kinds: list[str] = []
    if _deal_window(hand):
        kinds += ["exposed_in_deal", "faced_in_pack", "too_many_in_deal", "too_few_in_deal"]
        if sum(len(v) for v in state(hand).exposed_deal.values()) >= 2:
            kinds.append("misdeal")
    elif phase is Phase.FIRST_BETTING:
        kinds += ["too_many_in_deal", "too_few_in_deal"]
    if _draw_open(hand):
        kinds += ["exposed_in_draw", "faced_in_pack", "card_known", "draw_miscount", "dealer_draw_miscount",
                  "asked_wrong_count", "mixed_cards", "ask_draw_count"]
    if phase is Phase.DRAWING:
        kinds.append("draw_out_of_turn")
    if phase in (Phase.FIRST_BETTING, Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN, Phase.PROVING):
        kinds += ["foul_hand", "false_openers"]
        if hand._interval == "final" or phase is Phase.DRAWING:
            kinds.append("wrong_number_after_draw")
    if phase is Phase.FINAL_BETTING and "ask_draw_count" not in kinds:
        kinds.append("ask_draw_count")
    return tuple(dict.fromkeys(kinds))


def result_fields(hand: Hand) -> dict[str, Any]:
    """What the reports add to ``Hand.result()``: the next deal's consequences and the draw-count house rule."""
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
        out["short_hands"] = sorted(hand._seat_no[i] for i in st.short)
    return out

