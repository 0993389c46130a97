"""A plain-text history of one hand, for people: who posted, who bet what, who drew how many, who won."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller.engine.acts import INPUTS
from table_controller.engine.books import cite
from table_controller.engine.errors import EngineError
from table_controller.engine.events import Event
from table_controller.engine.record import HandRecord, TableEventModel, apply_recorded, parse_record, start_hand

_FORCED = {"ante": "antes", "dealer_ante": "antes for everyone (dealer)",
           "ante_for_all": "antes for everyone (false-opener penalty)", "blind": "posts the blind",
           "straddle": "straddles", "blind_open": "opens blind", "block_ante": "antes for the block",
           "block_blind": "posts the block blind", "block_raise": "makes the compulsory raise"}


def to_text(record: HandRecord | Mapping[str, Any], result: Mapping[str, Any]) -> str:
    """The hand as lines of plain English, from its record and the result :func:`.record.replay` gave."""
    rec = record if isinstance(record, HandRecord) else parse_record(dict(record))
    names = {s.seat: (s.name or f"Seat {s.seat}") for s in rec.seats}

    def who(seat: int) -> str:
        return f"{names[seat]} (seat {seat})"

    game = rec.game
    lines = [f"{game.form.value.replace('_', ' ').title()}, {game.betting.value.replace('_', ' ')}",
             f"Button: {who(rec.button)}"]
    if rec.carried_pot:
        lines.append(f"Carried pot: {rec.carried_pot} (after {rec.passed_deals} passed deal(s))")
    lines += [f"{who(s.seat)}: {s.stack} chips" for s in sorted(rec.seats, key=lambda s: s.seat)]
    at_event = _table_events_by_event(rec)
    for index, e in enumerate(result["events"]):
        lines += [_table_line(t) for t in at_event.pop(index, [])]
        kind = e["event"]
        if kind == "forced":
            lines.append(f"{who(e['seat'])} {_FORCED.get(e['what'], e['what'])} {e['amount']}"
                         + (" and is all in" if e["all_in"] else ""))
        elif kind == "dealt":
            lines.append("*** Deal: five cards each, one at a time from the dealer's left ***")
        elif kind == "check":
            lines.append(f"{who(e['seat'])} checks")
        elif kind == "bet":
            verb = "opens for" if e["opens"] else "bets"
            lines.append(f"{who(e['seat'])} {verb} {e['to']}" + (" (all in)" if e["all_in"] else ""))
        elif kind == "call":
            lines.append(f"{who(e['seat'])} calls {e['amount']}" + (" (all in)" if e["all_in"] else ""))
        elif kind == "raise":
            lines.append(f"{who(e['seat'])} raises to {e['to']}" + (" (all in)" if e["all_in"] else ""))
        elif kind == "fold":
            lines.append(f"{who(e['seat'])} drops")
        elif kind == "interval_closed":
            lines.append(f"*** {'Draw' if e['interval'] == 'first' else 'Showdown'} (pot {e['pot']}) ***")
        elif kind == "burn":
            lines.append("The dealer burns a card")
        elif kind == "draw":
            count = len(e["discards"])
            held = " and keeps his discards under his chips" if e["held_out"] else ""
            lines.append(f"{who(e['seat'])} stands pat" if count == 0 else
                         f"{who(e['seat'])} draws {count}{held}")
        elif kind == "reshuffle":
            lines.append(f"The stub is out: the dealer shuffles {e['size']} cards for {who(e['for_seat'])}")
        elif kind == "show":
            lines.append(f"{who(e['seat'])} shows {' '.join(e['cards'])}: {e['description']}")
        elif kind == "muck":
            lines.append(f"{who(e['seat'])} concedes")
        elif kind == "openers":
            lines.append(f"{who(e['seat'])} {'proves' if e['proved'] else 'cannot prove'} openers ({cite(e['rule'])})")
        elif kind == "bet_returned":
            lines.append(f"{e['amount']} returned to {who(e['seat'])} ({e['reason']})")
        elif kind == "award":
            pot = "the pot" if e["pot_index"] == 0 else f"side pot {e['pot_index']}"
            shares = ", ".join(f"{who(s)} wins {a}" for s, a in zip(e["seats"], e["shares"], strict=True))
            split = " (split)" if len(e["seats"]) > 1 else ""
            lines.append(f"{shares} from {pot}{split}: {e['hand']}")
        elif kind == "carried":
            lines.append(f"{e['amount']} stays on the table for the next deal: {e['reason']}")
        elif kind == "straddle_declined":
            lines.append(f"{who(e['seat'])} declines to straddle")
    lines += [_table_line(t) for k in sorted(at_event) for t in at_event[k]]
    lines.append(f"Result: {result['status']}")
    lines += [f"{who(int(s))}: {v} chips" for s, v in result["stacks"].items()]
    return "\n".join(lines) + "\n"


_TABLE_KIND = {"halt": "HALT", "alert": "ALERT", "alert_ack": "ACKNOWLEDGED", "ruling": "FLOOR RULING",
               "device_fault": "DEVICE FAULT", "prompt_answer": "DEALER", "returned": "RETURNED TO THE SHOE"}


def _table_line(t: TableEventModel) -> str:
    """One halt, alert, acknowledgement, fault or ruling, with its time, as a line of the history."""
    when = ""
    if t.at_ms is not None:  # the time of day, UTC (the record holds milliseconds since the epoch)
        s = t.at_ms // 1000
        when = f"{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d} UTC "
    what = _TABLE_KIND[t.kind] + (f" ({t.level})" if t.level and t.kind == "alert" else "")
    by = f" by {t.by}" if t.by and t.kind == "ruling" else ""
    seat = f" at seat {t.seat}" if t.seat is not None and t.kind == "alert" else ""
    return f"[{when}{what}{by}{seat}] {cite(t.text)}"


def _outcomes(events: list[Event]) -> int:
    """How many of these events a result lists (the acts entered and the shoe's deliveries are inputs)."""
    return sum(1 for e in events if not isinstance(e, INPUTS))


def _table_events_by_event(rec: HandRecord) -> dict[int, list[TableEventModel]]:
    """The record's table events, keyed by the index of the game event they came before: one that happened
    after k acts comes after the events of those k acts (found by playing the acts one by one)."""
    if not rec.table_events:
        return {}
    ends: list[int] = []  # ends[k]: how many of the result's events (the inputs left out) the hand had after k acts
    try:
        hand = start_hand(rec)
        ends.append(_outcomes(hand.events))
        for action in rec.actions:
            apply_recorded(hand, rec, action)
            ends.append(_outcomes(hand.events))
    except EngineError:
        pass  # a record that does not replay whole: what is left goes after the last event
    placed: dict[int, list[TableEventModel]] = {}
    for t in rec.table_events:
        key = ends[t.after_action] if t.after_action < len(ends) else 1 << 30
        placed.setdefault(key, []).append(t)
    return placed
