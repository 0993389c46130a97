"""The simulated camera films the live table; the vision pipeline reads it; the controller cross-checks."""

from __future__ import annotations

import asyncio
from pathlib import Path

from table_controller.controller.camera import SimTableSource, TableCamera
from tests.controller.conftest import make_table, seated

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "camera"


def test_foreign_card_in_front_of_a_seat_halts_the_hand_and_the_frame_is_drawn() -> None:
    async def run() -> None:
        table = make_table(seed=12)
        await seated(table, 3)
        await table.start_hand()
        assert table.hand is not None
        source = SimTableSource(table, seed=3)
        camera = TableCamera(source, calibration=source.calibration())
        table.camera = camera
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert await camera.step(table)
        frame = camera.frame_jpeg()
        assert frame is not None and frame[:2] == b"\xff\xd8"  # a JPEG
        dets = camera.detections()
        assert sum(1 for d in dets if d["face"] == "down") >= 3  # the dealt hands lie face down
        (ARTIFACTS / "camera-frame.jpg").write_bytes(frame)
        assert table.full_view().device.camera == "live"
        assert not table.halted
        hole = set(table.hand.hole(2))
        foreign = next(c for c in ("Ah", "Kc", "Qd", "Js", "Th", "9c") if c not in hole and
                       all(c not in table.hand.hole(s) for s in (1, 3)))
        source.extra[2] = foreign
        for _ in range(3):
            await camera.step(table)
            if table.halted:
                break
        view = table.full_view()
        assert view.phase == "halted"
        alert = view.alerts[-1]
        assert alert.kind == "camera_mismatch" and alert.seat == 2 and foreign in alert.message
        assert any(d["code"] == foreign and d["zone"] == "seat 2" for d in camera.detections())
        (ARTIFACTS / "camera-foreign-card.jpg").write_bytes(camera.frame_jpeg() or b"")

    asyncio.run(run())


def test_camera_lost_mid_hand_pauses_until_the_dealer_continues() -> None:
    async def run() -> None:
        table = make_table(seed=12)
        await seated(table, 3)
        await table.start_hand()
        source = SimTableSource(table, seed=3)
        camera = TableCamera(source, calibration=source.calibration())
        table.camera = camera
        source.close()
        assert not await camera.step(table)
        view = table.full_view()
        assert view.device.camera == "lost"
        assert view.alerts[-1].kind == "camera_lost"
        assert view.phase == "paused" and view.prompts[0].options == ("retry", "continue", "void")
        await table.answer_prompt(view.prompts[0].id, "retry")
        assert not await camera.step(table)  # still no frame: paused again
        view = table.full_view()
        assert view.phase == "paused"
        await table.answer_prompt(view.prompts[0].id, "continue")
        view = table.full_view()
        assert view.phase == "betting" and view.to_act is not None

    asyncio.run(run())
