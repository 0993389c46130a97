"""A live server in a thread and headless Chromium (Debian's package) driven by Playwright.

Skips with a reason when /usr/bin/chromium or Playwright is absent. Screenshots go to test-artifacts/browser/.

The tests' browser contexts bypass the pages' Content-Security-Policy: Playwright evaluates a polled
``wait_for_function`` expression with eval, which that policy forbids. test_csp.py loads every screen with the
policy enforced and asserts the pages themselves break none of it.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.models import FloorView
from table_controller.service.roles import RoleTokens
from table_controller.service.settings import TableSettings
from table_controller.service.views import floor_view

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
TOKENS = RoleTokens(dealer="dealer-tok-browser-1", floor="floor-tok-browser-1", broadcast="bcast-tok-browser-1")


@dataclass
class LiveServer:
    base: str
    table: TableController
    shoe: VirtualShoe
    loop: asyncio.AbstractEventLoop

    def api(self, method: str, path: str, *, token: str | None = "dealer-tok-browser-1",
            json: Any = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.request(method, self.base + path, headers=headers, json=json, timeout=10)

    def call(self, coro: Any) -> Any:
        """Run a controller coroutine in the server's loop (where the controller lives)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=10)

    def view(self) -> FloorView:
        """The table's full view, taken in the server's loop so that no change is seen half made."""

        async def take() -> FloorView:
            return floor_view(self.table.full_view())

        view: FloorView = self.call(take())
        return view


def _serve(shoe: VirtualShoe, **settings: Any) -> Iterator[LiveServer]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0, **settings), shoe=shoe,
                            journal=MemoryJournal())
    registry = TableRegistry([table], tokens=TOKENS, broadcast_delay_s=0)
    server = uvicorn.Server(uvicorn.Config(create_app(registry), host="127.0.0.1", port=port, log_level="warning"))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    yield LiveServer(base=f"http://127.0.0.1:{port}", table=table, shoe=shoe, loop=loop)
    server.should_exit = True
    thread.join(5)


@pytest.fixture
def live_server() -> Iterator[LiveServer]:
    yield from _serve(VirtualShoe(seed=17))


@pytest.fixture
def live_server_no_reader() -> Iterator[LiveServer]:
    yield from _serve(VirtualShoe(seed=5, has_reader=False), card_reader=False,
                      game={"form": "five_card_draw", "betting": "fixed_limit",
                            "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}})


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


def shot(page: Any, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
