"""The shared part of the irregularity handling: the rule texts, the :class:`Report` model, the events, the
state a hand keeps for pending remedies, short-hand values, the foul-hand and drop logic every remedy uses, and
the moves a remedy makes on the stub (:data:`StubMove`: what its dry run answers, and what its act must do).

See :mod:`table_controller.engine.irregular` for how reports work. Like every irregular_* module this works on
the deal's public state (``hand_state.HandState``), so that the engine's invariants and transition table stay
the single source of truth; its functions are the ones the other irregular_* modules share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from table_controller.engine.acts import INPUTS, actions_of
from table_controller.engine.cards import UNKNOWN_CODE, Card, CardCodeError, card_str, parse_card
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import (
    BetReturned,
    DrawServed,
    Event,
    OpenersJudged,
    PotCarried,
)
from table_controller.engine.hand_state import HandState, IrregularState
from table_controller.engine.irregular_openers import (
    ask_for_a_new_opener,
    before_the_draw,
    false_opener_uncalled,
    return_bets,
)
from table_controller.engine.irregular_options import (
    DrawCountInfo,
)
from table_controller.engine.machine import Phase

# The rules cited: book, section and paragraph (book codes as in config.py).
R_EXPOSED_DEAL = "000 Irregularities, Card exposed in the deal"
R_FACED_PACK = "003 Incorrect dealing in the draw, 1 (a card found faced in the pack is an exposed card)"
R_MISDEAL = "000 Irregularities, Card exposed in the deal: more than one exposed card, a misdeal may be called"
R_MISDEAL_CP = "common practice: a misdeal voids the deal, bets come back, the cards are shuffled anew"
R_MISDEAL_000 = ("house option: 000 as written, no time limit but that the caller has not seen another of his "
                 "cards; the deal is void, bets come back, a new shuffle")
R_TOO_MANY_DEAL = "000 Irregularities, Incorrect hand: too many cards"
R_TOO_FEW_DEAL_000 = "000 Irregularities, Incorrect hand: too few cards, dealt from the top of the pack"
R_TOO_FEW_DEAL_001 = "001 IV 5a Too many or too few cards, before the first betting round"
R_TOO_FEW_BUTTON_001 = ("001 IV 5a Too many or too few cards, before the first betting round: once the game is opened "
                        "only the player with the Dealer-Button receives the missing cards (house option); "
                        "001 IV 5b: any other short hand is a bum hand")
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
R_FIVE_TO_DRAW = "003 Other rules governing the draw, 2"
R_TAKEN_BACK = "003 Other rules governing the draw, 3"
R_SAW_DRAW_CARD = "003 Other rules governing the draw, 6"
R_NO_CARDS = "no card left to play on with: the hand is dead (common practice)"
R_FLOOR = "floor ruling (the books are silent: common practice, a supervisor decides)"

_PACK = 52
REPORT_KINDS = ("exposed_in_deal", "faced_in_pack", "misdeal", "too_many_in_deal", "too_few_in_deal",
                "exposed_in_draw", "card_known", "draw_miscount", "dealer_draw_miscount", "asked_wrong_count",
                "draw_out_of_turn", "mixed_cards", "ask_draw_count", "foul_hand", "wrong_number_after_draw",
                "false_openers", "draw_card_seen", "leave_in_pot")
FLOOR_KINDS = ("void_hand", "award_pot", "move_chips")

# The fields each kind takes besides ``kind``, ``by`` and ``reason`` (which any report may carry). A report that
# sets any other field is refused when it is built: a field the engine would ignore is a mistake in the report.
REPORT_FIELDS: dict[str, frozenset[str]] = {kind: frozenset(names) for kind, names in {
    "exposed_in_deal": ("seat", "card", "count"),
    "faced_in_pack": ("seat", "card", "count"),
    "misdeal": ("seat", "looked"),
    "too_many_in_deal": ("seat", "count", "looked", "cards"),
    "too_few_in_deal": ("seat", "count", "looked"),
    "exposed_in_draw": ("seat", "card", "count"),
    "card_known": ("seat",),
    "draw_miscount": ("seat", "count", "looked", "choice", "cards"),
    "dealer_draw_miscount": ("seat", "count", "looked", "cards"),
    "asked_wrong_count": ("seat", "count", "looked", "cards"),
    "draw_out_of_turn": ("seat", "cards", "choice"),
    "mixed_cards": ("seat", "seats", "order"),
    "ask_draw_count": ("seat", "about"),
    "foul_hand": ("seat",),
    "wrong_number_after_draw": ("seat",),
    "false_openers": ("seat",),
    "draw_card_seen": ("seat",),
    "leave_in_pot": ("seat",),
    "void_hand": (),
    "award_pot": ("seats", "shares"),
    "move_chips": ("seat", "amount", "to_pot"),
}.items()}
_ANY_REPORT = frozenset({"kind", "by", "reason"})

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


def _fields_by_kind_schema(schema: dict[str, Any]) -> None:
    """The published JSON Schema says, kind by kind, which fields a report takes (:data:`REPORT_FIELDS`)."""
    schema["allOf"] = [{"if": {"properties": {"kind": {"const": kind}}},
                        "then": {"propertyNames": {"enum": sorted(names | _ANY_REPORT)}}}
                       for kind, names in REPORT_FIELDS.items()]


class Report(BaseModel):
    """One irregularity report or floor ruling; only the fields its ``kind`` takes may be set (``REPORT_FIELDS``;
    ``by`` and ``reason`` on any): another is refused when the report is built.

    - ``seat``: the player concerned (for ``misdeal`` the player calling it; for ``ask_draw_count`` the asker).
    - ``card`` / ``cards``: the exposed card; cards discarded or named (``"??"`` for an unread card); for an
      excess card restored to the pack (``too_many_in_deal``, ``draw_miscount`` corrected), which (default: the
      last dealt).
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

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=_fields_by_kind_schema)

    kind: Literal["exposed_in_deal", "faced_in_pack", "misdeal", "too_many_in_deal", "too_few_in_deal",
                  "exposed_in_draw", "card_known", "draw_miscount", "dealer_draw_miscount", "asked_wrong_count",
                  "draw_out_of_turn", "mixed_cards", "ask_draw_count", "foul_hand", "wrong_number_after_draw",
                  "false_openers", "draw_card_seen", "leave_in_pot", "void_hand", "award_pot", "move_chips"]
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

    @model_validator(mode="after")
    def _fields_of_kind(self) -> Report:
        extra = sorted(self.model_fields_set - _ANY_REPORT - REPORT_FIELDS[self.kind])
        if extra:
            takes = ", ".join(sorted(REPORT_FIELDS[self.kind] | _ANY_REPORT - {"kind"}))
            raise ValueError(f"'{self.kind}' does not take {', '.join(repr(f) for f in extra)} (it takes {takes})")
        return self

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(exclude_defaults=True)


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
_NOT_PLAY = (*_OWN_EVENTS, *INPUTS)  # what a report looking for the game's last event passes over


def state(hand: HandState) -> IrregularState:
    """The remedies pending on the hand, made on first use: for applying a remedy (a verification reads
    :func:`pending`, which changes nothing)."""
    st = hand.irregular_state
    if st is None:
        st = IrregularState()
        hand.irregular_state = st
    return st


def pending(hand: HandState) -> IrregularState:
    """The remedies pending on the hand, to read (an empty state, not kept, when there are none)."""
    st = hand.irregular_state
    return IrregularState() if st is None else st


@dataclass(frozen=True, kw_only=True)
class Take:
    """``count`` cards off the top of the stub, one after another (``as_left``: only as many of them as are
    left above the reserve: a card owed after the draw, which the player may then go short of)."""

    count: int
    as_left: bool = False


@dataclass(frozen=True, kw_only=True)
class Put:
    """Positions put on the top of the stub one after another (the last is the new top), or under it."""

    cards: tuple[int, ...]
    under: bool = False


# A remedy's moves on the stub, in the order it makes them. Each handler decides them from the hand as it stands
# before it changes anything, in the same code whether it verifies or applies: the dry run of a report
# (irregular.shoe_cards_for_report) plays them on a copy of the stub list, and the act is checked to leave the
# stub exactly as they say (irregular.apply).
StubMove = Take | Put
Moves = tuple[StubMove, ...]
NO_MOVES: Moves = ()


def run_moves(stub: Sequence[int], moves: Sequence[StubMove], reserve: int) -> tuple[list[int], list[int]]:
    """Play ``moves`` on a copy of ``stub`` (its top at the end): the stub after them, and the positions they took
    off it in the order taken."""
    pile = list(stub)
    taken: list[int] = []
    for move in moves:
        if isinstance(move, Take):
            count = max(0, min(move.count, len(pile) - reserve)) if move.as_left else move.count
            for _ in range(count):
                taken.append(pile.pop())
        elif move.under:
            pile[:0] = move.cards
        else:
            pile += move.cards
    return pile, taken


def put_back(positions: Sequence[int]) -> Put:
    """The move of :func:`return_to_stub`: these cards back on the top of the pack, the first of them on top."""
    return Put(cards=tuple(reversed(positions)))


def illegal(code: str, message: str, rule: str) -> IllegalActionError:
    return IllegalActionError(code, message, rule=rule)


def seat_index(hand: HandState, seat: int | None, kind: str) -> int:
    if seat is None:
        raise IllegalActionError("bad_report", f"'{kind}' needs a 'seat'")
    return hand.index_of(seat)


def voluntary_betting_started(hand: HandState) -> bool:
    return any(a.act in ("check", "bet", "call", "raise", "fold", "pass") for a in actions_of(hand.events))


def deal_window(hand: HandState) -> bool:
    """The deal has just ended: nobody has yet acted on his cards (straddles are made blind)."""
    return hand.phase in (Phase.STRADDLING, Phase.FIRST_BETTING) and not voluntary_betting_started(hand)


def _last_engine_event(hand: HandState) -> Event | None:
    """The last thing the game did, reports aside: not an input (an act entered, cards a live shoe delivered
    for the report being made, cards forgotten)."""
    for event in reversed(hand.events):
        if not isinstance(event, _NOT_PLAY):
            return event
    return None


def last_serve(hand: HandState, i: int) -> DrawServed | None:
    seat = hand.seat_no[i]
    for event in reversed(hand.events):
        if isinstance(event, DrawServed) and event.seat == seat:
            return event
    return None


def just_served(hand: HandState, i: int) -> bool:
    """Player i was the last served, and nothing has happened since (the next player is not served)."""
    last = _last_engine_event(hand)
    return isinstance(last, DrawServed) and last.seat == hand.seat_no[i]


def draw_open(hand: HandState) -> bool:
    """The draw is under way, or has just ended with no act since."""
    if hand.phase is Phase.DRAWING:
        return True
    if hand.phase in (Phase.FINAL_BETTING, Phase.SHOWDOWN):
        return isinstance(_last_engine_event(hand), (DrawServed, ReplacementServed))
    return False


def served_positions(hand: HandState, i: int) -> list[int]:
    """The cards of player i's draw that he still holds, in the order served. Read from his draw as served
    (``HandState.drawn``), never from the end of his hand: a remedy may have taken one of them out since (an exposed
    card goes among the discards) or put other cards in, and the last cards of his hand are then not his draw."""
    held = hand.hands[i]
    return [pos for pos in hand.drawn[i] if pos in held]


def resolve(hand: HandState, positions: Sequence[int], codes: Sequence[str], what: str, *, learn: bool) -> list[int]:
    snapshot = list(hand.ident)
    learnt = hand.learnt
    try:
        return hand.resolve_cards(list(positions), list(codes), what)
    finally:
        if not learn:
            hand.ident = snapshot
            hand.learnt = learnt


def ruled(hand: HandState, report: Report, remedy: str, rule: str, cards: Sequence[int] = ()) -> None:
    hand.emit(IrregularityRuled(irregularity=report.kind, seat=report.seat, remedy=remedy, rule=rule,
                                 cards=hand.codes(list(cards))))


def take_from_stub(hand: HandState, i: int, count: int) -> list[int]:
    taken = []
    for _ in range(count):
        pos = hand.stub.pop()
        hand.hands[i].append(pos)
        taken.append(pos)
    return taken


def return_to_stub(hand: HandState, i: int, positions: Sequence[int]) -> None:
    """Put these cards of player i back on the top of the pack, in the order they came off it."""
    for pos in positions:
        hand.hands[i].remove(pos)
    for pos in reversed(positions):
        hand.stub.append(pos)


def next_off_the_pack(hand: HandState, count: int) -> list[int]:
    """The next ``count`` positions off the top of the pack, in the order they would come off it."""
    return list(reversed(hand.stub[-count:])) if count > 0 else []


def excess_named(hand: HandState, report: Report, pool: Sequence[int], count: int, *, rule: str,
                  learn: bool) -> list[int]:
    """The excess cards the dealer draws from the player's cards and restores to the top of the pack (000 Incorrect
    hand; 003 Incorrect dealing in the draw 2): those named in ``cards`` (top of the pack first) among ``pool``,
    or by default the last dealt (``pool`` starts with them)."""
    if report.cards is None:
        return list(pool[:count])
    if len(report.cards) != count:
        raise illegal("bad_report", f"name in 'cards' the {count} excess card(s) the dealer takes back", rule)
    return resolve(hand, pool, report.cards, f"seat {report.seat} excess card", learn=learn)


def available(hand: HandState) -> int:
    return len(hand.stub) - hand.reserve()


def draw_info_mode(hand: HandState) -> DrawCountInfo:
    from table_controller.engine.config import GameForm

    mode = hand.config.options.draw_count_info
    if mode is not None:
        return mode
    return DrawCountInfo.ANY_PLAYER if hand.config.form is GameForm.FIVE_CARD_DRAW else DrawCountInfo.DEALER_ONLY


def final_betting_started(hand: HandState) -> bool:
    if hand.interval != "final":
        return False
    last_draw = max((k for k, e in enumerate(hand.events) if isinstance(e, (DrawServed, ReplacementServed))),
                    default=-1)
    from table_controller.engine.events import BetMade, Called, Checked, Folded, Raised

    return any(isinstance(e, (Checked, BetMade, Called, Raised, Folded)) for e in hand.events[last_draw + 1:])


def foul(hand: HandState, i: int, report: Report, rule: str) -> None:
    """Player i's hand is foul: he cannot win, is deemed to drop, and forfeits his chips (000 Foul hand).
    An opener's foul hand is a false opening (003 False openers: "or has a foul hand")."""
    h = hand
    seat = h.seat_no[i]
    phase = h.phase
    path = _foul_path(h, i)
    if path == "reopen":
        _false_opener_before_draw(h, i, report, rule)
        return
    if i == h.opener_index and h.requirement is not None:
        if _about_openers(report, rule):
            h.openers_proved = False
            h.emit(OpenersJudged(seat=seat, proved=False, cards=(), rule=rule))
        state(h).false_opener = seat
        if path == "uncalled":
            ruled(h, report, "the opener's hand is foul: nobody called him", R_FALSE3)
            false_opener_uncalled(h, i, "irregularity")
            return
        h.false_opener_case = 4 if phase is Phase.SHOWDOWN else 1
    carry = path == "carry"
    h.foul[i] = True
    h.folded[i] = True
    h.needs[i] = False
    h.muck_pile += h.hands[i]
    h.hands[i] = []
    if carry:
        ruled(h, report, "foul hand with the last bet uncalled: every chip stays in the pot for the next deal",
               R_FOUL_UNCALLED)
        h.to_act = None
        h.collect()
        h.move(Phase.COMPLETE, "irregularity")
        h.emit(PotCarried(amount=h.collected, reason=R_FOUL_UNCALLED))
        h.status = "carried"
        h.end()
        return
    # His chips are forfeited: a bet of his in this interval joins the pot and is never returned as uncalled.
    h.collected += h.bets[i]
    h.bets[i] = 0
    case = {1: f"; {R_FALSE1}: the others play on", 4: f"; {R_FALSE4}"}.get(h.false_opener_case or 0, "") \
        if i == h.opener_index and h.requirement is not None else ""
    ruled(h, report, f"foul hand: deemed to drop, chips forfeited{case}", rule)
    _after_drop(h, i)


def _foul_path(h: HandState, i: int) -> str:
    """Which way a foul hand of player i goes from here: the opener's before the draw ("reopen": 003 False openers
    2) or when proving ("uncalled": 003 False openers 3), a foul with the last bet uncalled ("carry": the pot stays
    for the next deal), else "drop" (deemed to drop, chips forfeited)."""
    if i == h.opener_index and h.requirement is not None:
        if before_the_draw(h):
            return "reopen"
        if h.phase is Phase.PROVING:
            return "uncalled"
    if (h.phase in (Phase.FIRST_BETTING, Phase.FINAL_BETTING) and h.aggressor == i and h.current > 0
            and h.bets[i] == h.current and all(h.bets[j] < h.current for j in range(h.n) if j != i)):
        return "carry"
    return "drop"


def foul_moves(h: HandState, i: int) -> Moves:
    """The stub moves of :func:`foul` for player i (only a drop that ends the draw makes any)."""
    return drop_moves(h, i) if _foul_path(h, i) == "drop" else NO_MOVES


def _drop_ends_draw(h: HandState, i: int) -> bool:
    """Whether player i's drop now ends the draw: he is the last still to draw, and two players or more stay in
    (one alone wins uncontested)."""
    drawers = h.drawers
    return (h.phase is Phase.DRAWING and i in drawers and drawers.index(i) == h.draw_pos == len(drawers) - 1
            and sum(1 for j in h.live() if j != i) >= 2)


def drop_moves(h: HandState, i: int) -> Moves:
    """The stub moves of player i's drop (:func:`_after_drop`): the cards owed after the draw, if it ends it."""
    return owed_moves(h, dropping=i) if _drop_ends_draw(h, i) else NO_MOVES


def _about_openers(report: Report, rule: str) -> bool:
    """A foul that says the opener lacked openers (rather than a foul hand for another reason)."""
    return report.kind == "false_openers" or rule == R_NO_OPENERS_SIX


def _after_drop(h: HandState, i: int) -> None:
    """Player i is out of the hand between turns: move the turn on as the phase requires."""
    phase = h.phase
    live = h.live()
    if phase is Phase.SHOWDOWN:
        queue = h.show_queue
        k = queue.index(i)
        queue.pop(k)
        if k < h.show_pos:
            h.show_pos -= 1
        elif k == h.show_pos:
            if h.show_pos < len(queue):
                h.to_act = queue[h.show_pos]
            elif live:
                h.to_act = None
                h.move(Phase.COMPLETE, "irregularity")
                h.award_showdown()
        if not live:  # every hand foul or abandoned: the pot remains for the next deal (003 False openers 4)
            h.to_act = None
            h.collect()
            h.move(Phase.COMPLETE, "irregularity")
            h.emit(PotCarried(amount=h.collected, reason=f"{R_FALSE4}: no fair hand is left; the pot remains on the "
                               "table for the next deal"))
            h.status = "carried"
            h.end()
        return
    if len(live) == 1:
        h.finish_uncontested(live[0], "irregularity")
        return
    if phase is Phase.DRAWING:
        ends = _drop_ends_draw(h, i)
        k = h.drawers.index(i) if i in h.drawers else -1
        if k >= h.draw_pos:
            h.drawers.pop(k)
        if ends:
            end_of_draw(h)
            h.begin_final("irregularity")
        elif k == h.draw_pos:
            h.to_act = h.drawers[h.draw_pos]
        return
    if phase in (Phase.FIRST_BETTING, Phase.FINAL_BETTING) and h.to_act == i:
        h.set_next(i, inclusive=False)
        if h.to_act is None:
            h.close_interval("irregularity")


def drop(h: HandState, i: int) -> None:
    """A drop that is not a foul (the player's choice where a remedy offers it): an ordinary fold."""
    h.folded[i] = True
    h.needs[i] = False
    if i == h.opener_index and h.requirement is not None:
        h.held[i] += h.hands[i]
        h.hands[i] = []
        h.judge_and_emit(i, final=False)
    else:
        h.muck_pile += h.hands[i]
        h.hands[i] = []
    _after_drop(h, i)


def _false_opener_before_draw(h: HandState, i: int, report: Report, rule: str) -> None:
    """The opener's hand is found foul before the draw: as if he had announced it (003 False openers 2)."""
    seat = h.seat_no[i]
    state(h).false_opener = seat
    if _about_openers(report, rule):
        h.openers_proved = False
        h.emit(OpenersJudged(seat=seat, proved=False, cards=(), rule=rule))
    ruled(h, report, "the opener's hand is foul before the draw: another player with openers may open in his "
           "place; if none, the others take back their bets and the antes and his bets stay", R_FALSE2)
    ask_for_a_new_opener(h, i, "irregularity")


def end_of_draw(hand: HandState) -> None:
    """Called by the hand when the last drawer has been served: replace exposed cards from the top."""
    st = hand.irregular_state
    if st is None or not st.owed_after_draw:
        return
    owed, st.owed_after_draw = st.owed_after_draw, []
    for i, count, rule in owed:
        serve_owed(hand, i, count, rule)


def owed_moves(hand: HandState, *, dropping: int | None = None) -> Moves:
    """The stub moves of :func:`end_of_draw` were the draw to end now (``dropping``: a player about to drop)."""
    st = hand.irregular_state
    if st is None:
        return NO_MOVES
    return tuple(Take(count=count, as_left=True) for i, count, _ in st.owed_after_draw
                 if i != dropping and _is_served_owed(hand, i, count))


def owed_at_end_of_draw(hand: HandState, left: int) -> int:
    """How many cards :func:`end_of_draw` takes off the stub when ``left`` cards are left above the reserve."""
    return len(run_moves(range(left), owed_moves(hand), 0)[1])


def _is_served_owed(hand: HandState, i: int, count: int) -> bool:
    return not hand.folded[i] and count > 0


def serve_owed(hand: HandState, i: int, count: int, rule: str) -> None:
    """Serve the cards owed (the move ``Take(count=count, as_left=True)``)."""
    if not _is_served_owed(hand, i, count):
        return
    take = min(count, available(hand))
    served = take_from_stub(hand, i, take)
    if take < count:
        state(hand).short.add(i)
        rule = f"{rule}; the pack is exhausted: he plays on short (common practice)"
    hand.emit(ReplacementServed(seat=hand.seat_no[i], cards=hand.codes(served), rule=rule))


def owed_with_draw(hand: HandState, i: int) -> int:
    """Cards a player is owed with his draw (001 IV 5a after the open); called by ``Hand.draw``. In a 003 game he
    may not draw (003 Other rules governing the draw 2): he stood pat and plays on short."""
    st = hand.irregular_state
    if st is None or i not in st.owed_with_draw:
        return 0
    count, _ = st.owed_with_draw.pop(i)
    if _needs_five_to_draw(hand):
        st.short.add(i)
        hand.emit(IrregularityRuled(irregularity="too_few_in_deal", seat=hand.seat_no[i], rule=R_FIVE_TO_DRAW,
                                     remedy=f"he holds {len(hand.hands[i])} cards: he may not draw and plays on "
                                     "with a short hand"))
        return 0
    return count


def owed_with_draw_pending(hand: HandState, i: int) -> int:
    """What :func:`owed_with_draw` will give player i with his draw, changing nothing."""
    st = hand.irregular_state
    if st is None or i not in st.owed_with_draw or _needs_five_to_draw(hand):
        return 0
    return st.owed_with_draw[i][0]


def _needs_five_to_draw(hand: HandState) -> bool:
    """003's games: "A player must have five cards, including his discard and the cards held in his hand, in
    order to draw". The casino game of 001 gives a short player his missing cards with his draw (001 IV 5a)."""
    from table_controller.engine.config import GameForm

    return hand.config.form is not GameForm.FIVE_CARD_DRAW


def may_draw(hand: HandState, i: int) -> bool:
    """Whether player i may draw cards (he may always stand pat)."""
    st = hand.irregular_state
    return st is None or i not in st.owed_with_draw or not _needs_five_to_draw(hand)


def refuse_taking_back(hand: HandState, positions: Sequence[int], card: Card, what: str) -> None:
    """A card named among a player's cards (``positions``) that lies among the discards: "a card taken from a
    player's hand and discarded face-down on the table may not be taken back under any circumstances" (003 Other
    rules 3). Cards named among other piles (a reshuffle, the mixed cards) are not a taking back."""
    named_in = set(positions)
    if not any(named_in <= {*hand.hands[k], *hand.held[k]} for k in range(hand.n)):
        return
    pos = hand.ident.index(card)
    for k in range(hand.n):
        if pos in hand.discards[k] or pos in hand.held[k]:
            raise illegal("discard_taken_back", f"{what}: {card_str(card)} was discarded by seat {hand.seat_no[k]}: "
                           "a discard may not be taken back", R_TAKEN_BACK)


def cannot_draw_short(hand: HandState, i: int) -> IllegalActionError:
    return illegal("short_hand", f"seat {hand.seat_no[i]} holds {len(hand.hands[i])} cards: a player must have "
                    "five cards, including his discard, in order to draw; he may stand pat", R_FIVE_TO_DRAW)


def exposed_position(hand: HandState, cards: Sequence[int], report: Report, rule: str, *, learn: bool,
                     held: Sequence[int] | None = None) -> int:
    """Which of these cards (a hand in the order dealt, or this draw in the order served) was exposed. With a shoe
    that cannot read cards, ``count`` gives its place (1 = first) and the exposed card is learnt there. ``held``:
    those of ``cards`` the player still holds, when some have left his hand (an exposed card replaced): only they
    can be exposed now, and the places keep counting the others."""
    assert report.card is not None
    holds = cards if held is None else held
    if report.count is None:
        return resolve(hand, holds, [report.card], f"seat {report.seat} exposed card", learn=learn)[0]
    if not 1 <= report.count <= len(cards):
        raise illegal("bad_report", f"'count' is the exposed card's place, 1..{len(cards)}", rule)
    pos = cards[report.count - 1]
    if pos not in holds:
        raise illegal("not_held", f"the card at place {report.count} is no longer in seat {report.seat}'s hand "
                      "(already replaced)", rule)
    return resolve(hand, [pos], [report.card], f"seat {report.seat} exposed card", learn=learn)[0]


def require_phases(hand: HandState, phases: tuple[Phase, ...], report: Report, rule: str) -> None:
    if hand.phase not in phases:
        raise illegal("wrong_phase", f"'{report.kind}' cannot be reported during {hand.phase}", rule)


def require_live(hand: HandState, i: int, rule: str) -> None:
    if hand.folded[i]:
        raise illegal("not_in_hand", f"seat {hand.seat_no[i]} is no longer in the hand", rule)


def void(hand: HandState, report: Report, *, antes_back: bool, status: str, rule: str) -> None:
    """The deal is void: bets (and, if so, antes) go back; the cards are gathered for a new shuffle."""
    h = hand
    return_bets(h, antes_back=antes_back, reason=rule)
    if antes_back and h.dead:
        b = h.dead_payer
        h.stack[b] += h.dead
        h.collected -= h.dead
        h.emit(BetReturned(seat=h.seat_no[b], amount=h.dead, reason=rule))
        h.dead = 0
    h.collect()
    for j in range(h.n):
        h.muck_pile += h.hands[j]
        h.hands[j] = []
    h.to_act = None
    opts = h.config.options
    deal_passes = opts.misdeal_deal_passes if status == "misdeal" else False
    state(h).next_deal.update({"new_shuffle": True, "deal_passes": deal_passes,
                               "antes": "returned" if antes_back else "stay"})
    remedy = (f"the deal is void: bets returned, antes {'returned' if antes_back else 'stay in the pot'}, "
              f"{'the deal passes' if deal_passes else 'the same dealer deals again'}, a new shuffle")
    if report.kind in FLOOR_KINDS:
        h.emit(FloorRuled(ruling=report.kind, by=report.by, reason=report.reason))
    else:
        ruled(h, report, remedy, rule)
    h.move(Phase.PASSED_OUT, "floor_ruling" if report.kind in FLOOR_KINDS else "irregularity")
    if h.collected:
        h.emit(PotCarried(amount=h.collected, reason=f"{rule}: the chips stay for the next deal"))
    h.status = status
    h.end()
