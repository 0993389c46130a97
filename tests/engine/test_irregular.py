"""Irregularities through the engine API: exact (state, report, outcome) cases, short-hand values, the draw-count
house rule the displays obey, refusals that change nothing, and the record format's validation."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from table_controller.engine.cards import Card, parse_card
from table_controller.engine.config import Betting, GameConfig, GameForm, HouseOptions, Stakes
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.evaluate import evaluate
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.irregular import (
    REPORT_FIELDS,
    IrregularityRuled,
    Report,
    draw_count_info,
    reports_open,
    visible_draw_counts,
)
from table_controller.engine.irregular_options import DrawCountInfo
from table_controller.engine.machine import Phase
from table_controller.engine.record import InvalidRecordError, replay, schema
from table_controller.engine.showdown import hand_value
from tests.engine.helpers import dealt, draw_served

HANDS = (["Js", "Jh", "7c", "4d", "2s"], ["Qs", "Qd", "9h", "5c", "3c"], ["Ac", "Kd", "8s", "6h", "3d"])
STUB = ["2c", "Jd", "Qh", "9c", "Ad", "Kh", "5s", "8c", "Th", "Tc", "6c", "7d"]


def _deck() -> list[str]:
    return [h[k] for k in range(5) for h in HANDS] + STUB


def _hand(form: GameForm = GameForm.JACKPOTS, **options: object) -> Hand:
    config = GameConfig(form=form, betting=Betting.FIXED_LIMIT, stakes=Stakes(ante=1, small_bet=2, big_bet=4, cap=4),
                        options=HouseOptions(**options))  # type: ignore[arg-type]
    return dealt(Hand(config, [SeatSpec(seat=s, stack=100) for s in (1, 2, 3)], 3, deck=_deck()))


def _cards(*codes: str) -> list[Card]:
    return [parse_card(c) for c in codes]


def _through_the_draw(hand: Hand) -> None:
    hand.bet(1, 2)
    hand.call(2)
    hand.call(3)
    draw_served(hand, 1, ["7c", "4d", "2s"])
    draw_served(hand, 2, ["9h", "5c", "3c"])
    draw_served(hand, 3, ["8s", "6h", "3d"])


def test_a_short_hand_counts_its_missing_cards_as_nothing() -> None:
    aces = _cards("As", "Ad", "Kc", "Qh")
    assert hand_value(aces) == evaluate(_cards("As", "Ad", "Kc", "Qh", "2c"))
    assert hand_value(aces) > evaluate(_cards("Ks", "Kd", "Ac", "Qh", "Jc"))
    assert hand_value(aces) < evaluate(_cards("Ac", "Ah", "Kd", "Qs", "3c"))
    # Three cards missing: the worst completion is the three lowest ranks that neither pair nor run.
    assert hand_value(_cards("Qs", "Qd")) == evaluate(_cards("Qs", "Qd", "4c", "3d", "2h"))
    # A short straight draw is no straight: A-K-Q-J counts as ace high.
    assert hand_value(_cards("As", "Kd", "Qh", "Jc")) == evaluate(_cards("As", "Kd", "Qh", "Jc", "2c"))
    assert hand_value(_cards("As", "Kd", "Qh", "Jc", "Tc")) == evaluate(_cards("As", "Kd", "Qh", "Jc", "Tc"))


def test_a_report_names_the_rule_and_returns_its_events() -> None:
    hand = _hand()
    events = hand.irregularity(Report(kind="exposed_in_deal", seat=2, card="9h"))
    assert isinstance(events[-1], IrregularityRuled)
    assert events[-1].rule == "000 Irregularities, Card exposed in the deal"
    assert events[-1].remedy == "the player keeps the exposed card; no misdeal"
    assert events[-1].cards == ("9h",)
    assert hand.actions[-1] == {"act": "irregularity", "report": {"kind": "exposed_in_deal", "seat": 2, "card": "9h"}}
    assert "misdeal" not in reports_open(hand)
    hand.irregularity(Report(kind="exposed_in_deal", seat=3, card="Ac"))
    assert "misdeal" in reports_open(hand)
    assert hand.can_irregularity(Report(kind="misdeal", seat=2))
    assert not hand.can_irregularity(Report(kind="misdeal", seat=1))  # he received no exposed card
    hand.irregularity(Report(kind="misdeal", seat=2))
    assert hand.is_over and hand.status == "misdeal" and hand.phase is Phase.PASSED_OUT
    assert hand.carried_pot == 3 and hand.stacks() == {1: 99, 2: 99, 3: 99}


@pytest.mark.parametrize("report,code", [
    (Report(kind="misdeal", seat=2), "no_misdeal"),
    (Report(kind="exposed_in_deal", seat=2, card="Ac"), "card_elsewhere"),
    (Report(kind="exposed_in_deal", seat=2, card="As"), "card_not_held"),
    (Report(kind="exposed_in_draw", seat=1, card="Js"), "wrong_phase"),
    (Report(kind="too_many_in_deal", seat=2, count=0), "bad_report"),
    (Report(kind="draw_out_of_turn", seat=2), "wrong_phase"),
    (Report(kind="void_hand", by="Floor", reason="x"), "bad_report"),  # a floor ruling, not an irregularity
    (Report(kind="ask_draw_count", seat=1, about=3), "no_information"),
])
def test_a_refused_report_changes_nothing(report: Report, code: str) -> None:
    hand = _hand()
    hand.irregularity(Report(kind="exposed_in_deal", seat=2, card="9h"))
    before = (hand.result(), hand.actions[:], hand.card_identities())
    with pytest.raises(IllegalActionError) as exc:
        hand.irregularity(report)
    assert exc.value.code == code
    assert (hand.result(), hand.actions, hand.card_identities()) == before


def test_floor_rulings_need_a_name_and_a_reason_and_only_floor_kinds() -> None:
    hand = _hand()
    with pytest.raises(IllegalActionError) as exc:
        hand.floor_ruling(Report(kind="void_hand", reason="jam"))
    assert exc.value.code == "bad_ruling"
    with pytest.raises(IllegalActionError):
        hand.floor_ruling(Report(kind="foul_hand", seat=1, by="Floor", reason="x"))
    hand.floor_ruling(Report(kind="move_chips", seat=1, amount=5, to_pot=True, by="Floor: Kim", reason="short ante"))
    assert hand.pot == 8 and hand.stacks()[1] == 94
    hand.floor_ruling(Report(kind="award_pot", seats=[3], by="Floor: Kim", reason="agreed"))
    assert hand.is_over and hand.stacks() == {1: 94, 2: 99, 3: 107}


def test_003_only_the_dealers_draw_count_is_shown_and_asked() -> None:
    hand = _hand()
    _through_the_draw(hand)
    assert draw_count_info(hand)["mode"] == DrawCountInfo.DEALER_ONLY.value
    assert visible_draw_counts(hand) == {3: 3}
    with pytest.raises(IllegalActionError) as exc:
        hand.irregularity(Report(kind="ask_draw_count", seat=1, about=2))
    assert exc.value.rule == "003 Other rules governing the draw, 5"
    hand.irregularity(Report(kind="ask_draw_count", seat=2, about=3))
    hand.bet(1, 4)  # seat 1 has now bet: he may no longer ask
    assert not hand.can_irregularity(Report(kind="ask_draw_count", seat=1, about=3))
    assert hand.can_irregularity(Report(kind="ask_draw_count", seat=2, about=3))


def test_001_every_draw_count_is_shown_until_the_second_round_starts() -> None:
    hand = _hand(GameForm.FIVE_CARD_DRAW)  # the casino game defaults to 001 IV 4
    hand.bet(1, 2)
    hand.call(2)
    hand.call(3)
    draw_served(hand, 1, ["7c", "4d", "2s"])
    draw_served(hand, 2, ["9h"])
    assert visible_draw_counts(hand) == {1: 3, 2: 1}
    assert hand.can_irregularity(Report(kind="ask_draw_count", seat=1, about=2))
    draw_served(hand, 3, [])
    assert visible_draw_counts(hand) == {1: 3, 2: 1, 3: 0}
    hand.check(1)
    assert visible_draw_counts(hand) == {}
    assert not hand.can_irregularity(Report(kind="ask_draw_count", seat=2, about=1))


def test_the_dealer_rules_do_not_apply_to_a_croupier() -> None:
    hand = _hand(GameForm.FIVE_CARD_DRAW)
    hand.bet(1, 2)
    hand.call(2)
    hand.call(3)
    draw_served(hand, 1, [])
    draw_served(hand, 2, [])
    draw_served(hand, 3, ["8s"])
    with pytest.raises(IllegalActionError) as exc:
        hand.irregularity(Report(kind="dealer_draw_miscount", seat=3, count=2))
    assert exc.value.code == "house_dealer"


def test_a_record_with_a_malformed_report_is_not_a_record() -> None:
    record = _hand().to_record()
    with pytest.raises(InvalidRecordError):
        replay({**record, "actions": [{"act": "irregularity"}]})
    with pytest.raises(InvalidRecordError):
        replay({**record, "actions": [{"act": "irregularity", "report": {"kind": "exposed_in_deal", "card": "1x"}}]})
    with pytest.raises(InvalidRecordError):
        replay({**record, "actions": [{"act": "irregularity", "report": {"kind": "sneeze"}}]})
    with pytest.raises(ValidationError):
        Report(kind="too_few_in_deal", seat=2, count=-1)
    assert "report" in schema()["$defs"]["ActionModel"]["properties"]


def test_the_hand_record_of_a_hand_with_reports_replays_identically() -> None:
    hand = _hand()
    hand.bet(1, 2)
    hand.irregularity(Report(kind="too_few_in_deal", seat=3, count=1))
    hand.call(2)
    hand.call(3)
    draw_served(hand, 1, ["7c", "4d", "2s"])
    hand.irregularity(Report(kind="exposed_in_draw", seat=1, card="Qh"))
    draw_served(hand, 2, ["9h", "5c", "3c"])
    draw_served(hand, 3, ["8s", "6h", "3d"])
    assert hand.phase is Phase.FINAL_BETTING
    replayed = replay(hand.to_record())
    assert replayed == hand.result()
    assert replayed["phase"] == "final_betting"


@pytest.mark.parametrize("passes,button", [(False, 3), (True, 1)])
def test_after_a_misdeal_the_deal_is_dealt_again_by_the_same_dealer_unless_it_passes(passes: bool,
                                                                                     button: int) -> None:
    from table_controller.engine.seating import next_deal

    hand = _hand(misdeal_deal_passes=passes)
    hand.irregularity(Report(kind="exposed_in_deal", seat=2, card="9h"))
    hand.irregularity(Report(kind="exposed_in_deal", seat=3, card="Ac"))
    hand.irregularity(Report(kind="misdeal", seat=2))
    nxt = next_deal(hand)
    assert nxt.button == button
    assert nxt.carried_pot == 3 and nxt.passed_deals == 0
    assert nxt.stacks == {1: 99, 2: 99, 3: 99}


def test_the_state_carries_the_draw_count_rule_for_the_public_display() -> None:
    hand = _hand()
    hand.bet(1, 2)
    assert "draw_counts" not in hand.result()  # before the draw
    hand.call(2)
    hand.call(3)
    draw_served(hand, 1, ["7c", "4d", "2s"])
    assert hand.result()["draw_counts"] == {"rule": "003 Other rules governing the draw, 5", "mode": "dealer_only",
                                            "visible": {}}
    draw_served(hand, 2, ["9h"])
    draw_served(hand, 3, ["8s", "6h"])
    assert hand.result()["draw_counts"]["visible"] == {"3": 2}
    assert replay(hand.to_record())["draw_counts"] == hand.result()["draw_counts"]


@pytest.mark.parametrize("kind", sorted(REPORT_FIELDS))
def test_a_report_takes_only_its_kinds_fields(kind: str) -> None:
    takes = REPORT_FIELDS[kind] | {"kind", "by", "reason"}
    others = {"seat": 1, "card": "Ah", "cards": ["Ah"], "count": 1, "looked": "some", "choice": "drop", "seats": [1],
              "order": ["Ah"], "about": 1, "amount": 1, "to_pot": True, "shares": [1]}
    for name, value in others.items():
        if name in takes:
            Report(kind=kind, **{name: value})  # type: ignore[arg-type]
            continue
        with pytest.raises(ValidationError, match=f"does not take '{name}'"):
            Report(kind=kind, **{name: value})  # type: ignore[arg-type]
    published = {rule["if"]["properties"]["kind"]["const"]: set(rule["then"]["propertyNames"]["enum"])
                 for rule in schema()["$defs"]["Report"]["allOf"]}
    assert published[kind] == takes
