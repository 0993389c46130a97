"""One deal of Draw Poker, from the antes to the award: the engine the live table and the replayer drive.

Build a :class:`Hand` from a :class:`~table_controller.engine.config.GameConfig`, the seats dealt in (seat
number, name, stack before the antes), the button's seat, the pot carried from earlier deals, how many deals
were passed out in a row, and the deck (the shoe's order, top first; ``None`` for a card the table cannot
read). The constructor posts the antes and forced bets and deals; then every act has ``verify_x(...)``, which
raises :class:`IllegalActionError` naming the rule, and ``x(...)``, which applies it and returns the events it
produced; where a caller needs only the answer (the legal view, the replayer) ``can_x(...)`` gives it.
:meth:`Hand.legal_actions` says whose turn it is and exactly what that seat (or the dealer) may do, with amounts.

A live shoe deals one card at a time: build the hand with the cards of the deal and feed it the others as they
come (:meth:`Hand.deliver`; :meth:`Hand.shoe_cards_for_draw` says how many a draw needs first).

Cards are tracked by their *position* in the shoe's order (0 = the first card off the shoe), so a deck the
table cannot read works the same: identities are learnt when cards are shown. After every act the engine
checks that every chip (stacks + bets + pot) and every one of the 52 positions (stub, hands, burn, discards,
muck, the opener's held-out cards) is accounted for, exactly once; a failure is an
:class:`InvariantError`, a bug.

Seats are numbered clockwise: "the player on the left" of seat N is the next seat number up (wrapping).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from operator import attrgetter
from typing import Any

from table_controller.engine import irregular as _irregular
from table_controller.engine.acts import INPUTS, ActTaken, actions_of
from table_controller.engine.betting import R_BLOCK, R_LIMITS, Round, structure_for
from table_controller.engine.cards import UNKNOWN_CODE, Card, card_str, parse_card
from table_controller.engine.config import (
    FORCED_BLIND_FORMS,
    PASS_AND_BACK_IN_FORMS,
    STRADDLE_FORMS,
    AnteMode,
    Betting,
    DrawLimit,
    GameConfig,
    GameForm,
    OddChip,
    PassMeaning,
    config_to_json,
)
from table_controller.engine.deck import CARD_OF, CODE_OF, card_int, card_or_unknown, parse_deck, whole_pack
from table_controller.engine.errors import ConfigError, IllegalActionError, InvariantError
from table_controller.engine.evaluate import describe as _describe_value
from table_controller.engine.events import (
    BetMade,
    BetReturned,
    Burned,
    Called,
    CardsDealt,
    CardsDelivered,
    CardsForgotten,
    Checked,
    DrawAnnounced,
    DrawServed,
    Event,
    Folded,
    ForcedBetPosted,
    HandEnded,
    IntervalClosed,
    Mucked,
    OpenersJudged,
    PotAwarded,
    PotCarried,
    Raised,
    Reshuffled,
    Shown,
    StraddleDeclined,
)
from table_controller.engine.hand_state import CardLike
from table_controller.engine.machine import TERMINAL, Phase, accepts, check_transition
from table_controller.engine.opening import meets_requirement
from table_controller.engine.piles import DECK_SIZE, prove_layout
from table_controller.engine.pots import award_pots

__all__ = ["Hand", "LegalActions", "SeatSpec"]

HAND_SIZE = 5
_FULL_STUB = tuple(range(DECK_SIZE - 1, -1, -1))
_seat_number = attrgetter("seat")
_stack_of = attrgetter("stack")
describe = cache(_describe_value)  # a hand value's wording: pure, and at most 7,462 values
_NAME_OF: dict[Card | None, str] = {None: UNKNOWN_CODE, **{Card(c): code for c, code in enumerate(CODE_OF)}}

R_TURN = "003 Draw Poker: each player in turn, in rotation to the left"
R_OPEN = "003 Jackpots: a player may not open unless he has the requirement"
R_CHECK = "003 Jackpots: pass (check) only while nobody has bet"
R_PASS_OUT = "003 Pass and out: each player in turn must either bet or drop"
R_STRADDLE = "003 Blind and straddle: a straddle doubles the last straddle, made only by the player left of the last"
R_STAY = "003 Blind and straddle: the first player who stays must bet double the last straddle"
R_DOUBLE = "003 Blind opening: the player left of the blind opener must double the blind to stay (house option)"
R_DRAW_ORDER = "003 The draw: dealing for the draw begins with the active player on the dealer's left"
R_DRAW_LIMIT_001 = "001 Game procedure 5: each player can exchange up to 4 cards"
R_DRAW_LIMIT_003 = "003 The draw: with six or seven players the draw is limited (house option)"
R_RESHUFFLE = "001 IV 2 Too few cards for a complete draw: burn and earlier discards, never the player's own"
R_PROVE = "003 Jackpots / 000 Proving openers: the opener must show openers before his hand is discarded"
R_FALSE4 = "003 False openers 4"
R_FALSE2 = "003 False openers 2"
R_SHOWDOWN = "000 Final betting and showdown: every player who has not dropped shows his full hand"

@dataclass(frozen=True, kw_only=True)
class SeatSpec:
    seat: int
    stack: int
    name: str = ""

    def __deepcopy__(self, memo: dict[int, Any]) -> SeatSpec:
        return self  # frozen, of ints and a str: nothing to copy (and a compiled one refuses the default copy)


@dataclass(frozen=True, kw_only=True)
class LegalActions:
    """What the dealer console shows: the phase, whose turn, and each act allowed with its amounts.

    ``acts`` lists the act names ``seat`` (or the dealer when ``seat`` is None) may take now. ``min_to`` /
    ``max_to`` bound the total for ``bet`` or ``raise`` in this interval; ``call_amount`` is what a call puts
    in; ``max_discard`` the most cards ``draw`` may throw; ``reshuffle_size`` how many cards ``reshuffle``
    must order.
    """

    phase: Phase
    seat: int | None
    acts: tuple[str, ...]
    call_amount: int = 0
    min_to: int = 0
    max_to: int = 0
    max_discard: int = 0
    reshuffle_size: int = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> LegalActions:
        return self  # frozen, of ints, strs and a tuple of strs: nothing to copy (a compiled one refuses to)


class Hand:
    """One deal. See the module docstring for how to drive it."""

    # Every field a deal keeps, declared in one place; ``__dict__`` stays for anything else a caller hangs on a hand.
    __slots__ = (
        "__dict__", "_acted_full", "_after", "_aggressor", "_announced", "_ante_paid", "_bet", "_burn",
        "_burned_for_draw", "_button", "_checked_layout", "_chips_total", "_contrib", "_current", "_dead",
        "_deck_codes", "_delivered", "_discards", "_draw_pos", "_draw_top", "_drawers", "_entry", "_entry_seat",
        "_final_first", "_folded", "_forced_last", "_foul", "_hands", "_held", "_ident", "_index", "_interval",
        "_last_inc", "_learnt", "_legal", "_legal_full", "_muck", "_mucked", "_n", "_needs", "_opened",
        "_opener", "_original", "_others", "_pass_and_out", "_pending_serve", "_pot", "_predraw_level", "_raises",
        "_reopen_pos", "_reopen_queue", "_reserve_cards", "_resume_at", "_seat_no", "_show_pos", "_show_queue",
        "_shown", "_stack", "_straddle_form", "_straddles", "_structure", "_stub", "_values", "carried_in",
        "config", "events", "false_opener_case", "irregular_state", "openers_proved", "passed_deals", "phase",
        "requirement", "seats", "status", "to_act",
    )

    def __init__(self, config: GameConfig, seats: Sequence[SeatSpec], button: int, *,
                 deck: Sequence[CardLike] | None = None, carried_pot: int = 0, passed_deals: int = 0,
                 ante_for_all: int | None = None) -> None:
        self.config = config
        ordered = sorted(seats, key=_seat_number)
        numbers: list[int] = list(map(_seat_number, ordered))
        stacks: list[int] = list(map(_stack_of, ordered))
        if not 2 <= len(ordered) <= 8:
            raise ConfigError(f"a deal needs 2 to 8 players, got {len(ordered)}")
        if len(set(numbers)) != len(numbers):
            raise ConfigError("a seat number appears twice")
        if min(stacks) < 0 or carried_pot < 0 or passed_deals < 0:
            raise ConfigError("stacks, carried pot and passed deals must not be negative")
        if button not in numbers:
            raise ConfigError(f"the button seat {button} is not one of the seats dealt in {numbers}")
        if ante_for_all is not None and ante_for_all not in numbers:
            raise ConfigError(f"the seat {ante_for_all} that antes for all is not one of the seats dealt in {numbers}")
        # 003 False openers 2, house option: the false opener of the last deal antes for everyone in this one.
        self.ante_for_all = ante_for_all
        self.seats = tuple(ordered)
        self._n = n = len(ordered)
        self._seat_no = numbers
        self._index = dict(zip(numbers, range(n), strict=True))
        self._after, self._others = _rotations(n)
        self._button = self._index[button]
        self.carried_in = carried_pot
        self.passed_deals = passed_deals
        self.requirement = config.requirement(passed_deals)
        self._structure = structure_for(config)
        # Facts of the game that the betting acts ask about, settled once (the config is frozen).
        self._pass_and_out = config.form is GameForm.PASS_AND_OUT
        self._straddle_form = config.form in STRADDLE_FORMS
        draw_limit = config.draw_limit
        if draw_limit is DrawLimit.FOUR:
            self._draw_top = 4
        elif draw_limit is DrawLimit.BY_PLAYERS and len(ordered) >= 6:
            self._draw_top = config.options.draw_limit_six_plus
        else:
            self._draw_top = HAND_SIZE
        self._reserve_cards = 1 if config.options.never_deal_last_card else 0
        self.events: list[Event] = []  # the one log: the acts entered (acts.ActTaken) and what they did
        self.status = "in_progress"
        self.openers_proved: bool | None = None
        self.false_opener_case: int | None = None
        self.irregular_state: _irregular.IrregularState | None = None  # remedies pending (irregular.py)

        # Chips.
        self._stack = stacks
        self._bet = [0] * n
        self._contrib = [0] * n  # live chips this deal (antes and bets), for side pots
        self._ante_paid = [0] * n
        self._pot = carried_pot
        self._dead = 0  # dealer's ante for all and the block-system ante: in the pot, nobody's live bet
        self._dead_payer = self._button  # who put the dead money in (a misdeal may give it back)
        self._chips_total = sum(self._stack) + carried_pot

        # Cards, by position in the shoe's order.
        ident = whole_pack(deck)
        if ident is not None:  # the usual deck: every card once, by its code; its identities are proved distinct
            self._deck_codes: list[str] = list(deck)  # type: ignore[arg-type]
            self._learnt = False
        else:
            self._deck_codes = parse_deck(deck)
            self._learnt = True  # the identity check runs with the first invariant check
            ident = list(map(CARD_OF.get, self._deck_codes))
        self._ident: list[Card | None] = ident
        # Shoe positions the table has been given (read, or "??"): a live shoe delivers the rest with deliver().
        self._delivered = DECK_SIZE if deck is None else min(len(deck), DECK_SIZE)
        self._stub = list(_FULL_STUB)  # top of the stub at the end
        self._hands: list[list[int]] = []  # dealt by _deal, in seat order
        self._original: list[tuple[int, ...]] = []  # each hand as dealt (by _deal), for proving openers
        self._held: list[list[int]] = [[] for _ in ordered]
        self._discards: list[list[int]] = [[] for _ in ordered]
        self._burn: list[int] = []
        self._muck: list[int] = []
        self._checked_layout: tuple[Any, ...] = ()  # copies of the piles at the last full card check

        # Who is in.
        self._folded = [False] * n
        self._foul = [False] * n
        self._mucked = [False] * n
        self._shown = [False] * n

        # Betting interval.
        self._interval = "first"
        self._current = 0
        self._last_inc = 0
        self._raises = 0
        self._needs = [False] * n
        self._acted_full = [False] * n
        self._aggressor: int | None = None
        self._opened = False
        self._opener: int | None = None
        self._entry = 0
        self._entry_seat: int | None = None
        self._forced_last: int | None = None
        self._predraw_level = 0
        self._final_first: int | None = None
        self.to_act: int | None = None

        # Straddles.
        self._straddles = 0

        # Draw.
        self._drawers: list[int] = []
        self._draw_pos = 0
        self._burned_for_draw = False
        self._announced: dict[int, int] = {}
        self._pending_serve: tuple[int, int, list[int], list[int]] | None = None  # (i, still owed, served, discards)

        # 003 False openers 2.
        self._resume_at: int | None = None
        self._reopen_queue: list[int] = []
        self._reopen_pos = 0

        # Showdown.
        self._values: dict[int, int] = {}
        self._show_queue: list[int] = []
        self._show_pos = 0

        # The legal-action view of the current state, once computed (None: not yet, or the state changed since).
        # An act whose seat and name the view lists skips the separate verification (the view is exactly what
        # the verify methods accept: tests/engine/test_properties.py); anything else is verified in full.
        self._legal: LegalActions | None = None
        self._legal_full = 0  # with a betting view: the smallest full bet or raise (_raise_limits()[0]), else 0

        self.phase: Phase | None = None
        self._start()

    # ----------------------------------------------------------------------------------------------- setup

    def __new__(cls, *args: Any, **kwargs: Any) -> Hand:
        # A blank hand, which __init__ then deals. Spelt out because a compiled class (bench/native.py) otherwise
        # deals in its __new__ too, and __deepcopy__ needs a hand that has not dealt.
        return object.__new__(cls)

    def __deepcopy__(self, memo: dict[int, Any]) -> Hand:
        """A copy standing exactly where this deal stands (the controller tries an act on one before the real one):
        a blank hand given a deep copy of every field. (The default copy cannot make a compiled hand, which keeps
        its fields in C slots.)"""
        twin = Hand.__new__(Hand)
        memo[id(self)] = twin
        for name in _field_names(self):
            setattr(twin, name, copy.deepcopy(getattr(self, name), memo))
        return twin

    def _move(self, target: Phase, trigger: str) -> None:
        check_transition(self.phase, trigger, target)
        self.phase = target

    def _emit(self, event: Event) -> Event:
        self.events.append(event)
        return event

    def _post(self, i: int, amount: int, what: str, *, live: bool, as_bet: bool) -> int:
        paid = min(amount, self._stack[i])
        self._stack[i] -= paid
        if as_bet:
            self._bet[i] += paid
        else:
            self._pot += paid
        if live:
            self._contrib[i] += paid
        else:
            self._dead += paid
        self._emit(ForcedBetPosted(seat=self._seat_no[i], amount=paid, what=what, all_in=self._stack[i] == 0))
        return paid

    def _start(self) -> None:
        cfg, st, n, b = self.config, self.config.stakes, self._n, self._button
        form = cfg.form
        left = (b + 1) % n
        if st.ante > 0:
            if self.ante_for_all is not None:
                self._dead_payer = payer = self._index[self.ante_for_all]
                self._post(payer, st.ante * n, "ante_for_all", live=False, as_bet=False)
            elif cfg.options.ante_mode is AnteMode.DEALER:
                self._post(b, st.ante * n, "dealer_ante", live=False, as_bet=False)
            else:  # each player antes, from the dealer's left
                for i in _deal_order(n, left):
                    self._ante_paid[i] = self._post(i, st.ante, "ante", live=True, as_bet=False)
        first = left
        if form is GameForm.BLOCK_SYSTEM:
            self._post(b, st.block_ante, "block_ante", live=False, as_bet=False)
            second = (left + 1) % n
            self._post(left, st.block_blind, "block_blind", live=True, as_bet=True)
            self._post(second, st.block_raise - self._bet[second], "block_raise", live=True, as_bet=True)
            self._current = max(self._bet)
            self._last_inc = st.block_raise - st.block_blind
            self._forced_last = second
            self._opened = True
            first = (second + 1) % n
        elif form in STRADDLE_FORMS:
            self._post(left, st.blind, "blind", live=True, as_bet=True)
            self._current = self._bet[left]
            self._forced_last = left
            self._last_inc = st.blind
        elif form is GameForm.BLIND_OPENING:
            self._post(left, st.blind, "blind_open", live=True, as_bet=True)
            self._current = self._bet[left]
            self._last_inc = st.blind
            self._raises = 1
            self._opened = True
            self._opener = left
            self._forced_last = left
            first = (left + 1) % n
            if cfg.options.blind_opening_double_to_stay:
                self._entry_seat = first
                self._entry = 2 * st.blind
        self._deal()
        if form in STRADDLE_FORMS:
            nxt = (left + 1) % n
            if self._may_straddle(nxt):
                self._move(Phase.STRADDLING, "start")
                self.to_act = nxt
                self._check_invariants()
                return
            self._begin_first_after_straddles()
            self._check_invariants()
            return
        self._move(Phase.FIRST_BETTING, "start")
        self._open_interval(first)
        self._check_invariants()

    def _deal(self) -> None:
        n, left = self._n, (self._button + 1) % self._n
        order = _deal_order(n, left)
        stub = self._stub
        # One card at a time from the dealer's left, five rounds: the k-th card off the top of the stub goes to
        # order[k % n]. Taken in one slice per player rather than card by card.
        top = len(stub)
        dealt = stub[top - HAND_SIZE * n:][::-1]
        del stub[top - HAND_SIZE * n:]
        hands: list[list[int]] = [[] for _ in order]
        for k, i in enumerate(order):
            hands[i] = dealt[k::n]
        self._hands = hands
        self._original = list(map(tuple, hands))
        seat_no = self._seat_no
        self._emit(CardsDealt(order=tuple(seat_no[i] for i in order), cards_each=HAND_SIZE))

    # ------------------------------------------------------------------------------------------ invariants

    def _check_invariants(self) -> None:
        # Every chip and every card place is looked at after every act, with built-in sums and comparisons
        # (no Python loop). The cards: where every pile and hand holds exactly what it held at the last proof
        # (a copy kept then), the 52 places are the ones that proof established; any difference at all, in any
        # pile, hand or order, is proved again by _check_cards.
        places = self._stack + self._bet
        pot = self._pot
        chips = sum(places) + pot
        if chips != self._chips_total or min(places) < 0 or pot < 0:
            if chips != self._chips_total:
                raise InvariantError(f"chips not conserved: {chips} on the table, {self._chips_total} expected")
            raise InvariantError("a negative stack, bet or pot")
        layout = (self._stub, self._burn, self._muck, self._hands, self._held, self._discards)
        if layout != self._checked_layout:
            kept, self._checked_layout = self._checked_layout, ()  # a failed proof leaves no copies: all 52 next time
            self._checked_layout = prove_layout(layout, kept, self._n)
        if self._learnt:  # identities change only when cards are learnt: check them then
            self._learnt = False
            ident = self._ident
            distinct = set(ident)  # counted in C: the known cards distinct, plus None once if any is unknown
            unknown = ident.count(None)
            if len(distinct) - (unknown > 0) != DECK_SIZE - unknown:
                raise InvariantError("one card identified in two places")

    # ---------------------------------------------------------------------------------------------- helpers

    def _i(self, seat: int) -> int:
        i = self._index.get(seat)
        if i is None:
            raise IllegalActionError("unknown_seat", f"seat {seat} is not dealt in this hand")
        return i

    def _can_bet_chips(self, i: int) -> bool:
        return not self._folded[i] and self._stack[i] > 0

    def _live(self) -> list[int]:
        return [i for i in range(self._n) if not self._folded[i]]

    def _require_phase(self, trigger: str) -> None:
        if self.phase is None or not accepts(self.phase, trigger):
            raise IllegalActionError("wrong_phase", f"'{trigger}' is not allowed during {self.phase}")

    def _require_turn(self, i: int, rule: str = R_TURN) -> None:
        if self.to_act != i:
            who = "nobody" if self.to_act is None else f"seat {self._seat_no[self.to_act]}"
            raise IllegalActionError("not_your_turn", f"seat {self._seat_no[i]} acted out of turn: it is {who}'s turn",
                                rule=rule)

    def _code(self, pos: int) -> str:
        c = self._ident[pos]
        return UNKNOWN_CODE if c is None else CODE_OF[c]

    def _codes(self, positions: Sequence[int]) -> tuple[str, ...]:
        return tuple(self._code(p) for p in positions)

    def hole_cards(self, seat: int) -> tuple[str, ...]:
        """The cards a seat holds now ("??" where unidentified). Secret: the caller controls who sees them."""
        return self._codes(self._hands[self._i(seat)])

    def card_identities(self) -> tuple[str, ...]:
        """Every shoe position's card as known now ("??" where not yet identified). For records and auditors."""
        return self._codes(range(DECK_SIZE))

    def card_positions(self, seat: int) -> tuple[int, ...]:
        """Shoe positions (0 = first card off the shoe) of the cards a seat holds, then of its held-out cards."""
        i = self._i(seat)
        return tuple(self._hands[i] + self._held[i])

    def stacks(self) -> dict[int, int]:
        return {self._seat_no[i]: self._stack[i] for i in range(self._n)}

    @property
    def pot(self) -> int:
        """Chips in the middle: the collected pot plus the bets of the current interval."""
        return self._pot + sum(self._bet)

    @property
    def carried_pot(self) -> int:
        """After the hand: what stays on the table for the next deal."""
        return self._pot if self.phase in TERMINAL else 0

    @property
    def button(self) -> int:
        return self._seat_no[self._button]

    @property
    def opener(self) -> int | None:
        return None if self._opener is None else self._seat_no[self._opener]

    @property
    def is_over(self) -> bool:
        return self.phase in TERMINAL

    def _log(self, act: ActTaken) -> None:
        self._legal = None  # _done clears it too; this covers an act that fails after logging (a draw short of cards)
        self.events.append(act)

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The acts so far as the hand record lists them, read from the event log (:mod:`~.acts`)."""
        return [act.to_action() for act in actions_of(self.events)]

    def _done(self, before: int) -> list[Event]:
        self._legal = None
        self._check_invariants()
        return self.events[before:]

    # ---------------------------------------------------------------------------------------------- straddles

    def _may_straddle(self, i: int) -> bool:
        limit = self.config.options.straddle_limit
        if limit is not None and self._straddles >= limit:
            return False
        if self._straddles >= self._n - 2:  # a straddle never comes round to the blind again
            return False
        return self._stack[i] > 0

    def verify_straddle(self, seat: int) -> None:
        i = self._i(seat)
        self._require_phase("straddle")
        self._require_turn(i, R_STRADDLE)

    def straddle(self, seat: int) -> list[Event]:
        self.verify_straddle(seat)
        before = len(self.events)
        i = self._i(seat)
        self._post(i, 2 * self._current, "straddle", live=True, as_bet=True)
        self._current = max(self._current, self._bet[i])
        self._last_inc = self._current
        self._forced_last = i
        self._straddles += 1
        self._log(ActTaken(act="straddle", seat=seat))
        nxt = (i + 1) % self._n
        if self._may_straddle(nxt):
            self._move(Phase.STRADDLING, "straddle")
            self.to_act = nxt
        else:
            self._move(Phase.FIRST_BETTING, "straddle")
            self._begin_first_after_straddles(moved=True)
        return self._done(before)

    def verify_decline_straddle(self, seat: int) -> None:
        i = self._i(seat)
        self._require_phase("decline_straddle")
        self._require_turn(i, R_STRADDLE)
        if self.config.options.straddle_compulsory and self._straddles == 0:
            raise IllegalActionError("straddle_compulsory", "the first straddle is compulsory in this game",
                                rule="003 Blind and straddle: in many games at least one straddle is obligatory")

    def can_decline_straddle(self, seat: int) -> bool:
        return _can(self.verify_decline_straddle, seat)

    def decline_straddle(self, seat: int) -> list[Event]:
        self.verify_decline_straddle(seat)
        before = len(self.events)
        self._emit(StraddleDeclined(seat=seat))
        self._log(ActTaken(act="decline_straddle", seat=seat))
        self._move(Phase.FIRST_BETTING, "decline_straddle")
        self._begin_first_after_straddles(moved=True)
        return self._done(before)

    def _begin_first_after_straddles(self, *, moved: bool = False) -> None:
        if not moved:
            self._move(Phase.FIRST_BETTING, "start")
        assert self._forced_last is not None
        self._entry = 2 * self._current
        self._open_interval((self._forced_last + 1) % self._n)

    # ------------------------------------------------------------------------------------------------ betting

    def _open_interval(self, first: int) -> None:
        """Start a betting interval with the first player from ``first`` who can act; none: close it at once."""
        can_bet = [self._can_bet_chips(i) for i in range(self._n)]
        # A player acts only if someone else could answer him, or he has a bet to meet.
        if can_bet.count(True) >= 2:
            self._needs = can_bet
        else:
            self._needs = [can_bet[i] and self._bet[i] < self._current for i in range(self._n)]
        self._acted_full = [False] * self._n
        self._aggressor = None
        # The turn is read back from _set_next, not from self.to_act: a type checker keeps the None stored just
        # before a call, and the compiled build would trust it.
        if self._set_next(first, inclusive=True) is None:
            self._close_interval("no_action")

    def _set_next(self, start: int, *, inclusive: bool) -> int | None:
        """Give the turn to the next player from ``start`` who still has to act; returns him (None: nobody)."""
        order = (start, *self._after[start]) if inclusive else self._after[start]
        self.to_act = next((j for j in order if self._needs[j] and self._can_bet_chips(j)), None)
        return self.to_act

    def _to_call(self, i: int) -> int:
        return min(self._current - self._bet[i], self._stack[i])

    def _entry_pending(self, i: int) -> bool:
        if self._entry <= 0:
            return False
        return self._entry_seat is None or self._entry_seat == i

    def _unit(self) -> int:
        st = self.config.stakes
        return st.small_bet if self._interval == "first" else st.big_bet

    def _raise_bounds(self, i: int) -> tuple[int, int] | None:
        """(min_to, max_to) for a bet or raise by player i now, or None if he may not bet or raise."""
        limits = self._raise_limits(i)
        return None if limits is None else (limits[1], limits[2])

    def _raise_limits(self, i: int) -> tuple[int, int, int] | None:
        """(full_to, min_to, max_to): the smallest full bet or raise, and the bounds once an all-in is allowed
        for less (an all-in below ``full_to`` is a short raise that does not reopen the betting)."""
        all_in_to = self._bet[i] + self._stack[i]
        cur = self._current
        if all_in_to <= cur or self._acted_full[i]:
            return None
        if not self._could_be_called(i):
            return None  # common practice: nobody is left who could call a raise
        entry = self._entry_pending(i)
        bounds = self._structure.raise_range(Round(
            current=cur, last_increment=self._last_inc, raises=self._raises, first=self._interval == "first",
            pot_after_call=self.pot + (cur - self._bet[i]), all_in_to=all_in_to, predraw_level=self._predraw_level,
            entry=entry))
        if bounds is None:
            return None
        lo, hi = bounds
        if entry:
            lo = max(lo, self._entry)
            hi = max(hi, lo) if self.config.betting is not Betting.FIXED_LIMIT else lo
        full = lo
        hi = min(hi, all_in_to)
        lo = min(lo, all_in_to)
        return full, lo, max(hi, lo)

    def _could_be_called(self, i: int) -> bool:
        """Whether another player still in could call a raise above the current bet."""
        return any(not self._folded[j] and self._stack[j] + self._bet[j] > self._current for j in self._others[i])

    def _blind_entry_open(self) -> bool:
        """In the straddle forms, nobody has stayed voluntarily yet: the only acts are fold and bet."""
        return self._straddle_form and self._interval == "first" and not self._opened

    def _betting_common(self, seat: int, act: str) -> int:
        i = self._i(seat)
        self._require_phase(act)
        self._require_turn(i)
        return i

    def verify_check(self, seat: int) -> None:
        i = self._betting_common(seat, "check")
        if self._current > self._bet[i]:
            raise IllegalActionError("cannot_check", f"seat {seat} cannot check: {self._to_call(i)} to call",
                                     rule=R_CHECK)
        if self._pass_and_out_unopened():
            raise IllegalActionError("must_bet_or_drop", "before the pot is opened a player must bet or drop",
                                rule=R_PASS_OUT)

    def check(self, seat: int) -> list[Event]:
        if not self._listed(seat, "check"):
            self.verify_check(seat)
        before = len(self.events)
        i = self._index[seat]
        self._emit(Checked(seat=seat))
        self._log(ActTaken(act="check", seat=seat))
        self._after_act(i, "check")
        return self._done(before)

    def _listed(self, seat: int, act: str) -> bool:
        """Whether the legal view already computed for this state lets this seat take this act: the view is
        exactly what the verify methods accept (tests/engine/test_properties.py), so the act needs no other check."""
        legal = self._legal
        return legal is not None and legal.seat == seat and act in legal.acts

    def _pass_and_out_unopened(self) -> bool:
        return self._pass_and_out and self._interval == "first" and not self._opened

    def verify_bet(self, seat: int, to: int) -> None:
        i = self._betting_common(seat, "bet")
        if self._current > 0 and not self._blind_entry_open():
            raise IllegalActionError("cannot_bet", f"there is already a bet of {self._current}: raise instead",
                                rule=R_LIMITS[self.config.betting])
        self._verify_amount(i, to, "bet")
        if self._interval == "first" and not self._opened:
            self._verify_openers(i)

    def bet(self, seat: int, to: int) -> list[Event]:
        minimum_full = self._checked_amount(seat, to, "bet", self.verify_bet)
        before = len(self.events)
        i = self._index[seat]
        opens = self._interval == "first" and not self._opened
        if opens:
            self._opened = True
            self._opener = i
        amount = to - self._bet[i]
        full = self._apply_raise(i, to, minimum_full=minimum_full)
        self._emit(BetMade(seat=seat, to=to, amount=amount, all_in=self._stack[i] == 0, opens=opens, full=full))
        self._log(ActTaken(act="bet", seat=seat, to=to))
        self._after_act(i, "bet")
        return self._done(before)

    def _checked_amount(self, seat: int, to: int, act: str, verify: Callable[[int, int], None]) -> int:
        """Check a bet or raise to `to` and return the smallest full bet or raise for it. An amount inside the
        legal view already computed for this seat is legal by construction, so the full verify is skipped."""
        legal = self._legal
        if legal is not None and self._listed(seat, act) and type(to) is int and legal.min_to <= to <= legal.max_to:
            return self._legal_full
        verify(seat, to)
        return self._full_threshold(self._index[seat])

    def _full_threshold(self, i: int) -> int:
        limits = self._raise_limits(i)
        return limits[0] if limits else 0

    def _verify_amount(self, i: int, to: int, act: str) -> None:
        if isinstance(to, bool) or not isinstance(to, int):
            raise IllegalActionError("bad_amount", f"'{act}' needs a whole number of chips 'to', got {to!r}")
        bounds = self._raise_bounds(i)
        if bounds is None:
            if self.config.betting is Betting.FIXED_LIMIT and self.config.stakes.cap and \
                    self._raises >= self.config.stakes.cap:
                raise IllegalActionError("cap_reached", f"the cap of {self.config.stakes.cap} bets and raises is "
                                         "reached", rule="fixed limit: the cap on bets and raises per interval")
            raise IllegalActionError("cannot_raise", f"seat {self._seat_no[i]} may not {act} now: "
                                "an all-in short raise does not reopen the betting to a player who already acted",
                                rule=R_LIMITS[self.config.betting])
        lo, hi = bounds
        if not lo <= to <= hi:
            rule = R_BLOCK if self.config.form is GameForm.BLOCK_SYSTEM else R_LIMITS[self.config.betting]
            if self._entry_pending(i) and to < self._entry:
                rule = R_STAY if self.config.form in STRADDLE_FORMS else R_DOUBLE
            raise IllegalActionError("bad_amount", f"{act} to {to} is outside {lo}..{hi}", rule=rule)

    def _lacks_openers(self, i: int) -> bool:
        """Known cards that do not meet the requirement (unseen cards are proved later: 003 False openers)."""
        req = self.requirement
        if req is None or not self.config.options.refuse_false_open:
            return False
        cards = [self._ident[p] for p in self._hands[i]]
        known = [c for c in cards if c is not None]
        return len(known) == len(cards) and not meets_requirement(known, req,
                                                                  bobtail_allowed=self.config.bobtail_allowed)

    def _verify_openers(self, i: int) -> None:
        req = self.requirement
        if req is not None and self._lacks_openers(i):
            raise IllegalActionError("no_openers", f"seat {self._seat_no[i]} does not hold {req.value} or better "
                                     "to open", rule=R_OPEN)

    def _apply_raise(self, i: int, to: int, *, minimum_full: int) -> bool:
        inc = to - self._current
        self._stack[i] -= to - self._bet[i]
        self._contrib[i] += to - self._bet[i]
        self._bet[i] = to
        full = to >= minimum_full
        if full:  # a full bet or raise reopens the betting to everyone who acted
            self._last_inc = inc
            self._raises += 1
            for j in self._others[i]:
                self._acted_full[j] = False
        self._current = to
        self._aggressor = i
        self._entry = 0
        self._entry_seat = None
        self._opened = True
        for j in self._others[i]:
            if self._can_bet_chips(j):
                self._needs[j] = True
        return full

    def verify_call(self, seat: int) -> None:
        i = self._betting_common(seat, "call")
        if self._current <= self._bet[i]:
            raise IllegalActionError("nothing_to_call", f"seat {seat} has nothing to call: check instead", rule=R_CHECK)
        if self._blind_entry_open():
            raise IllegalActionError("must_bet_to_stay", f"to stay, bet {self._entry}", rule=R_STAY)
        if self._entry_pending(i):
            raise IllegalActionError("must_double_to_stay", f"to stay, raise to {self._entry}", rule=R_DOUBLE)

    def call(self, seat: int) -> list[Event]:
        if not self._listed(seat, "call"):
            self.verify_call(seat)
        before = len(self.events)
        i = self._index[seat]
        amount = self._to_call(i)
        self._stack[i] -= amount
        self._bet[i] += amount
        self._contrib[i] += amount
        self._emit(Called(seat=seat, amount=amount, all_in=self._stack[i] == 0))
        self._log(ActTaken(act="call", seat=seat))
        self._after_act(i, "call")
        return self._done(before)

    def verify_raise_to(self, seat: int, to: int) -> None:
        i = self._betting_common(seat, "raise")
        if self._current <= 0 or self._blind_entry_open():
            raise IllegalActionError("cannot_raise", "there is no bet to raise: bet instead",
                                     rule=R_LIMITS[self.config.betting])
        self._verify_amount(i, to, "raise")

    def raise_to(self, seat: int, to: int) -> list[Event]:
        minimum_full = self._checked_amount(seat, to, "raise", self.verify_raise_to)
        before = len(self.events)
        i = self._index[seat]
        amount = to - self._bet[i]
        full = self._apply_raise(i, to, minimum_full=minimum_full)
        self._emit(Raised(seat=seat, to=to, amount=amount, all_in=self._stack[i] == 0, full=full))
        self._log(ActTaken(act="raise", seat=seat, to=to))
        self._after_act(i, "raise")
        return self._done(before)

    def verify_fold(self, seat: int) -> None:
        i = self._betting_common(seat, "fold")
        if self._current <= self._bet[i] and not self._pass_and_out_unopened():
            raise IllegalActionError("cannot_fold", f"seat {seat} faces no bet: check instead", rule=R_CHECK)

    def fold(self, seat: int) -> list[Event]:
        if not self._listed(seat, "fold"):
            self.verify_fold(seat)
        before = len(self.events)
        self._fold(self._index[seat], "fold")
        return self._done(before)

    def _fold(self, i: int, act: str) -> None:
        seat = self._seat_no[i]
        self._folded[i] = True
        self._emit(Folded(seat=seat))
        if i == self._opener and self.requirement is not None:
            # 003 Final betting interval: a dropping opener shows his openers; his cards are kept apart.
            self._held[i] += self._hands[i]
            self._hands[i] = []
            verdict = self._judge_and_emit(i, final=False)
            if verdict is False and self._interval == "final":
                self._foul[i] = True
                self.false_opener_case = 1  # the others play on (003 False openers 1)
        else:
            self._muck += self._hands[i]
            self._hands[i] = []
        self._log(ActTaken(act=act, seat=seat))
        self._after_act(i, "fold")

    def verify_pass_(self, seat: int) -> None:
        i = self._betting_common(seat, "fold")
        if self._pass_is_check(i):
            self.verify_check(seat)

    def _pass_is_check(self, i: int) -> bool:
        return (self.config.options.pass_meaning is PassMeaning.CHECK_IF_FREE
                and not self._pass_and_out_unopened() and self._current <= self._bet[i])

    def pass_(self, seat: int) -> list[Event]:
        """'Pass': a check where checking is allowed and the house reads pass so (003 Jackpots); otherwise the
        player drops, even when he could check (001 Game procedure 6 lists Pass beside Check)."""
        self.verify_pass_(seat)
        i = self._i(seat)
        if self._pass_is_check(i):
            return self.check(seat)
        before = len(self.events)
        self._fold(i, "pass")
        return self._done(before)

    # ------------------------------------------------------------------------------ 003 False openers 2

    def verify_declare_no_openers(self, seat: int) -> None:
        i = self._i(seat)
        self._require_phase("declare_no_openers")
        if i != self._opener or self.requirement is None or self._interval != "first":
            raise IllegalActionError("not_the_opener", f"seat {seat} did not open this pot", rule=R_FALSE2)
        if not _irregular.before_the_draw(self):
            raise IllegalActionError("too_late", "the draw has begun: a card of it has been served", rule=R_FALSE2)

    def declare_no_openers(self, seat: int) -> list[Event]:
        """The opener announces before the draw (until its first card is served) that he lacks openers: his hand
        is foul, and another player holding openers may take his place (003 False openers 2)."""
        self.verify_declare_no_openers(seat)
        before = len(self.events)
        i = self._i(seat)
        self._log(ActTaken(act="declare_no_openers", seat=seat))
        self.openers_proved = False
        self._emit(OpenersJudged(seat=seat, proved=False, cards=(), rule=R_FALSE2))
        _irregular.ask_for_a_new_opener(self, i, "declare_no_openers")
        return self._done(before)

    def verify_take_open(self, seat: int) -> None:
        i = self._i(seat)
        self._require_phase("take_open")
        self._require_turn(i, R_FALSE2)
        self._verify_openers(i)

    def can_take_open(self, seat: int) -> bool:
        return _can(self.verify_take_open, seat)

    def take_open(self, seat: int) -> list[Event]:
        """A player with openers takes the false opener's place; the betting goes on (003 False openers 2)."""
        self.verify_take_open(seat)
        before = len(self.events)
        i = self._i(seat)
        self._log(ActTaken(act="take_open", seat=seat))
        self._opener = i
        self.openers_proved = None
        live = self._live()
        if len(live) == 1:
            self._finish_uncontested(live[0], "take_open")
            return self._done(before)
        resume = self._resume_at
        self.to_act = None
        if self._drawers:  # announced after the betting closed: the draw proceeds
            _irregular.resume_the_draw(self, "take_open")
        elif resume is None or self._set_next(resume, inclusive=True) is None:
            self._close_interval("take_open")
        else:
            self._move(Phase.FIRST_BETTING, "take_open")
        return self._done(before)

    def verify_decline_open(self, seat: int) -> None:
        i = self._i(seat)
        self._require_phase("decline_open")
        self._require_turn(i, R_FALSE2)

    def decline_open(self, seat: int) -> list[Event]:
        self.verify_decline_open(seat)
        before = len(self.events)
        self._log(ActTaken(act="decline_open", seat=seat))
        self._reopen_pos += 1
        if self._reopen_pos < len(self._reopen_queue):
            self.to_act = self._reopen_queue[self._reopen_pos]
            self._move(Phase.REOPENING, "decline_open")
        else:
            _irregular.no_new_opener(self, "decline_open")
        return self._done(before)

    def _after_act(self, i: int, trigger: str) -> None:
        self._needs[i] = False
        self._acted_full[i] = True
        live = self._live()
        if len(live) == 1:
            self._finish_uncontested(live[0], trigger)
            return
        if self._set_next(i, inclusive=False) is not None:
            self._move(self.phase or Phase.FIRST_BETTING, trigger)  # the interval stays open
            return
        self._close_interval(trigger)

    def _return_uncalled(self) -> None:
        if self._n < 2:
            return
        bet = self._bet
        top = max(range(self._n), key=bet.__getitem__)  # the first highest bet
        excess = bet[top] - max(bet[:top] + bet[top + 1:])  # above the next highest (another's equal: none)
        if excess > 0:
            self._bet[top] -= excess
            self._contrib[top] -= excess
            self._stack[top] += excess
            self._emit(BetReturned(seat=self._seat_no[top], amount=excess, reason="uncalled"))

    def _collect(self) -> None:
        self._pot += sum(self._bet)
        self._bet = [0] * self._n

    def _close_interval(self, trigger: str) -> None:
        """The bets are equalized (or nobody can act): collect, then the draw, the showdown or a passed deal."""
        self.to_act = None
        if self._interval == "first":
            if not self._opened and self.config.form in PASS_AND_BACK_IN_FORMS | {GameForm.PASS_AND_OUT}:
                self._collect()
                self._move(Phase.PASSED_OUT, trigger)
                self.status = "passed_out"
                self._emit(PotCarried(amount=self._pot, reason="nobody opened: the pot stays for the next deal "
                                      "(003 Jackpots)"))
                self._end()
                return
            self._return_uncalled()
            self._predraw_level = max(self._bet)
            self._collect()
            self._emit(IntervalClosed(interval="first", pot=self._pot))
            self._move(Phase.DRAWING, trigger)
            self._begin_draw()
            return
        self._return_uncalled()
        self._collect()
        self._emit(IntervalClosed(interval="final", pot=self._pot))
        self._move(Phase.SHOWDOWN, trigger)
        self._begin_showdown()

    # --------------------------------------------------------------------------------------------- the draw

    def _begin_draw(self) -> None:
        n, left = self._n, (self._button + 1) % self._n
        self._drawers = [(left + k) % n for k in range(n) if not self._folded[(left + k) % n]]
        self._draw_pos = 0
        self.to_act = self._drawers[0]

    def max_discard(self, seat: int) -> int:
        # The game's limit (four; or by the number of players, house option), at most the cards held; none for a
        # short-dealt player in a 003 game (003 Other rules governing the draw 2: five cards to draw).
        i = self._i(seat)
        if self.irregular_state is not None and not _irregular.may_draw(self, i):
            return 0
        return min(self._draw_top, len(self._hands[i]))

    def verify_announce(self, seat: int, count: int) -> None:
        i = self._i(seat)
        self._require_phase("announce")
        self._require_turn(i, R_DRAW_ORDER)
        self._verify_count(i, count)

    def _verify_count(self, i: int, count: int) -> None:
        if count and self.irregular_state is not None and not _irregular.may_draw(self, i):
            raise _irregular.cannot_draw_short(self, i)
        top = self.max_discard(self._seat_no[i])
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= top:
            rule = R_DRAW_LIMIT_001 if self.config.draw_limit is DrawLimit.FOUR else R_DRAW_LIMIT_003
            raise IllegalActionError("draw_limit", f"seat {self._seat_no[i]} may draw 0..{top} cards, not {count!r}",
                                rule=rule)

    def announce(self, seat: int, count: int) -> list[Event]:
        """The player states how many cards he wants; he may change it until he is served (001 IV 3)."""
        self.verify_announce(seat, count)
        before = len(self.events)
        self._announced[seat] = count
        self._emit(DrawAnnounced(seat=seat, count=count))
        self._log(ActTaken(act="announce", seat=seat, count=count))
        self._move(Phase.DRAWING, "announce")
        return self._done(before)

    def _resolve_cards(self, positions: Sequence[int], cards: Sequence[CardLike], what: str) -> list[int]:
        """Map card codes onto positions (of a hand or pile); '??' or None takes an unidentified one.

        A code not yet known anywhere is learnt onto an unidentified position of ``positions``.
        """
        # The common case first: known codes, each found in ``positions``, none twice (nothing to learn).
        ident = self._ident
        at = {ident[p]: p for p in positions}
        fast: list[int] = []
        for item in cards:
            card = CARD_OF.get(item) if type(item) is str else None
            pos = None if card is None else at.get(card)
            if pos is None or pos in fast:
                break
            fast.append(pos)
        else:
            return fast
        parsed: list[Card | None] = []
        for item in cards:
            if item is None or item == UNKNOWN_CODE:
                parsed.append(None)
                continue
            try:
                if isinstance(item, str):
                    card = CARD_OF.get(item)
                    parsed.append(card if card is not None else parse_card(item))
                else:
                    parsed.append(Card(card_int(item)))
            except ValueError as exc:
                raise IllegalActionError("bad_card", f"{what}: {exc}") from None
        known_codes = [c for c in parsed if c is not None]
        if len(set(known_codes)) != len(known_codes):
            raise IllegalActionError("duplicate_card", f"{what}: a card is named twice")
        result: list[int | None] = [None] * len(parsed)
        to_learn: list[int] = []
        for k, card in enumerate(parsed):
            if card is None:
                continue
            pos = next((p for p in positions if self._ident[p] == card), None)
            if pos is not None:
                result[k] = pos
            elif card in self._ident:
                _irregular.refuse_taking_back(self, positions, card, what)  # a discard named as held (003 Other 3)
                raise IllegalActionError("card_elsewhere", f"{what}: {card_str(card)} is known to be elsewhere")
            else:
                to_learn.append(k)
        taken = {p for p in result if p is not None}
        unknown = [p for p in positions if self._ident[p] is None and p not in taken]
        needed = len(to_learn) + sum(1 for c in parsed if c is None)
        if needed > len(unknown):
            raise IllegalActionError("card_not_held", f"{what}: the cards named are not all there")
        for k in to_learn:
            pos = unknown.pop(0)
            self._ident[pos] = parsed[k]
            self._learnt = True
            result[k] = pos
        for k, card in enumerate(parsed):
            if card is None:
                result[k] = unknown.pop(0)
        return [p for p in result if p is not None]

    def verify_draw(self, seat: int, discard: Sequence[CardLike]) -> None:
        i = self._i(seat)
        self._require_phase("draw")
        self._require_turn(i, R_DRAW_ORDER)
        self._verify_count(i, len(discard))
        held = set(map(self._ident.__getitem__, self._hands[i]))
        known = [CARD_OF.get(c) if isinstance(c, str) else None for c in discard]
        if None not in known and len(set(known)) == len(known) and held.issuperset(known):
            return  # the common case: known cards, all in the hand, none twice
        snapshot = list(self._ident)
        try:
            self._resolve_cards(self._hands[i], discard, f"seat {seat} discards")
        finally:
            self._ident = snapshot

    def draw(self, seat: int, discard: Sequence[CardLike]) -> list[Event]:
        """Discard these cards ([] stands pat) and be served as many from the top of the stub at once."""
        self.verify_draw(seat, discard)
        before = len(self.events)
        i = self._index[seat]
        thrown = self._resolve_cards(self._hands[i], discard, f"seat {seat} discards")
        self._hands[i] = [p for p in self._hands[i] if p not in thrown]
        held = (i == self._opener and self.requirement is not None and self.config.options.opener_holds_discards)
        if held:
            self._held[i] += thrown
        else:
            self._discards[i] += thrown
        self._log(ActTaken(act="draw", seat=seat, cards=self._codes(thrown)))
        if thrown and not self._burned_for_draw and self.config.options.burn_before_draw:
            self._burned_for_draw = True
            if len(self._stub) > self._reserve():
                pos = self._stub.pop()
                self._burn.append(pos)
                self._emit(Burned(card=self._code(pos)))
        owed = len(thrown) if self.irregular_state is None else len(thrown) + _irregular.owed_with_draw(self, i)
        self._serve(i, owed, [], list(thrown), "draw")
        return self._done(before)

    def _reserve(self) -> int:
        return self._reserve_cards  # 1 when the house never deals the last card

    def _serve(self, i: int, owed: int, served: list[int], thrown: list[int], trigger: str) -> None:
        take = min(owed, len(self._stub) - self._reserve())
        for _ in range(take):  # from the top of the stub (its end), one card after another
            pos = self._stub.pop()
            self._hands[i].append(pos)
            served.append(pos)
        owed -= max(take, 0)
        if owed > 0:
            if not self._reshuffle_pool(i):
                raise IllegalActionError("deck_exhausted", "no cards left to complete the draw", rule=R_RESHUFFLE)
            self._pending_serve = (i, owed, served, thrown)
            self._move(Phase.RESHUFFLING, trigger)
            self.to_act = None
            return
        self._pending_serve = None
        seat = self._seat_no[i]
        self._emit(DrawServed(seat=seat, discards=self._codes(thrown), served=self._codes(served),
                              held_out=bool(thrown) and thrown[0] in self._held[i]))
        self._announced.pop(seat, None)
        self._draw_pos += 1
        if self._draw_pos < len(self._drawers):
            self._move(Phase.DRAWING, trigger)
            self.to_act = self._drawers[self._draw_pos]
            return
        if self.irregular_state is not None:
            _irregular.end_of_draw(self)  # cards owed after all others have drawn (003 Incorrect dealing in the draw 1)
        self._begin_final(trigger)

    def _reshuffle_pool(self, drawer: int) -> list[int]:
        """Positions the dealer shuffles for the rest of the draw: the burn, the mucked hands, the other players'
        discards (and the last card when the house never deals it); never the drawer's own discards nor the
        opener's held-out cards (001 IV 2, 003 The draw)."""
        pool = list(self._stub) + list(self._burn) + list(self._muck)  # the stub: a last card never dealt
        for k in range(self._n):
            if k != drawer:
                pool += self._discards[k]
        return sorted(pool)

    def reshuffle_pool(self) -> tuple[str, ...]:
        """The cards the dealer must shuffle now (codes, "??" unidentified), in a canonical order."""
        if self.phase is not Phase.RESHUFFLING or self._pending_serve is None:
            return ()
        return self._codes(self._reshuffle_pool(self._pending_serve[0]))

    def verify_reshuffle(self, order: Sequence[CardLike]) -> None:
        self._require_phase("reshuffle")
        assert self._pending_serve is not None
        pool = self._reshuffle_pool(self._pending_serve[0])
        if len(order) != len(pool):
            raise IllegalActionError("bad_reshuffle", f"the reshuffled stub must list the {len(pool)} pooled cards, "
                                f"got {len(order)}", rule=R_RESHUFFLE)
        snapshot = list(self._ident)
        try:
            self._resolve_cards(pool, order, "reshuffle")
        finally:
            self._ident = snapshot

    def reshuffle(self, order: Sequence[CardLike]) -> list[Event]:
        """The dealer's new stub order (top first) after shuffling :meth:`reshuffle_pool`."""
        self.verify_reshuffle(order)
        before = len(self.events)
        assert self._pending_serve is not None
        i, owed, served, thrown = self._pending_serve
        pool = self._reshuffle_pool(i)
        new_order = self._resolve_cards(pool, order, "reshuffle")
        taken = set(new_order)
        self._stub = [p for p in self._stub if p not in taken]
        self._burn = [p for p in self._burn if p not in taken]
        self._muck = [p for p in self._muck if p not in taken]
        for k in range(self._n):
            self._discards[k] = [p for p in self._discards[k] if p not in taken]
        self._stub = list(reversed(new_order)) + self._stub
        self._emit(Reshuffled(size=len(new_order), for_seat=self._seat_no[i]))
        self._log(ActTaken(act="reshuffle", cards=self._codes(new_order)))
        self._serve(i, owed, served, thrown, "reshuffle")
        return self._done(before)

    # ------------------------------------------------------------------------------------------ final interval

    def _begin_final(self, trigger: str) -> None:
        self._interval = "final"
        self._current = 0
        self._last_inc = 0
        self._raises = 0
        self._entry = 0
        self._entry_seat = None
        folded, stack = self._folded, self._stack
        bettors = [i for i in range(self._n) if not folded[i] and stack[i] > 0]  # _can_bet_chips of each
        if len(bettors) < 2 and not any(self._bet):
            self._move(Phase.SHOWDOWN, trigger)
            self._begin_showdown()
            return
        form = self.config.form
        if form is GameForm.FIVE_CARD_DRAW:
            first = (self._button + 1) % self._n  # 001 Game procedure 6
        elif form in FORCED_BLIND_FORMS and self._forced_last is not None:
            first = (self._forced_last + 1) % self._n
        elif self._opener is not None:
            first = self._opener  # 003 Final betting interval: the opener, or the next active to his left
        else:
            first = (self._button + 1) % self._n
        self._final_first = first
        self._move(Phase.FINAL_BETTING, trigger)
        self._open_interval(first)

    # ------------------------------------------------------------------------------------ uncontested, proof

    def _original_cards(self, i: int) -> list[Card | None]:
        held_or_hand = self._hands[i] + self._held[i]
        return [self._ident[p] for p in held_or_hand if p in self._original[i]]

    def _judge(self, i: int, *, final: bool) -> bool | None:
        """Did player i hold openers? None while his unseen cards could still prove it."""
        req = self.requirement
        if req is None:
            return True
        cards = self._original_cards(i)
        known = [c for c in cards if c is not None]
        if known and meets_requirement(known, req, bobtail_allowed=self.config.bobtail_allowed):
            return True
        if len(known) == len(cards) or final:
            return False
        return None

    def _judge_and_emit(self, i: int, *, final: bool) -> bool | None:
        verdict = self._judge(i, final=final)
        if verdict is not None:
            self.openers_proved = verdict
            known = tuple(self._code(p) for p in self._hands[i] + self._held[i] if p in self._original[i])
            self._emit(OpenersJudged(seat=self._seat_no[i], proved=verdict, cards=known, rule=R_PROVE))
        return verdict

    def _finish_uncontested(self, w: int, trigger: str, *, proved: bool = False) -> None:
        self.to_act = None
        if w == self._opener and self.requirement is not None and not proved:
            verdict = self._judge_and_emit(w, final=False)
            if verdict is None:
                self._move(Phase.PROVING, trigger)
                self.to_act = w
                return
            if not verdict:
                _irregular.false_opener_uncalled(self, w, trigger)
                return
        self._move(Phase.COMPLETE, trigger)
        self._return_uncalled()
        self._collect()
        amount = self._pot
        self._stack[w] += amount
        self._pot = 0
        self._emit(PotAwarded(pot_index=0, amount=amount, seats=(self._seat_no[w],), shares=(amount,),
                              hand="uncontested"))
        self.status = "complete"
        self._end()

    # ------------------------------------------------------------------------------------------- showdown

    def _begin_showdown(self) -> None:
        self.to_act = None
        live = self._live()
        if self._aggressor is not None and self._interval == "final":
            start = self._aggressor
        elif self._final_first is not None:
            start = self._final_first
        else:
            start = (self._button + 1) % self._n
        self._show_queue = [(start + k) % self._n for k in range(self._n) if (start + k) % self._n in live]
        self._show_pos = 0
        self.to_act = self._show_queue[0]

    def _unmucked_left(self) -> int:
        return sum(1 for j in self._show_queue if not self._mucked[j])

    def verify_show(self, seat: int, cards: Sequence[CardLike] | None = None) -> None:
        i = self._i(seat)
        self._require_phase("show")
        self._require_turn(i, R_SHOWDOWN)
        if not cards:  # nothing named: nothing learnt, no snapshot needed
            self._learn_show(i, cards)
            return
        snapshot = list(self._ident)
        try:
            self._learn_show(i, cards)
        finally:
            self._ident = snapshot

    def _learn_show(self, i: int, cards: Sequence[CardLike] | None) -> None:
        if cards:
            self._resolve_cards(self._hands[i] + self._held[i], cards, f"seat {self._seat_no[i]} shows")
        if self.phase is Phase.SHOWDOWN and None in map(self._ident.__getitem__, self._hands[i]):
            raise IllegalActionError("must_show_all", f"seat {self._seat_no[i]} must show all five cards",
                                     rule=R_SHOWDOWN)

    def can_show(self, seat: int, cards: Sequence[CardLike] | None = None) -> bool:
        return _can(self.verify_show, seat, cards)

    def show(self, seat: int, cards: Sequence[CardLike] | None = None) -> list[Event]:
        """Show the hand (at showdown) or the openers (when proving). ``cards`` names cards the table could not
        read; with a reader it may be omitted."""
        self.verify_show(seat, cards)
        before = len(self.events)
        i = self._i(seat)
        self._learn_show(i, cards)
        named = tuple(UNKNOWN_CODE if c is None else (c if isinstance(c, str) else card_str(c)) for c in cards or ())
        self._log(ActTaken(act="show", seat=seat, cards=named or None))
        if self.phase is Phase.PROVING:
            verdict = self._judge_and_emit(i, final=True)
            if verdict:
                self._finish_uncontested(i, "show", proved=True)
            else:
                _irregular.false_opener_uncalled(self, i, "show")
            return self._done(before)
        self._shown[i] = True
        shown = self._codes(self._hands[i])
        value = _irregular.hand_value([c for c in (self._ident[p] for p in self._hands[i]) if c is not None])
        self._values[i] = value
        self._emit(Shown(seat=seat, cards=shown, description=describe(value)))
        if i == self._opener and self.requirement is not None:
            verdict = self._judge_and_emit(i, final=True)
            if not verdict:
                self._foul[i] = True
                self.false_opener_case = 4
        self._next_show("show")
        return self._done(before)

    def verify_muck(self, seat: int) -> None:
        i = self._i(seat)
        self._require_phase("muck")
        self._require_turn(i, R_SHOWDOWN)
        if self.phase is Phase.SHOWDOWN and self._unmucked_left() <= 1:
            raise IllegalActionError("last_hand", "the last hand in the showdown must be shown", rule=R_SHOWDOWN)

    def muck(self, seat: int) -> list[Event]:
        """Concede at the showdown, or (when proving) admit the openers cannot be shown."""
        self.verify_muck(seat)
        before = len(self.events)
        i = self._i(seat)
        self._log(ActTaken(act="muck", seat=seat))
        self._emit(Mucked(seat=seat))
        if self.phase is Phase.PROVING:
            self.openers_proved = False
            self._emit(OpenersJudged(seat=seat, proved=False, cards=(), rule=R_PROVE))
            _irregular.false_opener_uncalled(self, i, "muck")
            return self._done(before)
        self._mucked[i] = True
        if i == self._opener and self.requirement is not None:
            # The hand is discarded: its openers are kept apart to be proved (003 Jackpots).
            self._judge_and_emit(i, final=False)
            self._held[i] += self._hands[i]
        else:
            self._muck += self._hands[i]
        self._hands[i] = []
        self._next_show("muck")
        return self._done(before)

    def _next_show(self, trigger: str) -> None:
        self._show_pos += 1
        if self._show_pos < len(self._show_queue):
            self.to_act = self._show_queue[self._show_pos]
            self._move(Phase.SHOWDOWN, trigger)
            return
        self.to_act = None
        self._move(Phase.COMPLETE, trigger)
        self._award_showdown()

    def _award_showdown(self) -> None:
        contenders = [j for j in range(self._n) if not self._folded[j]]
        eligible = [j for j in contenders if not self._mucked[j] and not self._foul[j]]
        high_suit = self.config.options.odd_chip is OddChip.HIGH_SUIT
        awards, carried = award_pots(self._pot, self._contrib, contenders, eligible, values=self._values,
                                     button=self._button, top_card=self._top_card if high_suit else None)
        for award in awards:
            for j, share in zip(award.winners, award.shares, strict=True):
                self._stack[j] += share
            self._pot -= award.amount
            self._emit(PotAwarded(pot_index=award.pot_index, amount=award.amount,
                                  seats=tuple(self._seat_no[j] for j in award.winners), shares=award.shares,
                                  hand=describe(award.value)))
        if self._pot != carried:
            raise InvariantError(f"pot {self._pot} left after the awards, {carried} expected to carry")
        if carried:
            rule = R_FALSE4 if self.false_opener_case == 4 else "no fair hand eligible"
            self._emit(PotCarried(amount=carried, reason=f"{rule}: the pot remains for the next deal"))
            self.status = "carried"
        else:
            self.status = "complete"
        self._end()

    def _top_card(self, i: int) -> Card:
        # A card's number orders the cards by rank, then by suit as 001 orders them (the odd chip's house option).
        return max(c for c in (self._ident[p] for p in self._hands[i]) if c is not None)

    def _end(self) -> None:
        self.to_act = None
        self._emit(HandEnded(status=self.status, carried_pot=self._pot))

    # ------------------------------------------------------------------- the shoe: cards as they are delivered

    @property
    def delivered(self) -> int:
        """How many shoe positions the table has been given so far (the next one delivered is this position)."""
        return self._delivered

    def verify_deliver(self, cards: Sequence[CardLike]) -> None:
        """The shoe's next cards, in its order ("??" or None for a card it could not read)."""
        if len(cards) > DECK_SIZE - self._delivered:
            raise IllegalActionError("pack_exhausted", f"the shoe has {DECK_SIZE - self._delivered} cards left to "
                                     f"deliver, not {len(cards)}")
        seen: set[Card] = set()
        for pos, item in enumerate(cards, start=self._delivered):
            card = card_or_unknown(item, "the shoe delivers")
            if card is None:
                continue
            if card in seen:
                raise IllegalActionError("duplicate_card", f"the shoe delivered {card_str(card)} twice")
            seen.add(card)
            known = self._ident[pos]
            if (known is None and card in self._ident) or (known is not None and known != card):
                raise IllegalActionError("card_elsewhere", f"the shoe delivered {card_str(card)}, which is known "
                                         "to be elsewhere")

    def can_deliver(self, cards: Sequence[CardLike]) -> bool:
        return _can(self.verify_deliver, cards)

    def deliver(self, cards: Sequence[CardLike]) -> list[Event]:
        """Learn the shoe's next cards as it delivers them (a live shoe deals one card at a time). Cards are
        positions in the shoe's order, so a card delivered is the identity of the next position: the hand needs
        no other change. Not an act of the record: its deck lists the cards delivered."""
        self.verify_deliver(cards)
        before = len(self.events)
        first = self._delivered
        for pos, item in enumerate(cards, start=first):
            card = card_or_unknown(item, "the shoe delivers")
            if card is not None:
                self._ident[pos] = card
                self._learnt = True
            self._deck_codes[pos] = UNKNOWN_CODE if card is None else card_str(card)
        self._delivered += len(cards)
        self._emit(CardsDelivered(first=first, cards=tuple(self._deck_codes[first:self._delivered])))
        return self._done(before)

    def shoe_cards_for_draw(self, seat: int, count: int) -> tuple[str, ...]:
        """What the shoe must deliver before this seat draws ``count`` cards: "burn" or "deal" for each card the
        draw takes from the stub that the shoe has not delivered yet, in the order taken (the burn before the
        first card of the draw, then the cards served, as far as the stub goes before a reshuffle)."""
        i = self._i(seat)
        stub = self._stub
        burn = count > 0 and not self._burned_for_draw and self.config.options.burn_before_draw \
            and len(stub) > self._reserve()
        burns = 1 if burn else 0
        owed = count + _irregular.owed_with_draw_pending(self, i)
        kinds = ["burn"] * burns + ["deal"] * max(0, min(owed, len(stub) - burns - self._reserve()))
        return tuple(kind for kind, pos in zip(kinds, reversed(stub), strict=False) if pos >= self._delivered)

    def undelivered_in_stub(self) -> int:
        """How many cards of the stub the shoe has not delivered yet."""
        return sum(1 for pos in self._stub if pos >= self._delivered)

    def verify_forget(self, seat: int) -> None:
        self._i(seat)
        if self.is_over:
            raise IllegalActionError("hand_over", "the hand is already over")

    def forget(self, seat: int) -> list[Event]:
        """No longer know which cards the seat holds (the dealer saw only how many he threw, so nobody knows
        which are left): each becomes "??", in the hand and in the record's deck, and is learnt again when shown.
        A card some act of the hand named (an exposed card) stays known: everyone saw it."""
        self.verify_forget(seat)
        before = len(self.events)
        named = self._named_in_acts()
        forgotten = 0
        for pos in self._hands[self._i(seat)]:
            card = self._ident[pos]
            if card is not None and card not in named:
                self._ident[pos] = None
                self._deck_codes[pos] = UNKNOWN_CODE
                forgotten += 1
        self._emit(CardsForgotten(seat=seat, count=forgotten))
        return self._done(before)

    def _named_in_acts(self) -> set[Card]:
        """The cards the acts so far named (a report's exposed card, a shown hand, a reshuffled stub)."""
        codes: list[Any] = []
        for act in actions_of(self.events):
            codes += act.cards or ()
            report = act.report.to_json() if act.report is not None else {}
            codes += [report.get("card"), *(report.get("cards") or ()), *(report.get("order") or ())]
        return {CARD_OF[c] for c in codes if isinstance(c, str) and c in CARD_OF}

    # ------------------------------------------------------------ irregularities and floor rulings (irregular.py)

    def _verify_report(self, trigger: str, report: _irregular.Report) -> None:
        """Irregularities and floor rulings are one family of reports; each trigger takes only its own kinds."""
        self._require_phase(trigger)
        own, other = ((_irregular.REPORT_KINDS, "a floor ruling, not an irregularity") if trigger == "irregularity"
                      else (_irregular.FLOOR_KINDS, "an irregularity, not a floor ruling"))
        if report.kind not in own:
            raise IllegalActionError("bad_report", f"'{report.kind}' is {other}")
        _irregular.verify(self, report)

    def _apply_report(self, trigger: str, report: _irregular.Report) -> list[Event]:
        self._verify_report(trigger, report)
        before = len(self.events)
        self._log(ActTaken(act=trigger, report=report))
        _irregular.apply(self, report)
        return self._done(before)

    def verify_irregularity(self, report: _irregular.Report) -> None:
        """An irregularity reported by the dealer, the shoe or the camera (kinds: ``irregular.REPORT_KINDS``)."""
        self._verify_report("irregularity", report)

    def can_irregularity(self, report: _irregular.Report) -> bool:
        return _can(self.verify_irregularity, report)

    def irregularity(self, report: _irregular.Report) -> list[Event]:
        """Apply the books' remedy; the events name the rule applied (book and paragraph)."""
        return self._apply_report("irregularity", report)

    def verify_floor_ruling(self, report: _irregular.Report) -> None:
        """A supervisor's ruling where the books are silent (kinds: ``irregular.FLOOR_KINDS``)."""
        self._verify_report("floor_ruling", report)

    def floor_ruling(self, report: _irregular.Report) -> list[Event]:
        """Apply a supervisor's ruling; conservation still holds after it."""
        return self._apply_report("floor_ruling", report)

    # ------------------------------------------------------------------------------------------ legal view

    def legal_actions(self) -> LegalActions:
        if self._legal is None:  # computed once per state: the acts reuse it (see _legal in __init__)
            self._legal = self._legal_view()
        return self._legal

    def _legal_view(self) -> LegalActions:
        phase, i = self.phase, self.to_act
        assert phase is not None
        self._legal_full = 0
        if phase in TERMINAL:
            return LegalActions(phase=phase, seat=None, acts=())
        if phase is Phase.RESHUFFLING:
            return LegalActions(phase=phase, seat=None, acts=("reshuffle",), reshuffle_size=len(self.reshuffle_pool()))
        assert i is not None
        seat = self._seat_no[i]
        if phase is Phase.DRAWING:
            return LegalActions(phase=phase, seat=seat, acts=("announce", "draw"), max_discard=self.max_discard(seat))
        if phase is Phase.SHOWDOWN:
            acts = ("show", "muck") if self._unmucked_left() > 1 else ("show",)
            return LegalActions(phase=phase, seat=seat, acts=acts)
        if phase is Phase.STRADDLING:
            acts = ("straddle", "decline_straddle") if self.can_decline_straddle(seat) else ("straddle",)
            return LegalActions(phase=phase, seat=seat, acts=acts, call_amount=0,
                                min_to=2 * self._current, max_to=2 * self._current)
        if phase is Phase.PROVING:
            return LegalActions(phase=phase, seat=seat, acts=("show", "muck"))
        if phase is Phase.REOPENING:
            acts = ("take_open", "decline_open") if self.can_take_open(seat) else ("decline_open",)
            return LegalActions(phase=phase, seat=seat, acts=acts)
        return self._legal_betting(i, phase)

    def _legal_betting(self, i: int, phase: Phase) -> LegalActions:
        """The betting acts open to player i, computed directly (the verify methods give the same answers;
        tests/engine/test_properties.py checks that they agree)."""
        cur, bet = self._current, self._bet[i]
        owes = cur > bet
        unopened = self._interval == "first" and not self._opened
        blind_open = self._blind_entry_open()
        acts: list[str] = []
        if not owes and not self._pass_and_out_unopened():
            acts.append("check")
        lo = hi = 0
        limits = self._raise_limits(i)
        if limits is not None:
            full, lo, hi = limits
            kind_bet = cur == 0 or blind_open
            if kind_bet and unopened and self.requirement is not None and self._lacks_openers(i):
                lo = hi = 0
            else:
                acts.append("bet" if kind_bet else "raise")
                self._legal_full = full
        call_amount = 0
        if owes and not blind_open and not self._entry_pending(i):
            acts.append("call")
            call_amount = self._to_call(i)
        if owes or self._pass_and_out_unopened():
            acts.append("fold")
        if self._interval == "first" and i == self._opener and self.requirement is not None:
            acts.append("declare_no_openers")
        return LegalActions(phase=phase, seat=self._seat_no[i], acts=tuple(acts), call_amount=call_amount,
                            min_to=lo, max_to=hi)

    # ------------------------------------------------------------------------------------------- results

    def result(self) -> dict[str, Any]:
        """The outcome as the replay command prints it (seats as string keys)."""
        hands: dict[str, Any] = {}
        for i in range(self._n):
            hands[str(self._seat_no[i])] = {
                "cards": list(self._codes(self._hands[i])),
                "folded": self._folded[i],
                "mucked": self._mucked[i],
                "foul": self._foul[i],
                "held_out": list(self._codes(self._held[i])),
            }
        awards = [e.to_json() for e in self.events if isinstance(e, PotAwarded)]
        result: dict[str, Any] = {
            "status": self.status if self.is_over else "incomplete",
            "stacks": {str(s): v for s, v in self.stacks().items()},
            "carried_pot": self.carried_pot,
            "pot": 0 if self.is_over else self.pot,
            "opener": self.opener,
            "openers_proved": self.openers_proved,
            "false_opener_case": self.false_opener_case,
            "awards": awards,
            "hands": hands,
            "events": [e.to_json() for e in self.events if not isinstance(e, INPUTS)],
        }
        result.update(_irregular.result_fields(self))
        if not self.is_over:  # a record that stops mid-hand: where it stands and what may come next
            legal = self.legal_actions()
            result["phase"] = str(self.phase)
            result["to_act"] = legal.seat
            result["legal"] = list(legal.acts)
        return result

    def to_record(self) -> dict[str, Any]:
        """This hand as a ``cardtable.hand/1`` record (the acts so far)."""
        return {
            "format": "cardtable.hand/1",
            "game": config_to_json(self.config),
            "seats": [{"seat": s.seat, "name": s.name, "stack": s.stack} for s in self.seats],
            "button": self._seat_no[self._button],
            "carried_pot": self.carried_in,
            "passed_deals": self.passed_deals,
            **({"ante_for_all": self.ante_for_all} if self.ante_for_all is not None else {}),
            "deck": list(self._deck_codes),
            "actions": self.actions,
        }


@cache
def _rotations(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """For each player i of n: the players after him in turn to his left, ending with himself (the order in which
    the turn passes from him), and the same without himself."""
    after = tuple(tuple((i + k) % n for k in range(1, n + 1)) for i in range(n))
    return after, tuple(a[:-1] for a in after)


@cache
def _deal_order(n: int, left: int) -> tuple[int, ...]:
    """Player indices in the order served, from the dealer's left."""
    return tuple((left + k) % n for k in range(n))


def _can(verify: Callable[..., None], *args: Any) -> bool:
    try:
        verify(*args)
    except IllegalActionError:
        return False
    return True


def _field_names(hand: Hand) -> list[str]:
    """Every field a hand has set: the compiled class lists its own; the interpreted one has slots and a dict."""
    names: tuple[str, ...] | None = getattr(type(hand), "__mypyc_attrs__", None)
    if names is None:
        names = (*getattr(Hand, "__slots__"), *vars(hand))  # noqa: B009  (a compiled build has no __slots__)
    return [name for name in names if name != "__dict__" and hasattr(hand, name)]
