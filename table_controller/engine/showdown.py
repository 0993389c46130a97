"""The showdown and the proof of openers: who shows first, each hand shown or mucked in turn, the pots awarded
(``pots.award_pots``); the opener's proof of his openers (003 Jackpots, 000 Proving openers), and the pot of a
hand nobody contests.

Functions over the deal's public state (:class:`~table_controller.engine.hand_state.HandState`); :class:`Hand`
offers them as its acts (``verify_show`` / ``show``, ``verify_muck`` / ``muck``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import combinations

from table_controller.engine import irregular as _irregular
from table_controller.engine.acts import ActTaken
from table_controller.engine.cards import UNKNOWN_CODE, Card, card_str
from table_controller.engine.config import OddChip
from table_controller.engine.errors import IllegalActionError, InvariantError
from table_controller.engine.evaluate import describe as _describe_value
from table_controller.engine.evaluate import evaluate
from table_controller.engine.events import Event, Mucked, OpenersJudged, PotAwarded, PotCarried, Shown
from table_controller.engine.hand_state import CardLike, HandState
from table_controller.engine.machine import Phase
from table_controller.engine.opening import meets_requirement
from table_controller.engine.pots import award_pots

__all__ = [
    "award_showdown", "begin_showdown", "finish_uncontested", "hand_value", "judge_and_emit", "muck", "show",
    "unmucked_left", "verify_muck", "verify_show",
]

R_PROVE = "003 Jackpots / 000 Proving openers: the opener must show openers before his hand is discarded"
R_FALSE4 = "003 False openers 4"
R_SHOWDOWN = "000 Final betting and showdown: every player who has not dropped shows his full hand"

describe = functools.cache(_describe_value)  # a hand value's wording: pure, and at most 7,462 values


def hand_value(cards: Sequence[Card]) -> int:
    """A hand's showdown value. Five cards: :func:`evaluate`. A short hand (a player allowed to play on with
    too few cards) counts its missing cards as nothing: its value is that of its worst five-card completion."""
    if len(cards) == 5 or not 0 < len(cards) < 5:
        return evaluate(list(cards))
    need = 5 - len(cards)
    held = set(cards)
    if need <= 2:
        pool = [Card(c) for c in range(52) if c not in held]
    else:
        # One card of each missing rank, suits varied so that no flush can form: the worst completion never
        # pairs, so this smaller pool holds it.
        ranks = sorted({c // 4 for c in range(52)} - {c // 4 for c in cards})
        pool = [Card(r * 4 + k % 4) for k, r in enumerate(ranks)]
    return min(evaluate([*cards, *extra]) for extra in combinations(pool, need))


def begin_showdown(hand: HandState) -> None:
    hand.to_act = None
    live = hand.live()
    if hand.aggressor is not None and hand.interval == "final":
        start = hand.aggressor
    elif hand.final_first is not None:
        start = hand.final_first
    else:
        start = (hand.button_index + 1) % hand.n
    hand.show_queue = [(start + k) % hand.n for k in range(hand.n) if (start + k) % hand.n in live]
    hand.show_pos = 0
    hand.to_act = hand.show_queue[0]


def unmucked_left(hand: HandState) -> int:
    return sum(1 for j in hand.show_queue if not hand.mucked[j])


def verify_show(hand: HandState, seat: int, cards: Sequence[CardLike] | None = None) -> None:
    i = hand.index_of(seat)
    hand.require_phase("show")
    hand.require_turn(i, R_SHOWDOWN)
    if not cards:  # nothing named: nothing learnt, no snapshot needed
        _learn_show(hand, i, cards)
        return
    snapshot = list(hand.ident)
    try:
        _learn_show(hand, i, cards)
    finally:
        hand.ident = snapshot


def _learn_show(hand: HandState, i: int, cards: Sequence[CardLike] | None) -> None:
    if cards:
        hand.resolve_cards(hand.hands[i] + hand.held[i], cards, f"seat {hand.seat_no[i]} shows")
    if hand.phase is Phase.SHOWDOWN and None in map(hand.ident.__getitem__, hand.hands[i]):
        raise IllegalActionError("must_show_all", f"seat {hand.seat_no[i]} must show all five cards",
                                 rule=R_SHOWDOWN)


def show(hand: HandState, seat: int, cards: Sequence[CardLike] | None = None) -> list[Event]:
    """Show the hand (at showdown) or the openers (when proving). ``cards`` names cards the table could not
    read; with a reader it may be omitted."""
    verify_show(hand, seat, cards)
    before = len(hand.events)
    i = hand.index_of(seat)
    _learn_show(hand, i, cards)
    named = tuple(UNKNOWN_CODE if c is None else (c if isinstance(c, str) else card_str(c)) for c in cards or ())
    hand.log_act(ActTaken(act="show", seat=seat, cards=named or None))
    if hand.phase is Phase.PROVING:
        verdict = judge_and_emit(hand, i, final=True)
        if verdict:
            finish_uncontested(hand, i, "show", proved=True)
        else:
            _irregular.false_opener_uncalled(hand, i, "show")
        return hand.done(before)
    hand.shown[i] = True
    shown = hand.codes(hand.hands[i])
    value = hand_value(_known_cards(hand, hand.hands[i]))
    hand.values[i] = value
    hand.emit(Shown(seat=seat, cards=shown, description=describe(value)))
    if i == hand.opener_index and hand.requirement is not None:
        verdict = judge_and_emit(hand, i, final=True)
        if not verdict:
            hand.foul[i] = True
            hand.false_opener_case = 4
    _next_show(hand, "show")
    return hand.done(before)


def verify_muck(hand: HandState, seat: int) -> None:
    i = hand.index_of(seat)
    hand.require_phase("muck")
    hand.require_turn(i, R_SHOWDOWN)
    if hand.phase is Phase.SHOWDOWN and unmucked_left(hand) <= 1:
        raise IllegalActionError("last_hand", "the last hand in the showdown must be shown", rule=R_SHOWDOWN)


def muck(hand: HandState, seat: int) -> list[Event]:
    """Concede at the showdown, or (when proving) admit the openers cannot be shown."""
    verify_muck(hand, seat)
    before = len(hand.events)
    i = hand.index_of(seat)
    hand.log_act(ActTaken(act="muck", seat=seat))
    hand.emit(Mucked(seat=seat))
    if hand.phase is Phase.PROVING:
        hand.openers_proved = False
        hand.emit(OpenersJudged(seat=seat, proved=False, cards=(), rule=R_PROVE))
        _irregular.false_opener_uncalled(hand, i, "muck")
        return hand.done(before)
    hand.mucked[i] = True
    if i == hand.opener_index and hand.requirement is not None:
        # The hand is discarded: its openers are kept apart to be proved (003 Jackpots).
        judge_and_emit(hand, i, final=False)
        hand.held[i] += hand.hands[i]
    else:
        hand.muck_pile += hand.hands[i]
    hand.hands[i] = []
    _next_show(hand, "muck")
    return hand.done(before)


def _next_show(hand: HandState, trigger: str) -> None:
    hand.show_pos += 1
    if hand.show_pos < len(hand.show_queue):
        hand.to_act = hand.show_queue[hand.show_pos]
        hand.move(Phase.SHOWDOWN, trigger)
        return
    hand.to_act = None
    hand.move(Phase.COMPLETE, trigger)
    award_showdown(hand)


def award_showdown(hand: HandState) -> None:
    contenders = [j for j in range(hand.n) if not hand.folded[j]]
    eligible = [j for j in contenders if not hand.mucked[j] and not hand.foul[j]]
    high_suit = hand.config.options.odd_chip is OddChip.HIGH_SUIT
    top_card = functools.partial(_top_card, hand) if high_suit else None
    awards, carried = award_pots(hand.collected, hand.contrib, contenders, eligible, values=hand.values,
                                 button=hand.button_index, top_card=top_card)
    for award in awards:
        for j, share in zip(award.winners, award.shares, strict=True):
            hand.stack[j] += share
        hand.collected -= award.amount
        hand.emit(PotAwarded(pot_index=award.pot_index, amount=award.amount,
                              seats=tuple(hand.seat_no[j] for j in award.winners), shares=award.shares,
                              hand=describe(award.value)))
    if hand.collected != carried:
        raise InvariantError(f"pot {hand.collected} left after the awards, {carried} expected to carry")
    if carried:
        rule = R_FALSE4 if hand.false_opener_case == 4 else "no fair hand eligible"
        hand.emit(PotCarried(amount=carried, reason=f"{rule}: the pot remains for the next deal"))
        hand.status = "carried"
    else:
        hand.status = "complete"
    hand.end()


def _top_card(hand: HandState, i: int) -> Card:
    # A card's number orders the cards by rank, then by suit as 001 orders them (the odd chip's house option).
    return max(_known_cards(hand, hand.hands[i]))


def _known_cards(hand: HandState, positions: Sequence[int]) -> list[Card]:
    """The identified cards at these positions (a card the table could not read is left out)."""
    known: list[Card] = []
    for pos in positions:
        card = hand.ident[pos]
        if card is not None:
            known.append(card)
    return known


def _original_cards(hand: HandState, i: int) -> list[Card | None]:
    held_or_hand = hand.hands[i] + hand.held[i]
    return [hand.ident[p] for p in held_or_hand if p in hand.original[i]]


def _judge(hand: HandState, i: int, *, final: bool) -> bool | None:
    """Did player i hold openers? None while his unseen cards could still prove it."""
    req = hand.requirement
    if req is None:
        return True
    cards = _original_cards(hand, i)
    known = [c for c in cards if c is not None]
    if known and meets_requirement(known, req, bobtail_allowed=hand.config.bobtail_allowed):
        return True
    if len(known) == len(cards) or final:
        return False
    return None


def judge_and_emit(hand: HandState, i: int, *, final: bool) -> bool | None:
    verdict = _judge(hand, i, final=final)
    if verdict is not None:
        hand.openers_proved = verdict
        known = tuple(hand.code(p) for p in hand.hands[i] + hand.held[i] if p in hand.original[i])
        hand.emit(OpenersJudged(seat=hand.seat_no[i], proved=verdict, cards=known, rule=R_PROVE))
    return verdict


def finish_uncontested(hand: HandState, w: int, trigger: str, *, proved: bool = False) -> None:
    hand.to_act = None
    if w == hand.opener_index and hand.requirement is not None and not proved:
        verdict = judge_and_emit(hand, w, final=False)
        if verdict is None:
            hand.move(Phase.PROVING, trigger)
            hand.to_act = w
            return
        if not verdict:
            _irregular.false_opener_uncalled(hand, w, trigger)
            return
    hand.move(Phase.COMPLETE, trigger)
    hand.return_uncalled()
    hand.collect()
    amount = hand.collected
    hand.stack[w] += amount
    hand.collected = 0
    hand.emit(PotAwarded(pot_index=0, amount=amount, seats=(hand.seat_no[w],), shares=(amount,),
                          hand="uncontested"))
    hand.status = "complete"
    hand.end()
