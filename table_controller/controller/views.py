"""The table as the controller shows it: frozen domain views, and what it needs from its configuration.

The controller returns these; the service maps them to its own API schemas (``service.models``), cutting one
view per role there (``service.views``). The controller never imports the service. :class:`TableView` is the
full state, hole cards included: it never leaves the service uncut.

:class:`TableConfig` and :class:`RulingAsked` are what the controller reads from the table's settings and from
a floor ruling; the service's settings and request models have these fields, so they are passed in as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from table_controller.engine.config import GameConfig

__all__ = [
    "AlertView",
    "Award",
    "DeviceView",
    "DrawEntry",
    "GameView",
    "HandSummary",
    "IrregularityOption",
    "LegalAction",
    "LogEntry",
    "Phase",
    "PotView",
    "PromptView",
    "RulingAsked",
    "RulingView",
    "SeatStatus",
    "SeatView",
    "TableConfig",
    "TableSummary",
    "TableView",
]

Phase = Literal["waiting", "shuffling", "dealing", "betting", "drawing", "showdown", "complete", "paused", "halted"]
SeatStatus = Literal["empty", "waiting", "active", "folded", "all_in", "sitting_out"]
AlertLevel = Literal["info", "warning", "security"]


@dataclass(frozen=True, kw_only=True)
class GameView:
    form: str
    betting: str
    stakes: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class SeatView:
    """One seat, hole cards included ("??" where not known); the service strips them for other roles."""

    seat: int
    name: str | None = None
    stack: int = 0
    bet: int = 0
    status: SeatStatus = "empty"
    cards: int = 0
    shown: tuple[str, ...] = ()
    drew: int | None = None
    button: bool = False
    to_act: bool = False
    opener: bool = False
    hole: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()  # after a draw entered as a count: the cards the seat may still hold


@dataclass(frozen=True, kw_only=True)
class PotView:
    amount: int
    seats: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class Award:
    seat: int
    amount: int
    hand: str | None = None


@dataclass(frozen=True, kw_only=True)
class LogEntry:
    seq: int
    hand: int = 0
    text: str
    secret: bool = False  # names a hole card: floor view only


@dataclass(frozen=True, kw_only=True)
class LegalAction:
    act: str
    label: str
    to: int | None = None
    min_to: int | None = None
    max_to: int | None = None
    needs_cards: bool = False


@dataclass(frozen=True, kw_only=True)
class DrawEntry:
    seat: int
    max_discard: int
    cards: int


@dataclass(frozen=True, kw_only=True)
class IrregularityOption:
    kind: str
    label: str
    rule: str
    needs_seat: bool = True
    needs: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class DeviceView:
    shoe: str = "unknown"
    shoe_detail: str = ""
    cards_left: int | None = None
    reader: bool = True
    camera: str = "none"
    camera_detail: str = ""


@dataclass(frozen=True, kw_only=True)
class PromptView:
    id: str
    kind: str
    message: str
    rule: str | None = None
    options: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class AlertView:
    id: str
    at: float
    level: AlertLevel
    kind: str
    message: str
    seat: int | None = None
    acknowledged: bool = False
    frame: bool = False


@dataclass(frozen=True, kw_only=True)
class RulingView:
    id: str
    at: float
    by: str
    kind: str
    detail: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class TableView:
    """The full state of a table after a change (the floor's view)."""

    table_id: str
    name: str
    game: GameView
    hand: int = 0
    phase: Phase = "waiting"
    message: str = ""
    button: int | None = None
    to_act: int | None = None
    pots: tuple[PotView, ...] = ()
    pot_total: int = 0
    carried_pot: int = 0
    seats: tuple[SeatView, ...] = ()
    awards: tuple[Award, ...] = ()
    log: tuple[LogEntry, ...] = ()
    paused: bool = False
    draw_counts_public: bool = True
    legal: tuple[LegalAction, ...] = ()
    draw: DrawEntry | None = None
    irregularities: tuple[IrregularityOption, ...] = ()
    device: DeviceView = DeviceView()
    prompts: tuple[PromptView, ...] = ()
    alerts: tuple[AlertView, ...] = ()
    rulings: tuple[RulingView, ...] = ()


@dataclass(frozen=True, kw_only=True)
class TableSummary:
    table_id: str
    name: str
    game: GameView
    hand: int
    phase: Phase
    players: int


@dataclass(frozen=True, kw_only=True)
class HandSummary:
    hand: int
    status: str
    awards: tuple[Award, ...] = ()
    pot_total: int = 0


class TableConfig(Protocol):
    """What the controller reads from a table's configuration (the service's settings have these fields)."""

    @property
    def table_id(self) -> str: ...

    @property
    def table_name(self) -> str: ...

    @property
    def seats(self) -> int: ...

    @property
    def game(self) -> GameConfig:
        """The game dealt, validated into the engine's configuration when the settings were loaded."""

    @property
    def buy_in_min(self) -> int: ...

    @property
    def buy_in_max(self) -> int: ...

    @property
    def broadcast_delay_s(self) -> float: ...

    @property
    def public_draw_counts(self) -> bool: ...


class RulingAsked(Protocol):
    """A floor ruling as asked (the service's request body has these fields)."""

    @property
    def kind(self) -> str: ...

    @property
    def by(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def seat(self) -> int | None: ...

    @property
    def amount(self) -> int | None: ...
