"""The low items of the security review: bounded amounts, forged tokens on public reads, the broadcast's
delay on a monotonic clock, the stream token in a header, bad timeouts on the command line."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from table_controller.cli import main
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.settings import TableSettings
from tests.service.helpers import DEALER, FLOOR, TOKENS

BCAST = {"Authorization": "Bearer bcast-secret-token"}


class Clocks:
    def __init__(self) -> None:
        self.wall = 1_000_000.0
        self.mono = 50.0


@pytest.fixture
def clocks() -> Clocks:
    return Clocks()


@pytest.fixture
def client(clocks: Clocks) -> Iterator[TestClient]:
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=30), shoe=VirtualShoe(seed=2),
                            journal=MemoryJournal(), clock=lambda: clocks.wall, monotonic=lambda: clocks.mono)
    with TestClient(create_app(TableRegistry([table], tokens=TOKENS, broadcast_delay_s=30))) as c:
        for k in (1, 2):
            assert c.post(f"/api/tables/t1/seats/{k}", json={"name": f"P{k}", "buy_in": 100},
                          headers=DEALER).status_code == 201
        yield c


def test_an_amount_beyond_two_to_the_53_is_a_bad_request(client: TestClient) -> None:
    for amount in (2**53, -(2**53), 2**53 + 1, -(2**60), 10**40):  # 2**53 was a 503: the journal keeps 2**53 - 1
        r = client.post("/api/tables/t1/rulings", json={"kind": "move_chips", "by": "Fran", "reason": "r", "seat": 1,
                                                         "amount": amount}, headers=FLOOR)
        assert r.status_code == 422, r.text
    r = client.post("/api/tables/t1/seats/1/rebuy", json={"amount": 2**63}, headers=DEALER)
    assert r.status_code == 422


@pytest.mark.parametrize("path", ["/api/tables", "/api/tables/t1", "/api/tables/t1/history"])
def test_a_forged_token_is_refused_on_public_reads_too(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 200
    assert client.get(path, params={"token": "forged-token-0000000"}).status_code == 403
    assert client.get(path, headers={"Authorization": "Bearer forged-token-0000000"}).status_code == 403


def test_the_broadcast_delay_runs_on_a_monotonic_clock(client: TestClient, clocks: Clocks) -> None:
    assert client.post("/api/tables/t1/hand", headers=DEALER).status_code == 201
    clocks.wall += 3600  # the wall clock steps forward an hour (NTP, an operator): no hole card may show early
    view = client.get("/api/tables/t1/broadcast", headers=BCAST).json()
    assert view["hand"] == 0 and not any(s["hole"] for s in view["seats"])
    clocks.mono += 31  # thirty-one seconds later, the deal is shown
    view = client.get("/api/tables/t1/broadcast", headers=BCAST).json()
    assert view["hand"] == 1 and any(s["hole"] for s in view["seats"])


def test_a_stream_takes_its_token_in_a_header_not_the_url(client: TestClient) -> None:
    with client.websocket_connect("/ws/tables/t1/floor", subprotocols=["cardtable", "bearer.floor-secret-token"]) as ws:
        assert ws.accepted_subprotocol == "cardtable"
        assert ws.receive_json()["type"] == "state"
    with client.websocket_connect("/ws/tables/t1/floor", subprotocols=["cardtable", "bearer.forged-token-000"]) as ws:
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4403


@pytest.mark.parametrize("timeout", ["nan", "inf", "-1", "0", "1e9"])
def test_shoe_status_refuses_a_timeout_that_is_no_deadline(timeout: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe", "status", "--port", "loop://", "--timeout", timeout]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--timeout" in err[0]


@pytest.mark.parametrize(("path", "body", "headers"), [
    ("/api/tables/t1/seats/5", {"name": "Al\nSeat 9 wins 1000", "buy_in": 100}, DEALER),
    ("/api/tables/t1/seats/5", {"name": "Al\u0000", "buy_in": 100}, DEALER),
    ("/api/tables/t1/rulings", {"kind": "note", "by": "Fran\u001b[2J", "reason": "r"}, FLOOR),
    ("/api/tables/t1/rulings", {"kind": "note", "by": "Fran", "reason": "r\nHand #9: forged"}, FLOOR),
    ("/api/tables/t1/irregularities", {"kind": "misdeal", "note": "n\u0000"}, DEALER),
])
def test_a_control_character_in_typed_text_is_a_bad_request(client: TestClient, path: str, body: dict[str, object],
                                                            headers: dict[str, str]) -> None:
    """A name with a line break forged a line of the plain-text hand history; a NUL or ESC reached the journal."""
    r = client.post(path, json=body, headers=headers)
    assert r.status_code == 422, r.text
    assert "holds a control character" in r.json()["error"]["message"]
