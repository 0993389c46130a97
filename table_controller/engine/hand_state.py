"""The deal's public state and steps, as the modules of a deal use them: :class:`HandState`.

``Hand`` (hand.py) is the coordinator: it holds this state and offers every act. The other concerns are
modules of functions over this state: the start of a deal and the straddles (forced.py), what a player may
wager (wagers.py), a betting interval's flow (intervals.py), the draw (draw.py), card identities
(identities.py), the showdown (showdown.py), the legal view (legal.py), the result and record (outcome.py) and
the irregularity procedures (irregular*.py).

Why a base class of ``Hand``: naming the state here, in a module that imports none of them, keeps ``hand -> draw ->
hand`` (and the like) from being an import circle, and lists in one place every field and step a module may touch.

:class:`SeatSpec` is a seat dealt in; :class:`IrregularState` what the reports leave pending on a hand
(``Hand.irregular_state``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from table_controller.engine.acts import ActTaken, actions_of
from table_controller.engine.betting import BettingStructure
from table_controller.engine.cards import Card
from table_controller.engine.config import GameConfig
from table_controller.engine.errors import IllegalActionError, InvariantError
from table_controller.engine.events import Event, Frozen, HandEnded
from table_controller.engine.machine import TERMINAL, Phase, accepts, check_transition
from table_controller.engine.opening import OpeningRequirement
from table_controller.engine.piles import DECK_SIZE, prove_layout

__all__ = ["CardLike", "HandState", "IrregularState", "SeatSpec"]

CardLike = Card | int | str | None

R_TURN = "003 Draw Poker: each player in turn, in rotation to the left"


class SeatSpec(Frozen):
    """A seat dealt in: its number, the player's stack before the antes, and name (frozen, like the events)."""

    fields: ClassVar[tuple[str, ...]] = ("seat", "stack", "name")

    def __init__(self, *, seat: int, stack: int, name: str = "") -> None:
        self.seat: Final = seat
        self.stack: Final = stack
        self.name: Final = name


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


class HandState:
    """The fields and steps of a deal that the draw, the showdown, the legal view and the irregularity procedures
    read or change. Players are indices 0..n-1 in seat order (``seat_no[i]`` is the seat number, ``index`` the
    other way); cards are shoe positions (``ident[p]`` the card, None unknown).

    :class:`~table_controller.engine.hand.Hand` is its one subclass: its constructor sets every field, and it
    supplies the steps declared here without a body (each belongs to one module: the draw's ``serve_drawer``, an
    interval's ``close_interval``...). The bookkeeping every module shares (the log, the phase, the turn, the
    invariant check) is here. A class rather than a Protocol because the native build (bench/native.py) reads a
    field of a compiled class at a fixed offset, and calls a step through its method table.
    """

    # Every field a deal keeps, declared in one place; ``__dict__`` stays for anything else a caller hangs on a hand.
    __slots__ = (
        "__dict__", "acted_full", "after", "aggressor", "announced", "ante_for_all", "ante_paid", "bets",
        "burn_pile", "burned_for_draw", "button_index", "carried_in", "checked_layout", "chips_total", "collected",
        "config", "contrib", "current", "dead", "dead_payer", "deck_codes", "delivered", "discards", "draw_pos",
        "draw_top", "drawers", "drawn", "entry", "entry_seat", "events", "false_opener_case", "final_first", "folded",
        "forced_last", "foul", "hands", "held", "ident", "index", "interval", "irregular_state", "last_inc",
        "learnt", "legal_full", "muck_pile", "mucked", "n", "needs", "opened", "opener_index", "openers_proved",
        "original", "others", "pass_and_out", "passed_deals", "pending_serve", "phase", "predraw_level", "raises",
        "reopen_pos", "reopen_queue", "requirement", "reserve_cards", "resume_at", "seat_no", "seats", "show_pos",
        "show_queue", "shown", "stack", "status", "straddle_form", "straddles", "structure", "stub", "to_act",
        "values",
    )

    config: GameConfig
    seats: tuple[SeatSpec, ...]
    carried_in: int
    passed_deals: int
    ante_for_all: int | None
    phase: Phase | None
    requirement: OpeningRequirement | None
    events: list[Event]  # the one log: the acts entered (acts.ActTaken) and what they did
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
    chips_total: int  # every chip on the table at the start: the invariant check's sum
    # Cards, by shoe position.
    ident: list[Card | None]
    deck_codes: list[str]
    delivered: int
    learnt: bool
    reserve_cards: int
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
    drawn: list[list[int]]  # drawn[i]: the positions player i's draw served him, in the order served
    pending_serve: tuple[int, int, list[int], list[int]] | None  # (i, still owed, served, discards)
    # 003 False openers 2.
    resume_at: int | None
    reopen_queue: list[int]
    reopen_pos: int
    # The showdown.
    values: dict[int, int]
    show_queue: list[int]
    show_pos: int

    # ------------------------------------------------------------------------------------------ bookkeeping

    @property
    def is_over(self) -> bool:
        return self.phase in TERMINAL

    @property
    def opener(self) -> int | None:
        return None if self.opener_index is None else self.seat_no[self.opener_index]

    @property
    def pot(self) -> int:
        """Chips in the middle: the collected pot plus the bets of the current interval."""
        pot = self.collected
        for bet in self.bets:
            pot += bet
        return pot

    @property
    def carried_pot(self) -> int:
        """After the hand: what stays on the table for the next deal."""
        return self.collected if self.phase in TERMINAL else 0

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The acts so far as the hand record lists them, read from the event log (:mod:`~.acts`)."""
        return [act.to_action() for act in actions_of(self.events)]

    def stacks(self) -> dict[int, int]:
        return {self.seat_no[i]: self.stack[i] for i in range(self.n)}

    def index_of(self, seat: int) -> int:
        i = self.index.get(seat)
        if i is None:
            raise IllegalActionError("unknown_seat", f"seat {seat} is not dealt in this hand")
        return i

    def live(self) -> list[int]:
        return [i for i in range(self.n) if not self.folded[i]]

    def reserve(self) -> int:
        return self.reserve_cards  # 1 when the house never deals the last card

    def require_phase(self, trigger: str) -> None:
        if self.phase is None or not accepts(self.phase, trigger):
            raise IllegalActionError("wrong_phase", f"'{trigger}' is not allowed during {self.phase}")

    def require_turn(self, i: int, rule: str = R_TURN) -> None:
        if self.to_act != i:
            who = "nobody" if self.to_act is None else f"seat {self.seat_no[self.to_act]}"
            raise IllegalActionError("not_your_turn", f"seat {self.seat_no[i]} acted out of turn: it is {who}'s turn",
                                     rule=rule)

    def move(self, target: Phase, trigger: str) -> None:
        check_transition(self.phase, trigger, target)
        self.phase = target

    def emit(self, event: Event) -> Event:
        self.events.append(event)
        return event

    def end(self) -> None:
        self.to_act = None
        self.emit(HandEnded(status=self.status, carried_pot=self.collected))

    def check_invariants(self) -> None:
        # Every chip and every card place is looked at after every act. The chips: each stack and bet once, in one
        # pass. The cards: where every pile and hand holds exactly what it held at the last proof (a copy kept
        # then), the 52 places are the ones that proof established; any difference at all, in any pile, hand or
        # order, is proved again by piles.prove_layout, which looks at the piles that changed.
        chips = self.collected
        negative = chips < 0
        for i in range(self.n):
            stack, bet = self.stack[i], self.bets[i]
            chips += stack + bet
            negative = negative or stack < 0 or bet < 0
        if chips != self.chips_total:
            raise InvariantError(f"chips not conserved: {chips} on the table, {self.chips_total} expected")
        if negative:
            raise InvariantError("a negative stack, bet or pot")
        layout = (self.stub, self.burn_pile, self.muck_pile, self.hands, self.held, self.discards)
        if layout != self.checked_layout:
            kept, self.checked_layout = self.checked_layout, ()  # a failed proof leaves no copies: all 52 next time
            self.checked_layout = prove_layout(layout, kept, self.n)
        if self.learnt:  # identities change only when cards are learnt: check them then
            self.learnt = False
            ident = self.ident
            distinct = set(ident)  # counted in C: the known cards distinct, plus None once if any is unknown
            unknown = ident.count(None)
            if len(distinct) - (unknown > 0) != DECK_SIZE - unknown:
                raise InvariantError("one card identified in two places")

    # ------------------------------------------------------- steps Hand supplies, each from its module

    def log_act(self, act: ActTaken) -> None:
        raise NotImplementedError

    def done(self, before: int) -> list[Event]:
        raise NotImplementedError

    def max_discard(self, seat: int) -> int:
        raise NotImplementedError

    def reshuffle_pool(self) -> tuple[str, ...]:
        raise NotImplementedError

    def can_decline_straddle(self, seat: int) -> bool:
        raise NotImplementedError

    def can_take_open(self, seat: int) -> bool:
        raise NotImplementedError

    def code(self, pos: int) -> str:
        raise NotImplementedError

    def codes(self, positions: Sequence[int]) -> tuple[str, ...]:
        raise NotImplementedError

    def resolve_cards(self, positions: Sequence[int], cards: Sequence[CardLike], what: str) -> list[int]:
        raise NotImplementedError

    def serve_drawer(self, i: int, owed: int, served: list[int], thrown: list[int], trigger: str) -> None:
        raise NotImplementedError

    def set_next(self, start: int, *, inclusive: bool) -> int | None:
        raise NotImplementedError

    def open_interval(self, first: int) -> None:
        raise NotImplementedError

    def collect(self) -> None:
        raise NotImplementedError

    def return_uncalled(self) -> None:
        raise NotImplementedError

    def close_interval(self, trigger: str) -> None:
        raise NotImplementedError

    def begin_final(self, trigger: str) -> None:
        raise NotImplementedError

    def judge_and_emit(self, i: int, *, final: bool) -> bool | None:
        raise NotImplementedError

    def finish_uncontested(self, w: int, trigger: str, *, proved: bool = False) -> None:
        raise NotImplementedError

    def award_showdown(self) -> None:
        raise NotImplementedError
