"""The screens in a real browser: the start page, the dealer console playing a hand, the public display
and the floor view; screenshots are kept under test-artifacts/browser/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.helpers import LiveServer, decision, shot, taken

pytestmark = pytest.mark.browser


def _seat(server: LiveServer, players: int = 4) -> None:
    for k, name in enumerate(["Ann", "Bo", "Cy", "Dee", "Eli", "Fay"][:players], start=1):
        assert server.api("POST", f"/api/tables/t1/seats/{k}", json={"name": name, "buy_in": 100}).status_code == 201


def test_start_page_links_every_screen(live_server: LiveServer, page: Any) -> None:
    page.goto(live_server.base + "/")
    for screen in ("table", "dealer", "floor", "camera", "broadcast", "docs"):
        link = page.get_by_test_id(f"link-{screen}")
        assert link.is_visible()
        assert link.get_attribute("href") == f"/{screen}"
    page.wait_for_function("document.getElementById('tables').textContent.includes('Table 1')")
    shot(page, "start-page")


def _click_first(page: Any, testids: list[str]) -> str | None:
    for tid in testids:
        loc = page.get_by_test_id(tid)
        if loc.count() and loc.first.is_visible():
            loc.first.click()
            return tid
    return None


def test_dealer_console_plays_a_whole_hand(live_server: LiveServer, page: Any, browser: Any) -> None:
    _seat(live_server)
    page.goto(live_server.base + "/dealer?token=dealer-tok-browser-1")
    page.get_by_test_id("start").wait_for(state="visible")
    assert "token" not in page.url  # the token leaves the address bar
    shot(page, "dealer-waiting")
    page.get_by_test_id("start").click()
    page.locator("[data-testid^=act-]").first.wait_for(state="visible")
    shot(page, "dealer-first-betting")
    # Buttons carry the amounts (fixed limit: bet 2 before the draw).
    labels = page.locator("#actions button").all_inner_texts()
    assert any(label.startswith(("Check", "Call", "Bet")) for label in labels)

    public = browser.new_context(bypass_csp=True, viewport={"width": 1366, "height": 800}).new_page()
    public.goto(live_server.base + "/table")
    public.locator(".seat.turn").wait_for(state="visible")
    assert public.locator(".card[data-code]").count() == 0  # no face of a hole card on the public display
    shot(public, "table-display")

    floor = browser.new_context(bypass_csp=True, viewport={"width": 1366, "height": 900}).new_page()
    floor.goto(live_server.base + "/floor?token=floor-tok-browser-1")
    floor.locator(".card[data-code]").first.wait_for(state="visible")
    assert floor.locator(".card[data-code]").count() == 20  # four players, five cards each
    shot(floor, "floor-view")

    drew = False
    for hand_no in range(8):  # play hands until one reaches the draw (nobody may open the first)
        if hand_no:
            page.get_by_test_id("start").click()
            page.locator("[data-testid^=act-]").first.wait_for(state="visible")
        for _ in range(80):
            view = decision(page, live_server)
            if view is None:
                break
            if view.draw is not None:
                if not drew:
                    shot(page, "dealer-draw-entry")
                    drew = True
                page.get_by_test_id("draw-0").click()
            else:
                clicked = _click_first(page, ["act-bet", "act-call", "act-check", "act-show", "act-raise"])
                assert clicked is not None, page.content()[:2000]
            taken(live_server, view)
        assert live_server.table.hand is None
        page.get_by_test_id("start").wait_for(state="visible")
        if drew:
            break
    assert drew, "no hand reached the draw"
    shot(page, "dealer-hand-over")
    public.wait_for_function("document.querySelector('[data-testid=phase]').textContent.includes('Hand over')")
    shot(public, "table-display-showdown")
    assert live_server.table.history()[-1].status in ("complete", "passed_out")


def test_dealer_sees_prompts_and_errors(live_server: LiveServer, page: Any) -> None:
    _seat(live_server, 3)
    page.goto(live_server.base + "/dealer?token=dealer-tok-browser-1")
    page.get_by_test_id("start").wait_for(state="visible")
    live_server.shoe.inject_fault("door open")
    page.get_by_test_id("start").click()
    page.get_by_test_id("prompt").wait_for(state="visible")
    assert "door open" in page.get_by_test_id("prompt").inner_text()
    shot(page, "dealer-device-prompt")
    live_server.shoe.inject_fault(None)
    page.get_by_test_id("prompt-retry").click()
    page.locator("[data-testid^=act-]").first.wait_for(state="visible")
    assert page.get_by_test_id("prompt").count() == 0
    # An irregularity button shows the rule it applies.
    irr = page.get_by_test_id("irr-exposed_in_deal")
    assert "Draw Poker Rules · Card exposed in the deal" in irr.inner_text()  # the book by its title
    shot(page, "dealer-irregularities")


def test_screens_without_a_token_ask_for_it(live_server: LiveServer, page: Any) -> None:
    _seat(live_server, 2)
    assert live_server.api("POST", "/api/tables/t1/hand").status_code == 201
    page.goto(live_server.base + "/floor")
    page.locator("#conn.down").wait_for()
    page.wait_for_function("document.getElementById('conn').textContent.includes('token refused')")
    assert page.locator(".card[data-code]").count() == 0
    form = page.get_by_test_id("token-form")
    form.wait_for(state="visible")
    assert "needs the floor token" in page.get_by_test_id("token-why").inner_text()
    shot(page, "token-form")
    page.get_by_test_id("token-input").fill("dealer-tok-browser-1")  # a token, but not the floor's
    page.get_by_test_id("token-ok").click()
    page.wait_for_function("document.querySelector('[data-testid=token-why]')?.textContent.includes('does not open')")
    assert page.locator(".card[data-code]").count() == 0
    page.get_by_test_id("token-input").fill("floor-tok-browser-1")
    page.get_by_test_id("token-ok").click()
    page.locator(".card[data-code]").first.wait_for(state="visible")
    assert page.locator(".card[data-code]").count() == 10
    assert page.get_by_test_id("token-form").count() == 0


def test_camera_view_without_a_token_asks_for_it(live_server: LiveServer, page: Any) -> None:
    page.goto(live_server.base + "/camera")
    page.get_by_test_id("token-form").wait_for(state="visible")
    assert "floor (or dealer) token" in page.get_by_test_id("token-form").inner_text()


def test_camera_view_without_a_camera_says_so(live_server: LiveServer, page: Any) -> None:
    page.goto(live_server.base + "/camera?token=floor-tok-browser-1")
    page.locator("#no-frame").wait_for(state="visible")
    assert "No camera frame" in page.locator("#no-frame").inner_text()


def test_camera_view_shows_the_frame_with_detections(live_server: LiveServer, page: Any) -> None:
    from table_controller.controller.camera import SimTableSource, TableCamera

    _seat(live_server, 3)
    assert live_server.api("POST", "/api/tables/t1/hand").status_code == 201
    source = SimTableSource(live_server.table, seed=2)
    camera = TableCamera(source, calibration=source.calibration())
    live_server.table.camera = camera
    assert live_server.call(camera.step(live_server.table))
    page.goto(live_server.base + "/camera?token=floor-tok-browser-1")
    page.wait_for_function("document.getElementById('frame').naturalWidth > 0")
    page.locator("#dets tr").nth(1).wait_for()
    rows = page.locator("#dets tr").all_inner_texts()
    assert any("face down" in r and "seat" in r for r in rows)
    # The page writes the status line after the detections, from a later request: wait for it.
    page.wait_for_function("document.getElementById('status').textContent.startsWith('camera: ')")
    assert "camera: live" in page.locator("#status").inner_text()
    shot(page, "camera-view")


def test_no_reader_draw_counts_and_naming_shown_cards(live_server_no_reader: LiveServer, page: Any) -> None:
    server = live_server_no_reader
    _seat(server, 2)
    page.goto(server.base + "/dealer?token=dealer-tok-browser-1")
    page.get_by_test_id("start").click()
    page.locator("[data-testid^=act-]").first.wait_for(state="visible")
    picked = False
    for _ in range(40):
        view = decision(page, server)
        hand = server.table.hand
        if view is None or hand is None:
            break
        if view.draw is not None:
            page.get_by_test_id("draw-1").click()  # a count: the table cannot name the thrown card
        elif any(a.act == "show" for a in view.legal):
            seat = view.to_act
            assert seat is not None
            assert "enter the cards" in page.get_by_test_id("act-show").inner_text()
            truth = [server.shoe.dealt[p] for p in hand.positions(seat)]
            page.get_by_test_id("act-show").click()
            picker = page.get_by_test_id("card-picker")
            picker.wait_for(state="visible")
            if not picked:
                shot(page, "dealer-card-picker")
                picked = True
            for code in truth:
                picker.locator(f"button.pick[data-code='{code}']").click()
            page.get_by_test_id("picker-ok").click()
        else:
            assert _click_first(page, ["act-check", "act-call"]) is not None
        taken(server, view)
    assert server.table.hand is None and picked
    record = server.table.hand_record(1)
    assert next(a for a in record["actions"] if a["act"] == "show")["cards"]


def test_dealer_seats_and_rebuys_from_the_console(live_server: LiveServer, page: Any) -> None:
    page.goto(live_server.base + "/dealer?token=dealer-tok-browser-1")
    page.locator("#sit-seat option").first.wait_for(state="attached")
    page.select_option("#sit-seat", "3")
    page.fill("#sit-name", "Zed")
    page.fill("#sit-chips", "60")
    page.click("#sit")
    page.locator("#seats tr[data-seat='3']").wait_for()
    assert live_server.table.seats[3].stack == 60
    page.once("dialog", lambda dialog: dialog.accept("40"))
    page.locator("#seats tr[data-seat='3'] button", has_text="Rebuy").click()
    page.wait_for_function("document.querySelector(\"#seats tr[data-seat='3']\").textContent.includes('100')")
    assert live_server.table.seats[3].stack == 100
    page.locator("#seats tr[data-seat='3'] button", has_text="Stand up").click()
    page.locator("#seats tr[data-seat='3']").wait_for(state="detached")
    assert 3 not in live_server.table.seats


def test_broadcast_screen_shows_hole_cards(live_server: LiveServer, page: Any) -> None:
    _seat(live_server, 2)
    assert live_server.api("POST", "/api/tables/t1/hand").status_code == 201
    page.goto(live_server.base + "/broadcast?token=bcast-tok-browser-1")
    page.locator(".card[data-code]").first.wait_for(state="visible")
    assert page.locator(".card[data-code]").count() == 10
    assert page.locator("#conn").inner_text() == "live, no delay"  # this test table has no broadcast delay
    shot(page, "broadcast")
