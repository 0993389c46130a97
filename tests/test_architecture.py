"""The import rules of docs/architecture.md, checked on the source.

The rules engine is pure: no sockets, serial ports, files, clocks or randomness may be imported into it.
`vision` and `firmware_bridge` never depend on `table_controller`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

IO_MODULES = {
    "asyncio", "datetime", "http", "io", "os", "pathlib", "random", "secrets", "select", "selectors",
    "serial", "shutil", "socket", "sqlite3", "subprocess", "tempfile", "threading", "time", "urllib",
    "uvicorn", "fastapi", "cv2", "psycopg",
}


def _imports(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def _py_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", _py_files("table_controller/engine"), ids=lambda p: p.name)
def test_engine_imports_no_io(path: Path) -> None:
    bad = sorted({name for name in _imports(path) if name.split(".")[0] in IO_MODULES})
    assert not bad, f"{path.relative_to(ROOT)} imports I/O modules {bad}"


@pytest.mark.parametrize("package", ["vision", "firmware_bridge"])
def test_device_packages_do_not_import_the_controller(package: str) -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in _py_files(package)
        if any(name.split(".")[0] == "table_controller" for name in _imports(path))
    ]
    assert not offenders


def test_vision_does_not_import_the_simulator() -> None:
    # the simulated camera imports vision (its cards, its calibration), so vision may not import it back; only
    # the reader's training code (not run at table time) draws the simulator's faces as training data
    training = {"train.py", "trainset.py"}
    offenders = [str(path.relative_to(ROOT)) for path in _py_files("vision") if path.name not in training
                 and any(name.split(".")[0] == "hardware_sim" for name in _imports(path))]
    assert not offenders


def test_checker_sees_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import socket\nfrom time import monotonic\nfrom . import local\n", encoding="utf-8")
    assert sorted(_imports(sample)) == ["socket", "time"]
