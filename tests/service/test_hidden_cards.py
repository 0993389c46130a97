"""The dealer's token probing for hole cards (issue: exposed-card reports told where a card lay).

Every card of the pack is named, with the dealer's token, in each report or act that names a card. For the
cards the named seat does not hold, the answer (status and body) must be one and the same, wherever the card
lies: another player's hand, the stub, the discards. Every refusal is journaled and counted, and repeated
refusals raise a floor alert. The floor, who sees hole cards anyway, gets the engine's own reason.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.engine.cards import FULL_DECK, card_str
from table_controller.service.app import TableRegistry, create_app
from table_controller.service.settings import TableSettings
from tests.service.helpers import DEALER, FLOOR, TOKENS

PACK = [card_str(c) for c in FULL_DECK]
FIVE_CARD_DRAW = {"form": "five_card_draw", "betting": "fixed_limit",
                  "stakes": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4}}


@pytest.fixture
def table() -> TableController:
    return TableController(TableSettings(pace_s=0, broadcast_delay_s=0, game=FIVE_CARD_DRAW),  # type: ignore[arg-type]
                           shoe=VirtualShoe(seed=11), journal=MemoryJournal())


@pytest.fixture
def client(table: TableController) -> Iterator[TestClient]:
    registry = TableRegistry([table], tokens=TOKENS, broadcast_delay_s=0)
    with TestClient(create_app(registry)) as c:
        yield c


def _deal(c: TestClient, players: int = 3) -> dict[str, Any]:
    for k in range(1, players + 1):
        r = c.post(f"/api/tables/t1/seats/{k}", json={"name": f"P{k}", "buy_in": 100}, headers=DEALER)
        assert r.status_code == 201
    r = c.post("/api/tables/t1/hand", headers=DEALER)
    assert r.status_code == 201, r.text
    floor: dict[str, Any] = c.get("/api/tables/t1/floor", headers=FLOOR).json()
    return floor


def _answer(r: Any) -> str:
    return f"{r.status_code} {json.dumps(r.json(), sort_keys=True)}"


def _holes(floor: dict[str, Any]) -> dict[int, set[str]]:
    return {s["seat"]: set(s["hole"]) for s in floor["seats"] if s["hole"]}


@pytest.mark.parametrize("kind", ["exposed_in_deal", "faced_in_pack"])
def test_probing_every_card_in_a_report_learns_nothing_of_where_it_lies(
        client: TestClient, table: TableController, kind: str) -> None:
    floor = _deal(client)
    holes = _holes(floor)
    target = 1
    elsewhere = set().union(*(h for s, h in holes.items() if s != target))
    answers: dict[str, set[str]] = {}
    for card in PACK:
        if card in holes[target]:
            continue  # the one card that is there would be applied (exposed to all, and the floor told)
        r = client.post("/api/tables/t1/irregularities", json={"kind": kind, "seat": target, "card": card},
                        headers=DEALER)
        answers.setdefault(_answer(r), set()).add(card)
    assert len(answers) == 1, f"answers differ by where the card lies: {list(answers)}"
    (answer,) = answers
    assert answer.startswith("409 ") and "card_not_in_hand" in answer
    assert elsewhere and elsewhere <= answers[answer]  # in another hand ...
    assert set(PACK) - holes[target] - elsewhere <= answers[answer]  # ... or in the stub: the same answer
    # Every refusal is on record and counted; repeated refusals reach the floor as a security alert.
    refused = [e for e in table.journal.entries() if e.kind == "refused"]
    assert len(refused) == 47 == table.refused_reports
    assert {e.data["code"] for e in refused} == {"card_elsewhere", "card_not_held"}  # the floor's record says which
    alerts = [a for a in client.get("/api/tables/t1/floor", headers=FLOOR).json()["alerts"]
              if a["kind"] == "refused_reports"]
    assert len(alerts) == 47 // 3 and all(a["level"] == "security" for a in alerts)
    # ... and never on the dealer's screen.
    dealer = client.get("/api/tables/t1/dealer", headers=DEALER).json()
    assert "alerts" not in dealer and not any("probing" in line["text"] for line in dealer["log"])


def test_a_card_the_seat_holds_is_applied_and_the_floor_gets_the_engines_reason(client: TestClient) -> None:
    floor = _deal(client)
    holes = _holes(floor)
    other = sorted(holes[2])[0]
    r = client.post("/api/tables/t1/irregularities", json={"kind": "exposed_in_deal", "seat": 1, "card": other},
                    headers=FLOOR)
    assert r.status_code == 409 and r.json()["error"]["code"] == "card_elsewhere"
    held = sorted(holes[1])[0]
    r = client.post("/api/tables/t1/irregularities", json={"kind": "exposed_in_deal", "seat": 1, "card": held},
                    headers=DEALER)
    assert r.status_code == 200, r.text
    seat1 = next(s for s in r.json()["seats"] if s["seat"] == 1)
    assert seat1["shown"] == [held]  # exposed face up: everyone saw it


def test_named_discards_and_shown_cards_answer_alike_for_every_unheld_card(client: TestClient) -> None:
    _deal(client, players=2)
    # Both check through the first interval to reach the draw.
    for _ in range(2):
        state = client.get("/api/tables/t1/hand", headers=DEALER).json()
        r = client.post("/api/tables/t1/actions", json={"seat": state["to_act"], "act": "check"}, headers=DEALER)
        assert r.status_code == 200, r.text
    state = client.get("/api/tables/t1/hand", headers=DEALER).json()
    drawer = state["draw"]["seat"]
    holes = _holes(client.get("/api/tables/t1/floor", headers=FLOOR).json())
    answers: set[str] = set()
    for card in PACK:
        if card in holes[drawer]:
            continue
        r = client.post("/api/tables/t1/draw", json={"seat": drawer, "discard": [card]}, headers=DEALER)
        answers.add(_answer(r))
    assert len(answers) == 1 and "card_not_in_hand" in next(iter(answers))


def test_a_forgotten_hand_is_judged_against_the_cards_it_may_hold() -> None:
    """After a draw entered as a count the table forgets which cards the seat kept: a card named at the show
    must not be told apart by whether the table knows it elsewhere or not."""
    asyncio.run(_forgotten_hand())


async def _forgotten_hand() -> None:
    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0, game=FIVE_CARD_DRAW),  # type: ignore[arg-type]
                            shoe=VirtualShoe(seed=5), journal=MemoryJournal())
    for k in (1, 2):
        await table.sit_down(k, f"P{k}", 100)
    await table.start_hand()
    for _ in range(2):
        await table.act(table.full_view().to_act or 0, "check")
    while table.full_view().draw is not None:
        entry = table.full_view().draw
        assert entry is not None
        await table.draw(entry.seat, count=2)
    for _ in range(2):
        await table.act(table.full_view().to_act or 0, "check")
    view = table.full_view()
    seat = view.to_act
    assert seat is not None and view.phase == "showdown"
    assert table.hand is not None
    hole = table.hand.hole(seat)
    possible = table.hand.possible(seat)
    assert possible is not None and "??" in hole
    known_elsewhere = {c for s in view.seats if s.seat != seat for c in s.hole if c != "??"}
    answers: dict[str, set[str]] = {}
    for card in PACK:
        if card in hole or card in possible:
            continue
        try:
            await table.act(seat, "show", cards=(card, *hole[1:]))
            answer = "applied"
        except Exception as exc:  # the answer, whatever it is, is what is compared
            answer = f"{type(exc).__name__} {getattr(exc, 'code', '')} {exc}"
        answers.setdefault(answer, set()).add(card)
    assert len(answers) == 1, list(answers)
    assert known_elsewhere & next(iter(answers.values()))
