"""A hand through the HTTP API as the dealer console drives it; history; broadcast; a shoe without a reader."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.hand import EngineHand
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.settings import TableSettings, table_game
from tests.service.helpers import DEALER, FLOOR, TOKENS

BCAST = {"Authorization": "Bearer bcast-secret-token"}


def _client(shoe: VirtualShoe, **settings: Any) -> TestClient:
    table = TableController(TableSettings(pace_s=0, **settings), shoe=shoe, journal=MemoryJournal())
    registry = TableRegistry([table], tokens=TOKENS, broadcast_delay_s=table.broadcast_delay_s)
    return TestClient(create_app(registry))


@pytest.fixture
def reader_client() -> Iterator[TestClient]:
    with _client(VirtualShoe(seed=31), broadcast_delay_s=0, game={"form": "five_card_draw", "betting": "fixed_limit",
                 "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}}) as c:
        yield c


def _seat(c: TestClient, n: int) -> None:
    for k in range(1, n + 1):
        r = c.post(f"/api/tables/t1/seats/{k}", json={"name": f"P{k}", "buy_in": 100}, headers=DEALER)
        assert r.status_code == 201


def _play_out(c: TestClient, *, show_cards: dict[int, list[str]] | None = None) -> None:
    for _ in range(100):
        state = c.get("/api/tables/t1/hand", headers=DEALER).json()
        if state["phase"] == "complete":
            return
        if state["draw"] is not None:
            r = c.post("/api/tables/t1/draw", json={"seat": state["draw"]["seat"], "count": 0}, headers=DEALER)
        else:
            acts = {a["act"]: a for a in state["legal"]}
            seat = state["to_act"]
            body: dict[str, Any] = {"seat": seat}
            if "show" in acts:
                body["act"] = "show"
                if show_cards is not None:
                    body["cards"] = show_cards[seat]
            else:
                body["act"] = "check" if "check" in acts else "call"
            r = c.post("/api/tables/t1/actions", json=body, headers=DEALER)
        assert r.status_code == 200, r.text
    raise AssertionError("the hand did not finish")


def test_a_hand_through_the_api_with_history(reader_client: TestClient) -> None:
    c = reader_client
    _seat(c, 3)
    r = c.post("/api/tables/t1/hand", headers=DEALER)
    assert r.status_code == 201, r.text
    state = r.json()
    assert state["phase"] == "betting" and state["legal"]
    assert all("hole" not in s for s in state["seats"])
    labels = [a["label"] for a in state["legal"]]
    assert "Bet 2" in labels  # the amount on the button
    # An out-of-turn act names the rule and changes nothing.
    other = next(s["seat"] for s in state["seats"] if s["status"] == "active" and not s["to_act"])
    r = c.post("/api/tables/t1/actions", json={"seat": other, "act": "check"}, headers=DEALER)
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_your_turn" and r.json()["error"]["rule"]
    _play_out(c)
    history = c.get("/api/tables/t1/history").json()
    assert history[0]["hand"] == 1 and history[0]["status"] == "complete"
    assert c.get("/api/tables/t1/history/1").status_code == 403
    record = c.get("/api/tables/t1/history/1", headers=FLOOR).json()
    assert record["format"] == "cardtable.hand/2" and len(record["seats"]) == 3
    assert c.get("/api/tables/t1/history/7", headers=FLOOR).status_code == 404
    # The floor view has the hole cards; the broadcast (no delay here) too; both reads are journaled.
    full = c.get("/api/tables/t1/floor", headers=FLOOR).json()
    assert full["view"] == "floor"
    assert c.get("/api/tables/t1/broadcast", headers=BCAST).json()["view"] == "broadcast"


def test_broadcast_holds_hole_cards_back() -> None:
    with _client(VirtualShoe(seed=2), broadcast_delay_s=3600) as c:
        _seat(c, 2)
        c.post("/api/tables/t1/hand", headers=DEALER)
        b = c.get("/api/tables/t1/broadcast", headers=BCAST).json()
        assert b["delay_s"] == 3600
        assert all(not s["hole"] for s in b["seats"])  # nothing from an hour ago
        assert "nothing to show yet" in b["message"]


def test_shoe_without_a_reader_learns_the_cards_when_shown() -> None:
    shoe = VirtualShoe(seed=44, has_reader=False)
    with _client(shoe, card_reader=False, game={"form": "five_card_draw", "betting": "fixed_limit",
                 "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}}) as c:
        _seat(c, 3)
        state = c.post("/api/tables/t1/hand", headers=DEALER).json()
        assert state["device"]["reader"] is False
        floor = c.get("/api/tables/t1/floor", headers=FLOOR).json()
        assert all(set(s["hole"]) == {"??"} for s in floor["seats"] if s["status"] == "active")
        order = EngineHand.deal_order([1, 2, 3], state["button"])
        truth = {seat: [shoe.dealt[i + 3 * j] for j in range(5)] for i, seat in enumerate(order)}
        # Showing without naming the cards is refused: the table cannot read them.
        _play_out(c, show_cards=truth)
        record = c.get("/api/tables/t1/history/1", headers=FLOOR).json()
        shown = [a for a in record["actions"] if a["act"] == "show"]
        assert shown and all(len(a["cards"]) == 5 for a in shown)
        result = c.get("/api/tables/t1/history").json()[0]
        assert result["status"] == "complete" and result["awards"]


def test_after_a_restart_with_other_stakes_each_hand_on_record_shows_its_own_game() -> None:
    """Two hands at ante 1, then the table restarts at ante 5 on the same journal: the floor's records of the
    first two still say ante 1 (and replay to what was paid), the table now deals ante 5 and its hand says so."""
    journal = MemoryJournal()
    with _client_on(journal, VirtualShoe(seed=31), ante=1) as c:
        _seat(c, 3)
        for _ in range(2):
            assert c.post("/api/tables/t1/hand", headers=DEALER).status_code == 201
            _play_out(c)
        before = [c.get(f"/api/tables/t1/history/{n}", headers=FLOOR).json() for n in (1, 2)]
        stacks = [s["stack"] for s in c.get("/api/tables/t1/hand", headers=DEALER).json()["seats"]]
    with _client_on(journal, VirtualShoe(seed=32), ante=5, recover=True) as c:
        assert [c.get(f"/api/tables/t1/history/{n}", headers=FLOOR).json() for n in (1, 2)] == before
        assert [r["game"]["stakes"]["ante"] for r in before] == [1, 1]
        assert "antes 1" in c.get("/api/tables/t1/history/1/text", headers=FLOOR).text
        assert [s["stack"] for s in c.get("/api/tables/t1/hand", headers=DEALER).json()["seats"]] == stacks
        assert c.post("/api/tables/t1/hand", headers=DEALER).json()["game"]["stakes"]["ante"] == 5
        _play_out(c)
        assert c.get("/api/tables/t1/history/3", headers=FLOOR).json()["game"]["stakes"]["ante"] == 5
        assert "antes 5" in c.get("/api/tables/t1/history/3/text", headers=FLOOR).text


def _client_on(journal: MemoryJournal, shoe: VirtualShoe, *, ante: int, recover: bool = False) -> TestClient:
    game = table_game({"form": "five_card_draw", "stakes": {"ante": ante, "small_bet": 2, "big_bet": 4}})
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0, game=game), shoe=shoe, journal=journal)
    if recover:
        table.recover()
    registry = TableRegistry([table], tokens=TOKENS, broadcast_delay_s=0)
    return TestClient(create_app(registry))
