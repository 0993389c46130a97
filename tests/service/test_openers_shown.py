"""An opener who proves his openers shows only them (003 Jackpots: "need show only as many cards as will
prove ..."): when he drops, the rest of his hand is kept apart face down for the floor (003 Final betting
interval); when he wins uncontested, the kicker stays unseen. The public and dealer views, and their streams,
carry only the openers; the floor keeps the whole hand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.settings import TableSettings
from tests.service.helpers import DEALER, FLOOR, TOKENS

# Heads-up, button at seat 1: the deal goes seat 2, seat 1, ... so seat 2 gets the even cards.
OPENER = ["Jh", "Jd", "2c", "5s", "9d"]  # seat 2: jacks, openers; the rest must stay unseen
OTHER = ["Ac", "Kd", "7h", "4d", "3s"]  # seat 1


class StackedShoe(VirtualShoe):
    """A shoe whose shuffle puts the given cards on top (the rest in the usual order)."""

    def __init__(self, top: list[str]) -> None:
        super().__init__(seed=1)
        self.top = top

    async def shuffle(self) -> None:
        await super().shuffle()
        rest = [c for c in self._stub if c not in self.top]
        self._stub = self.top + rest


@pytest.fixture
def client() -> Iterator[TestClient]:
    top = [card for pair in zip(OPENER, OTHER, strict=True) for card in pair]
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0), shoe=StackedShoe(top),
                            journal=MemoryJournal())
    registry = TableRegistry([table], tokens=TOKENS, broadcast_delay_s=0)
    with TestClient(create_app(registry)) as c:
        yield c


def _open(c: TestClient) -> None:
    for k in (1, 2):
        assert c.post(f"/api/tables/t1/seats/{k}", json={"name": f"P{k}", "buy_in": 100},
                      headers=DEALER).status_code == 201
    assert c.post("/api/tables/t1/hand", headers=DEALER).status_code == 201
    floor = c.get("/api/tables/t1/floor", headers=FLOOR).json()
    assert set(next(s for s in floor["seats"] if s["seat"] == 2)["hole"]) == set(OPENER)
    state = c.get("/api/tables/t1/hand", headers=DEALER).json()
    assert state["to_act"] == 2
    bet = next(a for a in state["legal"] if a["act"] == "bet")
    r = c.post("/api/tables/t1/actions", json={"seat": 2, "act": "bet", "to": bet["to"] or bet["min_to"]},
               headers=DEALER)
    assert r.status_code == 200, r.text


def _seat(view: dict[str, Any], n: int) -> dict[str, Any]:
    seat: dict[str, Any] = next(s for s in view["seats"] if s["seat"] == n)
    return seat


def _only_openers(c: TestClient) -> None:
    for view in (c.get("/api/tables/t1").json(), c.get("/api/tables/t1/dealer", headers=DEALER).json()):
        assert sorted(_seat(view, 2)["shown"]) == ["Jd", "Jh"]
        text = str(view)
        assert not any(card in text for card in ("2c", "5s", "9d")), "the kicker reached a public or dealer view"
    floor = c.get("/api/tables/t1/floor", headers=FLOOR).json()
    assert set(OPENER) <= set(str(floor).replace("'", " ").split())  # the floor still has the whole hand


def test_an_opener_who_drops_shows_only_his_openers(client: TestClient) -> None:
    _open(client)
    state = client.get("/api/tables/t1/hand", headers=DEALER).json()
    rise = next(a for a in state["legal"] if a["act"] == "raise")
    assert client.post("/api/tables/t1/actions", json={"seat": 1, "act": "raise", "to": rise["to"] or rise["min_to"]},
                       headers=DEALER).status_code == 200
    r = client.post("/api/tables/t1/actions", json={"seat": 2, "act": "fold"}, headers=DEALER)
    assert r.status_code == 200, r.text
    _only_openers(client)


def test_an_uncontested_opener_proves_openers_without_the_kicker(client: TestClient) -> None:
    _open(client)
    r = client.post("/api/tables/t1/actions", json={"seat": 1, "act": "fold"}, headers=DEALER)
    assert r.status_code == 200, r.text
    assert r.json()["phase"] == "complete"
    _only_openers(client)
