"""API robustness: schemathesis generates requests from the app's own OpenAPI schema and sends them to the
app in-process (ASGI). No request may get a server error (5xx), and every response must match the schema
the app publishes (status code documented, content type, body).

The table behind the app is live: four players seated and a hand in progress on an in-memory shoe, so the
generated requests reach the controller's checks rather than stopping at "no such table". Requests go with
the floor token (the role that may call every route); the path's table id is the real one for most cases.
"""

from __future__ import annotations

import asyncio
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.testclient import TestClient

from table_controller.controller.demo import seat_players
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.roles import RoleTokens
from table_controller.service.settings import TableSettings

TOKENS = RoleTokens(dealer="dealer-token-api-test", floor="floor-token-api-test", broadcast="bcast-token-api-test")


def _app() -> tuple[Any, TableController]:
    settings = TableSettings(pace_s=0, broadcast_delay_s=0)
    table = TableController(settings, shoe=VirtualShoe(seed=7), journal=MemoryJournal())

    async def setup() -> None:
        await seat_players(table, 4)
        await table.start_hand()

    asyncio.run(setup())
    registry = TableRegistry([table], tokens=TOKENS, broadcast_delay_s=0)
    return create_app(registry), table


APP, TABLE = _app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@schema.parametrize()
@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
def test_no_server_error_and_every_response_matches_the_schema(case: Any) -> None:
    if case.path_parameters and "table_id" in case.path_parameters:
        case.path_parameters["table_id"] = "t1"
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKENS.floor}"}, checks=CHECKS)
    # Whatever was asked, the table's books balance.
    TABLE.check_chips()


@schema.parametrize()
@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
def test_without_a_token_nothing_breaks_either(case: Any) -> None:
    case.call_and_validate(checks=CHECKS)


def test_the_statuses_of_refused_requests_are_documented() -> None:
    """Requests the controller refuses (bad seat, unknown act, missing field, no such hand or table) get a
    4xx that the schema lists for that route."""
    spec = APP.openapi()
    documented = {path: {m: set(op["responses"]) for m, op in ops.items()} for path, ops in spec["paths"].items()}
    client = TestClient(APP)
    auth = {"Authorization": f"Bearer {TOKENS.floor}"}
    probes = [("get", "/api/tables/{table_id}/history/{hand}", "/api/tables/t1/history/999", None),
              ("post", "/api/tables/{table_id}/actions", "/api/tables/t1/actions", {"seat": 9, "act": "x"}),
              ("post", "/api/tables/{table_id}/actions", "/api/tables/t1/actions", {"seat": 1, "act": "fly"}),
              ("post", "/api/tables/{table_id}/rulings", "/api/tables/t1/rulings", {"kind": "resume"}),
              ("get", "/api/tables/{table_id}/dealer", "/api/tables/nope/dealer", None)]
    for method, template, url, body in probes:
        r = client.request(method, url, json=body, headers=auth)
        assert str(r.status_code) in documented[template][method], (url, r.status_code)
        assert r.status_code < 500


def test_an_unparseable_body_gets_a_documented_status() -> None:
    spec = APP.openapi()
    documented = set(spec["paths"]["/api/tables/{table_id}/irregularities"]["post"]["responses"])
    r = TestClient(APP).post("/api/tables/t1/irregularities", content=b"\xff", headers={
        "Authorization": f"Bearer {TOKENS.floor}", "Content-Type": "application/json"})
    assert r.status_code < 500
    assert str(r.status_code) in documented
