"""Mapping the controller's domain views to the API's schemas, and cutting the full state down per role.

The controller returns frozen domain views (``table_controller.controller.views``); :func:`floor_view`,
:func:`table_summary` and :func:`hand_summaries` map them to this package's pydantic schemas
(``service.models``), validating them on the way. The functions below accept either form of the full state.

The rule is a whitelist: each narrower view is rebuilt field by field from the full state, so a field added
to the floor view later is not leaked by accident. Hole cards exist only on :class:`FloorSeat`; public and
dealer seats are rebuilt as :class:`PublicSeat`. Log lines marked ``secret`` (they name a hole card) are
dropped, and draw counts are withheld from the public when the house rule says players may not learn them.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from table_controller.controller import views as domain
from table_controller.service.models import (
    BroadcastView,
    DealerView,
    FloorSeat,
    FloorView,
    HandSummary,
    PublicSeat,
    PublicView,
    TableSummary,
)

__all__ = [
    "broadcast_view",
    "dealer_view",
    "floor_view",
    "hand_summaries",
    "public_seat",
    "public_view",
    "table_summary",
]

Full = domain.TableView | FloorView


def _attributes(view: Any) -> dict[str, Any]:
    return {f.name: getattr(view, f.name) for f in fields(view)}


def floor_view(full: Full) -> FloorView:
    """The full state as the API's floor schema (hole cards included: the floor's own view)."""
    if isinstance(full, FloorView):
        return full
    return FloorView.model_validate({**_attributes(full), "view": "floor"}, from_attributes=True)


def table_summary(summary: domain.TableSummary) -> TableSummary:
    return TableSummary.model_validate(summary, from_attributes=True)


def hand_summaries(history: list[domain.HandSummary]) -> list[HandSummary]:
    return [HandSummary.model_validate(h, from_attributes=True) for h in history]

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


def public_view(state: Full) -> PublicView:
    """Stacks, bets, pots, whose turn, shown cards only; draw counts when the house rule allows. A halted
    or paused table says so in neutral words."""
    full = floor_view(state)
    values = _public_values(full, show_draw=full.draw_counts_public)
    values["message"] = _public_message(full)
    return PublicView(view="public", **values)  # type: ignore[arg-type]


def dealer_view(state: Full) -> DealerView:
    """The public view plus prompts, legal actions and device status. The dealer always knows draw counts
    (he served them), but never a hole card."""
    full = floor_view(state)
    values = _public_values(full, show_draw=True)
    for name in _DEALER_ONLY:
        values[name] = getattr(full, name)
    return DealerView(view="dealer", **values)  # type: ignore[arg-type]


def broadcast_view(state: Full, *, delay_s: float) -> BroadcastView:
    """The public view with hole cards, for a broadcast that shows them after ``delay_s`` seconds."""
    full = floor_view(state)
    values = _public_values(full, show_draw=full.draw_counts_public)
    values["message"] = _public_message(full)
    values["seats"] = full.seats
    values["log"] = full.log
    return BroadcastView(view="broadcast", delay_s=delay_s, **values)  # type: ignore[arg-type]
