"""The proof that every one of the 52 shoe positions lies in exactly one pile or hand.

A deal keeps its cards by shoe position (0 = the first card off the shoe) in piles: the stub (its top at the end),
the burn, the muck, and per player the hand, the opener's held-out cards and the discards. :func:`prove_layout`
checks a layout of those piles after an act and returns the copies the next proof compares against; the hand
(``Hand._check_invariants``) calls it whenever a pile differs from its copy.

The first time (no copies yet, or the number of players' piles changed) all 52 places are counted. After that the
proof is by difference: the piles that differ from their copies must hold now, all together, exactly the cards
(the same multiset) they held then. The other piles are unchanged, so with the last proof this proves the whole
layout again, sorting a dozen cards instead of counting 52 places (a draw changes the stub, a hand, a discard pile
and the burn; a fold a hand and the muck). A stub that only lost cards from its top counts just those. A swap of
cards between piles passes, as it should; a card lost, doubled or written over another anywhere changes the
multiset and fails.
"""

from __future__ import annotations

from typing import Any, Final

from table_controller.engine.errors import InvariantError

DECK_SIZE: Final = 52

# The piles in the order a layout lists them: three shared piles, then three groups of one pile per player.
Layout = tuple[list[int], list[int], list[int], list[list[int]], list[list[int]], list[list[int]]]


def prove_layout(layout: Layout, kept: tuple[Any, ...], players: int) -> Layout:
    """Prove ``layout`` (stub, burn, muck, hands, held-out cards, discards) conserves the 52 positions, given the
    copies ``kept`` made by the last proof (``()`` for none), and return the copies for the next one.

    The copies are never the live lists, which the next act may change in place; the ones passed in are brought
    up to date in place (only the piles that changed are copied) and returned. Raises :class:`InvariantError`
    when a card is lost, doubled or written over another; the copies passed in are then spoiled, and the caller
    passes ``()`` next time."""
    stub, burn, muck, hands, held, discards = layout
    if not kept or len(hands) != players or len(held) != players or len(discards) != players:
        _count_all(layout)
        return (stub[:], burn[:], muck[:], [p[:] for p in hands], [p[:] for p in held], [p[:] for p in discards])
    kept_stub, kept_burn, kept_muck, kept_hands, kept_held, kept_discards = kept
    was: list[int] = []  # what the changed piles held at the last proof
    now: list[int] = []  # what they hold now
    if stub != kept_stub:
        size = len(stub)
        was += kept_stub[size:]  # the cards off the top, if the stub only lost cards from its top (its end)
        del kept_stub[size:]
        if stub != kept_stub:  # any other change: the whole stub then and now
            was += kept_stub
            now += stub
            kept_stub[:] = stub
    for pile, kept_pile in ((burn, kept_burn), (muck, kept_muck)):
        if pile != kept_pile:
            was += kept_pile
            now += pile
            kept_pile[:] = pile
    for group, kept_group in ((hands, kept_hands), (held, kept_held), (discards, kept_discards)):
        if group != kept_group:
            _recopy(group, kept_group, was, now)
    was.sort()
    now.sort()
    if was != now:
        raise InvariantError(f"cards not conserved: the piles that changed held {len(was)} cards and now hold "
                             f"{len(now)}" + ("" if len(was) != len(now) else " other ones"))
    return (kept_stub, kept_burn, kept_muck, kept_hands, kept_held, kept_discards)


def _recopy(piles: list[list[int]], kept: list[list[int]], was: list[int], now: list[int]) -> None:
    """Bring the copies of a group of piles (hands, held-out cards or discards) of which some changed up to date in
    place, the changed ones' cards then and now added to ``was`` and ``now``."""
    for k, pile in enumerate(piles):
        old = kept[k]
        if pile != old:
            was += old
            now += pile
            kept[k] = pile[:]


def _count_all(layout: Layout) -> None:
    """Every one of the 52 places holds exactly one position of the shoe, counting each pile's cards."""
    stub, burn, muck, hands, held, discards = layout
    placed = [False] * DECK_SIZE
    count = 0
    for pile in (stub, burn, muck, *hands, *held, *discards):
        for pos in pile:
            if not 0 <= pos < DECK_SIZE or placed[pos]:
                raise InvariantError(f"cards not conserved: position {pos} placed twice or not in the shoe")
            placed[pos] = True
            count += 1
    if count != DECK_SIZE:
        raise InvariantError(f"cards not conserved: {count} placed")
