"""What a hand comes to, as the replay command prints it (:func:`result`), and the hand as its record
(:func:`to_record`, ``cardtable.hand/2``): both read from the deal's public state and its one event log.
"""

from __future__ import annotations

from typing import Any

from table_controller.engine import irregular as _irregular
from table_controller.engine.acts import INPUTS
from table_controller.engine.config import config_to_json
from table_controller.engine.events import PotAwarded
from table_controller.engine.hand_state import HandState
from table_controller.engine.legal import LegalActions

__all__ = ["result", "to_record"]


def result(hand: HandState, legal: LegalActions | None) -> dict[str, Any]:
    """The outcome as the replay command prints it (seats as string keys); ``legal``: the legal view of a hand
    not over (None when it is)."""
    hands: dict[str, Any] = {}
    for i in range(hand.n):
        hands[str(hand.seat_no[i])] = {
            "cards": list(hand.codes(hand.hands[i])),
            "folded": hand.folded[i],
            "mucked": hand.mucked[i],
            "foul": hand.foul[i],
            "held_out": list(hand.codes(hand.held[i])),
        }
    awards = [e.to_json() for e in hand.events if isinstance(e, PotAwarded)]
    result: dict[str, Any] = {
        "status": hand.status if hand.is_over else "incomplete",
        "stacks": {str(s): v for s, v in hand.stacks().items()},
        "carried_pot": hand.carried_pot,
        "pot": 0 if hand.is_over else hand.pot,
        "opener": hand.opener,
        "openers_proved": hand.openers_proved,
        "false_opener_case": hand.false_opener_case,
        "awards": awards,
        "hands": hands,
        "events": [e.to_json() for e in hand.events if not isinstance(e, INPUTS)],
    }
    result.update(_irregular.result_fields(hand))
    if legal is not None:  # a record that stops mid-hand: where it stands and what may come next
        result["phase"] = str(hand.phase)
        result["to_act"] = legal.seat
        result["legal"] = list(legal.acts)
    return result


def to_record(hand: HandState) -> dict[str, Any]:
    """This hand as a ``cardtable.hand/2`` record (the acts so far, the dealer's among them)."""
    return {
        "format": "cardtable.hand/2",
        "game": config_to_json(hand.config),
        "seats": [{"seat": s.seat, "name": s.name, "stack": s.stack} for s in hand.seats],
        "button": hand.seat_no[hand.button_index],
        "carried_pot": hand.carried_in,
        "passed_deals": hand.passed_deals,
        **({"ante_for_all": hand.ante_for_all} if hand.ante_for_all is not None else {}),
        "deck": list(hand.deck_codes),
        "actions": hand.actions,
    }
