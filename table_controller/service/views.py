"""Cutting the full table state (a :class:`FloorView`) down to what each role may see.

The rule is a whitelist: each narrower view is rebuilt field by field from the full state, so a field added
to the floor view later is not leaked by accident. Hole cards exist only on :class:`FloorSeat`; public and
dealer seats are rebuilt as :class:`PublicSeat`. Log lines marked ``secret`` (they name a hole card) are
dropped, and draw counts are withheld from the public when the house rule says players may not learn them.
"""

from __future__ import annotations

from table_controller.service.models import (
    BroadcastView,
    DealerView,
    FloorSeat,
    FloorView,
    PublicSeat,
    PublicView,
)

__all__ = ["broadcast_view", "dealer_view", "public_seat", "public_view"]

_PUBLIC_SEAT_FIELDS = tuple(PublicSeat.model_fields)
_PUBLIC_FIELDS = tuple(name for name in PublicView.model_fields if name not in {"seats", "log", "view"})
_DEALER_ONLY = tuple(name for name in DealerView.model_fields if name not in PublicView.model_fields)


def public_seat(seat: FloorSeat, *, show_draw: bool) -> PublicSeat:
    values = {name: getattr(seat, name) for name in _PUBLIC_SEAT_FIELDS}
    if not show_draw:
        values["drew"] = None
    return PublicSeat(**values)


def _public_values(full: FloorView, *, show_draw: bool) -> dict[str, object]:
    values: dict[str, object] = {name: getattr(full, name) for name in _PUBLIC_FIELDS}
    values["seats"] = tuple(public_seat(s, show_draw=show_draw) for s in full.seats)
    values["log"] = tuple(entry for entry in full.log if not entry.secret)
    return values


# What the public screen says while the table is stopped: never the security detail behind it.
PUBLIC_STOPPED = {"halted": "Floor called, hand paused", "paused": "Hand paused"}


def _public_message(full: FloorView) -> str:
    return PUBLIC_STOPPED.get(full.phase, full.message)


def public_view(full: FloorView) -> PublicView:
    """Stacks, bets, pots, whose turn, shown cards only; draw counts when the house rule allows. A halted
    or paused table says so in neutral words."""
    values = _public_values(full, show_draw=full.draw_counts_public)
    values["message"] = _public_message(full)
    return PublicView(view="public", **values)  # type: ignore[arg-type]


def dealer_view(full: FloorView) -> DealerView:
    """The public view plus prompts, legal actions and device status. The dealer always knows draw counts
    (he served them), but never a hole card."""
    values = _public_values(full, show_draw=True)
    for name in _DEALER_ONLY:
        values[name] = getattr(full, name)
    return DealerView(view="dealer", **values)  # type: ignore[arg-type]


def broadcast_view(full: FloorView, *, delay_s: float) -> BroadcastView:
    """The public view with hole cards, for a broadcast that shows them after ``delay_s`` seconds."""
    values = _public_values(full, show_draw=full.draw_counts_public)
    values["message"] = _public_message(full)
    values["seats"] = full.seats
    values["log"] = full.log
    return BroadcastView(view="broadcast", delay_s=delay_s, **values)  # type: ignore[arg-type]
