"""Writers of a hand in other formats: the Poker Hand History (PHH, TOML) and a plain-text history.

PHH has no code for five-card draw high, so we use our own variant codes, documented in
docs/hand-record.md: ``F5CD`` (fixed limit), ``S5CD`` (spread limit), ``P5CD`` (pot limit), ``N5CD`` (no
limit), all "five-card draw, high hand, one draw". Players ``p1``.. are in PHH order: the first player left
of the button is ``p1``, the button is last. What PHH cannot say (the form, the house options, the seat
numbers, the carried pot, the burn cards, reshuffles, the openers verdict, the irregularities and floor rulings
with the rule each applied, the status of the deal, and the table's halts, alerts, acknowledgements, device
faults and floor rulings around the acts: ``_table_events``) is in
fields whose names start with an underscore, as PHH allows for user-defined fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from table_controller.engine.config import Betting
from table_controller.engine.record import HandRecord, parse_record, play
from table_controller.engine.text import to_text

__all__ = ["VARIANTS", "to_phh", "to_text"]  # to_text lives in .text; `history export` finds both here

VARIANTS = {Betting.FIXED_LIMIT: "F5CD", Betting.SPREAD_LIMIT: "S5CD", Betting.POT_LIMIT: "P5CD",
            Betting.NO_LIMIT: "N5CD"}


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if value is None:
        return '""'
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return "[" + ", ".join(_toml(v) for v in value) + "]"


def _as_record(record: HandRecord | Mapping[str, Any]) -> HandRecord:
    return record if isinstance(record, HandRecord) else parse_record(dict(record))


def to_phh(record: HandRecord | Mapping[str, Any]) -> str:
    """The hand as a PHH (TOML) document. Raises the record errors of :mod:`.record` for a bad record."""
    rec = _as_record(record)
    hand = play(rec)
    numbers = sorted(s.seat for s in rec.seats)
    b = numbers.index(rec.button)
    order = numbers[b + 1:] + numbers[: b + 1]  # PHH order: left of the button first, the button last
    player = {seat: f"p{k + 1}" for k, seat in enumerate(order)}
    by_seat = {s.seat: s for s in rec.seats}
    antes = dict.fromkeys(order, 0)
    blinds = dict.fromkeys(order, 0)
    actions: list[str] = []
    burned: list[str] = []
    reshuffles: list[int] = []
    mucked: list[int] = []
    irregularities: list[dict[str, Any]] = []
    rulings: list[dict[str, Any]] = []
    for event in hand.events:
        e = event.to_json()
        kind = e["event"]
        if kind == "forced":
            if e["what"] in ("ante", "dealer_ante", "ante_for_all", "block_ante"):
                antes[e["seat"]] += e["amount"]
            else:
                blinds[e["seat"]] += e["amount"]
        elif kind == "dealt":
            for seat in order:
                actions.append(f"d dh {player[seat]} {''.join(_dealt(hand, rec, seat))}")
        elif kind in ("check", "call"):
            actions.append(f"{player[e['seat']]} cc")
        elif kind in ("bet", "raise"):
            actions.append(f"{player[e['seat']]} cbr {e['to']}")
        elif kind == "fold":
            actions.append(f"{player[e['seat']]} f")
        elif kind == "burn":
            burned.append(e["card"])
        elif kind == "draw":
            who = player[e["seat"]]
            actions.append(f"{who} sd {''.join(e['discards'])}".rstrip())
            if e["served"]:
                actions.append(f"d dh {who} {''.join(e['served'])}")
        elif kind == "reshuffle":
            reshuffles.append(e["size"])
        elif kind == "show":
            actions.append(f"{player[e['seat']]} sm {''.join(e['cards'])}")
        elif kind == "muck":
            mucked.append(e["seat"])
        elif kind == "replacement":  # cards owed after the draw (an exposed card replaced, a short draw made up)
            if e["cards"]:
                actions.append(f"d dh {player[e['seat']]} {''.join(e['cards'])}")
        elif kind in ("irregularity", "mixed_shuffle", "draw_count"):
            irregularities.append({k: v for k, v in e.items() if v is not None and v != []})
        elif kind == "floor_ruling":
            rulings.append({k: v for k, v in e.items() if v is not None})
    result = hand.result()
    fields: list[tuple[str, Any]] = [
        ("variant", VARIANTS[rec.game.betting]),
        ("ante_trimming_status", True),
        ("antes", [antes[s] for s in order]),
        ("blinds_or_straddles", [blinds[s] for s in order]),
        ("starting_stacks", [by_seat[s].stack for s in order]),
        ("actions", actions),
        ("players", [by_seat[s].name or f"Seat {s}" for s in order]),
        ("seats", order),
        ("finishing_stacks", [result["stacks"][str(s)] for s in order]),
    ]
    st = rec.game.stakes
    if rec.game.betting is Betting.FIXED_LIMIT:
        fields += [("small_bet", st.small_bet), ("big_bet", st.big_bet)]
    else:
        fields.append(("min_bet", st.min_bet))
    fields += [
        ("_format", "cardtable.phh/1"),
        ("_form", rec.game.form.value),
        ("_betting", rec.game.betting.value),
        ("_stakes", rec.game.stakes.model_dump(exclude_defaults=True)),
        ("_options", rec.game.options.model_dump(mode="json", exclude_defaults=True)),
        ("_button_seat", rec.button),
        ("_carried_pot", rec.carried_pot),
        ("_passed_deals", rec.passed_deals),
        ("_burned", burned),
        ("_reshuffles", reshuffles),
        ("_mucked_seats", mucked),
        ("_irregularities", irregularities),
        ("_floor_rulings", rulings),
        ("_table_events", [t.model_dump(exclude_none=True) for t in rec.table_events]),
        ("_status", result["status"]),
        ("_carried_pot_after", result["carried_pot"]),
    ]
    if result["opener"] is not None:
        fields.append(("_opener_seat", result["opener"]))
    if result["openers_proved"] is not None:
        fields.append(("_openers_proved", result["openers_proved"]))
    if result["false_opener_case"] is not None:
        fields.append(("_false_opener_case", result["false_opener_case"]))
    optional = ("_irregularities", "_floor_rulings", "_table_events")  # written only for irregular hands
    lines = [f"{key} = {_toml(value)}" for key, value in fields if value != {} and not (key in optional and not value)]
    return "\n".join(lines) + "\n"


def _dealt(hand: Any, rec: HandRecord, seat: int) -> list[str]:
    """The five cards first dealt to a seat, in the order dealt ("??" where the table did not read them)."""
    numbers = sorted(s.seat for s in rec.seats)
    n = len(numbers)
    b = numbers.index(rec.button)
    k = (numbers.index(seat) - b - 1) % n
    deck = list(rec.deck) + ["??"] * (52 - len(rec.deck))
    known = hand.card_identities()
    return [known[k + n * r] for r in range(5)] if known else [deck[k + n * r] for r in range(5)]
