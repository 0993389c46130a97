"""Every screen on a desktop (1366x768) and on a portrait tablet (768x1024): nothing scrolls sideways, no seat
box overlaps another or leaves the screen, every card stays inside its seat box, and the dealer's action
buttons are inside the first screen of the console. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.helpers import LiveServer, shot

pytestmark = pytest.mark.browser

SIZES = ((1366, 768), (768, 1024))
SCREENS = {
    "start": "/",
    "table": "/table",
    "dealer": "/dealer?token=dealer-tok-browser-1",
    "floor": "/floor?token=floor-tok-browser-1",
    "camera": "/camera?token=floor-tok-browser-1",
    "broadcast": "/broadcast?token=bcast-tok-browser-1",
}

# The boxes of the seats and of the cards in them, read in one go.
_BOXES = """() => [...document.querySelectorAll('.seat, .tile')].map((s) => {
  const r = s.getBoundingClientRect();
  return {seat: s.dataset.seat, box: [r.left, r.top, r.right, r.bottom],
          cards: [...s.querySelectorAll('.card')].map((c) => {
            const q = c.getBoundingClientRect(); return [q.left, q.top, q.right, q.bottom]; })};
})"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


def _inside(inner: list[float], outer: list[float]) -> bool:
    return (inner[0] >= outer[0] - 0.5 and inner[2] <= outer[2] + 0.5
            and inner[1] >= outer[1] - 0.5 and inner[3] <= outer[3] + 0.5)


@pytest.fixture
def full_table(live_server: LiveServer) -> LiveServer:
    """Eight players seated and a hand dealt: the fullest the screens get."""
    for k, name in enumerate(["Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal"], start=1):
        sat = live_server.api("POST", f"/api/tables/t1/seats/{k}", json={"name": name, "buy_in": 100})
        assert sat.status_code == 201
    assert live_server.api("POST", "/api/tables/t1/hand").status_code == 201
    return live_server


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["desktop", "portrait"])
def test_every_screen_fits_the_width(full_table: LiveServer, browser: Any, width: int, height: int) -> None:
    for name, path in SCREENS.items():
        context = browser.new_context(bypass_csp=True, viewport={"width": width, "height": height}, has_touch=True)
        page = context.new_page()
        page.goto(full_table.base + path)
        if name in ("table", "broadcast", "dealer", "floor"):
            page.locator(".seat, .tile").nth(7).wait_for()
            page.locator(".card").nth(39).wait_for()  # five cards (backs or faces) for each of the eight
        else:
            page.wait_for_load_state("networkidle")
        scroll = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll[0] <= scroll[1], f"{name} at {width}x{height} scrolls sideways: {scroll[0]} px wide"
        seats = page.evaluate(_BOXES)
        for k, s in enumerate(seats):
            assert s["box"][0] >= 0 and s["box"][2] <= width, f"{name}: seat {s['seat']} leaves the screen"
            for card in s["cards"]:
                assert _inside(card, s["box"]), f"{name} at {width}x{height}: a card spills out of seat {s['seat']}"
            for other in seats[k + 1:]:
                assert not _overlap(s["box"], other["box"]), (
                    f"{name} at {width}x{height}: seats {s['seat']} and {other['seat']} overlap")
        if name == "dealer":
            buttons = page.locator("#actions button")
            buttons.first.wait_for(state="visible")
            for k in range(buttons.count()):
                box = buttons.nth(k).bounding_box()
                assert box is not None and box["y"] + box["height"] <= height, (
                    f"the dealer's action button {buttons.nth(k).inner_text()!r} is below the first screen")
        shot(page, f"layout-{name}-{width}x{height}")
        context.close()
