"""Every screen under its own Content-Security-Policy (no bypass): the page's scripts run (the seats and the
log are drawn by them) and the browser reports no violation of the policy."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.helpers import LiveServer

pytestmark = pytest.mark.browser

# Each screen and an element its script draws once it has the table's state.
SCREENS = {
    "/": "#tables",
    "/table": ".seat",
    "/dealer?token=dealer-tok-browser-1": ".seat, .tile",
    "/floor?token=floor-tok-browser-1": ".seat, .tile",
    "/broadcast?token=bcast-tok-browser-1": ".seat",
    "/camera?token=floor-tok-browser-1": "#status",
}


@pytest.mark.parametrize("path", list(SCREENS))
def test_screen_runs_under_its_content_security_policy(live_server: LiveServer, browser: Any, path: str) -> None:
    for k, name in enumerate(["Ann", "Bo"], start=1):
        assert live_server.api("POST", f"/api/tables/t1/seats/{k}", json={"name": name, "buy_in": 100}).status_code \
            in (201, 409)
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.add_init_script("document.addEventListener('securitypolicyviolation', "
                         "(e) => console.error('Content Security Policy violated: ' + e.violatedDirective))")
    response = page.goto(live_server.base + path)
    assert response is not None and "frame-ancestors 'none'" in (response.headers.get("content-security-policy") or "")
    page.locator(SCREENS[path]).first.wait_for(state="attached")
    page.wait_for_load_state("load")
    context.close()
    assert violations == []
