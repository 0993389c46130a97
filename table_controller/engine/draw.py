"""The draw: each player still in, from the dealer's left, announces and throws his discards, and the dealer
serves him as many from the top of the stub; the dealer burns a card before the first card served (house
option), and reshuffles the burn, the muck and the others' discards when the stub runs short (001 IV 2).

The player's act is ``draw`` (the discards only); the dealer's acts follow it, each due in its phase
(``machine.py``): ``burn`` (BURNING), ``serve`` (SERVING), ``reshuffle`` (RESHUFFLING, then the serve again).
What the draw leaves to serve is ``HandState.pending_serve``. Functions over the deal's state
(:class:`~table_controller.engine.hand_state.HandState`); :class:`Hand` offers them as its acts and the live
shoe's questions (``shoe_cards_for_draw`` before a draw, ``shoe_cards_for_dealer`` before the dealer's act due).
"""

from __future__ import annotations

from collections.abc import Sequence

from table_controller.engine import irregular as _irregular
from table_controller.engine.acts import ActTaken
from table_controller.engine.config import DrawLimit
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import Burned, DrawAnnounced, DrawServed, Event, Reshuffled
from table_controller.engine.hand_state import CardLike, HandState
from table_controller.engine.identities import find_held, forgettable
from table_controller.engine.machine import Phase

__all__ = [
    "announce", "begin_draw", "burn", "draw", "max_discard", "reshuffle", "reshuffle_pool", "serve", "serve_drawer",
    "shoe_cards_for_dealer", "shoe_cards_for_draw", "undelivered_in_stub", "verify_announce", "verify_burn",
    "verify_draw", "verify_draw_count", "verify_reshuffle", "verify_serve",
]

R_DRAW_ORDER = "003 The draw: dealing for the draw begins with the active player on the dealer's left"
R_DRAW_LIMIT_001 = "001 Game procedure 5: each player can exchange up to 4 cards"
R_DRAW_LIMIT_003 = "003 The draw: with six or seven players the draw is limited (house option)"
R_RESHUFFLE = "001 IV 2 Too few cards for a complete draw: burn and earlier discards, never the player's own"


def begin_draw(hand: HandState) -> None:
    n, left = hand.n, (hand.button_index + 1) % hand.n
    hand.drawers = [(left + k) % n for k in range(n) if not hand.folded[(left + k) % n]]
    hand.draw_pos = 0
    hand.to_act = hand.drawers[0]


def max_discard(hand: HandState, seat: int) -> int:
    # The game's limit (four; or by the number of players, house option), at most the cards held; none for a
    # short-dealt player in a 003 game (003 Other rules governing the draw 2: five cards to draw).
    i = hand.index_of(seat)
    if hand.irregular_state is not None and not _irregular.may_draw(hand, i):
        return 0
    return min(hand.draw_top, len(hand.hands[i]))


def verify_announce(hand: HandState, seat: int, count: int) -> None:
    i = hand.index_of(seat)
    hand.require_phase("announce")
    hand.require_turn(i, R_DRAW_ORDER)
    _verify_count(hand, i, count)


def _verify_count(hand: HandState, i: int, count: int) -> None:
    if count and hand.irregular_state is not None and not _irregular.may_draw(hand, i):
        raise _irregular.cannot_draw_short(hand, i)
    top = max_discard(hand, hand.seat_no[i])
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= top:
        rule = R_DRAW_LIMIT_001 if hand.config.draw_limit is DrawLimit.FOUR else R_DRAW_LIMIT_003
        raise IllegalActionError("draw_limit", f"seat {hand.seat_no[i]} may draw 0..{top} cards, not {count!r}",
                            rule=rule)


def announce(hand: HandState, seat: int, count: int) -> list[Event]:
    """The player states how many cards he wants; he may change it until he is served (001 IV 3)."""
    verify_announce(hand, seat, count)
    before = len(hand.events)
    hand.announced[seat] = count
    hand.emit(DrawAnnounced(seat=seat, count=count))
    hand.log_act(ActTaken(act="announce", seat=seat, count=count))
    hand.move(Phase.DRAWING, "announce")
    return hand.done(before)


def verify_draw(hand: HandState, seat: int, discard: Sequence[CardLike]) -> None:
    i = hand.index_of(seat)
    hand.require_phase("draw")
    hand.require_turn(i, R_DRAW_ORDER)
    _verify_count(hand, i, len(discard))
    if find_held(hand, hand.hands[i], discard) is not None:
        return  # the common case: known cards, all in the hand, none twice
    snapshot = list(hand.ident)
    try:
        hand.resolve_cards(hand.hands[i], discard, f"seat {seat} discards")
    finally:
        hand.ident = snapshot


def verify_draw_count(hand: HandState, seat: int, count: int) -> None:
    """Raise what forgetting the seat's cards and then drawing ``count`` unnamed ones ("??") would raise, changing
    nothing: a draw the dealer entered as a count, tried before the seat's cards are forgotten (which cannot be
    undone)."""
    i = hand.index_of(seat)
    hand.require_phase("draw")
    hand.require_turn(i, R_DRAW_ORDER)
    _verify_count(hand, i, count)
    if count > forgettable(hand, seat):  # the cards everyone saw stay known: "??" cannot name them
        raise IllegalActionError("card_not_held", f"seat {seat} discards: the cards named are not all there")


def draw(hand: HandState, seat: int, discard: Sequence[CardLike]) -> list[Event]:
    """Throw these cards ([] stands pat); the dealer's burn (when due) and service follow as acts of their own."""
    verify_draw(hand, seat, discard)
    before = len(hand.events)
    i = hand.index[seat]
    thrown = hand.resolve_cards(hand.hands[i], discard, f"seat {seat} discards")
    hand.hands[i] = [p for p in hand.hands[i] if p not in thrown]
    held = (i == hand.opener_index and hand.requirement is not None and hand.config.options.opener_holds_discards)
    if held:
        hand.held[i] += thrown
    else:
        hand.discards[i] += thrown
    hand.log_act(ActTaken(act="draw", seat=seat, cards=hand.codes(thrown)))
    hand.pending_serve = (i, len(thrown), [], list(thrown))
    hand.to_act = None
    burn_now = _burn_due(hand, len(thrown))
    if thrown and hand.config.options.burn_before_draw:
        hand.burned_for_draw = True  # once, before the first card served (none when the stub has none to spare)
    hand.move(Phase.BURNING if burn_now else Phase.SERVING, "draw")
    return hand.done(before)


def _burn_due(hand: HandState, count: int) -> bool:
    """Whether throwing ``count`` cards now makes the burn due: the first discards of the draw, in a house that
    burns, with a card above the reserve to burn."""
    return (count > 0 and not hand.burned_for_draw and hand.config.options.burn_before_draw
            and len(hand.stub) > hand.reserve())


def verify_burn(hand: HandState) -> None:
    hand.require_phase("burn")


def burn(hand: HandState) -> list[Event]:
    """The dealer burns the top card of the stub before the first card of the draw is served."""
    verify_burn(hand)
    before = len(hand.events)
    hand.log_act(ActTaken(act="burn"))
    pos = hand.stub.pop()
    hand.burn_pile.append(pos)
    hand.emit(Burned(card=hand.code(pos)))
    hand.move(Phase.SERVING, "burn")
    return hand.done(before)


def verify_serve(hand: HandState) -> None:
    hand.require_phase("serve")


def serve(hand: HandState) -> list[Event]:
    """The dealer serves the drawer as many cards as he threw from the top of the stub (with any he is owed: 001 IV
    5a), one after another; the stub running short waits for the reshuffle."""
    verify_serve(hand)
    before = len(hand.events)
    assert hand.pending_serve is not None
    i, owed, served, thrown = hand.pending_serve
    hand.log_act(ActTaken(act="serve"))
    if not served and hand.irregular_state is not None:
        owed += _irregular.owed_with_draw(hand, i)  # given once: it leaves the pending irregularities
    serve_drawer(hand, i, owed, served, thrown, trigger="serve")
    return hand.done(before)


def serve_drawer(hand: HandState, i: int, owed: int, served: list[int], thrown: list[int], *, trigger: str) -> None:
    take = min(owed, len(hand.stub) - hand.reserve())
    for _ in range(take):  # from the top of the stub (its end), one card after another
        pos = hand.stub.pop()
        hand.hands[i].append(pos)
        served.append(pos)
    owed -= max(take, 0)
    if owed > 0:
        if not _pool(hand, i):
            raise IllegalActionError("deck_exhausted", "no cards left to complete the draw", rule=R_RESHUFFLE)
        hand.pending_serve = (i, owed, served, thrown)
        hand.move(Phase.RESHUFFLING, trigger)
        hand.to_act = None
        return
    hand.pending_serve = None
    hand.drawn[i] = list(served)
    seat = hand.seat_no[i]
    hand.emit(DrawServed(seat=seat, discards=hand.codes(thrown), served=hand.codes(served),
                          held_out=bool(thrown) and thrown[0] in hand.held[i]))
    hand.announced.pop(seat, None)
    hand.draw_pos += 1
    if hand.draw_pos < len(hand.drawers):
        hand.move(Phase.DRAWING, trigger)
        hand.to_act = hand.drawers[hand.draw_pos]
        return
    if hand.irregular_state is not None:
        _irregular.end_of_draw(hand)  # cards owed after all others have drawn (003 Incorrect dealing in the draw 1)
    hand.begin_final(trigger)


def _pool(hand: HandState, drawer: int) -> list[int]:
    """Positions the dealer shuffles for the rest of the draw: the burn, the mucked hands, the other players'
    discards (and the last card when the house never deals it); never the drawer's own discards nor the
    opener's held-out cards (001 IV 2, 003 The draw)."""
    pool = list(hand.stub) + list(hand.burn_pile) + list(hand.muck_pile)  # the stub: a last card never dealt
    for k in range(hand.n):
        if k != drawer:
            pool += hand.discards[k]
    return sorted(pool)


def reshuffle_pool(hand: HandState) -> tuple[str, ...]:
    """The cards the dealer must shuffle now (codes, "??" unidentified), in a canonical order."""
    if hand.phase is not Phase.RESHUFFLING or hand.pending_serve is None:
        return ()
    return hand.codes(_pool(hand, hand.pending_serve[0]))


def verify_reshuffle(hand: HandState, order: Sequence[CardLike]) -> None:
    hand.require_phase("reshuffle")
    assert hand.pending_serve is not None
    pool = _pool(hand, hand.pending_serve[0])
    if len(order) != len(pool):
        raise IllegalActionError("bad_reshuffle", f"the reshuffled stub must list the {len(pool)} pooled cards, "
                            f"got {len(order)}", rule=R_RESHUFFLE)
    snapshot = list(hand.ident)
    try:
        hand.resolve_cards(pool, order, "reshuffle")
    finally:
        hand.ident = snapshot


def reshuffle(hand: HandState, order: Sequence[CardLike]) -> list[Event]:
    """The dealer's new stub order (top first) after shuffling :meth:`reshuffle_pool`; the rest of the service
    is due next."""
    verify_reshuffle(hand, order)
    before = len(hand.events)
    assert hand.pending_serve is not None
    i = hand.pending_serve[0]
    pool = _pool(hand, i)
    new_order = hand.resolve_cards(pool, order, "reshuffle")
    taken = set(new_order)
    hand.stub = [p for p in hand.stub if p not in taken]
    hand.burn_pile = [p for p in hand.burn_pile if p not in taken]
    hand.muck_pile = [p for p in hand.muck_pile if p not in taken]
    for k in range(hand.n):
        hand.discards[k] = [p for p in hand.discards[k] if p not in taken]
    hand.stub = list(reversed(new_order)) + hand.stub
    hand.emit(Reshuffled(size=len(new_order), for_seat=hand.seat_no[i]))
    hand.log_act(ActTaken(act="reshuffle", cards=hand.codes(new_order)))
    hand.move(Phase.SERVING, "reshuffle")
    return hand.done(before)


def shoe_cards_for_draw(hand: HandState, seat: int, count: int) -> tuple[str, ...]:
    """What the shoe must deliver before this seat draws ``count`` cards and the dealer's acts that follow take
    theirs: "burn" or "deal" for each card they take from the stub that the shoe has not delivered yet, in the
    order taken (the burn before the first card of the draw, then the cards served, as far as the stub goes before
    a reshuffle, then, when it is the last draw, the cards owed after the draw: irregular.end_of_draw)."""
    i = hand.index_of(seat)
    burns = 1 if _burn_due(hand, count) else 0
    return _shoe_cards(hand, burns, count + _irregular.owed_with_draw_pending(hand, i))


def shoe_cards_for_dealer(hand: HandState) -> tuple[str, ...]:
    """What the shoe must still deliver before the dealer's burn or service now due can take its cards: ("burn",)
    for a burn; "deal" for each card of a service (with, when it ends the draw, those owed after it); () when
    it has them all, or when neither is due."""
    pending = hand.pending_serve
    if pending is None:
        return ()
    if hand.phase is Phase.BURNING:
        return ("burn",) if hand.stub[-1] >= hand.delivered else ()
    if hand.phase is not Phase.SERVING:
        return ()
    i, owed, served, _ = pending
    if not served:
        owed += _irregular.owed_with_draw_pending(hand, i)
    return _shoe_cards(hand, 0, owed)


def _shoe_cards(hand: HandState, burns: int, owed: int) -> tuple[str, ...]:
    """The undelivered cards among those a burn (``burns``: 0 or 1) and a service of ``owed`` cards take off the
    top of the stub, with, when the service ends the draw, those owed after it."""
    stub = hand.stub
    deals = max(0, min(owed, len(stub) - burns - hand.reserve()))
    if deals == owed and hand.draw_pos + 1 >= len(hand.drawers):
        deals += _irregular.owed_at_end_of_draw(hand, len(stub) - burns - deals - hand.reserve())
    kinds = ["burn"] * burns + ["deal"] * deals
    return tuple(kind for kind, pos in zip(kinds, reversed(stub), strict=False) if pos >= hand.delivered)


def undelivered_in_stub(hand: HandState) -> int:
    """How many cards of the stub the shoe has not delivered yet."""
    return sum(1 for pos in hand.stub if pos >= hand.delivered)
