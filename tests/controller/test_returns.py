"""A shoe that scans returned cards (capability RETURNS): each discard it names settles the floor's candidates
for the player who drew by a count; a returned card the table cannot account for is a security alert that
halts the hand; the returned cards are journaled, replayed after a restart and on the hand's record; the
dealer's and the public's screens never name one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from table_controller.cli import main
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.durable import DurableJournal
from table_controller.controller.hand import EngineHand
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.returns import RETURNED, Knowledge, judge
from table_controller.controller.table import TableController
from table_controller.service.settings import TableSettings
from table_controller.service.views import broadcast_view, dealer_view, public_view
from tests.controller.helpers import make_table, play, seated

FIVE_CARD_DRAW = {"form": "five_card_draw", "betting": "fixed_limit",
                  "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}}


def _hand(table: TableController) -> EngineHand:
    assert table.hand is not None
    return table.hand


def _acting(table: TableController) -> int:
    seat = table.full_view().to_act
    assert seat is not None
    return seat


def _drawing(table: TableController) -> int:
    entry = table.full_view().draw
    assert entry is not None
    return entry.seat


async def _to_the_draw(journal: MemoryJournal | None = None) -> tuple[TableController, VirtualShoe]:
    shoe = VirtualShoe(seed=3)
    table = make_table(shoe=shoe, game=FIVE_CARD_DRAW, journal=journal)
    await seated(table, 2)
    await table.start_hand()
    for _ in range(4):
        if table.full_view().draw is not None:
            break
        await table.act(_acting(table), "check")
    return table, shoe


def _secret_free(table: TableController, cards: set[str]) -> None:
    full = table.full_view()
    for view in (dealer_view(full), public_view(full)):
        text = view.model_dump_json()
        leaked = [c for c in cards if f'"{c}"' in text or f" {c}" in text]
        assert not leaked, f"{view.view} view names {leaked}"


def test_judge_names_discards_and_refuses_what_cannot_come_back() -> None:
    known = Knowledge(dealt=("As", "Kd", "Qh", "Jc", "Ts", "2c", "3c", "4c", "5c", "6c", "7d", "8d"),
                      live={1: ("??", "??", "??", "7d", "8d"), 2: ("2c", "3c", "4c", "5c", "6c")},
                      candidates={1: ("As", "Kd", "Qh", "Jc", "Ts")})
    assert judge("Kd", known).seat == 1 and judge("Kd", known).contradiction is None
    assert "live hand" in (judge("3c", known).contradiction or "")  # seat 2 still holds it
    assert "live hand" in (judge("8d", known).contradiction or "")  # served to seat 1 in the draw
    assert "never dealt" in (judge("9h", known).contradiction or "")
    assert judge("??", known).contradiction is None and judge("??", known).seat is None
    twice = Knowledge(dealt=known.dealt, live=known.live, candidates=known.candidates, returned=("Kd",))
    assert "second time" in (judge("Kd", twice).contradiction or "")
    # Seat 1 threw two of its five: a third one coming back cannot be.
    two_back = Knowledge(dealt=known.dealt, live=known.live, candidates=known.candidates, returned=("Kd", "As"))
    assert "one more" in (judge("Qh", two_back).contradiction or "")
    # A card the shoe could not read when dealt may be the one coming back, once.
    unread = Knowledge(dealt=("??", "Kd"), live={}, candidates={})
    assert judge("9h", unread).contradiction is None
    unread_back = Knowledge(dealt=("??", "Kd"), live={}, candidates={}, returned=("9h",))
    assert "never dealt" in (judge("8h", unread_back).contradiction or "")
    # A folded seat's cards are in the muck: they may come back.
    folded = Knowledge(dealt=known.dealt, live={1: known.live[1]}, candidates={})
    assert judge("3c", folded).contradiction is None


def test_discards_named_by_the_shoe_settle_the_floors_candidates() -> None:
    async def run() -> None:
        journal = MemoryJournal()
        table, _ = await _to_the_draw(journal)
        seat = _drawing(table)
        before = _hand(table).hole(seat)
        await table.draw(seat, count=2)
        full = table.full_view()
        assert full.seats[seat - 1].candidates == before
        served = tuple(c for c in full.seats[seat - 1].hole if c != "??")
        await table.take_returned(before[3], 101)
        assert table.full_view().seats[seat - 1].candidates == (*before[:3], before[4])
        await table.take_returned(before[0], 102)
        view = table.full_view()
        assert view.seats[seat - 1].candidates == before[1:3] + before[4:]  # settled: 3 left for 3 unknown
        assert view.phase != "halted" and not [a for a in view.alerts if a.kind == "returned_card"]
        log = " | ".join(e.text for e in view.log if e.secret)
        assert f"seat {seat} threw it; it holds {' '.join(before[1:3] + before[4:])}" in log
        _secret_free(table, {*before, *served})
        entries = [e.data for e in journal.entries() if e.kind == RETURNED]
        assert [(e["code"], e["seat"], e["deck"]) for e in entries] == [(before[3], seat, "this"),
                                                                       (before[0], seat, "this")]

        # A restarted controller replays the journal to the same knowledge.
        again = TableController(table.settings, shoe=VirtualShoe(seed=3), journal=journal)
        again.recover()
        assert again.full_view().seats[seat - 1].candidates == view.seats[seat - 1].candidates
        assert again.returns.cards == [before[3], before[0]]

        # The hand played out: its record carries the returned cards among its table events.
        while table.full_view().draw is not None:
            await table.draw(_drawing(table), count=0)
        for _ in range(8):
            if table.hand is None:
                break
            v = table.full_view()
            s = _acting(table)
            if any(a.act == "show" for a in v.legal):
                hole = _hand(table).hole(s)
                shown = (*served, *before[1:3], before[4]) if "??" in hole else None
                await table.act(s, "show", cards=shown)
            else:
                await table.act(s, "check")
        assert table.hand is None and not table.halted
        record = table.hand_record(table.hand_no)
        returned = [e for e in record["table_events"] if e["kind"] == "returned"]
        assert [(e["card"], e["seat"]) for e in returned] == [(before[3], seat), (before[0], seat)]
        assert before[3] in table.hand_story(table.hand_no)

    asyncio.run(run())


def test_a_card_still_in_a_live_hand_coming_back_halts_with_a_security_alert() -> None:
    async def run() -> None:
        journal = MemoryJournal()
        table, _ = await _to_the_draw(journal)
        other = next(s for s in _hand(table).seat_info() if s != _drawing(table))
        held = _hand(table).hole(other)
        await table.take_returned(held[2], 200)
        view = table.full_view()
        assert view.phase == "halted"
        alert = view.alerts[-1]
        assert alert.kind == "returned_card" and alert.level == "security" and held[2] in alert.message
        _secret_free(table, set(held))
        assert "cannot account for" in dealer_view(view).message
        assert public_view(view).message == "Floor called, hand paused"
        assert held[2] not in broadcast_view(view, delay_s=30).message
        kinds = [e.kind for e in journal.entries()]
        assert kinds[-3:] == [RETURNED, "alert", "halt"]

    asyncio.run(run())


def test_a_card_never_dealt_coming_back_is_an_alert_and_the_last_decks_muck_is_judged_apart() -> None:
    async def run() -> None:
        table, shoe = await _to_the_draw()
        stranger = next(c for c in ("As", "Kd", "Qh", "Jc", "Ts", "9s", "8s") if c not in shoe.dealt)
        await table.take_returned(stranger, 300)
        view = table.full_view()
        assert view.phase == "halted" and "never dealt" in view.alerts[-1].message

        # The hand is voided; the next hand starts. The last hand's muck still scanned before this deck's
        # check (an event number below its mark) is judged against the last deck: no alarm for its cards.
        await table.void_in_play("test over", by="floor")
        last = list(shoe.dealt)
        await table.start_hand()
        table._deck_mark = 1000
        before_alerts = len(table.full_view().alerts)
        await table.take_returned(last[0], 999)
        assert len(table.full_view().alerts) == before_alerts and not table.halted
        assert table.returns.cards == []  # nothing came back from this hand's deck

    asyncio.run(run())


def test_a_shoe_without_the_scanner_changes_nothing() -> None:
    async def run() -> None:
        table, _ = await _to_the_draw()
        seat = _drawing(table)
        before = _hand(table).hole(seat)
        await table.draw(seat, count=2)
        assert table.full_view().seats[seat - 1].candidates == before
        assert table.returns.cards == []

    asyncio.run(run())


def test_the_simulated_shoe_reads_the_discards_and_the_floor_settles() -> None:
    """End to end over the protocol: the simulator on a pty, the bridge's client, the shoe link's listener."""
    from table_controller.controller.runtime import close_table, open_table
    from table_controller.service.settings import TableSettings

    async def run() -> None:
        settings = TableSettings(pace_s=0, broadcast_delay_s=0, game=FIVE_CARD_DRAW)  # type: ignore[arg-type]
        opened = await open_table(settings, seed=4, fast=True, memory_journal=True, camera=False)
        try:
            table = opened.controller
            assert opened.simulator is not None and getattr(opened.shoe, "scans_returns", False)
            assert "scans returned cards" in table.full_view().device.shoe_detail
            await seated(table, 2)
            await table.start_hand()
            for _ in range(4):
                if table.full_view().draw is not None:
                    break
                await table.act(_acting(table), "check")
            seat = _drawing(table)
            before = _hand(table).hole(seat)
            await table.draw(seat, count=2)
            opened.simulator.control.return_cards([before[1], before[4]])
            loop = asyncio.get_running_loop()
            end = loop.time() + 10
            while len(table.returns.cards) < 2 and loop.time() < end:
                await asyncio.sleep(0.01)
            assert table.returns.cards == [before[1], before[4]]
            view = table.full_view()
            assert view.seats[seat - 1].candidates == (before[0], before[2], before[3])
            assert view.phase != "halted"
            # The last hand's muck loaded back between hands: no alarm, and the next shuffle waits for it.
            await table.void_in_play("test over", by="floor")
            out = [c for c in (opened.simulator.control.cards_out()) if c.face is not None]
            from firmware_bridge.cards import card_code

            opened.simulator.control.return_cards([card_code(c.face) for c in out[:3]])
            await table.start_hand()
            assert table.full_view().phase == "betting"
            end = loop.time() + 10
            while len(table.full_view().alerts) == 0 and loop.time() < end and len(
                    [e for e in table.full_view().log if "coming back" in e.text]) < 5:
                await asyncio.sleep(0.01)
            assert not [a for a in table.full_view().alerts if a.kind == "returned_card"]
            assert len([e for e in table.full_view().log if "coming back" in e.text]) == 5
        finally:
            await close_table(opened)

    asyncio.run(run())


def test_the_muck_coming_back_after_the_hand_is_on_its_record_and_its_export(tmp_path: Path) -> None:
    data = tmp_path / "data"
    dealt: list[str] = []

    async def run() -> None:
        journal = DurableJournal.open("t1", data_dir=data)
        try:
            shoe = VirtualShoe(seed=3)
            table = TableController(TableSettings(pace_s=0, game=FIVE_CARD_DRAW),  # type: ignore[arg-type]
                                    shoe=shoe, journal=journal)
            await seated(table, 3)
            await play(table, 1)
            assert table.hand is None and table.hand_no == 1
            dealt.extend(shoe.dealt)
            for code in dealt[:2]:
                await table.take_returned(code, None)
            assert not table.halted and not [a for a in table.full_view().alerts if a.kind == "returned_card"]
            late = [e for e in table.hand_record(1)["table_events"] if e["kind"] == "returned"]
            assert [e["card"] for e in late] == dealt[:2] and all("after the hand" in e["text"] for e in late)
            assert f"RETURNED TO THE SHOE] after the hand, the shoe read {dealt[0]}" in table.hand_story(1)
            # A card of no deck of this table coming back between hands: alert, but no hand to halt.
            stranger = next(c for c in ("As", "Kd", "Qh", "Jc", "Ts", "9s", "8s", "7s") if c not in dealt)
            await table.take_returned(stranger, None)
            assert table.full_view().alerts[-1].kind == "returned_card" and not table.halted
            again = TableController(table.settings, shoe=VirtualShoe(seed=3), journal=journal)
            again.recover()
            assert again.hand_record(1) == table.hand_record(1)
        finally:
            journal.close()

    asyncio.run(run())
    out = tmp_path / "text"
    assert main(["history", "export", "--data", str(data), "--format", "text", "--out", str(out)]) == 0
    (story,) = [p.read_text() for p in out.iterdir()]
    assert f"after the hand, the shoe read {dealt[0]} coming back" in story
    assert f"after the hand, the shoe read {dealt[1]} coming back" in story


def test_the_shoe_link_passes_each_returned_card_on_and_outlives_a_failing_listener() -> None:
    from firmware_bridge.driver import ShoeClient
    from hardware_sim.shoe import MemoryLink, ShoeSimulator, SimTimings
    from hardware_sim.virtual_clock import run_virtual
    from table_controller.controller.shoe_link import ShoeLink

    heard: list[tuple[str | None, int]] = []

    async def listener(code: str | None, number: int) -> None:
        heard.append((code, number))
        if len(heard) == 1:
            raise RuntimeError("the journal is full")

    async def run(scan: bool) -> tuple[bool, list[str], list[str]]:
        sim = ShoeSimulator(seed=2, timings=SimTimings.fast(), scan_returns=scan)
        link = ShoeLink(ShoeClient(lambda: MemoryLink(sim)))
        await link.connect()
        try:
            link.listen_returns(listener)
            await link.shuffle()
            await link.verify()
            dealt = [(await link.deal()).code for _ in range(3)]
            sim.control.return_cards(dealt[:2])
            await asyncio.sleep(0.2)
            return link.scans_returns, dealt, list(link.listener_errors)
        finally:
            await link.close()

    scans, dealt, errors = run_virtual(run(True), timeout=30)
    assert scans and [code for code, _ in heard] == dealt[:2]
    assert errors == ["RuntimeError: the journal is full"]  # kept, and the next card was still heard
    assert heard[0][1] < heard[1][1]  # the shoe's event numbers, in order
    heard.clear()
    scans, _, _ = run_virtual(run(False), timeout=30)
    assert not scans and heard == []
