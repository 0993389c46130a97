"""Retried requests apply once (the Idempotency-Key header), even across a restart; stale screens' acts are
refused (seen_seq); request bodies are bounded; every response carries the security headers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.settings import TableSettings
from tests.service.helpers import DEALER, FLOOR, TOKENS


def _client(journal: MemoryJournal) -> TestClient:
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0), shoe=VirtualShoe(seed=3), journal=journal)
    table.recover()
    return TestClient(create_app(TableRegistry([table], tokens=TOKENS, broadcast_delay_s=0)))


@pytest.fixture
def journal() -> MemoryJournal:
    return MemoryJournal()


@pytest.fixture
def client(journal: MemoryJournal) -> Iterator[TestClient]:
    with _client(journal) as c:
        assert c.post("/api/tables/t1/seats/1", json={"name": "Ann", "buy_in": 100}, headers=DEALER).status_code == 201
        yield c


def _stack(c: TestClient) -> int:
    stack: int = next(s["stack"] for s in c.get("/api/tables/t1").json()["seats"] if s["seat"] == 1)
    return stack


def test_a_retried_rebuy_adds_its_chips_once_even_after_a_restart(client: TestClient, journal: MemoryJournal) -> None:
    headers = {**DEALER, "Idempotency-Key": "rebuy-7f3a"}
    first = client.post("/api/tables/t1/seats/1/rebuy", json={"amount": 10}, headers=headers)
    assert first.status_code == 200 and _stack(client) == 110
    again = client.post("/api/tables/t1/seats/1/rebuy", json={"amount": 10}, headers=headers)
    assert again.status_code == 200 and again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert _stack(client) == 110
    other = client.post("/api/tables/t1/seats/1/rebuy", json={"amount": 20}, headers=headers)
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"
    assert _stack(client) == 110
    # The answer is in the journal: a restarted table answers the retry the same way, and applies nothing.
    with _client(journal) as restarted:
        assert _stack(restarted) == 110
        retry = restarted.post("/api/tables/t1/seats/1/rebuy", json={"amount": 10}, headers=headers)
        assert retry.status_code == 200 and retry.json() == first.json()
        assert _stack(restarted) == 110
    # A key is the caller's role's own: the floor's same key is a new request.
    floor = client.post("/api/tables/t1/seats/1/rebuy", json={"amount": 10}, headers={**FLOOR, "Idempotency-Key":
                                                                                      "rebuy-7f3a"})
    assert floor.status_code == 200 and _stack(client) == 120


def test_a_refused_request_is_answered_alike_on_retry(client: TestClient) -> None:
    headers = {**DEALER, "Idempotency-Key": "k2"}
    first = client.post("/api/tables/t1/seats/1/buy-in", json={"amount": 10}, headers=headers)
    assert first.status_code == 409
    assert client.post("/api/tables/t1/seats/1/buy-in", json={"amount": 10}, headers=headers).json() == first.json()
    bad = client.post("/api/tables/t1/seats/1/rebuy", json={"amount": 10}, headers={**DEALER, "Idempotency-Key": ""})
    assert bad.status_code in (200, 422)  # an empty header is no key at all to some clients; never a 500


def test_an_act_from_a_screen_that_is_behind_is_refused(client: TestClient) -> None:
    assert client.post("/api/tables/t1/seats/2", json={"name": "Bo", "buy_in": 100}, headers=DEALER).status_code == 201
    assert client.post("/api/tables/t1/hand", headers=DEALER).status_code == 201
    state = client.get("/api/tables/t1/hand", headers=DEALER).json()
    r = client.post("/api/tables/t1/actions", json={"seat": state["to_act"], "act": "fold", "seen_seq": 0},
                    headers=DEALER)
    assert r.status_code == 409 and r.json()["error"]["code"] == "stale_state"


def test_bodies_are_bounded_and_never_answered_with_a_traceback(client: TestClient) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    r = client.post("/api/tables/t1/seats/1/rebuy", content=deep, headers={**DEALER, "Content-Type":
                                                                           "application/json"})
    assert r.status_code in (413, 422) and "error" in r.json()
    nested = '{"amount": ' + "[" * 200 + "]" * 200 + "}"
    r = client.post("/api/tables/t1/seats/1/rebuy", content=nested, headers={**DEALER, "Content-Type":
                                                                              "application/json"})
    assert r.status_code == 422 and "deep" in r.json()["error"]["message"]
    huge = '{"amount": ' + "9" * 5000 + "}"
    r = client.post("/api/tables/t1/seats/1/rebuy", content=huge, headers={**DEALER, "Content-Type":
                                                                            "application/json"})
    assert r.status_code == 422 and "digits" in r.json()["error"]["message"]


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/api/tables/t1", "/", "/dealer", "/api/tables/t1/nothing"):
        r = client.get(path)
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self' 'sha256-" in csp
        assert r.headers["referrer-policy"] == "no-referrer"
