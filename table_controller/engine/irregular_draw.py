"""Irregularities in the draw: exposed and known cards, wrong numbers of cards (the player's, the dealer's,
the count asked), draws out of turn, mixed cards, and who may ask a draw count (003 Incorrect dealing in the
draw 1-6 and Other rules governing the draw 4-5; 000 Card exposed in the draw and Incorrect number of cards
drawn; 001 IV 4 and 6).

Each handler takes ``(hand, report, apply_it)`` and returns its stub moves as in :mod:`irregular_deal`.
docs/irregularities.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from table_controller.engine.cards import UNKNOWN_CODE
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import (
    DrawServed,
)
from table_controller.engine.hand_state import HandState
from table_controller.engine.irregular_core import (
    NO_MOVES,
    R_ASKED,
    R_DEALER_DRAW,
    R_EXPOSED_DRAW_000,
    R_EXPOSED_DRAW_001,
    R_EXPOSED_DRAW_003,
    R_INFO_001,
    R_INFO_003,
    R_KNOWN,
    R_MISCOUNT_000,
    R_MISCOUNT_003,
    R_MIXED,
    R_NO_CARDS,
    R_OUT_OF_TURN_000,
    R_OUT_OF_TURN_003,
    R_SAW_DRAW_CARD,
    DrawCountAnswered,
    MixedCardsShuffled,
    Moves,
    Put,
    ReplacementServed,
    Report,
    Take,
    available,
    draw_info_mode,
    draw_open,
    drop,
    drop_moves,
    excess_named,
    exposed_position,
    final_betting_started,
    foul,
    foul_moves,
    illegal,
    just_served,
    last_serve,
    next_off_the_pack,
    owed_moves,
    put_back,
    require_live,
    require_phases,
    resolve,
    return_to_stub,
    ruled,
    seat_index,
    serve_owed,
    served_positions,
    state,
    take_from_stub,
)
from table_controller.engine.irregular_options import (
    DealerShortDraw,
    DrawCountInfo,
    ExposedDrawCard,
    LateDrawMiscount,
    MixedCardsShuffle,
    OutOfTurnDiscarded,
)
from table_controller.engine.machine import Phase


def _served_seat(hand: HandState, report: Report, rule: str) -> tuple[int, list[int]]:
    """The player whose draw the report is about, and the cards of that draw he still holds (in the order served)."""
    i = seat_index(hand, report.seat, report.kind)
    if not draw_open(hand):
        raise illegal("wrong_phase", f"'{report.kind}' is reported during the draw", rule)
    require_live(hand, i, rule)
    if last_serve(hand, i) is None:
        raise illegal("not_served", f"seat {report.seat} has not drawn yet", rule)
    return i, served_positions(hand, i)


def _require_whole_draw(hand: HandState, i: int, served: Sequence[int], report: Report, rule: str) -> None:
    """For a remedy that counts player i's draw again (a miscount, a wrong count asked): it puts cards of the draw
    back on the pack or names its surplus, so every card served him must still be in his hand (``served``: those
    he holds). Once an earlier remedy has taken one out (an exposed card among the discards, a card back on the
    pack, a draw served again short of an exposed card after mixed cards), the number he asked no longer matches
    what he holds of it: refused."""
    last = last_serve(hand, i)
    if last is None or list(served) != hand.drawn[i] or len(served) != len(last.served):
        raise illegal("draw_changed", f"seat {report.seat}'s draw was already changed by a remedy (a card of it is "
                      "no longer in his hand): it cannot be counted again; call the floor", rule)


def exposed_in_draw(hand: HandState, report: Report, apply_it: bool) -> Moves:
    option = hand.config.options.exposed_draw_card
    rule = R_EXPOSED_DRAW_001 if option is ExposedDrawCard.NEVER_KEPT else f"{R_EXPOSED_DRAW_003}; {R_EXPOSED_DRAW_000}"
    i, held = _served_seat(hand, report, rule)
    if not just_served(hand, i):
        raise illegal("too_late", "an exposed card is dealt with as it is served", rule)
    if report.card is None or report.card == UNKNOWN_CODE:
        raise IllegalActionError("bad_report", f"'{report.kind}' needs the exposed 'card' (an exposed card is seen)")
    # Its place counts the draw as served, the cards already exposed and replaced included (003 Incorrect dealing
    # in the draw 1: "the first card drawn", "any subsequent exposed card").
    served = hand.drawn[i]
    pos = exposed_position(hand, served, report, rule, learn=apply_it, held=held)
    kept = option is ExposedDrawCard.FIRST_KEPT and pos == served[0]
    draw_over = hand.phase is not Phase.DRAWING
    # A card replaced now, once every other player has drawn, comes off the top (as far as the pack goes).
    moves = (Take(count=1, as_left=True),) if draw_over and not kept else NO_MOVES
    if not apply_it:
        return moves
    if kept:
        ruled(hand, report, "the first card drawn must be accepted", rule, [pos])
        return moves
    hand.hands[i].remove(pos)
    hand.muck_pile.append(pos)
    ruled(hand, report, "the exposed card goes among the discards; it is replaced from the top "
           + ("now: every other player has drawn" if draw_over else "after all other players have drawn"),
           rule, [pos])
    if draw_over:
        serve_owed(hand, i, 1, rule)
    else:
        state(hand).owed_after_draw.append((i, 1, rule))
    return moves


def card_known(hand: HandState, report: Report, apply_it: bool) -> Moves:
    i, _ = _served_seat(hand, report, R_KNOWN)
    if not just_served(hand, i):
        raise illegal("too_late", "reported as the card is served", R_KNOWN)
    if apply_it:
        ruled(hand, report, "a card the player could see before it was dealt to him, not exposed on the table: he "
               "must take it", R_KNOWN)
    return NO_MOVES


def draw_card_seen(hand: HandState, report: Report, apply_it: bool) -> Moves:
    """003 Other rules governing the draw 6: "If a player, before discarding, intentionally sees the face of any
    card dealt to him in the draw, his hand is foul." Reported once he has been served, whenever it is found."""
    i = seat_index(hand, report.seat, report.kind)
    require_phases(hand, (Phase.DRAWING, Phase.RESHUFFLING, Phase.FINAL_BETTING, Phase.SHOWDOWN), report,
                   R_SAW_DRAW_CARD)
    require_live(hand, i, R_SAW_DRAW_CARD)
    last = last_serve(hand, i)
    if last is None or not last.served:
        raise illegal("not_served", f"seat {report.seat} has been dealt no card in the draw", R_SAW_DRAW_CARD)
    moves = foul_moves(hand, i)
    if apply_it:
        foul(hand, i, report, f"{R_SAW_DRAW_CARD}: before discarding he saw a card dealt to him in the draw")
    return moves


def _named_from_hand(hand: HandState, i: int, report: Report, count: int, *, exclude: Sequence[int], rule: str,
                     apply_it: bool, excess: bool = False) -> list[int]:
    codes = report.cards or []
    if len(codes) != count:
        raise illegal("bad_report", f"name the {count} card(s) discarded from the original hand in 'cards'", rule)
    drawn = set(hand.codes([*exclude, *next_off_the_pack(hand, count if excess else 0)])) - {UNKNOWN_CODE}
    for code in codes:
        if code in drawn:  # the cards just drawn (and the excess he is about to take): not his to throw
            raise illegal("card_drawn", f"{code} was just drawn: a card drawn cannot be discarded to make room; he "
                           "may only increase his discard from his original hand", rule)
    pool = [p for p in hand.hands[i] if p not in exclude]
    return resolve(hand, pool, codes, f"seat {report.seat} discards", learn=apply_it)


def _discard(hand: HandState, i: int, positions: Sequence[int]) -> None:
    for pos in positions:
        hand.hands[i].remove(pos)
    held = i == hand.opener_index and hand.requirement is not None and hand.config.options.opener_holds_discards
    (hand.held if held else hand.discards)[i].extend(positions)


def draw_miscount(hand: HandState, report: Report, apply_it: bool) -> Moves:
    option = hand.config.options.late_draw_miscount
    rule = R_MISCOUNT_003 if option is LateDrawMiscount.DISCARD_OR_DROP else R_MISCOUNT_000
    i, served = _served_seat(hand, report, rule)
    _require_whole_draw(hand, i, served, report, rule)
    asked = len(served)
    got = report.count
    if got is None or got == asked:
        raise IllegalActionError("bad_report", f"'count' must be the number of cards received, not {asked}")
    if got > asked and got - asked > available(hand):
        raise illegal("bad_report", "not that many cards are left on the pack", rule)
    too_many = got > asked
    next_served = not just_served(hand, i)
    looked = report.looked
    # What the remedy will be, decided before anything changes.
    if option is LateDrawMiscount.DISCARD_OR_DROP:
        if looked != "none":
            remedy = "foul"
        elif not next_served:
            remedy = "correct"
        elif report.choice == "drop":
            remedy = "drop"
        elif too_many and report.choice == "discard_more":
            remedy = "discard_more"
        else:
            raise illegal("choose", "a later player has been served: he may only increase his discard to make "
                           "room for the excess ('discard_more'), or drop", rule)
    elif too_many and looked == "all":
        remedy = "foul"
    elif not next_served and looked == "none":
        remedy = "correct"
    elif report.choice == "drop":
        remedy = "drop"
    else:
        remedy = "leave_excess" if too_many else "play_short"
    extra_cards: list[int] = []
    surplus: list[int] = []
    if remedy == "discard_more":
        extra_cards = _named_from_hand(hand, i, report, got - asked, exclude=served, rule=rule, apply_it=apply_it,
                                       excess=True)
    elif too_many and remedy in ("correct", "leave_excess"):  # which drawn card is the surplus (default: the last)
        pool = next_off_the_pack(hand, got - asked) + list(reversed(served))
        surplus = excess_named(hand, report, pool, got - asked, rule=rule, learn=apply_it)
    elif report.cards is not None:
        raise illegal("bad_report", "'cards' names the cards he discards to make room, or the surplus drawn card(s) "
                       "that go back or are left unseen; this remedy takes none", rule)
    # The cards as he got them: the excess off the pack to him, or the cards he did not get back on it; then
    # the remedy's own moves.
    moves: Moves = (Take(count=got - asked),) if too_many else (put_back(served[got:]),)
    if remedy == "foul" or (remedy == "play_short" and len(hand.hands[i]) == asked - got):
        moves += foul_moves(hand, i)
    elif remedy == "correct":
        moves += (put_back(surplus),) if too_many else (Take(count=asked - got),)
    elif remedy == "drop":
        moves += drop_moves(hand, i)
    if not apply_it:
        return moves
    if too_many:
        moved = take_from_stub(hand, i, got - asked)
        if surplus:
            moved = surplus
    else:
        moved = served[got:]
        return_to_stub(hand, i, moved)
    if remedy == "foul":
        foul(hand, i, report, f"{rule}: he looked at the drawn cards")
    elif remedy == "correct":
        if too_many:
            return_to_stub(hand, i, moved)
            ruled(hand, report, "corrected: the surplus card goes back on top of the pack", rule, moved)
        else:
            take_from_stub(hand, i, asked - got)
            ruled(hand, report, "corrected: the missing cards are supplied at once", rule)
    elif remedy == "drop":
        ruled(hand, report, "he drops", rule)
        drop(hand, i)
    elif remedy == "discard_more":
        _discard(hand, i, extra_cards)
        ruled(hand, report, "he increases his discard to make room for the excess", rule, extra_cards)
    elif remedy == "leave_excess":
        hand.hands[i] = [p for p in hand.hands[i] if p not in moved]
        hand.muck_pile += moved
        ruled(hand, report, "the excess is left on the table unseen (among the discards)", rule)
    elif not hand.hands[i]:
        foul(hand, i, report, f"{rule}: {R_NO_CARDS}")
    else:
        state(hand).short.add(i)
        ruled(hand, report, f"he plays on with a short hand of {len(hand.hands[i])} cards", rule)
    return moves


def dealer_draw_miscount(hand: HandState, report: Report, apply_it: bool) -> Moves:
    from table_controller.engine.config import GameForm

    i, served = _served_seat(hand, report, R_DEALER_DRAW)
    if i != hand.button_index:
        raise illegal("not_the_dealer", f"seat {report.seat} is not the dealer", R_DEALER_DRAW)
    if hand.config.form is GameForm.FIVE_CARD_DRAW:
        raise illegal("house_dealer", "in the casino game the croupier deals and does not play", "001 Game procedure")
    _require_whole_draw(hand, i, served, report, R_DEALER_DRAW)
    asked, got = len(served), report.count
    if got is None or got == asked:
        raise IllegalActionError("bad_report", f"'count' must be the number of cards he took, not {asked}")
    if got > asked and got - asked > available(hand):
        raise illegal("bad_report", "not that many cards are left on the pack", R_DEALER_DRAW)
    extra: list[int] = []
    if got > asked and report.looked == "none":
        extra = _named_from_hand(hand, i, report, got - asked, exclude=served, rule=R_DEALER_DRAW, apply_it=apply_it,
                                 excess=True)
    if got > asked:
        moves: Moves = (Take(count=got - asked), *(foul_moves(hand, i) if report.looked != "none" else NO_MOVES))
    else:
        is_foul = (hand.config.options.dealer_short_draw is DealerShortDraw.FOUL
                or len(hand.hands[i]) == asked - got)  # too few, a foul by the house option, or no card left
        moves = (put_back(served[got:]), *(foul_moves(hand, i) if is_foul else NO_MOVES))
    if not apply_it:
        return moves
    if got > asked:
        take_from_stub(hand, i, got - asked)
        if report.looked != "none":
            foul(hand, i, report, f"{R_DEALER_DRAW}: he looked before discarding to make room")
            return moves
        _discard(hand, i, extra)
        ruled(hand, report, "the dealer must take the cards and discard enough from his original hand", R_DEALER_DRAW,
               extra)
        return moves
    return_to_stub(hand, i, served[got:])
    if hand.config.options.dealer_short_draw is DealerShortDraw.FOUL:
        foul(hand, i, report, f"{R_DEALER_DRAW}: the dealer took too few cards")
        return moves
    if not hand.hands[i]:
        foul(hand, i, report, f"{R_DEALER_DRAW}: {R_NO_CARDS}")
        return moves
    state(hand).short.add(i)
    ruled(hand, report, "the dealer plays on with an insufficient number of cards (house option)", R_DEALER_DRAW)
    return moves


def asked_wrong_count(hand: HandState, report: Report, apply_it: bool) -> Moves:
    i, served = _served_seat(hand, report, R_ASKED)
    _require_whole_draw(hand, i, served, report, R_ASKED)
    asked, meant = len(served), report.count
    if meant is None or meant == asked or meant > hand.max_discard(hand.seat_no[i]) + asked:
        raise IllegalActionError("bad_report", "'count' must be the number of cards he meant to ask for")
    next_served = not just_served(hand, i)
    if report.looked != "none":
        moves = foul_moves(hand, i)
        if apply_it:
            foul(hand, i, report, f"{R_ASKED}: he looked at the cards drawn (003 Other rules governing the draw, 6)")
        return moves
    if next_served:
        if meant < asked:
            if apply_it:
                ruled(hand, report, "the next player has been served: he keeps the draw, having discarded enough "
                       "from his original hand to make a correct number", R_ASKED)
            return NO_MOVES
        raise illegal("too_late", "the next player has been served: asking for too few can no longer be corrected",
                       R_ASKED)
    if meant > asked:
        if meant - asked > available(hand):
            raise illegal("bad_report", "not that many cards are left on the pack", R_ASKED)
        more = _named_from_hand(hand, i, report, meant - asked, exclude=served, rule=R_ASKED, apply_it=apply_it)
        if apply_it:
            _discard(hand, i, more)
            take_from_stub(hand, i, meant - asked)
            ruled(hand, report, "corrected: he discards more and is served the difference", R_ASKED, more)
        return (Take(count=meant - asked),)
    # Asked for too many, not yet discarded: the surplus goes back on the pack and cards return to his hand.
    pile = hand.held[i] if i == hand.opener_index and hand.requirement is not None and \
        hand.config.options.opener_holds_discards else hand.discards[i]
    codes = report.cards or []
    if len(codes) != asked - meant:
        raise illegal("bad_report", f"name in 'cards' the {asked - meant} card(s) he keeps after all", R_ASKED)
    back = resolve(hand, list(pile), codes, f"seat {report.seat} keeps", learn=apply_it)
    if apply_it:
        return_to_stub(hand, i, served[meant:])
        for pos in back:
            pile.remove(pos)
            hand.hands[i].append(pos)
        ruled(hand, report, "corrected before discarding: the surplus goes back on top of the pack", R_ASKED)
    return (put_back(served[meant:]),)


def draw_out_of_turn(hand: HandState, report: Report, apply_it: bool) -> Moves:
    option = hand.config.options.out_of_turn_discarded
    rule = R_OUT_OF_TURN_003 if option is OutOfTurnDiscarded.DEAD else f"{R_OUT_OF_TURN_000}; {R_OUT_OF_TURN_003}"
    i = seat_index(hand, report.seat, report.kind)
    require_phases(hand, (Phase.DRAWING,), report, rule)
    if hand.to_act != i:
        raise illegal("not_skipped", f"seat {report.seat} is not the player whose turn was taken", rule)
    discarded = report.cards or []
    thrown = resolve(hand, hand.hands[i], discarded, f"seat {report.seat} discards", learn=apply_it)
    if report.choice not in (None, "stand_pat", "drop", "play_short"):
        raise IllegalActionError("bad_report", "choice is 'stand_pat', 'play_short' or 'drop'")
    dead = bool(thrown) and (option is OutOfTurnDiscarded.DEAD or len(thrown) == len(hand.hands[i]))
    if report.choice == "drop":
        moves = drop_moves(hand, i)
    elif dead:
        moves = foul_moves(hand, i)
    else:  # his turn is taken as served with nothing: the last turn of the draw ends it
        moves = owed_moves(hand) if hand.draw_pos + 1 >= len(hand.drawers) else NO_MOVES
    if not apply_it:
        return moves
    if report.choice == "drop":
        ruled(hand, report, "he abandons his hand", rule)
        drop(hand, i)
        return moves
    if dead:
        hand.hands[i] = [p for p in hand.hands[i] if p not in thrown]
        hand.muck_pile += thrown
        why = "he had discarded, his hand is dead" if option is OutOfTurnDiscarded.DEAD else R_NO_CARDS
        foul(hand, i, report, f"{rule}: {why}")
        return moves
    if thrown:
        state(hand).short.add(i)
        ruled(hand, report, f"he had discarded: he plays on short with {5 - len(thrown)} cards, receiving none",
               rule)
    else:
        ruled(hand, report, "he may not draw: he stands pat and plays on", rule)
    hand.hands[i] = [p for p in hand.hands[i] if p not in thrown]
    held = i == hand.opener_index and hand.requirement is not None and hand.config.options.opener_holds_discards
    (hand.held if held else hand.discards)[i].extend(thrown)
    hand.serve_drawer(i, 0, [], list(thrown), "irregularity")
    return moves


def mixed_pool(hand: HandState, seats: Sequence[int]) -> tuple[str, ...]:
    """The cards the dealer must shuffle and cut when these players' draws got mixed with the discards."""
    return hand.codes(_mixed_positions(hand, [hand.index_of(s) for s in seats]))


def _mixed_positions(hand: HandState, players: Sequence[int]) -> list[int]:
    pool = list(hand.muck_pile)
    for k in range(hand.n):
        pool += hand.discards[k]
    for i in players:
        pool += served_positions(hand, i)
    return sorted(pool)


def mixed_cards(hand: HandState, report: Report, apply_it: bool) -> Moves:
    seats = report.seats or ([report.seat] if report.seat is not None else [])
    if not seats or len(set(seats)) != len(seats):
        raise IllegalActionError("bad_report", "'seats' lists the players whose draws were mixed")
    if not draw_open(hand):
        raise illegal("wrong_phase", "cards mixed in the draw are reported during the draw", R_MIXED)
    players = [hand.index_of(s) for s in seats]
    for i in players:
        require_live(hand, i, R_MIXED)
        if last_serve(hand, i) is None:
            raise illegal("not_served", f"seat {hand.seat_no[i]} has not drawn yet", R_MIXED)
    pool = _mixed_positions(hand, players)
    order = report.order or []
    if len(order) != len(pool):
        raise illegal("bad_order", f"the shuffled cards must list the {len(pool)} unclean cards, got {len(order)}",
                       R_MIXED)
    new_order = resolve(hand, pool, order, "mixed cards", learn=apply_it)
    counts = {i: len(served_positions(hand, i)) for i in players}
    on_top = hand.config.options.mixed_cards_shuffle is MixedCardsShuffle.DRAW_FROM_THE_SHUFFLE
    # The shuffled cards on the pack or under it, then each mixed draw served again from the top.
    moves: Moves = (Put(cards=tuple(reversed(new_order)), under=not on_top),
                    *(Take(count=counts[i]) for i in players))
    if not apply_it:
        return moves
    taken = set(new_order)
    for k in range(hand.n):
        hand.hands[k] = [p for p in hand.hands[k] if p not in taken]
        hand.discards[k] = [p for p in hand.discards[k] if p not in taken]
    hand.muck_pile = [p for p in hand.muck_pile if p not in taken]
    if on_top:
        hand.stub = hand.stub + list(reversed(new_order))  # on the pack: the draw proceeds from them
        where = "the draw proceeds from the shuffled cards, each mixed draw served again first"
    else:
        hand.stub = list(reversed(new_order)) + hand.stub  # under the pack: its order is not changed (003 Other 1)
        where = ("they go under the pack, whose order is not changed (003 Other rules 1; our reading), and each "
                 "mixed draw is served again from the top")
    hand.emit(MixedCardsShuffled(size=len(new_order), seats=tuple(seats), rule=R_MIXED))
    ruled(hand, report, f"the unclean cards, discards and mixed cards are shuffled together and cut: {where}", R_MIXED)
    for i in players:
        served = take_from_stub(hand, i, counts[i])
        hand.drawn[i] = served  # his draw now: the exposed cards reported of the draw before are in the shuffle
        hand.emit(ReplacementServed(seat=hand.seat_no[i], cards=hand.codes(served), rule=R_MIXED))
    return moves


def ask_draw_count(hand: HandState, report: Report, apply_it: bool) -> Moves:
    mode = draw_info_mode(hand)
    rule = R_INFO_001 if mode is DrawCountInfo.ANY_PLAYER else R_INFO_003
    i = seat_index(hand, report.seat, report.kind)
    if report.about is None:
        raise IllegalActionError("bad_report", "'about' names whose draw is asked")
    j = hand.index_of(report.about)
    require_live(hand, i, rule)
    if i == j:
        raise IllegalActionError("bad_report", "a player knows his own draw")
    allowed, why = _may_ask(hand, i, j, mode)
    if not allowed:
        raise illegal("no_information", why, rule)
    if apply_it:
        last = last_serve(hand, j)
        assert last is not None
        hand.emit(DrawCountAnswered(seat=hand.seat_no[i], about=hand.seat_no[j], count=len(last.served),
                                     rule=rule))
    return NO_MOVES


def _may_ask(hand: HandState, i: int, j: int, mode: DrawCountInfo) -> tuple[bool, str]:
    if hand.phase not in (Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN) or last_serve(hand, j) is None:
        return False, "that player has not drawn"
    if hand.folded[i]:
        return False, "only a player still in the hand may ask"
    if mode is DrawCountInfo.ANY_PLAYER:
        if final_betting_started(hand) or hand.phase is Phase.SHOWDOWN:
            return False, "the second betting round has started"
        return True, ""
    if j != hand.button_index:
        return False, "no information is given about another player's draw, only about the dealer's"
    if hand.interval == "final" and (hand.bets[i] > 0 or (hand.phase is Phase.SHOWDOWN)):
        return False, "only a player who has not yet bet may ask"
    if hand.interval == "final" and _has_bet_after_draw(hand, i):
        return False, "only a player who has not yet bet may ask"
    return True, ""


def _has_bet_after_draw(hand: HandState, i: int) -> bool:
    from table_controller.engine.events import BetMade, Called, Raised

    seat = hand.seat_no[i]
    last_draw = max((k for k, e in enumerate(hand.events) if isinstance(e, (DrawServed, ReplacementServed))),
                    default=-1)
    return any(isinstance(e, (BetMade, Called, Raised)) and e.seat == seat for e in hand.events[last_draw + 1:])


def visible_draw_counts(hand: HandState) -> dict[int, int]:
    """The draw counts the public display may show now, as the house option allows (seat -> cards drawn):
    001 IV 4, every drawn player's count until the second betting round starts; 003 Other rules 5, only the
    dealer's, while some player still in has not yet bet after the draw."""
    mode = draw_info_mode(hand)
    if hand.phase not in (Phase.DRAWING, Phase.FINAL_BETTING):
        return {}
    counts = {e.seat: len(e.served) for e in hand.events if isinstance(e, DrawServed)}
    if mode is DrawCountInfo.ANY_PLAYER:
        return {} if final_betting_started(hand) else counts
    dealer = hand.seat_no[hand.button_index]
    askers = [k for k in range(hand.n) if not hand.folded[k] and k != hand.button_index
              and not (hand.interval == "final" and _has_bet_after_draw(hand, k))]
    return {dealer: counts[dealer]} if dealer in counts and askers else {}


def draw_count_info(hand: HandState) -> dict[str, Any]:
    """The house rule on draw information, for the displays: which book, and the counts that may be shown."""
    mode = draw_info_mode(hand)
    return {"rule": R_INFO_001 if mode is DrawCountInfo.ANY_PLAYER else R_INFO_003, "mode": mode.value,
            "visible": {str(s): c for s, c in visible_draw_counts(hand).items()}}
