"""The protocol cores are sans-IO: no serial port, socket, clock, thread or randomness inside."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORES = ["cobs", "crc", "cards", "errors", "states", "messages", "frames", "host", "device"]
IO = {"asyncio", "os", "random", "secrets", "select", "serial", "socket", "threading", "time", "datetime", "io"}


@pytest.mark.parametrize("module", CORES)
def test_core_module_imports_no_io(module: str) -> None:
    tree = ast.parse((ROOT / "firmware_bridge" / f"{module}.py").read_text(encoding="utf-8"))
    names = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}
    names |= {node.module.split(".")[0] for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
    assert not names & IO


def test_importing_the_cores_loads_no_serial_or_asyncio() -> None:
    code = ("import sys, firmware_bridge.device, firmware_bridge.host; "
            "print(sorted(m for m in ('serial', 'asyncio', 'socket') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"
