"""Hand records (format ``cardtable.hand/2``, and the older ``cardtable.hand/1``): the pydantic models, and replay
through the engine.

A record is everything needed to play a hand again: the game, the seats and stacks, the button, the
carried pot, the deck in the shoe's order and the acts in order. :func:`replay` plays it and returns the
result object that ``cardtable replay`` prints. Field by field documentation: docs/hand-record.md.

Version 2 lists the dealer's acts that take cards from the shoe (``deal``, ``burn``, ``serve``) like every other
act. Version 1 was written when they were steps of the hand's start and of a player's ``draw``: it has none, and
is replayed by taking each as soon as it is due (after the start and after every act), which is what those steps
did, so a version 1 record plays to the same result as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from table_controller.engine.cards import UNKNOWN_CODE, CardCodeError, parse_card
from table_controller.engine.config import (
    AnteMode,
    Betting,
    DrawLimit,
    GameConfig,
    GameForm,
    HouseOptions,
    OddChip,
    PassMeaning,
    Stakes,
    config_problems,
)
from table_controller.engine.errors import ConfigError, EngineError, IllegalActionError
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.irregular import Report
from table_controller.engine.irregular_options import (
    DealerShortDraw,
    DrawCountInfo,
    ExposedDrawCard,
    FalseOpenerPenalty,
    LateDrawMiscount,
    MisdealAntes,
    MisdealCall,
    MixedCardsShuffle,
    OutOfTurnDiscarded,
    ShortDeal,
    UncalledFalseOpener,
)
from table_controller.engine.machine import Phase
from table_controller.engine.opening import OpeningRequirement

FORMAT = "cardtable.hand/2"
FORMAT_V1 = "cardtable.hand/1"  # read, never written: the dealer's acts are taken as they fall due

ActName = Literal["check", "bet", "call", "raise", "fold", "pass", "straddle", "decline_straddle", "deal", "announce",
                  "draw", "burn", "serve", "reshuffle", "show", "muck", "declare_no_openers", "take_open",
                  "decline_open", "irregularity", "floor_ruling"]
ACTS: tuple[str, ...] = get_args(ActName)
DEALER_ACTS = frozenset({"deal", "burn", "serve"})  # the dealer's acts that take cards from the shoe
_NO_SEAT = DEALER_ACTS | {"reshuffle"}

NonNeg = Annotated[int, Field(ge=0)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StakesModel(_Strict):
    ante: NonNeg = 0
    small_bet: NonNeg = 0
    big_bet: NonNeg = 0
    cap: NonNeg = 0
    min_bet: NonNeg = 0
    max_bet: NonNeg = 0
    blind: NonNeg = 0
    block_ante: NonNeg = 19
    block_blind: NonNeg = 2
    block_raise: NonNeg = 4
    block_raise_limit: NonNeg = 2


class OptionsModel(_Strict):
    ante_mode: AnteMode = AnteMode.EACH
    burn_before_draw: bool = True
    draw_limit: DrawLimit | None = None
    draw_limit_six_plus: Annotated[int, Field(ge=1, le=5)] = 3
    never_deal_last_card: bool = False
    odd_chip: OddChip = OddChip.LEFT_OF_BUTTON
    progressive_top: OpeningRequirement = OpeningRequirement.ACES
    straddle_limit: NonNeg | None = None
    straddle_compulsory: bool = False
    blind_opening_double_to_stay: bool = False
    pass_meaning: PassMeaning = PassMeaning.CHECK_IF_FREE
    refuse_false_open: bool = True
    opener_holds_discards: bool = True
    exposed_draw_card: ExposedDrawCard = ExposedDrawCard.FIRST_KEPT
    short_deal: ShortDeal = ShortDeal.DEALT_AT_ONCE
    late_draw_miscount: LateDrawMiscount = LateDrawMiscount.DISCARD_OR_DROP
    out_of_turn_discarded: OutOfTurnDiscarded = OutOfTurnDiscarded.DEAD
    dealer_short_draw: DealerShortDraw = DealerShortDraw.FOUL
    draw_count_info: DrawCountInfo | None = None
    misdeal_antes: MisdealAntes = MisdealAntes.STAY
    misdeal_deal_passes: bool = False
    misdeal_call: MisdealCall = MisdealCall.BEFORE_ACTION
    false_opener_penalty: FalseOpenerPenalty = FalseOpenerPenalty.NONE
    uncalled_false_opener: UncalledFalseOpener = UncalledFalseOpener.CHIPS_STAY
    mixed_cards_shuffle: MixedCardsShuffle = MixedCardsShuffle.UNDER_THE_PACK


class GameModel(_Strict):
    form: GameForm
    betting: Betting = Betting.FIXED_LIMIT
    stakes: StakesModel = StakesModel()
    options: OptionsModel = OptionsModel()


class SeatModel(_Strict):
    seat: Annotated[int, Field(ge=1, le=10)]
    name: str = ""
    stack: NonNeg


def _check_code(code: str, *, unknown_ok: bool = True) -> str:
    if unknown_ok and code == UNKNOWN_CODE:
        return code
    try:
        parse_card(code)
    except CardCodeError as exc:
        raise ValueError(str(exc)) from None
    return code


class ActionModel(_Strict):
    seat: Annotated[int, Field(ge=1, le=10)] | None = None
    act: ActName
    to: NonNeg | None = None
    count: NonNeg | None = None
    discard: list[str] | None = None
    cards: list[str] | None = None
    order: list[str] | None = None
    report: Report | None = None  # irregularity / floor_ruling: docs/irregularities.md

    @field_validator("discard", "cards", "order")
    @classmethod
    def _codes(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            for code in value:
                _check_code(code)
        return value

    @model_validator(mode="after")
    def _shape(self) -> ActionModel:
        if self.act in ("irregularity", "floor_ruling"):
            if self.report is None:
                raise ValueError(f"'{self.act}' needs a 'report'")
            return self
        if self.act in _NO_SEAT:
            if self.seat is not None:
                raise ValueError(f"'{self.act}' is the dealer's: it takes no 'seat'")
        elif self.seat is None:
            raise ValueError(f"'{self.act}' needs a 'seat'")
        if self.act in ("bet", "raise") and self.to is None:
            raise ValueError(f"'{self.act}' needs 'to' (the player's total in this interval after the act)")
        if self.act == "draw" and self.discard is None:
            raise ValueError("'draw' needs 'discard' (the cards thrown; [] stands pat)")
        if self.act == "announce" and self.count is None:
            raise ValueError("'announce' needs 'count'")
        if self.act == "reshuffle" and self.order is None:
            raise ValueError("'reshuffle' needs 'order' (the new stub, top first)")
        return self


class TableEventModel(_Strict):
    """What happened at the table around the hand's acts, kept with the hand for people (the floor, an
    auditor) and not replayed: a halt, an alert and its acknowledgement, a device fault and the dealer's
    answer, a floor ruling (the resume included), a card the shoe read coming back (``returned``, with its
    ``card``). ``after_action`` is how many of ``actions`` had been entered when it happened."""

    kind: Literal["halt", "alert", "alert_ack", "ruling", "device_fault", "prompt_answer", "returned"]
    at_ms: NonNeg | None = None  # wall-clock time, milliseconds since the Unix epoch
    after_action: NonNeg = 0
    text: str
    level: Literal["info", "warning", "security"] | None = None
    seat: Annotated[int, Field(ge=1, le=10)] | None = None
    by: str | None = None
    ref: str | None = None  # the alert's or the ruling's id at the table (a1, r2): ties an ack to its alert
    card: Annotated[str, Field(pattern=r"^([2-9TJQKA][cdhs]|\?\?)$")] | None = None  # a returned card


class HandRecord(_Strict):
    """A hand record, format ``cardtable.hand/2`` (or ``cardtable.hand/1``, without the dealer's acts)."""

    format: Literal["cardtable.hand/2", "cardtable.hand/1"]
    game: GameModel
    seats: Annotated[list[SeatModel], Field(min_length=2, max_length=8)]
    button: int
    carried_pot: NonNeg = 0
    passed_deals: NonNeg = 0
    ante_for_all: int | None = None  # 003 False openers 2 (house option): the seat that antes for everyone
    deck: Annotated[list[str], Field(max_length=52)] = Field(default_factory=list)
    actions: list[ActionModel] = Field(default_factory=list)
    table_events: list[TableEventModel] = Field(default_factory=list)  # not replayed: see TableEventModel

    @field_validator("deck")
    @classmethod
    def _deck(cls, value: list[str]) -> list[str]:
        problems = []
        for k, code in enumerate(value):
            try:
                _check_code(code)
            except ValueError as exc:
                problems.append(f"deck[{k}]: {exc}")
        known = [c for c in value if c != UNKNOWN_CODE]
        dup = sorted({c for c in known if known.count(c) > 1})
        if dup:
            problems.append(f"card(s) listed twice in the deck: {', '.join(dup)}")
        if problems:
            raise ValueError("; ".join(problems))
        return value

    @model_validator(mode="after")
    def _whole(self) -> HandRecord:
        numbers = [s.seat for s in self.seats]
        if len(set(numbers)) != len(numbers):
            raise ValueError("a seat number appears twice in 'seats'")
        if self.button not in numbers:
            raise ValueError(f"'button' {self.button} is not one of the seats {numbers}")
        problems = config_problems(_config_unchecked(self.game))
        if problems:
            raise ValueError("; ".join(problems))
        for k, a in enumerate(self.actions):
            if a.seat is not None and a.seat not in numbers:
                raise ValueError(f"actions[{k}]: seat {a.seat} is not dealt in")
            if self.format == FORMAT_V1 and a.act in DEALER_ACTS:
                raise ValueError(f"actions[{k}]: '{a.act}' is an act of {FORMAT}, not of {FORMAT_V1}")
        return self


class InvalidRecordError(EngineError):
    """A file that is not a valid hand record (exit code 2), with every problem found."""

    exit_code = 2

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class ReplayError(EngineError):
    """An act in the record that the rules forbid (exit code 1)."""

    exit_code = 1

    def __init__(self, action_index: int, error: IllegalActionError) -> None:
        super().__init__(f"action {action_index}: {error.message}")
        self.action_index = action_index
        self.code = error.code
        self.message = error.message

    def to_json(self) -> dict[str, Any]:
        return {"error": {"action_index": self.action_index, "code": self.code, "message": self.message}}


def _config_unchecked(game: GameModel) -> GameConfig:
    cfg = object.__new__(GameConfig)
    object.__setattr__(cfg, "form", game.form)
    object.__setattr__(cfg, "betting", game.betting)
    object.__setattr__(cfg, "stakes", Stakes(**game.stakes.model_dump()))
    object.__setattr__(cfg, "options", HouseOptions(**game.options.model_dump()))
    return cfg


def config_from_model(game: GameModel) -> GameConfig:
    return GameConfig(form=game.form, betting=game.betting, stakes=Stakes(**game.stakes.model_dump()),
                      options=HouseOptions(**game.options.model_dump()))


def parse_record(data: Any) -> HandRecord:
    """Validate a decoded JSON object as a hand record; :class:`InvalidRecordError` lists every problem."""
    try:
        return HandRecord.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "record"
            msg = err["msg"].removeprefix("Value error, ")
            problems.append(f"{loc}: {msg}")
        raise InvalidRecordError(problems) from None


def start_hand(record: HandRecord) -> Hand:
    """The record's hand before its first act (a version 1 record's hand dealt: its deal was a step of the start)."""
    try:
        hand = Hand(config_from_model(record.game),
                    [SeatSpec(seat=s.seat, name=s.name, stack=s.stack) for s in record.seats],
                    record.button, deck=record.deck, carried_pot=record.carried_pot,
                    passed_deals=record.passed_deals, ante_for_all=record.ante_for_all)
    except ConfigError as exc:
        raise InvalidRecordError([str(exc)]) from None
    if record.format == FORMAT_V1:
        hand.dealer_acts()
    return hand


def _seat(a: ActionModel) -> int:
    return a.seat if a.seat is not None else 0


# Each recorded act: the Hand method that does it (``verify_`` + the name checks it) and the arguments it
# takes from the record. Replay, the live table and verify_action all read this one table.
_ACTS: dict[str, tuple[str, Callable[[ActionModel], tuple[Any, ...]]]] = {
    "check": ("check", lambda a: (_seat(a),)),
    "bet": ("bet", lambda a: (_seat(a), a.to or 0)),
    "call": ("call", lambda a: (_seat(a),)),
    "raise": ("raise_to", lambda a: (_seat(a), a.to or 0)),
    "fold": ("fold", lambda a: (_seat(a),)),
    "pass": ("pass_", lambda a: (_seat(a),)),
    "straddle": ("straddle", lambda a: (_seat(a),)),
    "decline_straddle": ("decline_straddle", lambda a: (_seat(a),)),
    "deal": ("deal", lambda a: ()),
    "burn": ("burn", lambda a: ()),
    "serve": ("serve", lambda a: ()),
    "announce": ("announce", lambda a: (_seat(a), a.count or 0)),
    "draw": ("draw", lambda a: (_seat(a), a.discard or [])),
    "reshuffle": ("reshuffle", lambda a: (a.order or [],)),
    "show": ("show", lambda a: (_seat(a), a.cards)),
    "muck": ("muck", lambda a: (_seat(a),)),
    "declare_no_openers": ("declare_no_openers", lambda a: (_seat(a),)),
    "take_open": ("take_open", lambda a: (_seat(a),)),
    "decline_open": ("decline_open", lambda a: (_seat(a),)),
    "irregularity": ("irregularity", lambda a: (a.report,)),
    "floor_ruling": ("floor_ruling", lambda a: (a.report,)),
}


def apply_action(hand: Hand, action: ActionModel) -> None:
    """Play one recorded act (raises :class:`IllegalActionError`)."""
    name, args = _ACTS[action.act]
    getattr(hand, name)(*args(action))


def verify_action(hand: Hand, action: ActionModel) -> None:
    """Raise the error :func:`apply_action` would raise for this act, changing nothing."""
    name, args = _ACTS[action.act]
    getattr(hand, "verify_" + name)(*args(action))


def apply_recorded(hand: Hand, record: HandRecord, action: ActionModel) -> None:
    """Play one act of this record: in a version 1 record, with the dealer's acts it makes due (the burn and the
    service after a draw, the rest of a service after a reshuffle), which were steps of the act then; a refusal of
    one is the act's."""
    apply_action(hand, action)
    if record.format == FORMAT_V1:
        hand.dealer_acts()


def play(record: HandRecord) -> Hand:
    """Play every act of the record, then show the hands still in at a showdown the record leaves open."""
    hand = start_hand(record)
    for index, action in enumerate(record.actions):
        if hand.is_over:
            raise ReplayError(index, IllegalActionError("hand_over", "the hand is already over"))
        try:
            apply_recorded(hand, record, action)
        except IllegalActionError as exc:
            raise ReplayError(index, exc) from None
    while hand.phase is Phase.SHOWDOWN and hand.to_act is not None:
        seat = hand.legal_actions().seat
        assert seat is not None
        if not hand.can_show(seat):
            break
        hand.show(seat)
    return hand


def replay(data: Any) -> dict[str, Any]:
    """Validate and play a decoded record; the result object of ``cardtable replay``."""
    return play(parse_record(data)).result()


def schema() -> dict[str, Any]:
    return HandRecord.model_json_schema()
