"""What the irregularity procedures (``irregular_*.py``) require of a hand in play: :class:`HandState`.

Why a Protocol: the procedures apply the books' remedies to a deal's chips, piles and turn, so they work on the
state of :class:`~table_controller.engine.hand.Hand`; naming that state here, in a module that imports neither
the hand nor the procedures, keeps ``hand -> irregular -> hand`` from being an import circle, and lists in one
place every field and step a remedy may touch (the type checker holds ``Hand`` to it where the hand passes
itself to a procedure).

:class:`IrregularState` is what the reports leave pending on a hand (``Hand.irregular_state``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from table_controller.engine.cards import Card
from table_controller.engine.config import GameConfig
from table_controller.engine.events import Event
from table_controller.engine.machine import Phase
from table_controller.engine.opening import OpeningRequirement

__all__ = ["CardLike", "HandState", "IrregularState"]

CardLike = Card | int | str | None


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
    """The fields and steps of a deal that a remedy reads or changes. Players are indices 0..n-1 in seat order
    (``_seat_no[i]`` is the seat number); cards are shoe positions (``_ident[p]`` the card, None unknown)."""

    config: GameConfig
    phase: Phase | None
    requirement: OpeningRequirement | None
    events: list[Event]
    status: str
    to_act: int | None
    openers_proved: bool | None
    false_opener_case: int | None
    irregular_state: IrregularState | None
    # Seats and chips.
    _n: int
    _seat_no: list[int]
    _button: int
    _stack: list[int]
    _bet: list[int]
    _contrib: list[int]
    _ante_paid: list[int]
    _pot: int
    _dead: int
    _dead_payer: int
    _current: int
    # Cards, by shoe position.
    _ident: list[Card | None]
    _learnt: bool
    _stub: list[int]
    _hands: list[list[int]]
    _held: list[list[int]]
    _discards: list[list[int]]
    _muck: list[int]
    # Who is in, and the turn.
    _folded: list[bool]
    _foul: list[bool]
    _needs: list[bool]
    _interval: str
    _opener: int | None
    _aggressor: int | None
    _drawers: list[int]
    _draw_pos: int
    _resume_at: int | None
    _reopen_queue: list[int]
    _reopen_pos: int
    _show_queue: list[int]
    _show_pos: int

    @property
    def is_over(self) -> bool: ...

    @property
    def opener(self) -> int | None: ...

    def max_discard(self, seat: int) -> int: ...

    def _i(self, seat: int) -> int: ...

    def _codes(self, positions: Sequence[int]) -> tuple[str, ...]: ...

    def _emit(self, event: Event) -> Event: ...

    def _move(self, target: Phase, trigger: str) -> None: ...

    def _live(self) -> list[int]: ...

    def _reserve(self) -> int: ...

    def _resolve_cards(self, positions: Sequence[int], cards: Sequence[CardLike], what: str) -> list[int]: ...

    def _serve(self, i: int, owed: int, served: list[int], thrown: list[int], trigger: str) -> None: ...

    def _set_next(self, start: int, *, inclusive: bool) -> int | None: ...

    def _collect(self) -> None: ...

    def _close_interval(self, trigger: str) -> None: ...

    def _begin_final(self, trigger: str) -> None: ...

    def _judge_and_emit(self, i: int, *, final: bool) -> bool | None: ...

    def _finish_uncontested(self, w: int, trigger: str, *, proved: bool = False) -> None: ...

    def _award_showdown(self) -> None: ...

    def _end(self) -> None: ...
