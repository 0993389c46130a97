"""The short fault soak (the long one is ``cardtable soak --hands 200 --kills 20``).

The controller process is killed (kill -9) at random points and started again on the same data; the shoe
line garbles 1% of the bytes both ways; the shoe jams (recovering and not), its door opens mid-hand, it
loses power mid-hand; the camera drops out at showdowns. Afterwards every hand completed or was voided, the
journal verifies, every exported record replays to its stored result, chips are conserved, and no card
was delivered twice or lost between the shoe and the journal.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from table_controller.soak.checks import audit_data, cli
from table_controller.soak.stack import LiveStack, StackOptions, game_for
from table_controller.soak.worker import FAULTS, SoakTable


def test_kill_minus_nine_at_random_points(tmp_path: Path) -> None:
    """The documented command, short: ``cardtable soak --hands 8 --kills 3 --seed 1 --data DIR --json``."""
    data = tmp_path / "soak"
    code, out = cli("soak", "--hands", "8", "--kills", "3", "--seed", "1", "--data", str(data), "--json")
    summary = json.loads(out)
    assert summary["findings"] == [] and summary["ok"] and code == 0
    assert summary["kills"] == 3 and summary["starts"] == 4
    # The shoe is a process of its own that outlives every kill, as a real shoe does: a hand a kill left in
    # play is resumed by the next start, never voided for want of its deck.
    assert summary["voided_at_restart"] == 0 and summary["resumed_at_restart"] <= 3
    assert summary["completed"] + summary["voided"] >= 8
    assert summary["unexpected_voids"] == 0
    assert summary["verify_ok"]
    assert summary["chips_in"] == summary["chips_on_table"] >= 400
    # Every hand that ended is on record, a voided one too, and every record replays to its stored result.
    assert summary["exported"] == summary["completed"] + summary["voided"] == summary["replayed_same"]
    # Its findings can be examined afterwards with the same commands.
    assert cli("history", "verify", "--data", str(data))[0] == 0


def test_every_device_fault_on_a_garbled_line(tmp_path: Path) -> None:
    async def run() -> tuple[SoakTable, LiveStack]:
        stack = LiveStack(StackOptions(data=tmp_path, seed=4, camera_dropout=1.0))
        await stack.start()
        try:
            assert stack.sim is not None
            stack.sim.control.garble(0.01)
            soak = SoakTable(stack, rng=random.Random(4), fault_rate=0.0, void_rate=0.0, queue=list(FAULTS))
            await stack.seat_players()
            for _ in range(20):
                await soak.play_hand()
                if not soak.queue and soak._planned is None and stack.camera_dropouts:
                    break
        finally:
            await stack.stop()
        return soak, stack

    soak, stack = asyncio.run(run())
    stats = soak.stats
    assert stats.findings == []
    assert all(stats.faults[kind] >= 1 for kind in FAULTS), stats.faults
    assert stats.prompts >= 1
    assert stack.camera_dropouts >= 1
    assert any(a.kind == "camera_lost" for a in stack.table.full_view().alerts)
    report = audit_data(tmp_path, game=game_for("jackpots", "fixed_limit"))
    assert report.findings == []
    assert report.completed + report.voided == stats.hands
    assert report.chips_in == report.chips_on_table


def test_the_door_opened_mid_hand_is_closed_and_play_resumes(tmp_path: Path) -> None:
    async def run() -> SoakTable:
        stack = LiveStack(StackOptions(data=tmp_path, seed=5, camera=False))
        await stack.start()
        try:
            soak = SoakTable(stack, rng=random.Random(5), fault_rate=0.0, void_rate=0.0, queue=["door"])
            await stack.seat_players()
            for _ in range(2):
                await soak.play_hand()
        finally:
            await stack.stop()
        return soak

    soak = asyncio.run(run())
    assert soak.stats.faults["door"] == 1
    assert soak.stats.voids_by_dealer == 0
    assert soak.stats.findings == []


@pytest.mark.parametrize("argv", [["--hands", "0"], ["--kills", "-1"], ["--data", "{busy}"], ["--hands", "x"]])
def test_soak_command_refuses_bad_input(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.cli import main

    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "journal.sqlite3").write_text("not ours")
    try:
        code = main(["soak", *[a.replace("{busy}", str(busy)) for a in argv]])
    except SystemExit as exc:  # argparse's usage error
        code = int(exc.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err
