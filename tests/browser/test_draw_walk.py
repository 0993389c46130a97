"""One hand with a draw to a showdown, through the mouse alone, on a portrait dealer tablet: the dealer taps
the acts, the draw counts and "hand shown" (the camera reads the hand); the floor sees every card the players
may hold at every moment (after a draw entered as a count: the cards served, and the cards they held before as
candidates); the dealer's console never shows a hole card."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from table_controller.controller.camera import SimTableSource, TableCamera
from table_controller.controller.devices import VirtualShoe
from tests.browser.helpers import LiveServer, decision, serve, shot, taken

pytestmark = pytest.mark.browser

# Per seat tile on the floor view: its seat number, status classes, and the cards drawn with a face.
_FLOOR = """() => [...document.querySelectorAll('.tile')].map((t) => ({
  seat: Number(t.dataset.seat), folded: t.classList.contains('folded'), empty: t.classList.contains('empty'),
  faces: [...t.querySelectorAll('.card[data-code]')].map((c) => c.dataset.code),
  unknown: t.querySelectorAll('.card.unknown').length}))"""

# The cards drawn on the dealer's console, but for the 52-card grid on which the dealer taps a shown hand the
# camera could not read (it holds every card, so it tells nothing).
_CODES_OUTSIDE_PICKER = """() => [...document.querySelectorAll('[data-code]')]
  .filter((e) => !e.closest('.picker')).map((e) => e.dataset.code)"""


@pytest.fixture
def camera_table() -> Iterator[LiveServer]:
    shoe = VirtualShoe(seed=11)
    for server in serve(shoe, game={"form": "five_card_draw", "betting": "fixed_limit",
                                     "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}}):
        source = SimTableSource(server.table, seed=1, truth=lambda: list(shoe.dealt))
        camera = TableCamera(source, calibration=source.calibration(), period_s=0.25)
        server.table.camera = camera
        running = asyncio.run_coroutine_threadsafe(camera.run(server.table), server.loop)
        yield server
        running.cancel()


# Every card of every seat tile lies inside the tile.
_CARDS_INSIDE = """() => [...document.querySelectorAll('.tile')].every((t) => {
  const r = t.getBoundingClientRect();
  return [...t.querySelectorAll('.card')].every((c) => { const q = c.getBoundingClientRect();
    return q.left >= r.left - 0.5 && q.right <= r.right + 0.5 && q.top >= r.top - 0.5 && q.bottom <= r.bottom + 0.5; });
})"""


def _floor_sees_every_card(server: LiveServer, floor: Any) -> None:
    """Every card each player in the hand may hold is on the floor view, face up (no '?')."""
    deadline = time.monotonic() + 20
    while True:
        view = server.view()
        want = {s.seat: s for s in view.seats if s.status in ("active", "all_in") and s.cards}
        tiles = {t["seat"]: t for t in floor.evaluate(_FLOOR)}
        problems = []
        for seat, s in want.items():
            tile = tiles.get(seat)
            if tile is None:
                problems.append(f"seat {seat}: no tile on the floor view yet")
                continue
            known = [c for c in s.hole if c != "??"]
            candidates = list(s.candidates)
            if s.hole.count("??") and not candidates:
                problems.append(f"seat {seat}: {s.hole.count('??')} unknown cards and no candidates")
            if tile["unknown"] or sorted(tile["faces"]) != sorted(known + candidates):
                problems.append(f"seat {seat}: the floor shows {tile['faces']} ({tile['unknown']} '?'), the table "
                                f"knows {known} + candidates {candidates}")
        if not problems:
            return
        if time.monotonic() > deadline:
            raise AssertionError("; ".join(problems))
        time.sleep(0.05)


def _has_shown(server: LiveServer, seat: int) -> bool:
    return any(s.seat == seat and s.shown for s in server.view().seats)


def test_a_hand_with_a_draw_to_a_showdown_by_mouse(camera_table: LiveServer, browser: Any) -> None:
    server = camera_table
    for k, name in enumerate(["Ann", "Bo", "Cy"], start=1):
        assert server.api("POST", f"/api/tables/t1/seats/{k}", json={"name": name, "buy_in": 100}).status_code == 201
    dealer_ctx = browser.new_context(bypass_csp=True, viewport={"width": 768, "height": 1024}, has_touch=True)
    dealer = dealer_ctx.new_page()
    dealer.goto(server.base + "/dealer?token=dealer-tok-browser-1")
    floor_ctx = browser.new_context(bypass_csp=True, viewport={"width": 1366, "height": 768})
    floor = floor_ctx.new_page()
    floor.goto(server.base + "/floor?token=floor-tok-browser-1")
    dealer.get_by_test_id("start").click()
    dealer.locator("[data-testid^=act-]").first.wait_for(state="visible")
    floor.locator(".card[data-code]").nth(14).wait_for()
    counts = iter([2, 1, 3])
    shot_draw = shot_show = False
    shown = picked = read_by_camera = 0
    for _ in range(60):
        _floor_sees_every_card(server, floor)
        view = decision(dealer, server)
        if view is None:
            break
        console = dealer.locator("main").inner_text()
        on_console = set(dealer.evaluate(_CODES_OUTSIDE_PICKER))
        # The camera moves the table on by itself (a hand laid face up is read), so the console may already
        # show a hand that `view` still holds hidden: a card is a secret unless the table, asked after the
        # console was read, has it shown.
        after = server.view()
        secrets = {c for v in (view, after) for s in v.seats for c in (*s.hole, *s.candidates) if c != "??"}
        hidden = secrets - {c for s in after.seats for c in s.shown}
        leaked = hidden & on_console
        assert not leaked, f"hole cards on the dealer's console: {sorted(leaked)}"
        assert "??" not in console
        if view.draw is not None:
            dealer.get_by_test_id(f"draw-{min(next(counts, 0), view.draw.max_discard)}").click()
        elif any(a.act == "show" for a in view.legal):
            button = dealer.get_by_test_id("act-show")
            seat = view.to_act
            assert seat is not None
            if "??" in server.table.hand.hole(seat) if server.table.hand else False:
                assert "camera reads it" in button.inner_text()  # one tap, not five out of 52
            if not shot_show:
                shot(dealer, "walk-dealer-showdown")
                shot(floor, "walk-floor-showdown")
                shot_show = True
                # The floor's supervisor on a portrait tablet: the candidates fit their tiles too.
                tablet_ctx = browser.new_context(bypass_csp=True, viewport={"width": 768, "height": 1024},
                                                 has_touch=True)
                tablet = tablet_ctx.new_page()
                tablet.goto(server.base + "/floor?token=floor-tok-browser-1")
                _floor_sees_every_card(server, tablet)
                width = tablet.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
                assert width[0] <= width[1], f"the floor view scrolls sideways on a tablet: {width}"
                assert tablet.evaluate(_CARDS_INSIDE), "a card spills out of its seat tile"
                shot(tablet, "walk-floor-showdown-portrait")
                tablet_ctx.close()
            hand = server.table.hand
            assert hand is not None
            truth = [server.shoe.dealt[p] for p in hand.positions(seat)]
            button.click()
            picker = dealer.get_by_test_id("card-picker")
            # The tap is taken when the seat's hand is shown; the camera reading the hand meanwhile changes
            # the button's label, which is not the tap taken.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not _has_shown(server, seat) and not picker.count():
                time.sleep(0.05)
            if picker.count():  # the camera could not read the fanned hand yet: the dealer names the cards
                picked += 1
                for code in truth:
                    picker.locator(f"button.pick[data-code='{code}']").click()
                dealer.get_by_test_id("picker-ok").click()
            else:
                read_by_camera += 1
            deadline = time.monotonic() + 10
            while not _has_shown(server, seat):
                assert time.monotonic() < deadline, f"seat {seat}'s hand was never shown: {server.view().message}"
                time.sleep(0.05)
            shown += 1
            continue
        else:
            tid = "act-check" if any(a.act == "check" for a in view.legal) else "act-call"
            dealer.get_by_test_id(tid).click()
        taken(server, view)
        if view.draw is not None and not shot_draw and server.view().draw is None:
            shot(floor, "walk-floor-after-the-draw")
            shot_draw = True
    assert server.table.hand is None and not server.table.halted, server.view().message
    record = server.table.hand_record(1)
    assert record["actions"] and shown >= 2 and picked + read_by_camera == shown
    assert server.table.history()[-1].status == "complete"
    _floor_sees_every_card(server, floor)
    shot(floor, "walk-floor-hand-over")
    dealer_ctx.close()
    floor_ctx.close()
