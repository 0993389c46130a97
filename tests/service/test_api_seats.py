from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from table_controller.controller.journal_port import MemoryJournal
from tests.service.helpers import DEALER, FLOOR


def test_openapi_lists_the_routes(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for path in ("/api/tables", "/api/tables/{table_id}/seats/{seat}", "/api/tables/{table_id}/actions",
                 "/api/tables/{table_id}/draw", "/api/tables/{table_id}/irregularities",
                 "/api/tables/{table_id}/rulings", "/api/tables/{table_id}/history"):
        assert path in paths
    assert "PublicView" in spec["components"]["schemas"]


def test_sit_buy_in_rebuy_stand(client: TestClient) -> None:
    r = client.post("/api/tables/t1/seats/3", json={"name": "Ann"}, headers=DEALER)
    assert r.status_code == 201, r.text
    seat3 = r.json()["seats"][2]
    assert (seat3["name"], seat3["stack"], seat3["status"]) == ("Ann", 0, "waiting")
    assert client.post("/api/tables/t1/seats/3/buy-in", json={"amount": 100}, headers=DEALER).status_code == 200
    r = client.post("/api/tables/t1/seats/3/rebuy", json={"amount": 50}, headers=DEALER)
    assert r.json()["seats"][2]["stack"] == 150
    r = client.delete("/api/tables/t1/seats/3", headers=DEALER)
    assert r.json()["seats"][2]["status"] == "empty"
    assert client.get("/api/tables").json()[0]["players"] == 0


@pytest.mark.parametrize(
    "case",
    [
        ("post", "/api/tables/t1/seats/9", {"name": "X"}, 422, "bad_seat"),
        ("post", "/api/tables/t1/seats/2", {"name": ""}, 422, "bad_request"),
        ("post", "/api/tables/t1/seats/2", {"name": "X", "buy_in": -5}, 422, "bad_request"),
        ("post", "/api/tables/t1/seats/2", {"name": "X", "buy_in": 5}, 409, "under_min"),
        ("post", "/api/tables/t1/seats/2", {"name": "X", "buy_in": 5000}, 409, "over_max"),
        ("post", "/api/tables/t1/seats/2", {"name": "X", "extra": 1}, 422, "bad_request"),
        ("post", "/api/tables/t1/seats/4/rebuy", {"amount": 10}, 404, "seat_empty"),
        ("post", "/api/tables/t1/seats/1/rebuy", {"amount": 50}, 409, "not_bought_in"),
        ("post", "/api/tables/t1/seats/1", {"name": "Y"}, 409, "seat_taken"),
        ("post", "/api/tables/nope/seats/1", {"name": "Y"}, 404, "not_found"),
        ("post", "/api/tables/t1/actions", {"seat": 1, "act": "check"}, 409, "no_hand"),
        ("post", "/api/tables/t1/actions", {"seat": 1, "act": "Dance!"}, 422, "bad_request"),
        ("delete", "/api/tables/t1/seats/abc", None, 422, "bad_request"),
        ("post", "/api/tables/t1/prompts/p99", {"choice": "retry"}, 404, "not_found"),
    ],
)
def test_bad_requests_are_4xx_with_a_message(client: TestClient, case: tuple[str, str, object, int, str]) -> None:
    method, path, body, status, code = case
    assert client.post("/api/tables/t1/seats/1", json={"name": "Ann"}, headers=DEALER).status_code == 201
    r = client.request(method, path, json=body, headers=DEALER)
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code
    assert err["message"]


def test_malformed_json_is_422(client: TestClient) -> None:
    r = client.post("/api/tables/t1/seats/1", content=b"{name:", headers={**DEALER, "Content-Type": "application/json"})
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "bad_request"


def test_roles_are_enforced(client: TestClient) -> None:
    assert client.post("/api/tables/t1/seats/1", json={"name": "A"}).status_code == 403
    r = client.post("/api/tables/t1/seats/1", json={"name": "A"}, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
    assert client.post("/api/tables/t1/seats/1", json={"name": "A"},
                       headers={"Authorization": "Basic x"}).status_code == 403
    assert client.get("/api/tables/t1/floor", headers=DEALER).status_code == 403
    assert client.get("/api/tables/t1/floor", params={"token": "dealer-secret-token"}).status_code == 403
    assert client.get("/api/tables/t1/dealer", headers=FLOOR).status_code == 200  # floor may do what the dealer does
    assert client.get("/api/tables/t1/broadcast", headers=DEALER).status_code == 403
    assert client.get("/api/tables/t1").status_code == 200


def test_floor_reads_are_journaled(client: TestClient, journal: MemoryJournal) -> None:
    assert client.get("/api/tables/t1/floor", headers=FLOOR).status_code == 200
    assert len(journal.audits) == 1
    assert journal.audits[0]["role"] == "floor" and "rest" in journal.audits[0]["why"]


def test_public_stream_follows_seat_changes(client: TestClient) -> None:
    with client.websocket_connect("/ws/tables/t1/public") as ws:
        first = json.loads(ws.receive_text())
        assert first["type"] == "state"
        client.post("/api/tables/t1/seats/2", json={"name": "Bo", "buy_in": 40}, headers=DEALER)
        msg = json.loads(ws.receive_text())
        while msg["state"]["seats"][1]["name"] != "Bo":
            msg = json.loads(ws.receive_text())
        assert msg["state"]["seats"][1]["stack"] == 40
        assert msg["state"]["view"] == "public"


@pytest.mark.parametrize(("view", "token"), [("floor", None), ("floor", "dealer-secret-token"), ("dealer", "bad"),
                                             ("broadcast", "floor-secret-token")])
def test_streams_refuse_the_wrong_token(client: TestClient, view: str, token: str | None) -> None:
    from starlette.websockets import WebSocketDisconnect

    url = f"/ws/tables/t1/{view}" + (f"?token={token}" if token else "")
    with pytest.raises(WebSocketDisconnect) as info, client.websocket_connect(url) as ws:
        ws.receive_text()
    assert info.value.code == 4403


def test_unknown_stream(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as info, client.websocket_connect("/ws/tables/t1/everything") as ws:
        ws.receive_text()
    assert info.value.code == 4404


def test_screens_are_served(client: TestClient) -> None:
    for path in ("/", "/table", "/dealer", "/floor", "/camera", "/broadcast", "/static/common.js"):
        r = client.get(path)
        assert r.status_code == 200, path
    assert 'href="/dealer"' in client.get("/").text
