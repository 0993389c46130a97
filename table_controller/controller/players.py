"""Simulated players for the demo: each seat decides from its own five cards, as a player at the table would.

They are deliberately plain: open and raise with two pair or better, bet a good pair, call a pair, check or
fold the rest (with some randomness so hands differ); draw to keep pairs, trips and quads, stand pat on a
made straight, flush or full house, and keep the high card of nothing. They act through the controller's
public methods exactly as the dealer console does, so a demo exercises the real path.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from table_controller.controller.table import TableController
from table_controller.controller.views import LegalAction
from table_controller.engine.cards import UNKNOWN_CODE, parse_card, rank_of
from table_controller.engine.evaluate import HandCategory, category_of, evaluate
from table_controller.engine.machine import Phase

__all__ = ["SimPlayers"]

MADE = {HandCategory.STRAIGHT, HandCategory.FLUSH, HandCategory.FULL_HOUSE, HandCategory.STRAIGHT_FLUSH}


class SimPlayers:
    def __init__(self, table: TableController, *, rng: random.Random,
                 truth: Callable[[], list[str]] | None = None) -> None:
        """``truth``: the faces of the cards in the order the shoe dealt them, from the simulator, for a shoe
        without a reader: the players see their own cards even when the table cannot."""
        self.table = table
        self.rng = rng
        self.truth = truth
        self.acts = 0

    def _cards(self, seat: int) -> list[str]:
        hand = self.table.hand
        assert hand is not None
        cards = list(hand.hole(seat))
        if UNKNOWN_CODE in cards and self.truth is not None:
            faces = self.truth()
            cards = [faces[p] if p < len(faces) else UNKNOWN_CODE for p in hand.positions(seat)]
        return cards

    def _unread(self, seat: int) -> bool:
        hand = self.table.hand
        return hand is not None and UNKNOWN_CODE in hand.hole(seat)

    def _strength(self, cards: list[str]) -> int:
        """0 nothing, 1 a small pair, 2 jacks or better, 3 two pair or better."""
        if len(cards) != 5 or UNKNOWN_CODE in cards:
            return 1
        value = evaluate([parse_card(c) for c in cards])
        cat = category_of(value)
        if cat >= HandCategory.TWO_PAIR:
            return 3
        if cat == HandCategory.ONE_PAIR:
            ranks = Counter(rank_of(parse_card(c)) for c in cards)
            pair = max(r for r, k in ranks.items() if k == 2)
            return 2 if pair >= 9 else 1  # rank index 9 is the jack
        return 0

    def decide(self) -> tuple[str, dict[str, Any]] | None:
        """The next act of the seat to act: ("act", kwargs) or ("draw", kwargs); None when nobody is to act."""
        view = self.table.full_view()
        hand = self.table.hand
        if hand is None or view.paused:
            return None
        if view.draw is not None:
            drawer = view.draw.seat
            thrown = self._discards(drawer, view.draw.max_discard)
            if self._unread(drawer):
                return "draw", {"seat": drawer, "count": len(thrown)}  # the table cannot name them
            return "draw", {"seat": drawer, "discard": tuple(thrown)}
        seat = view.to_act
        if seat is None or not view.legal:
            return None
        legal = {a.act: a for a in view.legal}
        if "show" in legal:
            if legal["show"].needs_cards:
                return "act", {"seat": seat, "act": "show", "cards": tuple(self._cards(seat))}
            return "act", {"seat": seat, "act": "show"}
        if "straddle" in legal:
            choice = "straddle" if "decline_straddle" not in legal or self.rng.random() < 0.4 else "decline_straddle"
            return "act", {"seat": seat, "act": choice}
        strength = self._strength(self._cards(seat))
        roll = self.rng.random()
        aggressive = legal.get("raise") or legal.get("bet")
        if aggressive is not None and aggressive.act == "bet" and strength < 2 and self._opening(hand):
            aggressive = None  # a player knows his own cards: he does not open without openers
        if aggressive is not None and (strength == 3 or (strength == 2 and roll < 0.6)
                                       or (strength == 1 and roll < 0.1)):
            return "act", {"seat": seat, "act": aggressive.act, "to": self._amount(aggressive)}
        if "check" in legal:
            return "act", {"seat": seat, "act": "check"}
        if "call" in legal and (strength >= 1 or roll < 0.15):
            return "act", {"seat": seat, "act": "call"}
        if "fold" in legal:
            return "act", {"seat": seat, "act": "fold"}
        first = view.legal[0]
        return "act", {"seat": seat, "act": first.act, "to": self._amount(first)}

    @staticmethod
    def _opening(hand: Any) -> bool:
        """A bet now opens a pot that needs openers (Jackpots, before the draw, nobody opened yet)."""
        engine = hand.hand
        return engine.requirement is not None and engine.opener is None and engine.phase is Phase.FIRST_BETTING

    def _amount(self, action: LegalAction) -> int | None:
        if action.to is not None:
            return action.to
        if action.min_to is None:
            return None
        top = action.max_to if action.max_to is not None else action.min_to
        if top <= action.min_to or self.rng.random() < 0.7:
            return action.min_to
        return self.rng.randint(action.min_to, min(top, action.min_to * 3))

    def _discards(self, seat: int, max_discard: int) -> list[str]:
        cards = self._cards(seat)
        if max_discard == 0 or UNKNOWN_CODE in cards:
            return []  # nothing to judge by: stand pat
        value = evaluate([parse_card(c) for c in cards])
        if category_of(value) in MADE:
            return []
        ranks = Counter(rank_of(parse_card(c)) for c in cards)
        keep = [c for c in cards if ranks[rank_of(parse_card(c))] >= 2]
        if not keep:
            keep = [max(cards, key=lambda c: rank_of(parse_card(c)))]
        throw = sorted((c for c in cards if c not in keep), key=lambda c: rank_of(parse_card(c)))
        return throw[:max_discard]

    async def step(self) -> bool:
        """Take one act if a simulated player is to act; True if one was taken."""
        decision = self.decide()
        if decision is None:
            return False
        kind, kwargs = decision
        if kind == "draw":
            await self.table.draw(kwargs["seat"], discard=kwargs.get("discard"), count=kwargs.get("count"))
        else:
            await self.table.act(kwargs["seat"], kwargs["act"], kwargs.get("to"), kwargs.get("cards"))
        self.acts += 1
        return True
