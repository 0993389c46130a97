"""The dealer's acts that take cards from the shoe: the deal, the burn and the service of the draw, each with
verify / can / do and its frozen events, fed by a shoe that delivers one card at a time; and the two record
versions (``cardtable.hand/2`` lists these acts, ``cardtable.hand/1`` is replayed taking them as they fall due)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.engine.acts import ActTaken
from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.engine.config import Betting, GameConfig, GameForm, Stakes
from table_controller.engine.errors import IllegalActionError
from table_controller.engine.events import Burned, CardsDealt, DrawServed
from table_controller.engine.hand import Hand, LegalActions, SeatSpec
from table_controller.engine.machine import Phase
from table_controller.engine.record import InvalidRecordError, ReplayError, parse_record, play, replay
from table_controller.engine.text import to_text

CODES = [card_str(c) for c in FULL_DECK]
CONFIG = GameConfig(form=GameForm.FIVE_CARD_DRAW, betting=Betting.FIXED_LIMIT,
                    stakes=Stakes(ante=1, small_bet=2, big_bet=4, cap=4))
RECORDS = Path(__file__).resolve().parents[1] / "records"


def _hand(players: int = 3) -> Hand:
    """A hand on a shoe that has delivered only the cards of the deal."""
    return Hand(CONFIG, [SeatSpec(seat=k + 1, stack=60) for k in range(players)], players,
                deck=CODES[:5 * players])


def _to_the_draw(hand: Hand) -> None:
    while hand.phase is not Phase.DRAWING:
        legal = hand.legal_actions()
        assert legal.seat is not None
        hand.check(legal.seat)


def test_the_hand_waits_for_the_dealers_deal() -> None:
    hand = _hand()
    assert hand.phase is Phase.DEALING and hand.pot == 3  # the antes are in, no card is dealt
    assert hand.legal_actions() == LegalActions(phase=Phase.DEALING, seat=None, acts=("deal",))
    assert hand.hole_cards(1) == ()
    assert hand.can_deal() and not hand.can_burn() and not hand.can_serve()
    with pytest.raises(IllegalActionError) as early:
        hand.check(1)
    assert early.value.code == "wrong_phase"
    events = hand.deal()
    assert events == [ActTaken(act="deal"), CardsDealt(order=(1, 2, 3), cards_each=5)]
    assert hand.hole_cards(1) == tuple(CODES[0:15:3])  # one at a time from the dealer's left
    assert hand.legal_actions().phase is Phase.FIRST_BETTING and hand.legal_actions().seat == 1
    assert not hand.can_deal()


def test_the_burn_and_the_service_follow_the_draw_as_the_shoe_delivers() -> None:
    hand = _hand()
    hand.deal()
    _to_the_draw(hand)
    thrown = list(hand.hole_cards(1)[:2])
    assert hand.shoe_cards_for_draw(1, 2) == ("burn", "deal", "deal")
    assert hand.draw(1, thrown) == [ActTaken(act="draw", seat=1, cards=tuple(thrown))]
    assert len(hand.hole_cards(1)) == 3  # thrown, not yet served
    assert hand.legal_actions() == LegalActions(phase=Phase.BURNING, seat=None, acts=("burn",))
    assert hand.shoe_cards_for_dealer() == ("burn",)  # the burn waits for its card only
    assert hand.can_burn() and not hand.can_serve() and not hand.can_draw(2, [])
    hand.deliver(CODES[15:16])
    assert hand.shoe_cards_for_dealer() == ()
    assert hand.burn() == [ActTaken(act="burn"), Burned(card=CODES[15])]
    assert hand.legal_actions() == LegalActions(phase=Phase.SERVING, seat=None, acts=("serve",))
    assert hand.shoe_cards_for_dealer() == ("deal", "deal")
    hand.deliver(CODES[16:17])
    assert hand.shoe_cards_for_dealer() == ("deal",)  # the service waits for its second card
    hand.deliver(CODES[17:18])
    assert hand.shoe_cards_for_dealer() == ()
    assert hand.serve() == [ActTaken(act="serve"),
                            DrawServed(seat=1, discards=tuple(thrown), served=tuple(CODES[16:18]), held_out=False)]
    assert hand.hole_cards(1)[-2:] == tuple(CODES[16:18])
    # Standing pat: no burn, and a service of nothing.
    assert hand.legal_actions().seat == 2 and hand.shoe_cards_for_draw(2, 0) == ()
    hand.draw(2, [])
    assert hand.phase is Phase.SERVING and hand.shoe_cards_for_dealer() == ()
    assert hand.dealer_acts() == [ActTaken(act="serve"), DrawServed(seat=2, discards=(), served=(), held_out=False)]
    # The burn is before the first card of the draw only.
    assert hand.shoe_cards_for_draw(3, 1) == ("deal",)
    hand.deliver(CODES[18:19])
    hand.draw(3, [hand.hole_cards(3)[0]])
    assert hand.phase is Phase.SERVING
    hand.serve()
    assert hand.legal_actions().phase is Phase.FINAL_BETTING
    assert [a["act"] for a in hand.actions][-7:] == ["draw", "burn", "serve", "draw", "serve", "draw", "serve"]


def test_a_new_record_lists_the_dealers_acts_and_replays_to_the_same_result() -> None:
    hand = _hand()
    hand.deal()
    _to_the_draw(hand)
    hand.deliver(CODES[15:18])
    hand.draw(1, list(hand.hole_cards(1)[:2]))
    hand.dealer_acts()
    record = hand.to_record()
    assert record["format"] == "cardtable.hand/2"
    assert [a for a in record["actions"] if "seat" not in a] == [{"act": "deal"}, {"act": "burn"}, {"act": "serve"}]
    assert replay(record) == hand.result()
    # A record that stops before the deal: the dealer's deal is what comes next.
    assert replay({**record, "actions": []})["legal"] == ["deal"]
    # A dealer's act out of its turn is refused like any act.
    with pytest.raises(ReplayError) as refused:
        replay({**record, "actions": [{"act": "deal"}, {"act": "burn"}]})
    assert (refused.value.action_index, refused.value.code) == (1, "wrong_phase")


def test_a_version_1_record_has_no_dealers_acts() -> None:
    data = json.loads((RECORDS / "003_the_draw_burn_before_the_draw.json").read_text(encoding="utf-8"))
    assert data["format"] == "cardtable.hand/1"
    old = replay(data)
    assert [e["event"] for e in old["events"]].count("burn") == 1
    with pytest.raises(InvalidRecordError) as invalid:
        replay({**data, "actions": [{"act": "deal"}, *data["actions"]]})
    assert "cardtable.hand/2" in invalid.value.problems[0]
    with pytest.raises(InvalidRecordError):
        replay({**data, "actions": [{"seat": 1, "act": "deal"}]})  # the dealer's act names no seat


def test_the_same_hand_in_both_versions_plays_to_the_same_result() -> None:
    """Every scripted record (version 1), written again by the engine (version 2, the dealer's acts listed),
    replays to the very same result."""
    for path in sorted(RECORDS.glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text(encoding="utf-8"))
        if expected["exit"] != 0:
            continue
        old = replay(json.loads(path.read_text(encoding="utf-8")))
        new = play(parse_record(json.loads(path.read_text(encoding="utf-8")))).to_record()
        assert new["format"] == "cardtable.hand/2"
        assert replay(new) == old, path.name


@pytest.mark.parametrize("version", ["cardtable.hand/1", "cardtable.hand/2"])
def test_a_table_event_sits_after_the_acts_before_it_in_the_text_history(version: str) -> None:
    """A halt noted after k acts comes after the events of those k acts, in either version (the acts entered are
    not lines of the history): after seat 1's draw, which in version 1 burnt and served too, and in version 2 is
    followed by the dealer's burn and service (the line of the draw is written with its service)."""
    data = json.loads((RECORDS / "003_the_draw_burn_before_the_draw.json").read_text(encoding="utf-8"))
    if version == "cardtable.hand/2":
        data = play(parse_record(data)).to_record()
    after = 5 if version == "cardtable.hand/2" else 4  # after seat 1's draw: the deal is the first act of hand/2
    assert data["actions"][after - 1]["act"] == "draw" and data["actions"][after - 1]["seat"] == 1
    data["table_events"] = [{"kind": "halt", "after_action": after, "text": "the floor looks at the stub"}]
    lines = to_text(data, replay(data)).splitlines()
    halt = next(k for k, line in enumerate(lines) if "the floor looks at the stub" in line)
    if version == "cardtable.hand/1":
        assert "Ann (seat 1) draws 1" in lines[halt - 1], lines[halt - 3:halt + 2]
    else:
        assert lines[halt + 1] == "The dealer burns a card", lines[halt - 3:halt + 3]
        assert lines[halt + 2].startswith("Ann (seat 1) draws 1")
