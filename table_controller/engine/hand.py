"""One deal of Draw Poker, from the antes to the award: the engine the live table and the replayer drive.

Build a :class:`Hand` from a :class:`~table_controller.engine.config.GameConfig`, the seats dealt in (seat
number, name, stack before the antes), the button's seat, the pot carried from earlier deals, how many deals
were passed out in a row, and the deck (the shoe's order, top first; ``None`` for a card the table cannot
read). The constructor posts the antes and forced bets; then every act has ``verify_x(...)``, which raises
:class:`IllegalActionError` naming the rule, ``can_x(...)``, which answers whether it would, and ``x(...)``, which
applies it and returns the events it produced. The cards leave the shoe by the dealer's acts: ``deal`` (first),
``burn`` and ``serve`` (after each ``draw``), ``reshuffle`` (when the stub runs short); :meth:`Hand.dealer_acts`
takes every one now due. :meth:`Hand.legal_actions` says whose turn it is and exactly what that seat (or the
dealer, seat None) may do, with amounts.

A live shoe deals one card at a time: feed each to the hand as it comes (:meth:`Hand.deliver`), and take the
dealer's act due once the shoe has delivered its cards (:meth:`Hand.shoe_cards_for_dealer` says which are still
to come; :meth:`Hand.shoe_cards_for_draw` and :meth:`Hand.shoe_cards_for_report` say what a draw with its burn
and service, or a report's remedy, needs first).

Cards are tracked by their *position* in the shoe's order (0 = the first card off the shoe), so a deck the
table cannot read works the same: identities are learnt when cards are shown. After every act the engine
checks that every chip (stacks + bets + pot) and every one of the 52 positions (stub, hands, burn, discards,
muck, the opener's held-out cards) is accounted for, exactly once; a failure is an
:class:`InvariantError`, a bug.

Seats are numbered clockwise: "the player on the left" of seat N is the next seat number up (wrapping).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, Final

from table_controller.engine import draw as draw_
from table_controller.engine import forced, identities, intervals, outcome, showdown, wagers
from table_controller.engine import irregular as _irregular
from table_controller.engine.acts import ActTaken
from table_controller.engine.betting import structure_for
from table_controller.engine.cards import UNKNOWN_CODE, Card
from table_controller.engine.config import (
    STRADDLE_FORMS,
    DrawLimit,
    GameConfig,
    GameForm,
)
from table_controller.engine.deck import CARD_OF, CODE_OF, parse_deck, whole_pack
from table_controller.engine.errors import ConfigError, IllegalActionError
from table_controller.engine.events import (
    BetMade,
    Called,
    Checked,
    Event,
    Folded,
    Raised,
)
from table_controller.engine.forced import HAND_SIZE
from table_controller.engine.hand_state import CardLike, HandState, SeatSpec
from table_controller.engine.legal import LegalActions, legal_view
from table_controller.engine.machine import DEALER_ACTS, Phase
from table_controller.engine.piles import DECK_SIZE

__all__ = ["Hand", "LegalActions", "SeatSpec"]

_FULL_STUB: Final = tuple(range(DECK_SIZE - 1, -1, -1))
_seat_number = attrgetter("seat")
_stack_of = attrgetter("stack")


class Hand(HandState):
    """One deal. See the module docstring for how to drive it."""

    __slots__ = ("legal",)  # the deal's fields are HandState's; this one is the hand's own cache of the legal view

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
        self.n = n = len(ordered)
        self.seat_no = numbers
        self.index = dict(zip(numbers, range(n), strict=True))
        self.after, self.others = _rotations(n)
        self.button_index = self.index[button]
        self.carried_in = carried_pot
        self.passed_deals = passed_deals
        self.requirement = config.requirement(passed_deals)
        self.structure = structure_for(config)
        # Facts of the game that the betting acts ask about, settled once (the config is frozen).
        self.pass_and_out = config.form is GameForm.PASS_AND_OUT
        self.straddle_form = config.form in STRADDLE_FORMS
        draw_limit = config.draw_limit
        if draw_limit is DrawLimit.FOUR:
            self.draw_top = 4
        elif draw_limit is DrawLimit.BY_PLAYERS and len(ordered) >= 6:
            self.draw_top = config.options.draw_limit_six_plus
        else:
            self.draw_top = HAND_SIZE
        self.reserve_cards = 1 if config.options.never_deal_last_card else 0
        self.events: list[Event] = []  # the one log: the acts entered (acts.ActTaken) and what they did
        self.status = "in_progress"
        self.openers_proved: bool | None = None
        self.false_opener_case: int | None = None
        self.irregular_state: _irregular.IrregularState | None = None  # remedies pending (irregular.py)

        # Chips.
        self.stack = stacks
        self.bets = [0] * n
        self.contrib = [0] * n  # live chips this deal (antes and bets), for side pots
        self.ante_paid = [0] * n
        self.collected = carried_pot
        self.dead = 0  # dealer's ante for all and the block-system ante: in the pot, nobody's live bet
        self.dead_payer = self.button_index  # who put the dead money in (a misdeal may give it back)
        self.chips_total = sum(self.stack) + carried_pot

        # Cards, by position in the shoe's order.
        ident = whole_pack(deck)
        if ident is not None:  # the usual deck: every card once, by its code; its identities are proved distinct
            self.deck_codes: list[str] = list(deck)  # type: ignore[arg-type]
            self.learnt = False
        else:
            self.deck_codes = parse_deck(deck)
            self.learnt = True  # the identity check runs with the first invariant check
            ident = list(map(CARD_OF.get, self.deck_codes))
        self.ident: list[Card | None] = ident
        # Shoe positions the table has been given (read, or "??"): a live shoe delivers the rest with deliver().
        self.delivered = DECK_SIZE if deck is None else min(len(deck), DECK_SIZE)
        self.stub = list(_FULL_STUB)  # top of the stub at the end
        self.hands: list[list[int]] = [[] for _ in ordered]  # in seat order, dealt by the deal act
        self.original: list[tuple[int, ...]] = []  # each hand as dealt (by the deal act), for proving openers
        self.held: list[list[int]] = [[] for _ in ordered]
        self.discards: list[list[int]] = [[] for _ in ordered]
        self.burn_pile: list[int] = []
        self.muck_pile: list[int] = []
        self.checked_layout: tuple[Any, ...] = ()  # copies of the piles at the last full card check

        # Who is in.
        self.folded = [False] * n
        self.foul = [False] * n
        self.mucked = [False] * n
        self.shown = [False] * n

        # Betting interval.
        self.interval = "first"
        self.current = 0
        self.last_inc = 0
        self.raises = 0
        self.needs = [False] * n
        self.acted_full = [False] * n
        self.aggressor: int | None = None
        self.opened = False
        self.opener_index: int | None = None
        self.entry = 0
        self.entry_seat: int | None = None
        self.forced_last: int | None = None
        self.predraw_level = 0
        self.final_first: int | None = None
        self.to_act: int | None = None

        # Straddles.
        self.straddles = 0

        # Draw.
        self.drawers: list[int] = []
        self.draw_pos = 0
        self.burned_for_draw = False
        self.announced: dict[int, int] = {}
        # Each player's draw as served (the served cards that later leave his hand stay listed: an exposed card
        # among the discards): the reports about a draw name its cards by their place in it.
        self.drawn: list[list[int]] = [[] for _ in ordered]
        self.pending_serve: tuple[int, int, list[int], list[int]] | None = None  # (i, still owed, served, discards)

        # 003 False openers 2.
        self.resume_at: int | None = None
        self.reopen_queue: list[int] = []
        self.reopen_pos = 0

        # Showdown.
        self.values: dict[int, int] = {}
        self.show_queue: list[int] = []
        self.show_pos = 0

        # The legal-action view of the current state, once computed (None: not yet, or the state changed since).
        # An act whose seat and name the view lists skips the separate verification (the view is exactly what
        # the verify methods accept: tests/engine/test_properties.py); anything else is verified in full.
        self.legal: LegalActions | None = None
        self.legal_full = 0  # with a betting view: the smallest full bet or raise (_raise_limits()[0]), else 0

        self.phase: Phase | None = None
        forced.start(self)

    # ---------------------------------------------------------------------------------------------- helpers

    def code(self, pos: int) -> str:
        c = self.ident[pos]
        return UNKNOWN_CODE if c is None else CODE_OF[c]

    def codes(self, positions: Sequence[int]) -> tuple[str, ...]:
        return tuple(self.code(p) for p in positions)

    def hole_cards(self, seat: int) -> tuple[str, ...]:
        """The cards a seat holds now ("??" where unidentified). Secret: the caller controls who sees them."""
        return self.codes(self.hands[self.index_of(seat)])

    def card_identities(self) -> tuple[str, ...]:
        """Every shoe position's card as known now ("??" where not yet identified). For records and auditors."""
        return self.codes(range(DECK_SIZE))

    def card_positions(self, seat: int) -> tuple[int, ...]:
        """Shoe positions (0 = first card off the shoe) of the cards a seat holds, then of its held-out cards."""
        i = self.index_of(seat)
        return tuple(self.hands[i] + self.held[i])

    def draw_positions(self, seat: int) -> tuple[int, ...]:
        """Shoe positions of the cards the seat's draw served him, in the order served, those since taken from his
        hand included (an exposed card replaced): the places by which a card exposed in the draw is reported."""
        return tuple(self.drawn[self.index_of(seat)])

    @property
    def button(self) -> int:
        return self.seat_no[self.button_index]

    def log_act(self, act: ActTaken) -> None:
        self.legal = None  # _done clears it too; this covers an act that fails after logging (a draw short of cards)
        self.events.append(act)

    def done(self, before: int) -> list[Event]:
        self.legal = None
        self.check_invariants()
        return self.events[before:]

    # ------------------------------------------------------------------------- the deal, straddles (forced.py)

    def verify_deal(self) -> None:
        forced.verify_deal(self)

    def can_deal(self) -> bool:
        return _can(self.verify_deal)

    def deal(self) -> list[Event]:
        """The dealer deals five cards to each player, one at a time from his left (forced.py)."""
        return forced.deal(self)

    def dealer_acts(self) -> list[Event]:
        """Take every act now due from the dealer that takes cards from the shoe (the deal, the burn, a service), in
        turn, until a player (or a reshuffle) is due: what a table whose shoe has delivered their cards does (a
        record written before these were acts of their own, the simulator). Returns their events."""
        before = len(self.events)
        while self.phase in DEALER_ACTS:
            if self.phase is Phase.DEALING:
                self.deal()
            elif self.phase is Phase.BURNING:
                self.burn()
            else:
                self.serve()
        return self.events[before:]

    # ---------------------------------------------------------------------------------------------- straddles

    def verify_straddle(self, seat: int) -> None:
        forced.verify_straddle(self, seat)

    def straddle(self, seat: int) -> list[Event]:
        """Double the last straddle (003 Blind and straddle; forced.py)."""
        return forced.straddle(self, seat)

    def verify_decline_straddle(self, seat: int) -> None:
        forced.verify_decline_straddle(self, seat)

    def decline_straddle(self, seat: int) -> list[Event]:
        return forced.decline_straddle(self, seat)

    def can_decline_straddle(self, seat: int) -> bool:
        return _can(self.verify_decline_straddle, seat)

    # ------------------------------------------------------------------------------------------------ betting

    def open_interval(self, first: int) -> None:
        intervals.open_interval(self, first)

    def set_next(self, start: int, *, inclusive: bool) -> int | None:
        return intervals.set_next(self, start, inclusive=inclusive)

    def verify_check(self, seat: int) -> None:
        wagers.verify_check(self, seat)

    def check(self, seat: int) -> list[Event]:
        if not self._listed(seat, "check"):
            self.verify_check(seat)
        before = len(self.events)
        i = self.index[seat]
        self.emit(Checked(seat=seat))
        self.log_act(ActTaken(act="check", seat=seat))
        self._after_act(i, "check")
        return self.done(before)

    def _listed(self, seat: int, act: str) -> bool:
        """Whether the legal view already computed for this state lets this seat take this act: the view is
        exactly what the verify methods accept (tests/engine/test_properties.py), so the act needs no other check."""
        legal = self.legal
        return legal is not None and legal.seat == seat and act in legal.acts

    def verify_bet(self, seat: int, to: int) -> None:
        wagers.verify_bet(self, seat, to)

    def bet(self, seat: int, to: int) -> list[Event]:
        minimum_full = self._checked_amount(seat, to, "bet", self.verify_bet)
        before = len(self.events)
        i = self.index[seat]
        opens = self.interval == "first" and not self.opened
        if opens:
            self.opened = True
            self.opener_index = i
        amount = to - self.bets[i]
        full = self._apply_raise(i, to, minimum_full=minimum_full)
        self.emit(BetMade(seat=seat, to=to, amount=amount, all_in=self.stack[i] == 0, opens=opens, full=full))
        self.log_act(ActTaken(act="bet", seat=seat, to=to))
        self._after_act(i, "bet")
        return self.done(before)

    def _checked_amount(self, seat: int, to: int, act: str, verify: Callable[[int, int], None]) -> int:
        """Check a bet or raise to `to` and return the smallest full bet or raise for it. An amount inside the
        legal view already computed for this seat is legal by construction, so the full verify is skipped."""
        legal = self.legal
        if legal is not None and self._listed(seat, act) and type(to) is int and legal.min_to <= to <= legal.max_to:
            return self.legal_full
        verify(seat, to)
        return wagers.full_threshold(self, self.index[seat])

    def _apply_raise(self, i: int, to: int, *, minimum_full: int) -> bool:
        inc = to - self.current
        self.stack[i] -= to - self.bets[i]
        self.contrib[i] += to - self.bets[i]
        self.bets[i] = to
        full = to >= minimum_full
        if full:  # a full bet or raise reopens the betting to everyone who acted
            self.last_inc = inc
            self.raises += 1
            for j in self.others[i]:
                self.acted_full[j] = False
        self.current = to
        self.aggressor = i
        self.entry = 0
        self.entry_seat = None
        self.opened = True
        for j in self.others[i]:
            if wagers.can_bet_chips(self, j):
                self.needs[j] = True
        return full

    def verify_call(self, seat: int) -> None:
        wagers.verify_call(self, seat)

    def call(self, seat: int) -> list[Event]:
        if not self._listed(seat, "call"):
            self.verify_call(seat)
        before = len(self.events)
        i = self.index[seat]
        amount = wagers.to_call(self, i)
        self.stack[i] -= amount
        self.bets[i] += amount
        self.contrib[i] += amount
        self.emit(Called(seat=seat, amount=amount, all_in=self.stack[i] == 0))
        self.log_act(ActTaken(act="call", seat=seat))
        self._after_act(i, "call")
        return self.done(before)

    def verify_raise_to(self, seat: int, to: int) -> None:
        wagers.verify_raise_to(self, seat, to)

    def raise_to(self, seat: int, to: int) -> list[Event]:
        minimum_full = self._checked_amount(seat, to, "raise", self.verify_raise_to)
        before = len(self.events)
        i = self.index[seat]
        amount = to - self.bets[i]
        full = self._apply_raise(i, to, minimum_full=minimum_full)
        self.emit(Raised(seat=seat, to=to, amount=amount, all_in=self.stack[i] == 0, full=full))
        self.log_act(ActTaken(act="raise", seat=seat, to=to))
        self._after_act(i, "raise")
        return self.done(before)

    def verify_fold(self, seat: int) -> None:
        wagers.verify_fold(self, seat)

    def fold(self, seat: int) -> list[Event]:
        if not self._listed(seat, "fold"):
            self.verify_fold(seat)
        before = len(self.events)
        self._fold(self.index[seat], "fold")
        return self.done(before)

    def _fold(self, i: int, act: str) -> None:
        seat = self.seat_no[i]
        self.folded[i] = True
        self.emit(Folded(seat=seat))
        if i == self.opener_index and self.requirement is not None:
            # 003 Final betting interval: a dropping opener shows his openers; his cards are kept apart.
            self.held[i] += self.hands[i]
            self.hands[i] = []
            verdict = self.judge_and_emit(i, final=False)
            if verdict is False and self.interval == "final":
                self.foul[i] = True
                self.false_opener_case = 1  # the others play on (003 False openers 1)
        else:
            self.muck_pile += self.hands[i]
            self.hands[i] = []
        self.log_act(ActTaken(act=act, seat=seat))
        self._after_act(i, "fold")

    def verify_pass_(self, seat: int) -> None:
        wagers.verify_pass_(self, seat)

    def pass_(self, seat: int) -> list[Event]:
        """'Pass': a check where checking is allowed and the house reads pass so (003 Jackpots); otherwise the
        player drops, even when he could check (001 Game procedure 6 lists Pass beside Check)."""
        self.verify_pass_(seat)
        i = self.index_of(seat)
        if wagers.pass_is_check(self, i):
            return self.check(seat)
        before = len(self.events)
        self._fold(i, "pass")
        return self.done(before)

    # ------------------------------------------------------------------------------ 003 False openers 2

    def verify_declare_no_openers(self, seat: int) -> None:
        _irregular.verify_declare_no_openers(self, seat)

    def declare_no_openers(self, seat: int) -> list[Event]:
        """The opener announces before the draw that he lacks openers (irregular_openers.py)."""
        return _irregular.declare_no_openers(self, seat)

    def verify_take_open(self, seat: int) -> None:
        _irregular.verify_take_open(self, seat)

    def take_open(self, seat: int) -> list[Event]:
        """A player with openers takes the false opener's place; the betting goes on (003 False openers 2)."""
        return _irregular.take_open(self, seat)

    def verify_decline_open(self, seat: int) -> None:
        _irregular.verify_decline_open(self, seat)

    def decline_open(self, seat: int) -> list[Event]:
        return _irregular.decline_open(self, seat)

    def can_take_open(self, seat: int) -> bool:
        return _can(self.verify_take_open, seat)

    def _after_act(self, i: int, trigger: str) -> None:
        intervals.after_act(self, i, trigger)

    def return_uncalled(self) -> None:
        intervals.return_uncalled(self)

    def collect(self) -> None:
        intervals.collect(self)

    def close_interval(self, trigger: str) -> None:
        intervals.close_interval(self, trigger)

    # --------------------------------------------------------------------------------------------- the draw (draw.py)

    def max_discard(self, seat: int) -> int:
        """The most cards this seat may throw now."""
        return draw_.max_discard(self, seat)

    def verify_announce(self, seat: int, count: int) -> None:
        draw_.verify_announce(self, seat, count)

    def announce(self, seat: int, count: int) -> list[Event]:
        """The player states how many cards he wants; he may change it until he is served (001 IV 3)."""
        return draw_.announce(self, seat, count)

    def verify_draw(self, seat: int, discard: Sequence[CardLike]) -> None:
        draw_.verify_draw(self, seat, discard)

    def verify_draw_count(self, seat: int, count: int) -> None:
        """What ``forget(seat)`` then ``draw(seat, ["??"] * count)`` would refuse, changing nothing."""
        draw_.verify_draw_count(self, seat, count)

    def can_draw(self, seat: int, discard: Sequence[CardLike]) -> bool:
        return _can(self.verify_draw, seat, discard)

    def draw(self, seat: int, discard: Sequence[CardLike]) -> list[Event]:
        """Throw these cards ([] stands pat); the dealer's burn (when due) and service follow (draw.py)."""
        return draw_.draw(self, seat, discard)

    def verify_burn(self) -> None:
        draw_.verify_burn(self)

    def can_burn(self) -> bool:
        return _can(self.verify_burn)

    def burn(self) -> list[Event]:
        """The dealer burns the top card of the stub before the first card of the draw is served."""
        return draw_.burn(self)

    def verify_serve(self) -> None:
        draw_.verify_serve(self)

    def can_serve(self) -> bool:
        return _can(self.verify_serve)

    def serve(self) -> list[Event]:
        """The dealer serves the drawer as many cards as he threw (the stub running short waits for a reshuffle)."""
        return draw_.serve(self)

    def serve_drawer(self, i: int, owed: int, served: list[int], thrown: list[int], trigger: str) -> None:
        draw_.serve_drawer(self, i, owed, served, thrown, trigger=trigger)

    def reshuffle_pool(self) -> tuple[str, ...]:
        """The cards the dealer must shuffle now (codes, "??" unidentified), in a canonical order."""
        return draw_.reshuffle_pool(self)

    def verify_reshuffle(self, order: Sequence[CardLike]) -> None:
        draw_.verify_reshuffle(self, order)

    def can_reshuffle(self, order: Sequence[CardLike]) -> bool:
        return _can(self.verify_reshuffle, order)

    def reshuffle(self, order: Sequence[CardLike]) -> list[Event]:
        """The dealer's new stub order (top first) after shuffling :meth:`reshuffle_pool`."""
        return draw_.reshuffle(self, order)

    def shoe_cards_for_draw(self, seat: int, count: int) -> tuple[str, ...]:
        """What the shoe must deliver before this seat draws ``count`` cards and the dealer burns (when due) and
        serves them ("burn" or "deal" each)."""
        return draw_.shoe_cards_for_draw(self, seat, count)

    def shoe_cards_for_dealer(self) -> tuple[str, ...]:
        """What the shoe must still deliver before the dealer's burn or service now due ("burn" or "deal" each)."""
        return draw_.shoe_cards_for_dealer(self)

    def undelivered_in_stub(self) -> int:
        """How many cards of the stub the shoe has not delivered yet."""
        return draw_.undelivered_in_stub(self)

    # ------------------------------------------------------------------------------------------ final interval

    def begin_final(self, trigger: str) -> None:
        intervals.begin_final(self, trigger)

    # ------------------------------------------------------------------------- showdown, proof (showdown.py)

    def verify_show(self, seat: int, cards: Sequence[CardLike] | None = None) -> None:
        showdown.verify_show(self, seat, cards)

    def can_show(self, seat: int, cards: Sequence[CardLike] | None = None) -> bool:
        return _can(self.verify_show, seat, cards)

    def show(self, seat: int, cards: Sequence[CardLike] | None = None) -> list[Event]:
        """Show the hand (at showdown) or the openers (when proving). ``cards`` names cards the table could not
        read; with a reader it may be omitted."""
        return showdown.show(self, seat, cards)

    def verify_muck(self, seat: int) -> None:
        showdown.verify_muck(self, seat)

    def muck(self, seat: int) -> list[Event]:
        """Concede at the showdown, or (when proving) admit the openers cannot be shown."""
        return showdown.muck(self, seat)

    def judge_and_emit(self, i: int, *, final: bool) -> bool | None:
        return showdown.judge_and_emit(self, i, final=final)

    def finish_uncontested(self, w: int, trigger: str, *, proved: bool = False) -> None:
        showdown.finish_uncontested(self, w, trigger, proved=proved)

    def award_showdown(self) -> None:
        showdown.award_showdown(self)


    # ------------------------------------------------------------------- card identities (identities.py)

    def resolve_cards(self, positions: Sequence[int], cards: Sequence[CardLike], what: str) -> list[int]:
        """Map card codes onto positions (of a hand or pile); '??' or None takes an unidentified one."""
        return identities.resolve_cards(self, positions, cards, what)

    def verify_deliver(self, cards: Sequence[CardLike]) -> None:
        """The shoe's next cards, in its order ("??" or None for a card it could not read)."""
        identities.verify_deliver(self, cards)

    def can_deliver(self, cards: Sequence[CardLike]) -> bool:
        return _can(self.verify_deliver, cards)

    def deliver(self, cards: Sequence[CardLike]) -> list[Event]:
        """Learn the shoe's next cards as it delivers them (a live shoe deals one card at a time)."""
        return identities.deliver(self, cards)

    def verify_forget(self, seat: int) -> None:
        identities.verify_forget(self, seat)

    def forget(self, seat: int) -> list[Event]:
        """No longer know which cards the seat holds (each becomes "??" until shown); an exposed card stays known."""
        return identities.forget(self, seat)

    # ------------------------------------------------------------ irregularities and floor rulings (irregular.py)

    def verify_irregularity(self, report: _irregular.Report) -> None:
        """An irregularity reported by the dealer, the shoe or the camera (kinds: ``irregular.REPORT_KINDS``)."""
        _irregular.verify_report(self, "irregularity", report)

    def can_irregularity(self, report: _irregular.Report) -> bool:
        return _can(self.verify_irregularity, report)

    def irregularity(self, report: _irregular.Report) -> list[Event]:
        """Apply the books' remedy; the events name the rule applied (book and paragraph)."""
        return _irregular.apply_report(self, "irregularity", report)

    def verify_floor_ruling(self, report: _irregular.Report) -> None:
        """A supervisor's ruling where the books are silent (kinds: ``irregular.FLOOR_KINDS``)."""
        _irregular.verify_report(self, "floor_ruling", report)

    def floor_ruling(self, report: _irregular.Report) -> list[Event]:
        """Apply a supervisor's ruling; conservation still holds after it."""
        return _irregular.apply_report(self, "floor_ruling", report)

    def shoe_cards_for_report(self, trigger: str, report: _irregular.Report) -> tuple[str, ...]:
        """What the shoe must deliver before this report (``trigger``: "irregularity" or "floor_ruling"), changing
        nothing; raises what the report would raise."""
        return _irregular.shoe_cards_for_report(self, trigger, report)

    # ------------------------------------------------------------------------------------------ legal view

    def legal_actions(self) -> LegalActions:
        if self.legal is None:  # computed once per state: the acts reuse it (see _legal in __init__)
            self.legal = legal_view(self)
        return self.legal

    # ------------------------------------------------------------------------------------------- results

    def result(self) -> dict[str, Any]:
        """The outcome as the replay command prints it (seats as string keys)."""
        return outcome.result(self, None if self.is_over else self.legal_actions())

    def to_record(self) -> dict[str, Any]:
        """This hand as a ``cardtable.hand/2`` record (the acts so far, the dealer's among them)."""
        return outcome.to_record(self)


def _rotations(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """For each player i of n: the players after him in turn to his left, ending with himself (the order in which
    the turn passes from him), and the same without himself."""
    after = tuple(tuple((i + k) % n for k in range(1, n + 1)) for i in range(n))
    return after, tuple(a[:-1] for a in after)


def _can(verify: Callable[..., None], *args: Any) -> bool:
    try:
        verify(*args)
    except IllegalActionError:
        return False
    return True
