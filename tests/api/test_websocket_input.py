"""Malformed WebSocket input, through a real server (uvicorn) and a real client (websockets).

The streams take no input, so anything a client sends is refused, never acted on: the table and its
journal do not change, the stream is closed with 1008 (policy violation) and the table goes on serving.
A bad handshake (unknown view, missing or wrong token) is refused with a close code the page can show.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from table_controller.controller.demo import seat_players
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.roles import RoleTokens
from table_controller.service.settings import TableSettings

TOKENS = RoleTokens(dealer="dealer-token-ws-test", floor="floor-token-ws-test", broadcast="bcast-token-ws-test")
DEALER = {"Authorization": f"Bearer {TOKENS.dealer}"}
JUNK: list[str | bytes] = ["{not json", json.dumps({"type": "act", "seat": 1, "act": "fold"}), "\x00" * 64,
                           "x" * 200_000, b"\x00\xff\xfe", b""]


@contextlib.asynccontextmanager
async def served() -> AsyncIterator[tuple[str, TableController]]:
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0), shoe=VirtualShoe(seed=3),
                            journal=MemoryJournal())
    await seat_players(table, 3)
    app = create_app(TableRegistry([table], tokens=TOKENS, broadcast_delay_s=0))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", lifespan="on"))
    task = asyncio.create_task(server.serve())
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"127.0.0.1:{port}", table
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def _state(ws: Any) -> dict[str, Any]:
    msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
    assert msg["type"] == "state"
    state: dict[str, Any] = msg["state"]
    return state


@pytest.mark.parametrize("junk", JUNK, ids=["bad-json", "an-act", "nul-bytes", "200k-text", "binary", "empty-binary"])
def test_client_input_is_never_acted_on(junk: str | bytes) -> None:
    async def run() -> TableController:
        async with served() as (host, table):
            async with connect(f"ws://{host}/ws/tables/t1/dealer?token={TOKENS.dealer}", max_size=None) as ws:
                before = await _state(ws)
                entries = len(table.journal.entries())
                await ws.send(junk)
                await asyncio.sleep(0.1)
                # Nothing the client sent changed the table: no journal entry, no act.
                assert len(table.journal.entries()) == entries
                async with httpx.AsyncClient(base_url=f"http://{host}") as http:
                    r = await http.post("/api/tables/t1/hand", headers=DEALER)
                    assert r.status_code == 201
                    # The server is still healthy for everyone else.
                    assert (await http.get("/api/tables/t1")).status_code == 200
                # The stream refused the input: it is closed with "policy violation".
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        await _state(ws)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
                # A new client is served as before, with the table's new state.
            async with connect(f"ws://{host}/ws/tables/t1/dealer?token={TOKENS.dealer}") as ws:
                assert (await _state(ws))["hand"] == before["hand"] + 1
            return table

    asyncio.run(run()).check_chips()


@pytest.mark.parametrize(("path", "code"), [
    ("/ws/tables/t1/floor", 4403),  # no token
    ("/ws/tables/t1/floor?token=wrong", 4403),
    (f"/ws/tables/t1/floor?token={TOKENS.dealer}", 4403),  # the dealer may not see hole cards
    (f"/ws/tables/t1/broadcast?token={TOKENS.floor}", 4403),
    ("/ws/tables/t1/nonsense", 4404),
    ("/ws/tables/nope/public", 4404),
])
def test_bad_handshakes_are_refused_with_a_reason(path: str, code: int) -> None:
    async def run() -> int | None:
        async with served() as (host, _), connect(f"ws://{host}{path}") as ws:
            with pytest.raises(ConnectionClosed) as exc:
                await asyncio.wait_for(ws.recv(), 5)
            return exc.value.rcvd.code if exc.value.rcvd is not None else None

    assert asyncio.run(run()) == code


def test_malformed_input_is_refused_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def run() -> int | None:
        async with served() as (host, _), connect(f"ws://{host}/ws/tables/t1/public") as ws:
            await _state(ws)
            await ws.send("{not json")
            try:
                await asyncio.wait_for(ws.recv(), 2)
            except ConnectionClosed as exc:
                return exc.rcvd.code if exc.rcvd is not None else None
            except TimeoutError:
                return None
            return None

    with caplog.at_level(logging.INFO):
        code = asyncio.run(run())
    assert code in (1003, 1008)
    assert any("stream" in r.getMessage().lower() or "websocket" in r.getMessage().lower() for r in caplog.records)
