"""A live server in a thread and headless Chromium (Debian's package) driven by Playwright.

Skips with a reason when /usr/bin/chromium or Playwright is absent. Screenshots go to test-artifacts/browser/.

The tests' browser contexts bypass the pages' Content-Security-Policy: Playwright evaluates a polled
``wait_for_function`` expression with eval, which that policy forbids. test_csp.py loads every screen with the
policy enforced and asserts the pages themselves break none of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.table import TableController
from tests.browser.helpers import ARGS, ARTIFACTS, CHROMIUM, LiveServer, serve


@pytest.fixture
def live_server() -> Iterator[LiveServer]:
    yield from serve(VirtualShoe(seed=17))


@pytest.fixture
def live_server_no_reader() -> Iterator[LiveServer]:
    yield from serve(VirtualShoe(seed=5, has_reader=False), card_reader=False,
                      game={"form": "five_card_draw", "betting": "fixed_limit",
                            "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}})


@pytest.fixture
def serve_table() -> Iterator[Callable[[TableController, VirtualShoe], LiveServer]]:
    """Serve a table the test built (a restarted one, say); each server stops when the test ends."""
    running: list[Iterator[LiveServer]] = []

    def start(table: TableController, shoe: VirtualShoe) -> LiveServer:
        served = serve(shoe, table=table)
        running.append(served)
        return next(served)

    yield start
    for served in running:
        next(served, None)  # past the yield: the server stops


# Module scope, not session: Playwright's sync API keeps an event loop running in this thread while it is
# open, and every later test that calls asyncio.run() would fail with "cannot be called from a running
# event loop". Closing it when the browser module ends keeps the rest of the suite independent of it.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("headless Chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright for Python is not installed (pip install playwright)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(bypass_csp=True, viewport={"width": 1366, "height": 900}, has_touch=True)
    p = context.new_page()
    yield p
    context.close()
