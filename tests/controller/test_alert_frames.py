"""The frames behind camera alerts are kept in the data folder: bounded, private, written atomically, and found
again by a restarted table whose journal replays the same alerts."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

from table_controller.controller.alert_frames import AlertFrames
from table_controller.controller.camera import SimTableSource, TableCamera
from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from tests.controller.helpers import make_table, seated

JPEG = b"\xff\xd8" + b"frame" * 10 + b"\xff\xd9"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_frames_are_private_atomic_and_bounded(tmp_path: Path) -> None:
    folder = tmp_path / "alert-frames"
    frames = AlertFrames(folder, keep=3, max_bytes=10_000)
    assert _mode(folder) == 0o700
    assert frames.put("a1", 1_700_000_000_001, JPEG)
    names = os.listdir(folder)
    assert names == ["1700000000001-a1.jpg"] and _mode(folder / names[0]) == 0o600
    assert frames.get("a1", 1_700_000_000_001) == JPEG and frames.has("a1", 1_700_000_000_001)
    # Another alert's time (an old folder beside a new journal) is never taken for this alert's frame.
    assert frames.get("a1", 1_700_000_000_002) is None and not frames.has("a1", 1_700_000_000_002)
    # A path in place of an id finds nothing.
    assert frames.get("../tokens", 1_700_000_000_001) is None
    # A write cut short by a crash leaves a temporary file: never shown, swept at the next write.
    (folder / "1700000000002-a2.jpg.tmp").write_bytes(b"\xff\xd8half")
    assert frames.get("a2", 1_700_000_000_002) is None
    for k in range(2, 6):
        assert frames.put(f"a{k}", 1_700_000_000_000 + k, JPEG)
    assert sorted(os.listdir(folder)) == [f"170000000000{k}-a{k}.jpg" for k in (3, 4, 5)]  # the oldest went first
    # Bounded by size too: a big frame pushes the older ones out.
    assert frames.put("a6", 1_700_000_000_006, b"\xff\xd8" + b"x" * 9_990)
    assert sorted(os.listdir(folder)) == ["1700000000006-a6.jpg"]
    assert not frames.put("a7", 1_700_000_000_007, b"")
    # In memory (no folder): the same bounds.
    memory = AlertFrames(keep=2)
    for k in range(1, 4):
        memory.put(f"a{k}", k, JPEG)
    assert memory.get("a1", 1) is None and memory.get("a3", 3) == JPEG


def test_a_restarted_table_shows_the_frame_of_an_alert_raised_before(tmp_path: Path) -> None:
    async def run() -> None:
        journal = MemoryJournal()
        table = make_table(seed=12, journal=journal)
        table.alert_frames = AlertFrames(tmp_path / "alert-frames")
        await seated(table, 3)
        await table.start_hand()
        assert table.hand is not None
        source = SimTableSource(table, seed=3)
        table.camera = TableCamera(source, calibration=source.calibration())
        held = {c for s in (1, 2, 3) for c in table.hand.hole(s)}
        source.extra[2] = next(c for c in ("Ah", "Kc", "Qd", "Js", "Th", "9c", "8s") if c not in held)
        for _ in range(4):
            await table.camera.step(table)
            if table.halted:
                break
        alert = table.full_view().alerts[-1]
        assert alert.kind == "camera_mismatch" and alert.frame
        shown = table.alert_frame_jpeg(alert.id)
        assert shown[:2] == b"\xff\xd8"

        restarted = TableController(table.settings, shoe=VirtualShoe(seed=12), journal=journal)
        restarted.alert_frames = AlertFrames(tmp_path / "alert-frames")
        restarted.recover()
        again = next(a for a in restarted.full_view().alerts if a.id == alert.id)
        assert again.frame and again.at == alert.at and again.kind == "camera_mismatch"
        assert restarted.alert_frame_jpeg(alert.id) == shown
        # Without the folder (a table in memory) the frame is gone after a restart, and the alert says so.
        bare = TableController(table.settings, shoe=VirtualShoe(seed=12), journal=journal)
        bare.recover()
        assert not next(a for a in bare.full_view().alerts if a.id == alert.id).frame

    asyncio.run(run())


def test_a_frame_file_larger_than_any_kept_is_not_read_whole(tmp_path: Path) -> None:
    """A file under a frame's name in the data folder, larger than any frame the table keeps (put in by hand, or
    a frame grown on disk), is not served: it was read whole into memory for each request."""
    from table_controller.controller.alert_frames import MAX_FRAME_BYTES

    folder = tmp_path / "alert-frames"
    frames = AlertFrames(folder)
    assert frames.put("a1", 1_700_000_000_001, JPEG)
    with open(folder / "1700000000001-a1.jpg", "ab") as grown:
        grown.truncate(MAX_FRAME_BYTES + 1)
    assert frames.get("a1", 1_700_000_000_001) is None
