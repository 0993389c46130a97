"""What the screens say in card-room words: the public hears "Floor called, hand paused", never the security
detail; the dealer and the floor read the rule books by title; an error names its rule by title too."""

from __future__ import annotations

import asyncio
import re

from fastapi.testclient import TestClient

from table_controller.service.app import TableRegistry, create_app
from table_controller.service.roles import RoleTokens
from table_controller.service.views import broadcast_view, dealer_view, public_view
from tests.controller.helpers import make_table, seated

CODE = re.compile(r"\b00[013]\b")


def test_a_halt_is_neutral_on_the_public_screen_and_detailed_for_the_floor() -> None:
    async def run() -> None:
        table = make_table(seed=12)
        await seated(table, 3)
        await table.start_hand()
        assert table.hand is not None
        held = {c for s in (1, 2, 3) for c in table.hand.hole(s)}
        foreign = next(c for c in ("Ah", "Kc", "Qd", "Js", "Th", "9c", "8s", "7h") if c not in held)
        await table.camera_reading(2, foreign)
        full = table.full_view()
        assert full.phase == "halted"
        for view in (public_view(full), broadcast_view(full, delay_s=30)):
            assert view.message == "Floor called, hand paused"
        pub = public_view(full)
        assert "camera" not in pub.model_dump_json()  # nothing of the security detail
        assert "Floor called, hand paused" in [e.text for e in pub.log]
        assert "camera and shoe disagree at seat 2" in dealer_view(full).message
        assert any(a.kind == "camera_mismatch" for a in full.alerts)

    asyncio.run(run())


def test_dealer_screens_and_errors_cite_books_by_title() -> None:
    async def run() -> TestClient:
        table = make_table(seed=2)
        await seated(table, 4)
        await table.start_hand()
        return TestClient(create_app(TableRegistry([table], tokens=RoleTokens(dealer="d" * 24, floor="f" * 24,
                                                                              broadcast="b" * 24),
                                                   broadcast_delay_s=0)))

    client = asyncio.run(run())
    dealer = {"Authorization": "Bearer " + "d" * 24}
    view = client.get("/api/tables/t1/dealer", headers=dealer).json()
    rules = [irr["rule"] for irr in view["irregularities"]]
    assert rules and not any(CODE.search(r) for r in rules)
    assert any(r.startswith("Draw Poker Rules · Card exposed in the deal") for r in rules)
    refused = client.post("/api/tables/t1/irregularities", headers=dealer, json={"kind": "misdeal", "seat": 1})
    assert refused.status_code == 409
    rule = refused.json()["error"]["rule"]
    assert rule and not CODE.search(rule) and "Draw Poker Rules" in rule
