"""The views of a table, one pydantic model per role, and the request bodies of the API.

Each view extends the one below it: :class:`PublicView` (anyone) < :class:`DealerView` (the dealer console:
plus legal actions, draw entry, irregularity buttons, prompts and device status) < :class:`FloorView`
(plus hole cards, alerts and rulings). :class:`BroadcastView` is the public view plus hole cards, released
after a delay. Only the floor and broadcast models have a field that can hold a hole card
(:class:`FloorSeat.hole`), so a public or dealer message cannot carry one by construction.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

__all__ = [
    "ActRequest",
    "AlertView",
    "Award",
    "BroadcastView",
    "BuyInRequest",
    "DealerView",
    "DeviceView",
    "DrawEntry",
    "DrawRequest",
    "ErrorBody",
    "ErrorResponse",
    "FloorSeat",
    "FloorView",
    "GameView",
    "HandSummary",
    "IrregularityOption",
    "IrregularityRequest",
    "LegalAction",
    "LogEntry",
    "PotView",
    "PromptAnswer",
    "PromptView",
    "PublicSeat",
    "PublicView",
    "RulingRequest",
    "RulingView",
    "SitRequest",
    "TableSummary",
]

Phase = Literal["waiting", "shuffling", "dealing", "betting", "drawing", "showdown", "complete", "paused", "halted"]
SeatStatus = Literal["empty", "waiting", "active", "folded", "all_in", "sitting_out"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GameView(_Frozen):
    form: str
    betting: str
    stakes: dict[str, int]


class PublicSeat(_Frozen):
    seat: int
    name: str | None = None
    stack: int = 0
    bet: int = Field(default=0, description="chips put in during the current betting interval")
    status: SeatStatus = "empty"
    cards: int = Field(default=0, description="how many cards the player holds (face down or up)")
    shown: tuple[str, ...] = Field(default=(), description="cards shown face up to the table, and only those")
    drew: int | None = Field(default=None, description="cards drawn, when the house rule lets it be known")
    button: bool = False
    to_act: bool = False
    opener: bool = False


class FloorSeat(PublicSeat):
    hole: tuple[str, ...] = Field(default=(), description='the hole cards ("??" where not known)')
    candidates: tuple[str, ...] = Field(default=(), description="after a draw entered as a count: the cards the "
                                        "seat held before it, of which it still holds as many as 'hole' has "
                                        "\"??\" (the cards served are in 'hole'); narrowed as a shoe that scans "
                                        "returned cards names the seat's discards (as many left as '??': settled)")


class PotView(_Frozen):
    amount: int
    seats: tuple[int, ...]


class Award(_Frozen):
    seat: int
    amount: int
    hand: str | None = None


class LogEntry(_Frozen):
    seq: int
    hand: int = Field(default=0, description="the hand the line belongs to (0: between hands)")
    text: str
    secret: bool = Field(default=False, description="mentions a hole card: floor view only")


class PublicView(_Frozen):
    view: Literal["public", "dealer", "floor", "broadcast"] = "public"
    table_id: str
    name: str
    game: GameView
    hand: int = Field(default=0, description="hand number at this table, 0 before the first")
    phase: Phase = "waiting"
    message: str = ""
    button: int | None = None
    to_act: int | None = None
    pots: tuple[PotView, ...] = ()
    pot_total: int = 0
    carried_pot: int = 0
    seats: tuple[PublicSeat, ...] = ()
    awards: tuple[Award, ...] = ()
    log: tuple[LogEntry, ...] = ()
    paused: bool = False
    draw_counts_public: bool = True


class LegalAction(_Frozen):
    act: str
    label: str
    to: int | None = Field(default=None, description="the fixed total for this act (call, fixed-limit bet or raise)")
    min_to: int | None = None
    max_to: int | None = None
    needs_cards: bool = Field(default=False, description="show: the table could not read these cards; name them")


class DrawEntry(_Frozen):
    seat: int
    max_discard: int
    cards: int


class IrregularityOption(_Frozen):
    kind: str
    label: str
    rule: str
    needs_seat: bool = True
    needs: tuple[str, ...] = Field(default=(), description='what else the report takes: "card", "count", "looked", '
                                   '"cards"')


class DeviceView(_Frozen):
    shoe: str = "unknown"
    shoe_detail: str = ""
    cards_left: int | None = None
    reader: bool = True
    camera: str = "none"
    camera_detail: str = ""


class PromptView(_Frozen):
    id: str
    kind: str
    message: str
    rule: str | None = None
    options: tuple[str, ...] = ()


class DealerView(PublicView):
    legal: tuple[LegalAction, ...] = ()
    draw: DrawEntry | None = None
    irregularities: tuple[IrregularityOption, ...] = ()
    device: DeviceView = DeviceView()
    prompts: tuple[PromptView, ...] = ()


class AlertView(_Frozen):
    id: str
    at: float
    level: Literal["info", "warning", "security"]
    kind: str
    message: str
    seat: int | None = None
    acknowledged: bool = False
    frame: bool = Field(default=False, description="the camera frame that raised it can be fetched "
                        "(GET .../alerts/{id}/frame.jpg, floor)")


class RulingView(_Frozen):
    id: str
    at: float
    by: str
    kind: str
    detail: str
    reason: str


class FloorView(DealerView):
    seats: tuple[FloorSeat, ...] = ()
    alerts: tuple[AlertView, ...] = ()
    rulings: tuple[RulingView, ...] = ()


class BroadcastView(PublicView):
    seats: tuple[FloorSeat, ...] = ()
    delay_s: float = 0.0


class TableSummary(_Frozen):
    table_id: str
    name: str
    game: GameView
    hand: int
    phase: Phase
    players: int


class HandSummary(_Frozen):
    hand: int
    status: str
    awards: tuple[Award, ...] = ()
    pot_total: int = 0


# Requests -------------------------------------------------------------------------------------------------


# Chip amounts a request may name: what a JSON number holds exactly and the journal keeps (2^53 - 1, its
# canonical form's bound: 2^53 passed here and failed the journal write, a 503), far beyond any table's chips.
MAX_CHIPS = 2**53 - 1


def _one_line(text: str) -> str:
    """Text a person typed into one field: no control character. A name holding a line break and "Seat 9 wins
    1000" forged a line of the plain-text hand history; a NUL or an escape reached the journal and terminals."""
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ValueError("holds a control character (such as a line break, NUL or ESC)")
    return text


OneLine = Annotated[str, AfterValidator(_one_line)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SitRequest(_Request):
    name: OneLine = Field(min_length=1, max_length=40)
    buy_in: int = Field(default=0, ge=0, le=MAX_CHIPS, description="chips bought on sitting down (0: buy in later)")


class BuyInRequest(_Request):
    amount: int = Field(gt=0, le=MAX_CHIPS)


class ActRequest(_Request):
    seat: int = Field(ge=1, le=8)
    act: str = Field(pattern=r"^[a-z][a-z_]{1,31}$", description="check, bet, call, raise, fold, straddle, "
                     "decline_straddle, show, muck, or another act the dealer view lists as legal")
    to: int | None = Field(default=None, ge=0, le=MAX_CHIPS,
                           description="total in this betting interval after a bet or raise")
    cards: tuple[str, ...] | None = Field(default=None, description="for 'show': the cards shown, where the table "
                                          "could not read them")
    seen_seq: int | None = Field(default=None, ge=0, le=2**53, description="the stream's seq the screen last "
                                 "showed; a table that changed since refuses the act (409 stale_state)")


class DrawRequest(_Request):
    seat: int = Field(ge=1, le=8)
    count: int | None = Field(default=None, ge=0, le=5, description="how many cards the player throws")
    discard: tuple[str, ...] | None = Field(default=None, description="the thrown cards, when they are known")
    seen_seq: int | None = Field(default=None, ge=0, le=2**53, description="the stream's seq the screen last "
                                 "showed; a table that changed since refuses the act (409 stale_state)")


class IrregularityRequest(_Request):
    kind: OneLine = Field(min_length=1, max_length=64)
    seat: int | None = Field(default=None, ge=1, le=8)
    note: OneLine = Field(default="", max_length=500)
    card: str | None = Field(default=None, description="the exposed card, where the report is about one")
    count: int | None = Field(default=None, ge=0, le=52, description="cards in excess, missing or received")
    looked: Literal["none", "some", "all"] = Field(default="none", description="did the player see the faces")
    choice: Literal["stand_pat", "drop", "play_short", "discard_more", "leave_excess"] | None = None
    seen_seq: int | None = Field(default=None, ge=0, le=2**53, description="the stream's seq the screen last "
                                 "showed; a table that changed since refuses the act (409 stale_state)")
    cards: tuple[str, ...] | None = Field(default=None, max_length=5, description="cards named: the excess card(s) "
                                          "the dealer restores to the pack (default the last dealt), or discarded")


class PromptAnswer(_Request):
    choice: OneLine = Field(min_length=1, max_length=64)


class RulingRequest(_Request):
    kind: Literal["void_hand", "award_pot", "move_chips", "note", "resume"]
    by: OneLine = Field(min_length=1, max_length=40)
    reason: OneLine = Field(min_length=1, max_length=500)
    seat: int | None = Field(default=None, ge=1, le=8)
    amount: int | None = Field(default=None, ge=-MAX_CHIPS, le=MAX_CHIPS,
                               description="chips: positive from the pot to the seat, negative back")


class ErrorBody(_Frozen):
    code: str
    message: str
    rule: str | None = None


class ErrorResponse(_Frozen):
    error: ErrorBody
