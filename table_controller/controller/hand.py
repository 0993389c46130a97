"""The live hand: the controller's adapter over the rules engine's :class:`~table_controller.engine.hand.Hand`.

The engine tracks cards by their position in the shoe's order. The hand is built when the shoe has dealt the cards
of the deal (codes, or "??" from a shoe without a reader), and takes the dealer's ``deal`` act at once. A live
shoe gives the rest one at a time and never reveals what is below, so the adapter feeds each card to the engine
as it arrives (:meth:`EngineHand.take_card`: ``Hand.deliver``, the identity of the next shoe position), and takes
the dealer's act now due as soon as the shoe has delivered its cards: the ``burn`` after a player's ``draw``, then
the ``serve`` (``Hand.shoe_cards_for_dealer`` says what is still to come; :meth:`EngineHand.owed` the next card).
A report (irregularity, floor ruling) whose remedy takes cards waits for them instead: :meth:`EngineHand.cards_for`
asks the engine, changing nothing, how many the shoe must deliver first (``Hand.shoe_cards_for_report``: the
engine plans the remedy move by move before it applies it).

This module also lists the irregularities the dealer console offers, each with the rule it applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from table_controller.controller.errors import NotAllowedError, TableRequestError
from table_controller.controller.views import Award, DrawEntry, LegalAction, PotView, SeatStatus
from table_controller.engine.acts import actions_of
from table_controller.engine.cards import card_str, parse_card
from table_controller.engine.config import GameConfig
from table_controller.engine.errors import EngineError, IllegalActionError
from table_controller.engine.events import (
    BetMade,
    BetReturned,
    Called,
    DrawServed,
    Event,
    ForcedBetPosted,
    IntervalClosed,
    OpenersJudged,
    PotAwarded,
    Raised,
    Shown,
)
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.irregular_core import IrregularityRuled
from table_controller.engine.machine import DEALER_ACTS, Phase
from table_controller.engine.opening import proof
from table_controller.engine.record import ActionModel, apply_action, verify_action

__all__ = ["IRREGULARITIES", "EngineHand", "Irregularity", "SeatInfo"]


@dataclass(frozen=True, kw_only=True)
class Irregularity:
    label: str
    rule: str
    needs_seat: bool = True
    needs: tuple[str, ...] = ()  # report fields the dealer gives: "card", "count", "looked", "cards" (optional)


# The engine's irregularity reports (docs/irregularities.md) as the dealer console offers them. The engine
# applies the book's remedy and names the rule; these citations are what the button shows beforehand.
IRREGULARITIES: dict[str, Irregularity] = {
    "exposed_in_deal": Irregularity(label="Card exposed in the deal", needs=("card",),
                                    rule="000 Card exposed in the deal: one exposed card is kept, no misdeal"),
    "faced_in_pack": Irregularity(label="Card found faced in the pack", needs=("card",),
                                  rule="003 Incorrect dealing in the draw 1: treated as an exposed card"),
    "too_many_in_deal": Irregularity(label="Too many cards dealt", needs=("count", "looked", "cards"),
                                     rule="000 Incorrect hand: excess back on the pack if unseen; foul if seen"),
    "too_few_in_deal": Irregularity(label="Too few cards dealt", needs=("count", "looked"),
                                    rule="000 Incorrect hand; 001 IV 5a: dealt the missing cards if unseen"),
    "exposed_in_draw": Irregularity(label="Card exposed in the draw", needs=("card",),
                                    rule="003 Incorrect dealing in the draw 1; 000; 001 IV 6 (house option)"),
    "draw_miscount": Irregularity(label="Wrong number of cards drawn", needs=("count", "looked", "cards"),
                                  rule="003 Incorrect dealing in the draw 2; 000 Incorrect number of cards drawn"),
    "draw_out_of_turn": Irregularity(label="Draw out of turn", rule="003 Incorrect dealing in the draw 3; 000"),
    "foul_hand": Irregularity(label="Foul hand", rule="000 Foul hand: cannot win, chips forfeited"),
    "false_openers": Irregularity(label="Opener cannot prove openers", rule="003 False openers 1-4; 000"),
    "mixed_cards": Irregularity(label="Draw mixed with discards", needs_seat=False,
                                rule="003 Other rules governing the draw 4: unclean cards shuffled and cut"),
    # Named the book's way: its title and section (the titles on the books' first pages).
    "draw_card_seen": Irregularity(label="Saw a draw card before discarding",
                                   rule="Draw Poker Rules Info · Other rules governing the draw 6: his hand is foul"),
    "leave_in_pot": Irregularity(label="Leaves his chips in (false opener)",
                                 rule="Draw Poker Rules · False Openers: each other player may withdraw his chips, "
                                 "except his ante; this player leaves them in the pot"),
    "misdeal": Irregularity(label="Misdeal", rule="000 Card exposed in the deal: more than one exposed card; "
                            "common practice: the deal is void, bets come back, a new shuffle"),
}


@dataclass(frozen=True, kw_only=True)
class SeatInfo:
    """One player's place in the hand (``hole`` is secret: the floor view only)."""

    name: str
    stack: int
    bet: int
    status: SeatStatus
    hole: tuple[str, ...]
    shown: tuple[str, ...]
    drew: int | None
    opener: bool


DECK_SIZE = 52
_EXPOSURES = frozenset({"exposed_in_deal", "exposed_in_draw", "faced_in_pack"})
_FORCED_AS_BET = frozenset({"blind", "straddle", "blind_open", "block_blind", "block_raise"})
_VIEW_PHASE = {
    Phase.STRADDLING: "betting", Phase.FIRST_BETTING: "betting", Phase.FINAL_BETTING: "betting",
    Phase.DEALING: "dealing", Phase.DRAWING: "drawing", Phase.BURNING: "drawing", Phase.SERVING: "drawing",
    Phase.RESHUFFLING: "drawing", Phase.PROVING: "showdown", Phase.SHOWDOWN: "showdown",
    Phase.COMPLETE: "complete", Phase.PASSED_OUT: "complete",
}


UNKNOWN = "??"


def _engine_error(exc: EngineError) -> NotAllowedError:
    if isinstance(exc, IllegalActionError):
        return NotAllowedError(exc.message, code=exc.code, rule=exc.rule or None)
    return NotAllowedError(str(exc), code="engine_refused")


# The reports: a remedy may take cards from the shoe (the engine answers how many before the act).
_REPORTS = frozenset({"irregularity", "floor_ruling"})


class EngineHand:
    """One hand in play on the engine, fed by the shoe (see the module docstring)."""

    def __init__(self, *, config: GameConfig, seats: list[tuple[int, str, int]], button: int, carried_pot: int,
                 passed_deals: int, deck: list[str], ante_for_all: int | None = None) -> None:
        self.config = config
        self.specs = [SeatSpec(seat=n, name=name, stack=stack) for n, name, stack in seats]
        self.button = button
        self.carried_in = carried_pot
        self.passed_deals = passed_deals
        self.ante_for_all = ante_for_all
        self._cache: dict[str, Any] | None = None
        self._forgotten: dict[int, frozenset[str]] = {}
        self.hand = self._deal(list(deck))

    @staticmethod
    def deal_order(seats: list[int], button: int) -> list[int]:
        """Seats in the order the deal serves them: from the dealer's left, clockwise (seat numbers up)."""
        ordered = sorted(seats)
        start = next((k for k, s in enumerate(ordered) if s > button), 0)
        return ordered[start:] + ordered[:start]

    def _deal(self, deck: list[str]) -> Hand:
        """The engine's hand, given the cards of the deal and dealt them (the dealer's ``deal``); the shoe feeds it
        the others as they come (:meth:`take_card`)."""
        try:
            hand = Hand(self.config, self.specs, self.button, deck=deck, carried_pot=self.carried_in,
                        passed_deals=self.passed_deals, ante_for_all=self.ante_for_all)
        except EngineError as exc:
            raise _engine_error(exc) from exc
        self._apply(hand, {"act": "deal"})
        return hand

    # -- acts ------------------------------------------------------------------------------------------

    @staticmethod
    def _model(act: dict[str, Any]) -> ActionModel:
        try:
            return ActionModel.model_validate(act)
        except ValueError as exc:
            raise TableRequestError(f"bad act {act!r}: {exc}", code="bad_act") from exc

    @classmethod
    def _apply(cls, hand: Hand, act: dict[str, Any]) -> list[Event]:
        model = cls._model(act)
        before = len(hand.events)
        try:
            apply_action(hand, model)
        except EngineError as exc:
            raise _engine_error(exc) from exc
        return hand.events[before:]

    def cards_for(self, act: dict[str, Any], *, forget: int | None = None) -> list[str]:
        """What the shoe must deliver before this act is applied: "deal" for each card a report's remedy takes ([]
        for every other act: a draw is applied at once, and the dealer's burn and service that follow it ask the
        shoe for their cards then, :meth:`owed`).

        Raises the engine's refusal (as :class:`NotAllowedError`) if the act is illegal, so nothing is dealt
        for an act that will not happen. ``forget``: the seat of a draw entered as a count, whose cards are to
        be forgotten before it (:meth:`forget`); the engine answers as if they were, changing nothing.
        """
        model = self._model(act)
        try:
            if model.act in _REPORTS and model.report is not None:
                return list(self.hand.shoe_cards_for_report(model.act, model.report))
            if forget is not None and model.act == "draw" and model.seat == forget:
                self.hand.verify_draw_count(forget, len(model.discard or ()))
            else:
                verify_action(self.hand, model)
        except EngineError as exc:
            raise _engine_error(exc) from exc
        return []

    def act(self, act: dict[str, Any]) -> list[Event]:
        """Apply a player's act, a report (the shoe has delivered the cards :meth:`cards_for` named) or the
        dealer's reshuffle; then the dealer's acts now due whose cards the shoe has delivered (a stand-pat draw
        is served at once)."""
        self._cache = None
        return self._apply(self.hand, act) + self._dealer_acts()

    def take_card(self, code: str) -> list[Event]:
        """The shoe delivered its next card: the engine learns it, then takes the dealer's acts now due whose
        cards have all come (the burn, then the service of the draw)."""
        self._cache = None
        try:
            self.hand.deliver([code])
        except EngineError as exc:
            raise _engine_error(exc) from exc
        return self._dealer_acts()

    def owed(self) -> str | None:
        """The next card the shoe must deliver for the dealer's act now due ("burn" or "deal"), None for none."""
        kinds = self.hand.shoe_cards_for_dealer()
        return kinds[0] if kinds else None

    def dealer_due(self) -> str | None:
        """The dealer's act the hand waits for ("deal", "burn" or "serve"), None when a player (or nobody) is due."""
        phase = self.hand.phase
        return None if phase is None else DEALER_ACTS.get(phase)

    def _dealer_acts(self) -> list[Event]:
        events: list[Event] = []
        while (due := self.dealer_due()) is not None and self.owed() is None:
            events += self._apply(self.hand, {"act": due})
        return events

    def forget(self, seat: int) -> None:
        """Unlearn which cards the seat holds now: they become "??" (the dealer saw only a count thrown, so
        nobody knows which of them are left). They are learnt again when shown; an exposed card stays known."""
        held = set(self.hand.hole_cards(seat))
        self._forgotten[seat] = frozenset(self._forgotten.get(seat, frozenset()) | held) - {UNKNOWN}
        self._cache = None
        try:
            self.hand.forget(seat)
        except EngineError as exc:
            raise _engine_error(exc) from exc

    def possible(self, seat: int) -> frozenset[str] | None:
        """The cards a seat whose cards were forgotten may hold among its "??" (None: never forgotten)."""
        return self._forgotten.get(seat)

    def positions(self, seat: int) -> tuple[int, ...]:
        """Shoe positions (0 = the first card off the shoe) of the cards the seat holds."""
        return self.hand.card_positions(seat)

    def _hands(self) -> dict[str, Any]:
        if self._cache is None:
            # result() serialises every event; the seats' part is all the views need, once per state.
            self._cache = self.hand.result()["hands"]
        return self._cache

    # -- state -----------------------------------------------------------------------------------------

    @property
    def acts_taken(self) -> int:
        """How many acts the hand has taken (the table events of its record are placed after so many)."""
        return len(actions_of(self.hand.events))

    @property
    def over(self) -> bool:
        return self.hand.is_over

    def phase(self) -> str:
        ph = self.hand.phase
        return "complete" if ph is None else _VIEW_PHASE.get(ph, "betting")

    def to_act(self) -> int | None:
        if self.hand.is_over:
            return None
        return self.hand.legal_actions().seat

    def _bets(self) -> dict[int, int]:
        bets: dict[int, int] = {}
        for ev in self.hand.events:
            if isinstance(ev, IntervalClosed):
                bets = {}
            elif isinstance(ev, ForcedBetPosted) and ev.what in _FORCED_AS_BET:
                bets[ev.seat] = bets.get(ev.seat, 0) + ev.amount
            elif isinstance(ev, BetMade | Raised):
                bets[ev.seat] = ev.to
            elif isinstance(ev, Called):
                bets[ev.seat] = bets.get(ev.seat, 0) + ev.amount
            elif isinstance(ev, BetReturned):
                bets[ev.seat] = bets.get(ev.seat, 0) - ev.amount
        if self.hand.is_over:
            return {}
        return bets

    def seat_info(self) -> dict[int, SeatInfo]:
        result = self._hands()
        stacks = self.hand.stacks()
        bets = self._bets()
        shown: dict[int, tuple[str, ...]] = {}
        exposed: dict[int, set[str]] = {}
        drew: dict[int, int] = {}
        for ev in self.hand.events:
            if isinstance(ev, Shown):
                shown[ev.seat] = ev.cards
            elif isinstance(ev, OpenersJudged) and ev.cards and ev.seat not in shown:
                openers = self._openers_shown(ev)
                if openers:
                    shown[ev.seat] = openers
            elif isinstance(ev, DrawServed):
                drew[ev.seat] = len(ev.served)
            elif isinstance(ev, IrregularityRuled) and ev.seat is not None and ev.irregularity in _EXPOSURES:
                exposed.setdefault(ev.seat, set()).update(c for c in ev.cards if c != UNKNOWN)
        opener = self.hand.opener
        out: dict[int, SeatInfo] = {}
        for spec in self.specs:
            info = result[str(spec.seat)]
            status: SeatStatus
            if info["folded"] or info["mucked"]:
                status = "folded"
            elif stacks[spec.seat] == 0 and not self.hand.is_over:
                status = "all_in"
            else:
                status = "active"
            hole = tuple(info["cards"])
            faces = shown.get(spec.seat)
            if faces is None:
                # A card exposed face up and kept is seen by everyone: it is shown, where it lies in the hand.
                seen = exposed.get(spec.seat, set())
                faces = tuple(c for c in hole if c in seen)
            out[spec.seat] = SeatInfo(
                name=spec.name, stack=stacks[spec.seat], bet=bets.get(spec.seat, 0), status=status,
                hole=hole, shown=faces, drew=drew.get(spec.seat), opener=opener == spec.seat,
            )
        return out

    def _openers_shown(self, judged: OpenersJudged) -> tuple[str, ...]:
        """What a proving opener shows the table: only the cards that prove his openers (003 Jackpots: "need
        show only as many cards as will prove ..."; an opener who drops keeps the rest of his hand apart, face
        down, for the floor: 003 Final betting interval). Nothing when they do not prove them."""
        requirement = self.hand.requirement
        known = [parse_card(c) for c in judged.cards if c != UNKNOWN]
        if not judged.proved or requirement is None:
            return ()
        best = proof(known, requirement, bobtail_allowed=self.config.bobtail_allowed)
        names = {card_str(c) for c in best or ()}
        return tuple(c for c in judged.cards if c in names)

    def legal(self) -> tuple[LegalAction, ...]:
        if self.hand.is_over:
            return ()
        la = self.hand.legal_actions()
        out: list[LegalAction] = []
        proving = la.phase is Phase.PROVING
        for act in la.acts:
            if act == "check":
                out.append(LegalAction(act="check", label="Check"))
            elif act in ("bet", "raise"):
                word = "Bet" if act == "bet" else "Raise to"
                if la.min_to == la.max_to:
                    out.append(LegalAction(act=act, label=f"{word} {la.min_to}", to=la.min_to,
                                           min_to=la.min_to, max_to=la.max_to))
                else:
                    out.append(LegalAction(act=act, label=word, min_to=la.min_to, max_to=la.max_to))
            elif act == "call":
                out.append(LegalAction(act="call", label=f"Call {la.call_amount}", to=None))
            elif act == "fold":
                out.append(LegalAction(act="fold", label="Fold"))
            elif act == "straddle":
                out.append(LegalAction(act="straddle", label=f"Straddle {la.min_to}", to=la.min_to))
            elif act == "decline_straddle":
                out.append(LegalAction(act="decline_straddle", label="No straddle"))
            elif act == "show":
                unread = la.seat is not None and UNKNOWN in self.hand.hole_cards(la.seat)
                label = ("Show openers" if proving else "Show hand") + (" (enter the cards)" if unread else "")
                out.append(LegalAction(act="show", label=label, needs_cards=unread))
            elif act == "muck":
                out.append(LegalAction(act="muck", label="Cannot prove openers" if proving else "Muck"))
            elif act not in ("announce", "draw", "reshuffle", *DEALER_ACTS.values()):  # the draw entry; the shoe
                # Acts the engine added later (false-opener procedure...): offered under their own name.
                out.append(LegalAction(act=act, label=act.replace("_", " ").capitalize()))
        return tuple(out)

    def draw_entry(self) -> DrawEntry | None:
        if self.hand.is_over:
            return None
        la = self.hand.legal_actions()
        if la.phase is not Phase.DRAWING or la.seat is None:
            return None
        return DrawEntry(seat=la.seat, max_discard=la.max_discard, cards=len(self.hand.hole_cards(la.seat)))

    def needs_reshuffle(self) -> tuple[str, ...] | None:
        if self.hand.phase is Phase.RESHUFFLING:
            return self.hand.reshuffle_pool()
        return None

    def pots(self) -> tuple[PotView, ...]:
        pot = self.hand.pot
        if self.hand.is_over:
            return ()
        hands = self._hands()
        live = tuple(s.seat for s in self.specs if not hands[str(s.seat)]["folded"])
        return (PotView(amount=pot, seats=live),)

    def chips_total(self) -> int:
        return sum(self.hand.stacks().values()) + self.hand.pot

    def ante_for_all_next(self) -> int | None:
        """The seat that antes for everyone on the next deal (003 False openers 2, house option), if any."""
        seat = self.hand.result().get("next_deal", {}).get("antes_for_all")
        return seat if isinstance(seat, int) else None

    def awards(self) -> tuple[Award, ...]:
        out: list[Award] = []
        for ev in self.hand.events:
            if isinstance(ev, PotAwarded):
                for seat, share in zip(ev.seats, ev.shares, strict=True):
                    out.append(Award(seat=seat, amount=share, hand=ev.hand or None))
        return tuple(out)

    def hole(self, seat: int) -> tuple[str, ...]:
        return self.hand.hole_cards(seat)

    def record(self) -> dict[str, Any]:
        return self.hand.to_record()

    def result(self) -> dict[str, Any]:
        return self.hand.result()

    def stacks(self) -> dict[int, int]:
        return self.hand.stacks()

    @property
    def status(self) -> str:
        return str(self.hand.status)

    @property
    def carried_out(self) -> int:
        return self.hand.carried_pot
