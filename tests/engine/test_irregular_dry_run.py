"""The dry run of a report (``Hand.shoe_cards_for_report``): it changes nothing, and a hand fed by a live shoe
that delivers exactly the cards the dry runs ask for (and the draws', ``Hand.shoe_cards_for_draw``) plays
every act as the hand dealt from the whole deck: no card the shoe has not delivered leaves the stub, and the
fed hand ends exactly as the whole deck's, every card it holds, shows or mucks known.

Over every scripted hand record under tests/records and over random hands with random reports."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.engine.cards import FULL_DECK, UNKNOWN_CODE, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, Stakes
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import Event
from table_controller.engine.forced import HAND_SIZE
from table_controller.engine.hand import Hand, SeatSpec
from table_controller.engine.irregular import FLOOR_KINDS, Report
from table_controller.engine.machine import DEALER_ACTS, Phase
from table_controller.engine.piles import DECK_SIZE
from table_controller.engine.record import (
    FORMAT_V1,
    ActionModel,
    HandRecord,
    apply_action,
    apply_recorded,
    config_from_model,
    parse_record,
    start_hand,
)
from table_controller.engine.simulate import random_step
from tests.engine.helpers import random_hand, random_report

RECORDS = Path(__file__).resolve().parents[1] / "records"
REPORTS = ("irregularity", "floor_ruling")
FIVE_CARD_DRAW = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=Betting.FIXED_LIMIT,
                            stakes=Stakes(ante=1, small_bet=2, big_bet=4, cap=4))


def _with_reports(path: Path) -> bool:
    """A record (not bad input, exit 2) with a report among its acts."""
    if path.name.endswith(".expected.json") or \
            json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))["exit"] == 2:
        return False
    data = json.loads(path.read_text(encoding="utf-8"))
    return isinstance(data, dict) and any(isinstance(a, dict) and a.get("act") in REPORTS
                                          for a in data.get("actions") or ())


PATHS = sorted(p for p in RECORDS.rglob("*.json") if _with_reports(p))


def _state(hand: Hand) -> dict[str, Any]:
    """Every field of the hand, as plain values to compare (nothing is shared with the hand). A compiled hand
    (bench/native.py) lists its fields in ``__mypyc_attrs__``; the interpreted one has slots and a dict."""
    names: tuple[str, ...] | None = getattr(type(hand), "__mypyc_attrs__", None)
    if names is None:
        names = (*getattr(Hand, "__slots__"), *vars(hand))  # noqa: B009  (a compiled build has no __slots__)
    return {name: _plain(getattr(hand, name)) for name in names if name != "__dict__" and hasattr(hand, name)}


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, int | str | float | Enum):
        return value
    if isinstance(value, list | tuple):
        return type(value).__name__, tuple(map(_plain, value))
    if isinstance(value, dict):
        return "dict", tuple((key, _plain(item)) for key, item in value.items())
    if isinstance(value, set | frozenset):
        return "set", frozenset(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, Event):
        return type(value).__name__, tuple(_plain(getattr(value, f.name)) for f in dataclasses.fields(value))
    return "object", id(value)  # immutable by design: an event, the configuration, the betting structure


def _fed(config: GameConfig, seats: list[SeatSpec], button: int, deck: list[str], **kwargs: Any) -> Hand:
    """The hand as a live shoe starts it: only the cards of the deal delivered, waiting for the deal."""
    return Hand(config, seats, button, deck=deck[:HAND_SIZE * len(seats)], **kwargs)


def _play_fed(fed: Hand, deck: list[str], actions: list[ActionModel], *, v1: bool) -> int:
    """Play the acts on the fed hand, the shoe delivering before each what the engine asks for (the deck's next
    cards); checks each dry run and what the act took. Returns how many reports took cards from the shoe. ``v1``:
    the acts of a ``cardtable.hand/1`` record, without the dealer's, which are taken as they fall due."""
    taking = 0
    if v1:
        _dealer_acts(fed, deck)
    for action in actions:
        if fed.is_over:
            break
        report = action.report if action.act in REPORTS else None
        if report is not None:
            before = _state(fed)
            try:
                kinds = fed.shoe_cards_for_report(action.act, report)
            except IllegalActionError as refused:
                assert _state(fed) == before, "a refused dry run changed the hand"
                with pytest.raises(IllegalActionError) as applied:
                    apply_action(fed, action)
                assert applied.value.code == refused.code
                break
            assert _state(fed) == before, "the dry run changed the hand"
            assert set(kinds) <= {"deal"}  # no remedy burns a card
        elif action.act == "draw" and action.seat is not None:
            kinds = fed.shoe_cards_for_draw(action.seat, len(action.discard or ()))
        elif action.act in ("burn", "serve"):  # a service after a reshuffle may take the card never dealt
            kinds = fed.shoe_cards_for_dealer()
        else:
            kinds = ()
        if kinds:
            fed.deliver(deck[fed.delivered:fed.delivered + len(kinds)])
        apply_action(fed, action)
        if v1:
            _dealer_acts(fed, deck)
        assert fed.undelivered_in_stub() == DECK_SIZE - fed.delivered  # no card left the stub before it came
        taking += bool(kinds) and report is not None
    return taking


def _dealer_acts(fed: Hand, deck: list[str]) -> None:
    """The dealer's acts now due, each once the shoe has delivered what it asks for (a ``cardtable.hand/1`` record
    has none of them: they were steps of the start and of the draw)."""
    while fed.phase in DEALER_ACTS:
        kinds = fed.shoe_cards_for_dealer()
        fed.deliver(deck[fed.delivered:fed.delivered + len(kinds)])
        apply_action(fed, ActionModel.model_validate({"act": DEALER_ACTS[fed.phase]}))


def _deck(record: HandRecord) -> list[str]:
    return list(record.deck) if record.deck is not None else [UNKNOWN_CODE] * DECK_SIZE


def _scripted(path: Path) -> tuple[Hand, Hand, int]:
    """The record played on the whole deck, and on a fed hand (up to the act the record ends on, if illegal: a
    report's dry run must refuse it too); with how many reports took cards from the shoe."""
    record = parse_record(json.loads(path.read_text(encoding="utf-8")))
    whole = start_hand(record)
    played = list(record.actions)
    for k, action in enumerate(record.actions):
        try:
            apply_recorded(whole, record, action)
        except IllegalActionError:
            played = played[:k + 1] if action.act in REPORTS else played[:k]
            break
    deck = _deck(record)
    fed = _fed(config_from_model(record.game), [SeatSpec(seat=s.seat, name=s.name, stack=s.stack)
                                                  for s in record.seats], record.button, deck,
               carried_pot=record.carried_pot, passed_deals=record.passed_deals, ante_for_all=record.ante_for_all)
    taking = _play_fed(fed, deck, played, v1=record.format == FORMAT_V1)
    return fed, whole, taking


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_a_fed_hand_plays_each_scripted_report_as_the_whole_deck(path: Path) -> None:
    fed, whole, _ = _scripted(path)
    assert fed.result() == whole.result()


def test_the_scripted_reports_take_cards_from_the_shoe() -> None:
    """The records above are not all reports that take no card: several make the shoe deliver."""
    assert sum(_scripted(path)[2] for path in PATHS) >= 5


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rate=st.integers(1, 4))
def test_a_fed_hand_plays_random_reports_as_the_whole_deck(seed: int, rate: int) -> None:
    rng = random.Random(seed)
    whole, truth = random_hand(rng)
    for _ in range(400):
        if whole.is_over:
            break
        if rng.randrange(rate + 1) == 0:
            report = random_report(whole, rng, truth)
            with contextlib.suppress(IllegalActionError):  # a refused report: the hand plays on
                (whole.floor_ruling if report.kind in FLOOR_KINDS else whole.irregularity)(report)
        else:
            random_step(whole, rng, truth=truth)
    record = parse_record(whole.to_record())
    deck = _deck(record)
    fed = _fed(whole.config, list(whole.seats), record.button, deck, carried_pot=whole.carried_in,
               passed_deals=whole.passed_deals)
    _play_fed(fed, deck, list(record.actions), v1=False)
    assert fed.result() == whole.result()


def test_a_report_asks_the_shoe_for_the_cards_its_remedy_takes_for_good() -> None:
    """Too many cards dealt (000 Incorrect hand): the excess is the pack's next cards, out of the shoe. Seen, the
    hand is foul and the excess goes with it; too few, the missing card is his fifth, put back and dealt again
    (the shoe delivers nothing); a foul hand alone takes no card."""
    deck = [card_str(c) for c in FULL_DECK]
    fed = _fed(FIVE_CARD_DRAW, [SeatSpec(seat=s, stack=50) for s in (1, 2, 3)], 1, deck)
    fed.deal()
    assert fed.phase is Phase.FIRST_BETTING and fed.delivered == 15
    assert fed.shoe_cards_for_report("irregularity", Report(kind="too_few_in_deal", seat=2, count=1)) == ()
    assert fed.shoe_cards_for_report("irregularity", Report(kind="foul_hand", seat=2)) == ()
    seen = Report(kind="too_many_in_deal", seat=2, count=2, looked="all")
    before = _state(fed)
    assert fed.shoe_cards_for_report("irregularity", seen) == ("deal", "deal")
    assert _state(fed) == before
    fed.deliver(deck[15:17])
    fed.irregularity(seen)
    assert fed.hole_cards(2) == ()
    assert {15, 16} <= set(fed.muck_pile)
    assert fed.undelivered_in_stub() == DECK_SIZE - 17
