"""A shoe that scans returned cards names a player's discards: the floor's seat tile narrows his candidates to
the cards he holds; the dealer's console never shows one of them."""

from __future__ import annotations

import time
from typing import Any

import pytest

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.settings import TableSettings

pytestmark = pytest.mark.browser

GAME = {"form": "five_card_draw", "betting": "fixed_limit", "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4,
                                                                          "cap": 4}}
_ROW = """(seat) => { const row = document.querySelector(`[data-testid=candidates-${seat}]`);
  return row ? {settled: row.dataset.settled, label: row.querySelector('.keeps').textContent,
                cards: [...row.querySelectorAll('.card[data-code]')].map((c) => c.dataset.code),
                maybe: row.querySelectorAll('.card.maybe').length} : null; }"""


def _wait_row(page: Any, seat: int, settled: str) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        row = page.evaluate(_ROW, seat)
        if row is not None and row["settled"] == settled:
            return dict(row)
        assert time.monotonic() < deadline, f"the floor's candidates row is {row}"
        time.sleep(0.05)


def test_the_floor_sees_the_candidates_settle_as_the_discards_come_back(serve_table: Any, browser: Any) -> None:
    shoe = VirtualShoe(seed=3)
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0, game=GAME),  # type: ignore[arg-type]
                            shoe=shoe, journal=MemoryJournal())
    server = serve_table(table, shoe)
    for k, name in enumerate(["Ann", "Bo"], start=1):
        assert server.api("POST", f"/api/tables/t1/seats/{k}", json={"name": name, "buy_in": 100}).status_code == 201
    assert server.api("POST", "/api/tables/t1/hand").status_code == 201
    for _ in range(4):
        view = server.view()
        if view.draw is not None:
            break
        checked = server.api("POST", "/api/tables/t1/actions", json={"seat": view.to_act, "act": "check"})
        assert checked.status_code == 200, checked.text
    view = server.view()
    assert view.draw is not None
    seat = view.draw.seat
    before = view.seats[seat - 1].hole
    assert server.api("POST", "/api/tables/t1/draw", json={"seat": seat, "count": 2}).status_code == 200

    floor_ctx = browser.new_context(bypass_csp=True, viewport={"width": 768, "height": 1024}, has_touch=True)
    dealer_ctx = browser.new_context(bypass_csp=True, viewport={"width": 768, "height": 1024}, has_touch=True)
    try:
        floor = floor_ctx.new_page()
        floor.goto(server.base + "/floor?token=floor-tok-browser-1")
        row = _wait_row(floor, seat, "no")
        assert sorted(row["cards"]) == sorted(before) and row["label"] == "keeps 3 of"
        server.call(table.take_returned(before[0], None))
        server.call(table.take_returned(before[3], None))
        row = _wait_row(floor, seat, "yes")
        assert sorted(row["cards"]) == sorted((before[1], before[2], before[4]))
        assert row["label"] == "holds" and row["maybe"] == 0
        assert any("coming back" in t for t in floor.locator("body").all_inner_texts())
        dealer = dealer_ctx.new_page()
        dealer.goto(server.base + "/dealer?token=dealer-tok-browser-1")
        dealer.locator("[data-testid^=act-], [data-testid^=draw-]").first.wait_for(state="visible")
        html = dealer.content()
        assert not [c for c in before if f'data-code="{c}"' in html]
        assert "coming back" not in dealer.locator("body").inner_text()
    finally:
        floor_ctx.close()
        dealer_ctx.close()
