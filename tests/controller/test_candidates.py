"""After a draw entered as a count the floor keeps seeing what each player may hold: the cards served (certain)
and the cards he held before (he keeps some of them). A shown card that is neither is a security alert; the
dealer's view never carries a hole card or a candidate."""

from __future__ import annotations

import asyncio

import pytest

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.errors import NotAllowedError, TableError
from table_controller.controller.hand import EngineHand
from table_controller.controller.table import TableController
from table_controller.service.views import dealer_view, public_view
from tests.controller.helpers import make_table, seated

FIVE_CARD_DRAW = {"form": "five_card_draw", "betting": "fixed_limit",
                  "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}}


def _hand(table: TableController) -> EngineHand:
    assert table.hand is not None
    return table.hand


def _drawing(table: TableController) -> int:
    entry = table.full_view().draw
    assert entry is not None
    return entry.seat


def _acting(table: TableController) -> int:
    seat = table.full_view().to_act
    assert seat is not None
    return seat


async def _to_the_draw(seed: int = 3) -> tuple[TableController, VirtualShoe]:
    shoe = VirtualShoe(seed=seed)
    table = make_table(shoe=shoe, game=FIVE_CARD_DRAW)
    await seated(table, 2)
    await table.start_hand()
    for _ in range(4):  # check around: the draw follows
        view = table.full_view()
        if view.draw is not None:
            break
        await table.act(_acting(table), "check")
    return table, shoe


def test_the_floor_sees_candidates_and_a_foreign_shown_card_is_refused_or_halts() -> None:
    async def run() -> None:
        table, shoe = await _to_the_draw()
        seat = _drawing(table)
        before = _hand(table).hole(seat)
        await table.draw(seat, count=2)
        full = table.full_view()
        floor_seat = full.seats[seat - 1]
        assert floor_seat.candidates == before
        served = [c for c in floor_seat.hole if c != "??"]
        assert len(served) == 2 and floor_seat.hole.count("??") == 3
        assert not set(served) & set(before)
        dealer = dealer_view(full).model_dump_json()
        for card in (*before, *served):
            assert card not in dealer  # the dealer's console never holds a hole card
        assert "candidates" not in public_view(full).model_dump_json()
        log = " | ".join(e.text for e in full.log if e.secret)
        assert f"threw 2 of {' '.join(before)} (not named)" in log

        # The other seat stands pat; the betting after the draw is checked through to the showdown.
        while table.full_view().draw is not None:
            await table.draw(_drawing(table), count=0)
        for _ in range(4):
            view = table.full_view()
            if view.phase == "showdown" or not any(a.act == "check" for a in view.legal):
                break
            await table.act(_acting(table), "check")
        view = table.full_view()
        show_seat = view.to_act
        assert show_seat is not None and any(a.act == "show" for a in view.legal)
        if show_seat != seat:  # the seat that stood pat shows first: its cards are all known
            await table.act(show_seat, "show")
            view = table.full_view()
            assert view.to_act == seat
        held = set(_hand(table).hole(seat)) | set(before)
        foreign = next(c for c in shoe.dealt[::-1] if c not in held) if len(shoe.dealt) > 12 else None
        foreign = foreign or next(c for c in ("As", "Kd", "Qh", "Jc", "Ts") if c not in held)
        shown = (*served, *before[:2], foreign)
        # Typed by the dealer: refused with the one answer any unheld card gets, on record; the hand goes on.
        refused = table.refused_reports
        with pytest.raises(TableError) as caught:
            await table.act(seat, "show", cards=shown)
        assert caught.value.code == "card_not_in_hand" and table.refused_reports == refused + 1
        assert table.full_view().phase != "halted"
        # Read by the camera: the seat showed a card it cannot hold, a security alert that halts the hand.
        assert await table._halt_on_foreign_show(seat, shown)
        after = table.full_view()
        assert after.phase == "halted"
        alert = after.alerts[-1]
        assert alert.kind == "shown_card_mismatch" and alert.level == "security" and foreign in alert.message

    asyncio.run(run())


def test_the_true_hand_shown_settles_the_candidates() -> None:
    async def run() -> None:
        table, shoe = await _to_the_draw()
        seat = _drawing(table)
        positions = None
        await table.draw(seat, count=1)
        while table.full_view().draw is not None:
            await table.draw(_drawing(table), count=0)
        for _ in range(6):
            view = table.full_view()
            if table.hand is None:
                break
            if any(a.act == "show" for a in view.legal):
                s = _acting(table)
                positions = _hand(table).positions(s)
                truth = tuple(shoe.dealt[p] for p in positions)
                await table.act(s, "show", cards=truth if "??" in _hand(table).hole(s) else None)
            else:
                await table.act(_acting(table), "check")
        assert positions is not None
        assert not table.halted and table.hand is None
        assert table.history()[-1].status == "complete"

    asyncio.run(run())


def test_the_camera_reading_is_checked_against_the_candidates() -> None:
    async def run() -> None:
        table, _ = await _to_the_draw()
        seat = _drawing(table)
        before = _hand(table).hole(seat)
        await table.draw(seat, count=3)
        await table.camera_reading(seat, before[0], where="shown")  # one he may still hold: no alarm
        assert not table.halted
        held = set(_hand(table).hole(seat)) | set(before)
        foreign = next(c for c in ("As", "Kd", "Qh", "Jc", "Ts", "9s", "8d") if c not in held)
        await table.camera_reading(seat, foreign, where="shown")
        assert table.halted
        assert table.full_view().alerts[-1].kind == "camera_mismatch"

    asyncio.run(run())


class ReadingCamera:
    """A camera that has (or has not yet) read the hand laid face up at the showdown."""

    def __init__(self) -> None:
        self.read: dict[int, tuple[str, ...]] = {}

    def status(self) -> tuple[str, str]:
        return "live", "test camera"

    def shown_cards(self, seat: int, hand: int) -> tuple[str, ...] | None:
        return self.read.get(seat)


def test_hand_shown_is_one_tap_read_by_the_camera() -> None:
    async def run() -> None:
        table, shoe = await _to_the_draw()
        camera = ReadingCamera()
        table.camera = camera
        await table.draw(_drawing(table), count=2)
        while table.full_view().draw is not None:
            await table.draw(_drawing(table), count=2)
        while not any(a.act == "show" for a in table.full_view().legal):
            await table.act(_acting(table), "check")
        seat = _acting(table)
        show = next(a for a in table.full_view().legal if a.act == "show")
        assert show.label == "Hand shown · camera reads it" and show.needs_cards  # not read yet
        with pytest.raises(NotAllowedError) as refused:
            await table.act(seat, "show")  # laid out, but not read yet
        assert refused.value.code == "not_read_yet"
        camera.read[seat] = tuple(shoe.dealt[p] for p in _hand(table).positions(seat))
        show = next(a for a in table.full_view().legal if a.act == "show")
        assert show.label == "Hand shown (read by the camera)" and not show.needs_cards
        await table.act(seat, "show")
        assert not table.halted
        shown = next(s for s in table.full_view().seats if s.seat == seat)
        assert set(shown.shown) == set(camera.read[seat]) and not shown.candidates

    asyncio.run(run())
