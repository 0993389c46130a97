"""The transition table, its generated document, and exact (state, input, output) tables of the legal view."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, HouseOptions, Stakes
from table_controller.engine.errors import ConfigError, IllegalActionError, InvariantError
from table_controller.engine.hand import Hand, LegalActions, SeatSpec
from table_controller.engine.machine import TRANSITIONS, Phase, check_transition, render_markdown
from tests.engine.helpers import dealt

ROOT = Path(__file__).resolve().parents[2]
DECK = [card_str(c) for c in FULL_DECK]


def test_engine_states_doc_is_generated_from_the_table() -> None:
    doc = (ROOT / "docs" / "engine-states.md").read_text(encoding="utf-8")
    assert doc == render_markdown()


def test_every_trigger_is_a_method_of_the_hand() -> None:
    internal = {"start", "no_action"}
    for t in TRANSITIONS:
        if t.trigger in internal:
            continue
        name = {"raise": "raise_to"}.get(t.trigger, t.trigger)
        assert callable(getattr(Hand, name)), t.trigger
        assert callable(getattr(Hand, f"verify_{name}")), t.trigger


def test_every_phase_is_reachable_and_terminal_phases_lead_nowhere() -> None:
    targets = {p for t in TRANSITIONS for p in t.targets}
    assert targets == set(Phase)
    sources = {t.source for t in TRANSITIONS}
    assert Phase.COMPLETE not in sources and Phase.PASSED_OUT not in sources


def test_a_move_outside_the_table_is_an_internal_error() -> None:
    with pytest.raises(InvariantError):
        check_transition(Phase.DRAWING, "check", Phase.SHOWDOWN)


def _hand(betting: Betting, form: GameForm = GameForm.FIVE_CARD_DRAW, stacks: tuple[int, ...] = (100, 100, 100),
          **stakes: int) -> Hand:
    base = {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4, "min_bet": 2, "max_bet": 10, "blind": 1}
    base.update(stakes)
    config = GameConfig(form=form, betting=betting, stakes=Stakes(**base))
    seats = [SeatSpec(seat=k + 1, stack=s) for k, s in enumerate(stacks)]
    return dealt(Hand(config, seats, len(stacks), deck=DECK))


# (structure, acts before, expected legal view for the player to act)
TABLE = [
    (Betting.FIXED_LIMIT, [], LegalActions(phase=Phase.FIRST_BETTING, seat=1, acts=("check", "bet"), min_to=2,
                                           max_to=2)),
    (Betting.FIXED_LIMIT, [("bet", 1, 2)], LegalActions(phase=Phase.FIRST_BETTING, seat=2,
                                                        acts=("raise", "call", "fold"), call_amount=2, min_to=4,
                                                        max_to=4)),
    (Betting.NO_LIMIT, [], LegalActions(phase=Phase.FIRST_BETTING, seat=1, acts=("check", "bet"), min_to=2,
                                        max_to=99)),
    (Betting.NO_LIMIT, [("bet", 1, 10)], LegalActions(phase=Phase.FIRST_BETTING, seat=2,
                                                      acts=("raise", "call", "fold"), call_amount=10, min_to=20,
                                                      max_to=99)),
    (Betting.POT_LIMIT, [], LegalActions(phase=Phase.FIRST_BETTING, seat=1, acts=("check", "bet"), min_to=2,
                                         max_to=3)),
    (Betting.POT_LIMIT, [("bet", 1, 3)], LegalActions(phase=Phase.FIRST_BETTING, seat=2,
                                                      acts=("raise", "call", "fold"), call_amount=3, min_to=6,
                                                      max_to=12)),
    (Betting.SPREAD_LIMIT, [], LegalActions(phase=Phase.FIRST_BETTING, seat=1, acts=("check", "bet"), min_to=2,
                                            max_to=10)),
    (Betting.SPREAD_LIMIT, [("bet", 1, 6)], LegalActions(phase=Phase.FIRST_BETTING, seat=2,
                                                         acts=("raise", "call", "fold"), call_amount=6, min_to=12,
                                                         max_to=16)),
    (Betting.FIXED_LIMIT, [("check", 1, 0), ("check", 2, 0), ("check", 3, 0)],
     LegalActions(phase=Phase.DRAWING, seat=1, acts=("announce", "draw"), max_discard=4)),
]


@pytest.mark.parametrize("betting,acts,expected", TABLE)
def test_legal_view_exact(betting: Betting, acts: list[tuple[str, int, int]], expected: LegalActions) -> None:
    hand = _hand(betting)
    for act, seat, to in acts:
        if act == "bet":
            hand.bet(seat, to)
        else:
            hand.check(seat)
    assert hand.legal_actions() == expected


def test_all_in_for_less_than_a_full_bet_is_allowed_and_offered() -> None:
    hand = _hand(Betting.NO_LIMIT, stacks=(100, 6, 100))
    hand.bet(1, 10)
    legal = hand.legal_actions()
    assert legal.seat == 2 and legal.acts == ("call", "fold") and legal.call_amount == 5


def test_short_all_in_raise_reopens_only_for_players_who_had_not_acted() -> None:
    hand = _hand(Betting.NO_LIMIT, stacks=(100, 15, 100, 100))  # button 4: seats 1, 2, 3, 4 act in order
    hand.bet(1, 10)
    hand.raise_to(2, 14)  # all in, short of the full raise to 20
    assert hand.legal_actions().acts == ("raise", "call", "fold")  # seat 3 had not acted
    hand.call(3)
    hand.call(4)
    assert hand.legal_actions() == LegalActions(phase=Phase.FIRST_BETTING, seat=1, acts=("call", "fold"),
                                                call_amount=4)


def test_a_refused_act_changes_nothing() -> None:
    hand = _hand(Betting.FIXED_LIMIT)
    before = hand.result()
    attempts: list[Callable[[], object]] = [
        lambda: hand.bet(1, 3), lambda: hand.call(1), lambda: hand.check(2), lambda: hand.draw(1, []),
        lambda: hand.fold(1), lambda: hand.raise_to(1, 4), lambda: hand.show(1)]
    for bad in attempts:
        with pytest.raises(IllegalActionError) as exc:
            bad()
        assert exc.value.code
        assert hand.result() == before


@pytest.mark.parametrize("kwargs,problem", [
    ({"seats": [SeatSpec(seat=1, stack=5)]}, "2 to 8"),
    ({"seats": [SeatSpec(seat=1, stack=5), SeatSpec(seat=1, stack=5)]}, "twice"),
    ({"button": 9}, "button"),
    ({"deck": ["As", "As"]}, "twice"),
    ({"deck": ["Zz"]}, "bad card code"),
])
def test_unplayable_setups_are_config_errors(kwargs: dict[str, object], problem: str) -> None:
    args: dict[str, object] = {"seats": [SeatSpec(seat=1, stack=5), SeatSpec(seat=2, stack=5)], "button": 1}
    args.update(kwargs)
    config = GameConfig(form=GameForm.JACKPOTS, stakes=Stakes(small_bet=2, big_bet=4))
    with pytest.raises((ConfigError, ValueError), match=problem):
        Hand(config, args["seats"], args["button"], deck=args.get("deck"))  # type: ignore[arg-type]


def test_bad_configs_are_refused() -> None:
    with pytest.raises(ConfigError, match="small_bet"):
        GameConfig(form=GameForm.JACKPOTS)
    with pytest.raises(ConfigError, match="blind"):
        GameConfig(form=GameForm.BLIND_OPENING, betting=Betting.NO_LIMIT, stakes=Stakes(min_bet=2))
    with pytest.raises(ConfigError, match="draw_limit_six_plus"):
        GameConfig(stakes=Stakes(small_bet=2, big_bet=4), options=HouseOptions(draw_limit_six_plus=9))


def test_deal_is_one_card_at_a_time_from_the_dealers_left() -> None:
    hand = _hand(Betting.FIXED_LIMIT)  # button 3: seat 1 gets the 1st, 4th, 7th... card
    assert hand.hole_cards(1) == tuple(DECK[k] for k in (0, 3, 6, 9, 12))
    assert hand.hole_cards(3) == tuple(DECK[k] for k in (2, 5, 8, 11, 14))
