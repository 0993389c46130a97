"""The shoe simulator's state file in the data folder (``shoe-sim.json``) read within bounds: a garbled, huge,
deeply nested one, or a link to /dev/zero, names no simulator to attach to (a fresh one starts), never a
RecursionError or a memory blow-up at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.controller.sim_process import STATE_NAME, _attach
from tests.hostile_files import hostile_file


@pytest.mark.parametrize("content", [
    b"[" * 100_000 + b"]" * 100_000,
    b"\xff\xfe garbage",
    b"[1]",
    b'{"pid": "' + b"1" * 100_000 + b'", "link": "/dev/null"}',
    None,  # a link to /dev/zero
])
def test_a_hostile_state_file_names_no_simulator(tmp_path: Path, content: bytes | None) -> None:
    hostile_file(tmp_path / STATE_NAME, content)
    assert _attach(tmp_path) is None
