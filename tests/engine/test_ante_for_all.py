"""003 False openers 2, house option "ante for all": the false opener of a deal antes for everyone in the next.

The finished hand names him (`result()["next_deal"]`), `next_deal()` carries him to the next deal, the next
hand's record says so (`ante_for_all`), and the engine posts his ante for all instead of everyone's own.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from table_controller.engine.errors import ConfigError
from table_controller.engine.record import InvalidRecordError, parse_record, play, replay
from table_controller.engine.seating import next_deal

IRREGULAR = Path(__file__).resolve().parents[1] / "records" / "irregularities"
FALSE_OPENER = IRREGULAR / "003_false_openers_2_option_false_opener_antes_for_all_next_deal.json"
MISDEAL = IRREGULAR / "000_card_exposed_in_the_deal_misdeal_the_dealers_ante_for_all_returned_option.json"


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_the_false_opener_is_carried_to_the_next_deal() -> None:
    hand = play(parse_record(_load(FALSE_OPENER)))
    nd = next_deal(hand)
    assert nd.ante_for_all == 1
    assert nd.carried_pot == 5 and nd.button == 1


def test_without_the_option_nobody_antes_for_all() -> None:
    record = _load(FALSE_OPENER)
    record["game"]["options"] = {}
    assert next_deal(play(parse_record(record))).ante_for_all is None


def test_a_false_opener_who_leaves_is_not_carried() -> None:
    hand = play(parse_record(_load(FALSE_OPENER)))
    assert next_deal(hand, seats_next=[2, 3]).ante_for_all is None


def _next_hand() -> dict[str, Any]:
    first = _load(FALSE_OPENER)
    nd = next_deal(play(parse_record(first)))
    record = copy.deepcopy(first)
    record.update(button=nd.button, carried_pot=nd.carried_pot, passed_deals=nd.passed_deals,
                  ante_for_all=nd.ante_for_all, actions=[])
    record["seats"] = [{"seat": s, "name": f"P{s}", "stack": nd.stacks[s]} for s in sorted(nd.stacks)]
    return record


def test_the_penalised_seat_antes_for_everyone_and_the_others_nothing() -> None:
    record = _next_hand()
    hand = play(parse_record(record))
    forced = [(d["seat"], d["amount"], d["what"]) for d in (e.to_json() for e in hand.events) if d["event"] == "forced"]
    assert forced == [(1, 3, "ante_for_all")]
    assert hand.stacks() == {1: 94, 2: 99, 3: 99}
    assert hand.pot == 5 + 3
    assert hand.to_record()["ante_for_all"] == 1
    assert replay(hand.to_record()) == replay(record)


def test_a_misdeal_with_antes_returned_gives_the_penalty_back_to_its_payer() -> None:
    record = _load(MISDEAL)
    record["game"]["options"] = {"misdeal_antes": "return"}
    record["ante_for_all"] = 1  # not the button (seat 3)
    result = replay(record)
    assert result["status"] == "misdeal"
    assert result["stacks"] == {"1": 100, "2": 100, "3": 100}


def test_ante_for_all_must_be_a_seat_dealt_in() -> None:
    record = _next_hand()
    record["ante_for_all"] = 7
    with pytest.raises(InvalidRecordError) as exc:
        replay(record)
    assert "antes for all" in str(exc.value.problems)


def test_config_error_names_the_seat() -> None:
    from table_controller.engine.hand import Hand, SeatSpec
    from table_controller.engine.record import config_from_model

    config = config_from_model(parse_record(_next_hand()).game)
    with pytest.raises(ConfigError, match="seat 9"):
        Hand(config, [SeatSpec(seat=1, stack=10), SeatSpec(seat=2, stack=10)], 1, ante_for_all=9)
