"""Helpers of the engine tests: random hands of every game and house option, and random irregularity reports
(a sensible one now and then, mostly nonsense the engine must refuse cleanly)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import (
    AnteMode,
    Betting,
    GameConfig,
    GameForm,
    HouseOptions,
    OddChip,
    PassMeaning,
    Stakes,
)
from table_controller.engine.events import DrawServed, Event
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.irregular import (
    FLOOR_KINDS,
    REPORT_FIELDS,
    REPORT_KINDS,
    IrregularityRuled,
    Report,
    mixed_pool,
    reports_open,
)
from table_controller.engine.irregular_options import (
    DealerShortDraw,
    DrawCountInfo,
    ExposedDrawCard,
    FalseOpenerPenalty,
    LateDrawMiscount,
    MisdealAntes,
    OutOfTurnDiscarded,
    ShortDeal,
)
from table_controller.engine.machine import Phase

CHOICES = (None, "stand_pat", "drop", "play_short", "discard_more", "leave_excess")


def dealt(hand: Hand) -> Hand:
    """The hand after the dealer's deal (a hand is built with its forced bets posted, waiting for the deal)."""
    hand.deal()
    return hand


def draw_served(hand: Hand, seat: int, discard: Sequence[str]) -> list[Event]:
    """The player's draw and the dealer's acts that follow it (the burn when due, the service): their events."""
    return hand.draw(seat, discard) + hand.dealer_acts()


def random_hand(rng: random.Random) -> tuple[Hand, list[str]]:
    """A hand of a random game, house options (the irregularity procedures' among them) and table, waiting for the
    deal, and the deck's true order (the hand is given it, or "??" for each card: a shoe without a reader)."""
    form = rng.choice(list(GameForm))
    betting = rng.choice(list(Betting))
    stakes = Stakes(ante=rng.choice((0, 1, 2)), small_bet=2, big_bet=4, cap=rng.choice((0, 3, 4)), min_bet=2,
                    max_bet=rng.choice((2, 6, 10)), blind=rng.choice((1, 2)))
    options = HouseOptions(
        ante_mode=rng.choice(list(AnteMode)), burn_before_draw=rng.random() < 0.8,
        never_deal_last_card=rng.random() < 0.3, odd_chip=rng.choice(list(OddChip)),
        pass_meaning=rng.choice(list(PassMeaning)), refuse_false_open=rng.random() < 0.5,
        straddle_limit=rng.choice((None, 1, 2)), blind_opening_double_to_stay=rng.random() < 0.3,
        exposed_draw_card=rng.choice(list(ExposedDrawCard)), short_deal=rng.choice(list(ShortDeal)),
        late_draw_miscount=rng.choice(list(LateDrawMiscount)),
        out_of_turn_discarded=rng.choice(list(OutOfTurnDiscarded)),
        dealer_short_draw=rng.choice(list(DealerShortDraw)),
        draw_count_info=rng.choice([None, *DrawCountInfo]), misdeal_antes=rng.choice(list(MisdealAntes)),
        misdeal_deal_passes=rng.random() < 0.5, false_opener_penalty=rng.choice(list(FalseOpenerPenalty)))
    config = GameConfig(form=form, betting=betting, stakes=stakes, options=options)
    n = rng.randrange(2, 9)
    numbers = sorted(rng.sample(range(1, 11), n))
    seats = [SeatSpec(seat=s, stack=rng.randrange(0, 80)) for s in numbers]
    truth = [card_str(c) for c in FULL_DECK]
    rng.shuffle(truth)
    deck = truth if rng.random() < 0.7 else None  # a shoe without a reader: cards learnt when shown or exposed
    hand = Hand(config, seats, rng.choice(numbers), deck=deck, carried_pot=rng.choice((0, 0, 5, 7)),
                passed_deals=rng.randrange(5))
    return hand, truth


def random_report(hand: Hand, rng: random.Random, truth: list[str]) -> Report:
    """Any report at all: a sensible one now and then, mostly nonsense the engine must refuse cleanly."""
    seats = [s.seat for s in hand.seats]
    open_kinds = reports_open(hand)
    kinds = list(open_kinds) if open_kinds and rng.random() < 0.7 else [*REPORT_KINDS, *FLOOR_KINDS]
    kind = rng.choice(kinds)
    if "misdeal" in open_kinds and rng.random() < 0.5:
        kind = "misdeal"
    elif "exposed_in_deal" in open_kinds and rng.random() < 0.3:
        kind = "exposed_in_deal"
    draws = [e for e in hand.events if isinstance(e, DrawServed)]
    seat = rng.choice(seats)
    if kind in ("exposed_in_draw", "card_known", "draw_miscount", "asked_wrong_count") and draws and \
            rng.random() < 0.7:
        seat = draws[-1].seat
    if kind == "dealer_draw_miscount" and rng.random() < 0.7:
        seat = hand.to_record()["button"]
    exposed_to = [e.seat for e in hand.events if isinstance(e, IrregularityRuled) and e.seat is not None
                  and e.irregularity in ("exposed_in_deal", "faced_in_pack")]
    if kind == "misdeal" and exposed_to:
        seat = rng.choice(exposed_to)
    count = rng.randrange(0, 6)
    served = [e for e in draws if e.seat == seat]
    if served and kind.endswith("miscount") and rng.random() < 0.7:
        count = len(served[-1].served) + rng.choice((-1, 1))
    held = list(hand.hole_cards(seat))  # "??" where the shoe could not read them
    # An exposed card is seen: named, with its place in the hand (or in this draw as served) for a reader-less shoe.
    places = hand.card_positions(seat)[:len(held)]
    in_draw = kind == "exposed_in_draw" or (kind == "faced_in_pack" and hand.phase in (
        Phase.DRAWING, Phase.FINAL_BETTING, Phase.SHOWDOWN))
    if in_draw and served and served[-1].served and draws[-1] is served[-1]:
        places = hand.draw_positions(seat)  # a card of it already replaced is named too: refused
    place = rng.randrange(len(places)) if places else 0
    exposed = truth[places[place]] if places else None
    if kind in ("exposed_in_deal", "faced_in_pack", "exposed_in_draw") and (
            (places and hand.code(places[place]) == "??") or rng.random() < 0.8):
        count = place + 1
    some = rng.sample(held, rng.randrange(min(len(held), 2) + 1)) if held else []
    mixed = rng.sample(seats, rng.choice((1, 1, 2)))
    order: list[str] = []
    if kind == "mixed_cards":
        order = list(mixed_pool(hand, mixed))
        rng.shuffle(order)
    fields: dict[str, Any] = {
        "kind": kind, "seat": seat, "card": exposed if rng.random() < 0.9 else None,
        "cards": None if kind == "draw_miscount" and not some else some, "count": max(count, 0),
        "looked": rng.choice(("none", "none", "some", "all")),
        "choice": rng.choice(CHOICES), "seats": mixed, "order": order, "about": rng.choice(seats),
        "by": rng.choice(("Floor: Kim", "")), "reason": "test", "amount": rng.randrange(0, 8),
        "to_pot": rng.random() < 0.5,
    }
    if kind == "award_pot":
        fields["seats"] = rng.sample(seats, rng.choice((1, 2)))
    takes = REPORT_FIELDS[kind] | {"kind", "by", "reason"}  # a field the kind does not take is refused when built
    return Report(**{name: value for name, value in fields.items() if name in takes})
