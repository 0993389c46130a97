"""A hand that halted and was resumed by the floor keeps its whole story: the record, the PHH and the text
export hold the halt, the alert, its acknowledgement and the resume ruling, in their place among the acts."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.controller.demo import play_hands, seat_players
from table_controller.controller.players import SimPlayers
from table_controller.controller.runtime import close_table, open_table
from table_controller.engine.phh import to_phh, to_text
from table_controller.engine.record import replay
from table_controller.service.models import RulingRequest
from table_controller.service.settings import TableSettings


async def _halted_and_resumed(data: Path) -> dict[str, object]:
    settings = TableSettings(data=data, pace_s=0, broadcast_delay_s=0)
    table = await open_table(settings, seed=4, fast=True, virtual_shoe=True, camera=False)
    try:
        c = table.controller
        await seat_players(c, 3)
        await c.start_hand()
        assert c.hand is not None
        players = SimPlayers(c, rng=random.Random(1))
        assert await players.step()  # one act before the halt: the halt sits after it
        held = {card for s in (1, 2, 3) for card in c.hand.hole(s)}
        foreign = next(card for card in ("Ah", "Kc", "Qd", "Js", "Th", "9c", "8s", "7h") if card not in held)
        await c.camera_reading(2, foreign)
        assert c.halted
        alert = c.full_view().alerts[-1]
        c.acknowledge_alert(alert.id)
        await c.floor_ruling(RulingRequest(kind="resume", by="Flo", reason="a card from the next table's deck"))
        assert not c.halted
        await play_hands(c, players, hands=1)
        assert c.hand is None and c.history()[-1].hand == 1
        return c.hand_record(1)
    finally:
        await close_table(table)


def test_the_record_keeps_the_halt_the_alert_and_the_ruling(tmp_path: Path) -> None:
    record = asyncio.run(_halted_and_resumed(tmp_path))
    events = record["table_events"]
    assert isinstance(events, list)
    kinds = [e["kind"] for e in events]
    assert kinds == ["alert", "halt", "alert_ack", "ruling"], kinds
    alert, halt, ack, ruling = events
    assert "camera and shoe disagree at seat 2" in halt["text"]
    assert alert["level"] == "security" and alert["seat"] == 2 and alert["ref"] == ack["ref"]
    assert ruling["by"] == "Flo" and ruling["text"].startswith("resume: ")
    assert all(e["after_action"] == 2 and e["at_ms"] > 0 for e in events)  # after the deal and the one act
    assert replay(record)["status"] in ("complete", "passed_out")  # the acts still replay as they were

    text = to_text(record, replay(record))
    lines = text.splitlines()
    at = next(k for k, line in enumerate(lines) if "[" in line and "HALT]" in line)
    assert "ALERT (security) at seat 2]" in lines[at - 1]
    assert "ACKNOWLEDGED]" in lines[at + 1] and "FLOOR RULING by Flo]" in lines[at + 2]
    assert "resume: a card from the next table's deck" in lines[at + 2]
    phh = to_phh(record)
    assert "_table_events = [" in phh and '"halt"' in phh and '"Flo"' in phh


def test_history_export_of_a_halted_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    asyncio.run(_halted_and_resumed(data))
    for fmt in ("record", "phh", "text"):
        out = tmp_path / fmt
        assert main(["history", "export", "--data", str(data), "--format", fmt, "--out", str(out)]) == 0
        files = list(out.iterdir())
        assert len(files) == 1
        body = files[0].read_text()
        if fmt == "record":
            assert [e["kind"] for e in json.loads(body)["table_events"]] == ["alert", "halt", "alert_ack", "ruling"]
        else:
            for needle in ("halt", "camera", "Flo", "resume"):
                assert needle in body, (fmt, needle)
    capsys.readouterr()
