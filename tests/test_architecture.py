"""The import rules of docs/architecture.md, checked on the source.

The rules engine and the shoe protocol's core are pure: no sockets, serial ports, files, clocks or randomness
may be imported into them. Each package imports only the packages its row of the table allows (the
controller never imports the service, the CLI or the soak); `vision` and `firmware_bridge` never depend on
`table_controller`; the controller's modules import one another without a circle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
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


# The shoe protocol's sans-IO core (docs/protocol.md); the driver, transport, fuzzer and diagram CLI sit around it.
FIRMWARE_CORE = ("cards", "cobs", "crc", "device", "errors", "frames", "host", "messages", "states")


@pytest.mark.parametrize("name", FIRMWARE_CORE)
def test_firmware_bridge_core_imports_no_io(name: str) -> None:
    path = ROOT / "firmware_bridge" / f"{name}.py"
    bad = sorted({n for n in _imports(path) if n.split(".")[0] in IO_MODULES})
    assert not bad, f"firmware_bridge/{name}.py imports I/O modules {bad}"


# Which of our packages each package may import (docs/architecture.md, "Who may import whom").
TC = "table_controller"
MAY_IMPORT: dict[str, frozenset[str]] = {
    "firmware_bridge": frozenset(),
    "hardware_sim": frozenset({"firmware_bridge", "vision"}),
    f"{TC}.bounded": frozenset(),
    f"{TC}.engine": frozenset(),
    f"{TC}.journal": frozenset({f"{TC}.bounded"}),
    f"{TC}.controller": frozenset({f"{TC}.engine", f"{TC}.journal", f"{TC}.bounded", "firmware_bridge", "vision",
                                   "hardware_sim"}),
    f"{TC}.service": frozenset({f"{TC}.controller", f"{TC}.engine", f"{TC}.journal", f"{TC}.bounded"}),
    f"{TC}.soak": frozenset({f"{TC}.controller", f"{TC}.engine", f"{TC}.journal", f"{TC}.service", f"{TC}.bounded",
                             "firmware_bridge", "hardware_sim", "vision"}),
    f"{TC}.cli": frozenset({f"{TC}.controller", f"{TC}.engine", f"{TC}.journal", f"{TC}.service", f"{TC}.bounded",
                            f"{TC}.soak", "firmware_bridge", "hardware_sim", "vision"}),
}
OURS = ("firmware_bridge", "vision", "hardware_sim", TC)


def _package_of(module: str) -> str | None:
    """The package of the import table a dotted module name belongs to (None: not ours)."""
    parts = module.split(".")
    if parts[0] not in OURS:
        return None
    if parts[0] == TC:
        return f"{TC}.{parts[1]}" if len(parts) > 1 else TC
    return parts[0]


def _imported(path: Path) -> Iterator[str]:
    """Every module an import names, ``from table_controller import bounded`` as ``table_controller.bounded``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == TC:
                yield from (f"{TC}.{alias.name}" for alias in node.names)
            else:
                yield node.module


def _package_files(package: str) -> list[Path]:
    path = ROOT / package.replace(".", "/")
    return [path.with_suffix(".py")] if path.with_suffix(".py").is_file() else sorted(path.rglob("*.py"))


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_each_package_imports_only_what_its_rule_allows(package: str) -> None:
    allowed = MAY_IMPORT[package] | {package}
    offenders = sorted(
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _package_files(package)
        for name in _imported(path)
        if (owner := _package_of(name)) is not None and owner not in allowed
    )
    assert not offenders


def test_every_package_of_the_controller_has_a_rule() -> None:
    packages = {f"{TC}.{p.stem if p.suffix == '.py' else p.name}" for p in (ROOT / TC).iterdir()
                if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert packages <= set(MAY_IMPORT)


def _cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (module -> modules it imports), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


@pytest.mark.parametrize("package", [f"{TC}.controller", f"{TC}.journal", f"{TC}.service", f"{TC}.cli", f"{TC}.soak"])
def test_no_import_circle_inside(package: str) -> None:
    """Every import counts, also one inside a function: a circle of lazy imports is still a circle."""
    folder = ROOT / package.replace(".", "/")
    modules = {f"{package}.{p.stem}": p for p in folder.glob("*.py") if p.stem != "__init__"}
    graph = {name: {m for m in _imported(path) if m in modules and m != name} for name, path in modules.items()}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_no_import_circle_between_the_controllers_packages() -> None:
    graph: dict[str, set[str]] = {}
    for package in MAY_IMPORT:
        for path in _package_files(package):
            for name in _imported(path):
                owner = _package_of(name)
                if owner is not None and owner != package and owner.startswith(f"{TC}."):
                    graph.setdefault(package, set()).add(owner)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_no_module_imports_another_modules_private_name() -> None:
    """A name with a leading underscore is its module's own: another module uses only its public names (the
    engine's concerns share the deal's state through the ``HandState`` protocol, not through privates)."""
    offenders = sorted(
        f"{path.relative_to(ROOT)} imports {alias.name} from {node.module}"
        for path in _py_files(TC)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(f"{TC}.")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    )
    assert not offenders


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None




def test_vision_does_not_import_the_simulator() -> None:
    # the simulated camera imports vision (its cards, its calibration), so vision may not import it back; only
    # the reader's and the spotter's training code (not run at table time) draw the simulator's faces and frames as
    # training data
    training = {"train.py", "trainset.py", "spot_train.py"}
    offenders = [str(path.relative_to(ROOT)) for path in _py_files("vision") if path.name not in training
                 and any(name.split(".")[0] == "hardware_sim" for name in _imports(path))]
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


def test_engine_has_no_import_circle() -> None:
    graph = _engine_import_graph()
    assert "table_controller.engine.hand" in graph
    circle = _cycle(graph)
    assert circle is None, "import circle in the engine: " + " -> ".join(m.rsplit(".", 1)[1] for m in circle or [])


def test_circle_finder_sees_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
