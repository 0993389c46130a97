"""What the browser tests share: a live server in a thread, screenshots, and waiting for the dealer console
to show the decision the table waits for. The fixtures over these are in conftest.py."""

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


def serve(shoe: VirtualShoe, *, table: TableController | None = None, **settings: Any) -> Iterator[LiveServer]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    if table is None:
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


def shot(page: Any, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# What the console shows of a decision: who, the act buttons, the draw buttons (JS, read in one go).
_SHOWN = """() => [document.getElementById('who').textContent,
  [...document.querySelectorAll('#actions button')].map((b) => b.dataset.testid).join(','),
  document.getElementById('draw').classList.contains('hidden') ? ''
    : [...document.querySelectorAll('#draw-buttons button')].map((b) => b.dataset.testid).join(',')]"""


def decision(page: Any, server: LiveServer, timeout: float = 10.0) -> FloorView | None:
    """Wait until the console shows the decision the table waits for, and return the table's view of it.

    Cards are served from the shoe after a tap, so a screen can show a decision already taken; a test
    that acts on it taps a button the next update takes away. None when no hand is in play."""
    deadline = time.monotonic() + timeout
    while True:
        view = server.view()
        if server.table.hand is None:
            return None
        want: list[str] | None = None
        if view.draw is not None:
            want = [f"seat {view.draw.seat} draws", "",
                    ",".join(f"draw-{k}" for k in range(view.draw.max_discard + 1))]
        elif view.legal and view.to_act is not None:
            want = [f"seat {view.to_act} to act", ",".join("act-" + a.act for a in view.legal), ""]
        if want is not None:
            who, acts, draws = page.evaluate(_SHOWN)
            if want[0] in who and [acts, draws] == want[1:]:
                return view
        if time.monotonic() > deadline:
            raise AssertionError(f"the console never showed the table's decision: {view.message!r}")
        time.sleep(0.02)


def taken(server: LiveServer, before: FloorView, timeout: float = 10.0) -> None:
    """Wait until the table has taken the tap (its view changes: a log line, or cards being served)."""
    def key(v: FloorView) -> tuple[object, ...]:
        return v.to_act, v.legal, v.draw, v.log

    deadline = time.monotonic() + timeout
    while key(server.view()) == key(before):
        if time.monotonic() > deadline:
            raise AssertionError(f"the table did not take the tap: {before.message!r}")
        time.sleep(0.02)
