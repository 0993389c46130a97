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


def test_checker_sees_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import socket\nfrom time import monotonic\nfrom . import local\n", encoding="utf-8")
    assert sorted(_imports(sample)) == ["socket", "time"]


def _engine_import_graph() -> dict[str, set[str]]:
    """Each module of table_controller/engine and the engine modules it imports, at any level of the file: in a
    function, or for the type checker only, an import is still a dependency of that module."""
    package = "table_controller.engine"
    graph: dict[str, set[str]] = {}
    for path in _py_files("table_controller/engine"):
        name = f"{package}.{path.stem}" if path.stem != "__init__" else package
        targets: set[str] = set()
        for imported in _imports(path):
            if imported.startswith(package + "."):
                targets.add(".".join(imported.split(".")[:3]))
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):  # ``from table_controller.engine import hand``: the module named
            if isinstance(node, ast.ImportFrom) and node.module == package:
                targets.update(f"{package}.{alias.name}" for alias in node.names)
        targets.discard(name)
        graph[name] = targets
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_engine_has_no_import_circle() -> None:
    graph = _engine_import_graph()
    assert "table_controller.engine.hand" in graph
    circle = _cycle(graph)
    assert circle is None, "import circle in the engine: " + " -> ".join(m.rsplit(".", 1)[1] for m in circle or [])


def test_circle_finder_sees_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
