"""Many hands through the real server: no message of the public or dealer stream ever names a hole card.

A uvicorn server and WebSocket clients run in the test's event loop beside the controller; simulated players
act through the controller. Every message is checked against the hole cards dealt up to then that were
not shown. The floor stream is checked to carry them, so the check can fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import socket

import uvicorn
import websockets

from table_controller.controller.demo import play_hands, seat_players
from table_controller.controller.players import SimPlayers
from table_controller.service.app import TableRegistry, create_app
from tests.controller.helpers import make_table
from tests.service.helpers import TOKENS
from tests.service.leaks import leaked_cards

HANDS = 30


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _collect(url: str, into: list[str], ready: asyncio.Event) -> None:
    async with websockets.connect(url, max_size=None) as ws:
        ready.set()
        with contextlib.suppress(websockets.ConnectionClosed):
            async for message in ws:
                into.append(message if isinstance(message, str) else message.decode())


def test_public_and_dealer_streams_never_carry_hole_cards() -> None:
    async def run() -> dict[str, list[str]]:
        table = make_table(seed=5)
        registry = TableRegistry([table], tokens=TOKENS, broadcast_delay_s=0)
        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(create_app(registry), host="127.0.0.1", port=port, log_level="warning"))
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.02)
        got: dict[str, list[str]] = {"public": [], "dealer": [], "floor": []}
        tokens = {"public": "", "dealer": "?token=dealer-secret-token", "floor": "?token=floor-secret-token"}
        readers = []
        for view, q in tokens.items():
            ready = asyncio.Event()
            readers.append(asyncio.create_task(_collect(f"ws://127.0.0.1:{port}/ws/tables/t1/{view}{q}",
                                                        got[view], ready)))
            await ready.wait()
        await seat_players(table, 6)

        players = SimPlayers(table, rng=random.Random(5))
        original_step = players.step

        async def step() -> bool:
            acted = await original_step()
            # A live table is slower than the server: let it send everything before the next act.
            while registry.hubs["t1"].backlog():
                await asyncio.sleep(0.001)
            return acted

        players.step = step  # type: ignore[method-assign]
        summary = await play_hands(table, players, hands=HANDS)
        assert summary.ok
        await asyncio.sleep(0.3)
        server.should_exit = True
        await serving
        for r in readers:
            r.cancel()
        return got

    got = asyncio.run(run())
    assert len(got["public"]) > HANDS * 5
    for view in ("public", "dealer", "floor"):
        seqs = [json.loads(m)["seq"] for m in got[view]]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        gaps = [(a, b) for a, b in itertools.pairwise(seqs) if b != a + 1]
        assert not gaps, f"{view} stream skipped messages: {gaps[:5]} of {len(seqs)}"

    # The secret at each moment: hole cards the floor saw, less the cards shown face up to the table.
    floor_by_seq = {json.loads(m)["seq"]: json.loads(m)["state"] for m in got["floor"]}
    leaks = 0
    hole_seen = 0
    for view in ("public", "dealer"):
        for message in got[view]:
            data = json.loads(message)
            floor = floor_by_seq[data["seq"]]
            # Lines of earlier hands may name cards shown then, which are hole cards of a later hand.
            data["state"]["log"] = [e for e in data["state"]["log"] if e["hand"] == data["state"]["hand"]]
            shown = {c for seat in floor["seats"] for c in seat["shown"]}
            secret = {c for seat in floor["seats"] for c in seat["hole"] if c != "??"} - shown
            hole_seen += len(secret)
            found = leaked_cards(data, secret)
            leaks += len(found)
            assert not found, f"{view} message {data['seq']} leaks {found}: {message[:3000]}"
    assert leaks == 0
    assert hole_seen > 1000  # the floor stream did carry hole cards: the check had something to find
