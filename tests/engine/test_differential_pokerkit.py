"""Differential test against PokerKit: random legal five-card draw hands end with identical stacks.

Both engines play the casino procedure of 001 (antes, first say and final say left of the button, up to
four cards drawn), fixed limit, pot limit and no limit, from the same deck. Our engine picks every act from its own
``legal_actions()``; PokerKit is fed the same acts and the same cards. Where PokerKit departs from the books
(it makes every player discard before anyone is served; it reshuffles a drawer's own discards) we compare
only what both define: hands of two to five players, where the stub never runs out, and the final stacks.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, Stakes
from table_controller.engine.events import BetMade, Called, Checked, DrawServed, Folded, Raised
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.simulate import play_random

pokerkit = pytest.importorskip("pokerkit")

HANDS_PER_STRUCTURE = 1200  # three structures: 3,600 hands, about 30 s on two cores


def _pokerkit_state(betting: Betting, stakes: Stakes, stacks: list[int]) -> Any:
    pk = pokerkit
    automations = (pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.BLIND_OR_STRADDLE_POSTING,
                   pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING, pk.Automation.HAND_KILLING,
                   pk.Automation.CHIPS_PUSHING, pk.Automation.CHIPS_PULLING)
    if betting is Betting.FIXED_LIMIT:
        first, second, cap = stakes.small_bet, stakes.big_bet, stakes.cap
        structure = pk.BettingStructure.FIXED_LIMIT
    else:
        first = second = stakes.min_bet
        cap = None
        structure = (pk.BettingStructure.POT_LIMIT if betting is Betting.POT_LIMIT
                     else pk.BettingStructure.NO_LIMIT)
    streets = (pk.Street(False, (False,) * 5, 0, False, pk.Opening.POSITION, first, cap),
               pk.Street(False, (), 0, True, pk.Opening.POSITION, second, cap))
    return pk.State(automations, pk.Deck.STANDARD, (pk.StandardHighHand,), streets, structure, True,
                    stakes.ante, (), 0, tuple(stacks), len(stacks), mode=pk.Mode.CASH_GAME)


def _play_both(seed: int, betting: Betting) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    n = rng.randrange(2, 6)
    stakes = Stakes(ante=rng.choice((1, 2, 5)), small_bet=2, big_bet=4, cap=4, min_bet=2)
    config = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=betting, stakes=stakes)
    stacks = [rng.randrange(5, 120) for _ in range(n)]
    button = n  # seats 1..n; the button on the last seat, so PokerKit's player k is seat k + 1
    deck = [card_str(c) for c in FULL_DECK]
    rng.shuffle(deck)
    hand = Hand(config, [SeatSpec(seat=k + 1, stack=s) for k, s in enumerate(stacks)], button, deck=deck)
    play_random(hand, rng, aggression=rng.randrange(2, 7), mucks=False)

    state = _pokerkit_state(betting, stakes, stacks)
    for k in range(5 * n):
        state.deal_hole(deck[k])
    pending: list[tuple[str, ...]] = []
    for event in hand.events:
        if isinstance(event, Checked | Called):
            state.check_or_call()
        elif isinstance(event, BetMade | Raised):
            try:
                state.complete_bet_or_raise_to(event.to)
            except ValueError:
                # PokerKit counts an all-in short raise towards the fixed-limit cap; we (and common card-room
                # practice) count only full bets and raises. The books are silent: not compared.
                if any(isinstance(e, Raised | BetMade) and not e.full for e in hand.events):
                    raise _NotComparableError from None
                raise
        elif isinstance(event, Folded):
            state.fold()
        elif isinstance(event, DrawServed):
            state.stand_pat_or_discard("".join(event.discards))
            pending.append(event.served)
            if state.stand_patter_or_discarder_index is None:
                for served in pending:
                    for card in served:
                        state.deal_hole(card)
                pending = []
    ours = [hand.stacks()[k + 1] for k in range(n)]
    return ours, list(state.stacks)


class _NotComparableError(Exception):
    """PokerKit refused an act in a situation the books do not define."""


@pytest.mark.parametrize("betting", [Betting.FIXED_LIMIT, Betting.NO_LIMIT, Betting.POT_LIMIT])
def test_same_final_stacks_as_pokerkit(betting: Betting) -> None:
    mismatches = []
    compared = skipped = 0
    for seed in range(HANDS_PER_STRUCTURE):
        try:
            ours, theirs = _play_both(seed, betting)
        except _NotComparableError:
            skipped += 1
            continue
        compared += 1
        if ours != theirs:
            mismatches.append((seed, ours, theirs))
    assert not mismatches, mismatches[:5]
    # The one known difference (see _play_both) stays rare, so thousands of hands are compared.
    assert skipped <= HANDS_PER_STRUCTURE // 20, skipped
    assert compared >= HANDS_PER_STRUCTURE - skipped
