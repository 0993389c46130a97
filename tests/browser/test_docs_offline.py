"""/docs renders with no network beyond the table: Swagger UI's assets come from the table itself."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser.helpers import LiveServer, shot

pytestmark = pytest.mark.browser


def test_docs_render_without_the_internet(live_server: LiveServer, browser: Any) -> None:
    context = browser.new_context(bypass_csp=True, viewport={"width": 1366, "height": 768})
    local = urlsplit(live_server.base).netloc
    refused: list[str] = []

    def only_the_table(route: Any) -> None:
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:  # the network is off: anything outside the table fails, as it would in a closed card room
            refused.append(route.request.url)
            route.abort("internetdisconnected")

    context.route("**/*", only_the_table)
    page = context.new_page()
    page.goto(live_server.base + "/docs")
    page.locator(".swagger-ui .opblock").first.wait_for(state="visible", timeout=15000)
    assert page.locator(".swagger-ui .opblock").count() >= 20  # every route of the API, listed
    assert "/api/tables/{table_id}/actions" in page.locator(".swagger-ui").inner_text()
    assert refused == [], f"/docs asked the internet for {refused}"
    shot(page, "docs-offline")
    icon = page.request.get(live_server.base + "/favicon.ico")
    assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")
    context.close()
