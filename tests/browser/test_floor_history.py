"""The floor's hand-history browser: a hand that halted on a camera alert and was resumed shows its acts, the
alert with the camera frame that raised it, the halt, the acknowledgement and the ruling with who made it."""

from __future__ import annotations

import random
import stat
from pathlib import Path
from typing import Any

import pytest

from table_controller.controller.alert_frames import AlertFrames
from table_controller.controller.camera import SimTableSource, TableCamera
from table_controller.controller.demo import play_hands
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.players import SimPlayers
from table_controller.controller.table import TableController
from table_controller.service.models import RulingRequest
from table_controller.service.settings import TableSettings
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


def test_floor_sees_an_alerts_frame_after_a_restart(serve_table: Any, page: Any, tmp_path: Path) -> None:
    """The frame behind a camera alert is kept in the data folder: the restarted table's floor still sees it."""
    folder = tmp_path / "alert-frames"
    settings = TableSettings(pace_s=0, broadcast_delay_s=0)
    journal = MemoryJournal()
    first = TableController(settings, shoe=VirtualShoe(seed=17), journal=journal)
    first.alert_frames = AlertFrames(folder)
    server = serve_table(first, first.shoe)
    for k, name in enumerate(["Ann", "Bo", "Cy"], start=1):
        assert server.api("POST", f"/api/tables/t1/seats/{k}", json={"name": name, "buy_in": 100}).status_code == 201
    assert server.api("POST", "/api/tables/t1/hand").status_code == 201
    source = SimTableSource(first, seed=3)
    first.camera = TableCamera(source, calibration=source.calibration())
    hand = first.hand
    assert hand is not None
    held = {c for s in (1, 2, 3) for c in hand.hole(s)}
    source.extra[2] = next(c for c in ("Ah", "Kc", "Qd", "Js", "Th", "9c", "8s", "7h") if c not in held)
    for _ in range(4):
        server.call(first.camera.step(first))
        if first.halted:
            break
    alert = server.view().alerts[-1]
    assert alert.kind == "camera_mismatch" and alert.frame
    first.camera = None
    server.call(first.floor_ruling(RulingRequest(kind="resume", by="Flo", reason="foreign card removed")))
    server.call(play_hands(first, SimPlayers(first, rng=random.Random(2)), hands=1))
    assert first.hand is None
    kept = [p for p in folder.iterdir() if p.name.endswith(f"-{alert.id}.jpg")]
    assert len(kept) == 1 and stat.S_IMODE(kept[0].stat().st_mode) == 0o600

    # The restart: a new controller replays the journal; its frames come from the data folder.
    restarted = TableController(settings, shoe=VirtualShoe(seed=17), journal=journal)
    restarted.alert_frames = AlertFrames(folder)
    restarted.recover()
    again = serve_table(restarted, restarted.shoe)
    page.goto(again.base + "/floor?token=floor-tok-browser-1")
    page.get_by_test_id("hand-1").click()
    story = page.get_by_test_id("story")
    story.locator(".table-event").first.wait_for(state="visible")
    page.get_by_test_id(f"frame-{alert.id}").first.click()
    page.get_by_test_id("alert-frame").wait_for(state="visible")
    page.wait_for_function("document.querySelector('[data-testid=alert-frame] img').naturalWidth > 100")
    shot(page, "floor-alert-frame-after-restart")
