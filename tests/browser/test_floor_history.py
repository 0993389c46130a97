"""The floor's hand-history browser: a hand that halted on a camera alert and was resumed shows its acts, the
alert with the camera frame that raised it, the halt, the acknowledgement and the ruling with who made it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from table_controller.controller.camera import SimTableSource, TableCamera
from table_controller.controller.demo import play_hands
from table_controller.controller.players import SimPlayers
from table_controller.service.models import RulingRequest
from tests.browser.helpers import LiveServer, shot

pytestmark = pytest.mark.browser


def test_floor_browses_a_halted_hand(live_server: LiveServer, page: Any) -> None:
    server = live_server
    table = server.table
    for k, name in enumerate(["Ann", "Bo", "Cy"], start=1):
        assert server.api("POST", f"/api/tables/t1/seats/{k}", json={"name": name, "buy_in": 100}).status_code == 201
    assert server.api("POST", "/api/tables/t1/hand").status_code == 201
    source = SimTableSource(table, seed=3)
    camera = TableCamera(source, calibration=source.calibration())
    table.camera = camera
    assert server.call(camera.step(table))
    hand = table.hand
    assert hand is not None
    held = {c for s in (1, 2, 3) for c in hand.hole(s)}
    source.extra[2] = next(c for c in ("Ah", "Kc", "Qd", "Js", "Th", "9c", "8s", "7h") if c not in held)
    for _ in range(4):
        server.call(camera.step(table))
        if table.halted:
            break
    assert table.halted
    alert = server.view().alerts[-1]
    assert alert.kind == "camera_mismatch" and alert.frame
    source.extra.clear()
    table.camera = None  # the rest of the hand without the camera
    assert server.api("POST", f"/api/tables/t1/alerts/{alert.id}/ack", token="floor-tok-browser-1").status_code == 200
    server.call(table.floor_ruling(RulingRequest(kind="resume", by="Flo", reason="foreign card removed")))
    server.call(play_hands(table, SimPlayers(table, rng=random.Random(2)), hands=1))
    assert table.hand is None

    page.goto(server.base + "/floor?token=floor-tok-browser-1")
    page.get_by_test_id("hand-1").click()
    story = page.get_by_test_id("story")
    story.locator(".table-event").first.wait_for(state="visible")
    events = story.locator(".table-event").all_inner_texts()
    assert any("ALERT (security) at seat 2]" in e for e in events)
    assert any("HALT]" in e and "camera and shoe disagree at seat 2" in e for e in events)
    assert any("ACKNOWLEDGED]" in e for e in events)
    assert any("FLOOR RULING by Flo]" in e and "resume: foreign card removed" in e for e in events)
    assert "Result: " in story.inner_text()
    shot(page, "floor-history")
    page.get_by_test_id(f"frame-{alert.id}").first.click()
    frame = page.get_by_test_id("alert-frame")
    frame.wait_for(state="visible")
    page.wait_for_function("document.querySelector('[data-testid=alert-frame] img').naturalWidth > 100")
    shot(page, "floor-alert-frame")
