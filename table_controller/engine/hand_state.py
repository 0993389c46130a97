"""The deal's public state and steps, as the modules of a deal use them: :class:`HandState`.

``Hand`` (hand.py) is the coordinator: it holds this state and offers every act. The other concerns are
modules of functions over this protocol: the start of a deal and the straddles (forced.py), what a player may
wager (wagers.py), a betting interval's flow (intervals.py), the draw (draw.py), card identities
(identities.py), the showdown (showdown.py), the legal view (legal.py), the result and record (outcome.py) and
the irregularity procedures (irregular*.py).

Why a Protocol: naming the state here, in a module that imports none of them, keeps ``hand -> draw -> hand``
(and the like) from being an import circle, and lists in one place every field and step a module may touch (the
type checker holds ``Hand`` to it wherever the hand passes itself to a module).

:class:`SeatSpec` is a seat dealt in; :class:`IrregularState` what the reports leave pending on a hand
(``Hand.irregular_state``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from table_controller.engine.acts import ActTaken
from table_controller.engine.betting import BettingStructure
from table_controller.engine.cards import Card
from table_controller.engine.config import GameConfig
from table_controller.engine.events import Event
from table_controller.engine.machine import Phase
from table_controller.engine.opening import OpeningRequirement

__all__ = ["CardLike", "HandState", "IrregularState", "SeatSpec"]

CardLike = Card | int | str | None


@dataclass(frozen=True, kw_only=True)
class SeatSpec:
    seat: int
    stack: int
    name: str = ""


@dataclass
class IrregularState:
    """What the reports have left pending on a hand (kept on ``Hand.irregular_state``)."""

    exposed_deal: dict[int, list[int]] = field(default_factory=dict)  # player index -> exposed positions
    owed_after_draw: list[tuple[int, int, str]] = field(default_factory=list)  # (index, cards, rule)
    owed_with_draw: dict[int, tuple[int, str]] = field(default_factory=dict)  # index -> (cards, rule)
    short: set[int] = field(default_factory=set)  # players playing on with too few cards
    false_opener: int | None = None  # the seat whose foul hand made the opening false
    leave_in_pot: set[int] = field(default_factory=set)  # players who will not withdraw from a false opener's pot
    next_deal: dict[str, Any] = field(default_factory=dict)


class HandState(Protocol):
    """The fields and steps of a deal that the draw, the showdown, the legal view and the irregularity procedures
    read or change. Players are indices 0..n-1 in seat order (``seat_no[i]`` is the seat number, ``index`` the
    other way); cards are shoe positions (``ident[p]`` the card, None unknown)."""

    config: GameConfig
    seats: tuple[SeatSpec, ...]
    carried_in: int
    passed_deals: int
    ante_for_all: int | None
    phase: Phase | None
    requirement: OpeningRequirement | None
    events: list[Event]
    status: str
    to_act: int | None
    openers_proved: bool | None
    false_opener_case: int | None
    irregular_state: IrregularState | None
    # Seats and chips.
    n: int
    seat_no: list[int]
    index: dict[int, int]
    button_index: int
    stack: list[int]
    bets: list[int]
    contrib: list[int]
    ante_paid: list[int]
    collected: int
    dead: int
    dead_payer: int
    current: int
    # Cards, by shoe position.
    ident: list[Card | None]
    deck_codes: list[str]
    delivered: int
    learnt: bool
    stub: list[int]
    hands: list[list[int]]
    original: list[tuple[int, ...]]
    held: list[list[int]]
    discards: list[list[int]]
    burn_pile: list[int]
    muck_pile: list[int]
    checked_layout: tuple[Any, ...]
    # Who is in, and the turn.
    folded: list[bool]
    foul: list[bool]
    mucked: list[bool]
    shown: list[bool]
    needs: list[bool]
    interval: str
    opened: bool
    opener_index: int | None
    aggressor: int | None
    final_first: int | None
    forced_last: int | None
    straddles: int
    # The betting interval.
    structure: BettingStructure
    pass_and_out: bool
    straddle_form: bool
    after: tuple[tuple[int, ...], ...]  # after[i]: the players to i's left in turn, ending with i
    others: tuple[tuple[int, ...], ...]
    last_inc: int
    raises: int
    acted_full: list[bool]
    entry: int
    entry_seat: int | None
    predraw_level: int
    legal_full: int
    # The draw.
    draw_top: int
    drawers: list[int]
    draw_pos: int
    burned_for_draw: bool
    announced: dict[int, int]
    pending_serve: tuple[int, int, list[int], list[int]] | None  # (i, still owed, served, discards)
    # 003 False openers 2.
    resume_at: int | None
    reopen_queue: list[int]
    reopen_pos: int
    # The showdown.
    values: dict[int, int]
    show_queue: list[int]
    show_pos: int

    @property
    def is_over(self) -> bool: ...

    @property
    def opener(self) -> int | None: ...

    @property
    def pot(self) -> int: ...

    @property
    def carried_pot(self) -> int: ...

    @property
    def actions(self) -> list[dict[str, Any]]: ...

    def stacks(self) -> dict[int, int]: ...

    def max_discard(self, seat: int) -> int: ...

    def reshuffle_pool(self) -> tuple[str, ...]: ...

    def can_decline_straddle(self, seat: int) -> bool: ...

    def can_take_open(self, seat: int) -> bool: ...

    def index_of(self, seat: int) -> int: ...

    def code(self, pos: int) -> str: ...

    def codes(self, positions: Sequence[int]) -> tuple[str, ...]: ...

    def require_phase(self, trigger: str) -> None: ...

    def require_turn(self, i: int, rule: str = ...) -> None: ...

    def log_act(self, act: ActTaken) -> None: ...

    def done(self, before: int) -> list[Event]: ...

    def emit(self, event: Event) -> Event: ...

    def move(self, target: Phase, trigger: str) -> None: ...

    def live(self) -> list[int]: ...

    def reserve(self) -> int: ...

    def resolve_cards(self, positions: Sequence[int], cards: Sequence[CardLike], what: str) -> list[int]: ...

    def serve(self, i: int, owed: int, served: list[int], thrown: list[int], trigger: str) -> None: ...

    def set_next(self, start: int, *, inclusive: bool) -> int | None: ...

    def open_interval(self, first: int) -> None: ...

    def check_invariants(self) -> None: ...

    def collect(self) -> None: ...

    def return_uncalled(self) -> None: ...

    def close_interval(self, trigger: str) -> None: ...

    def begin_final(self, trigger: str) -> None: ...

    def judge_and_emit(self, i: int, *, final: bool) -> bool | None: ...

    def finish_uncontested(self, w: int, trigger: str, *, proved: bool = False) -> None: ...

    def award_showdown(self) -> None: ...

    def end(self) -> None: ...
