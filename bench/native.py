"""The native build of the rules engine: the same Python source, compiled to C by mypyc.

Why: the engine is the referee and runs the same code everywhere; the speed goal of issue 3 (10x PokerKit's
random hands per second with the full rules on) is out of reach of the interpreter alone (see
docs/benchmarks.md). mypyc, part of mypy (already the project's type checker), compiles the type-annotated
modules to C extensions: every annotation becomes a check at run time, attribute reads become fixed offsets, and
calls between compiled functions skip the interpreter. Nothing in the source changes meaning, and the same tests
run against both builds (``tests/engine/test_native_build.py``).

How: :func:`build` copies the project's packages, tests and docs into a build directory named after a hash of
their content, runs mypyc there on :data:`NATIVE_MODULES` (the engine's hot path: the hand, its betting
structures, its transition table, seating and the random player), and leaves the compiled ``.so`` files beside
the copied sources. A program runs on the native build when that directory comes first on ``sys.path``
(:func:`environment`). The working tree is never touched: a compiled module beside its source would shadow later
edits of it.

The build needs a C compiler and the Python headers (on CI: Debian's gcc, and the headers that come with the
interpreter); :func:`unavailable` says what is missing. ``python -m bench.native`` builds and prints the directory.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "native"  # build/ is ignored by git

# The modules compiled: those a hand's every act runs through, the events it appends among them (plain classes
# with a constructor of their own, which mypyc compiles to C classes). Cards, evaluation, opening tests and configs
# stay interpreted: they take values from outside (numpy integers from the vision side, ints in place of cards) that
# the interpreted code accepts on purpose and a compiled signature would refuse.
NATIVE_MODULES = (
    "table_controller/engine/betting.py",
    "table_controller/engine/acts.py",
    "table_controller/engine/deck.py",
    "table_controller/engine/draw.py",
    "table_controller/engine/events.py",
    "table_controller/engine/forced.py",
    "table_controller/engine/hand.py",
    "table_controller/engine/hand_state.py",
    "table_controller/engine/identities.py",
    "table_controller/engine/intervals.py",
    "table_controller/engine/legal.py",
    "table_controller/engine/machine.py",
    "table_controller/engine/piles.py",
    "table_controller/engine/pots.py",
    "table_controller/engine/seating.py",
    "table_controller/engine/showdown.py",
    "table_controller/engine/simulate.py",
    "table_controller/engine/wagers.py",
)
COPIED = ("table_controller", "bench", "firmware_bridge", "hardware_sim", "vision", "tests", "docs")
_SKIPPED = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc", "test-artifacts")


class NativeBuildError(Exception):
    """The native build could not be made: no C compiler, no mypyc, or the compiler failed (its output says why)."""


def unavailable() -> str | None:
    """Why the native build cannot be made on this machine, or None when it can."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc (part of mypy) is not installed"
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        return "no C compiler (cc or gcc) on PATH"
    include = sysconfig.get_paths().get("include")
    if not include or not (Path(include) / "Python.h").is_file():
        return f"no Python headers (Python.h) in {include}"
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools (which mypyc builds with) is not installed"
    return None


def source_hash(root: Path = ROOT) -> str:
    """A hash of every file the build copies, the compiled module list, mypyc's and Python's versions."""
    import mypy.version

    digest = hashlib.sha256()
    digest.update(f"{sys.version}|{mypy.version.__version__}|{NATIVE_MODULES}".encode())
    for top in (*COPIED, "pyproject.toml"):
        path = root / top
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            rel = file.relative_to(root)
            if "__pycache__" in rel.parts or file.suffix in (".so", ".pyc") or "test-artifacts" in rel.parts:
                continue
            digest.update(str(rel).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def build(root: Path = ROOT, cache: Path = CACHE) -> Path:
    """The directory of the native build of ``root``'s current sources, made now unless already there."""
    reason = unavailable()
    if reason is not None:
        raise NativeBuildError(f"cannot build the native engine: {reason}")
    digest = source_hash(root)
    target = cache / digest
    if (target / ".complete").is_file():
        return target
    work = cache / f"{digest}.partial-{os.getpid()}"  # two builds at once each work apart; the first to end wins
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for top in COPIED:
        shutil.copytree(root / top, work / top, ignore=_SKIPPED)
    # mypyc builds through setuptools, which would read the project's pyproject.toml: copy it only afterwards.
    done = subprocess.run([sys.executable, "-m", "mypyc", *NATIVE_MODULES], cwd=work, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise NativeBuildError(f"mypyc failed (exit {done.returncode}):\n{done.stdout[-4000:]}{done.stderr[-4000:]}")
    shutil.copy2(root / "pyproject.toml", work / "pyproject.toml")
    shutil.rmtree(work / "build", ignore_errors=True)  # mypyc's intermediate C files and objects
    missing = [m for m in NATIVE_MODULES if not list((work / m).parent.glob(Path(m).stem + ".*.so"))]
    if missing:
        raise NativeBuildError(f"mypyc made no extension for {missing}")
    (work / ".complete").write_text(digest + "\n", encoding="utf-8")
    try:
        work.rename(target)
    except OSError:  # another build of the same sources ended first: use it
        shutil.rmtree(work, ignore_errors=True)
    for old in cache.iterdir():  # builds of older sources (a failed one's leftovers too) only take room
        if old != target and not old.name.startswith(f"{digest}.partial"):
            shutil.rmtree(old, ignore_errors=True)
    return target


def environment(build_dir: Path) -> dict[str, str]:
    """The environment of a child process that runs on the native build (it must run with ``cwd=build_dir`` or
    with no other copy of the packages ahead of it on ``sys.path``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(build_dir), *filter(None, [env.get("PYTHONPATH")])])
    return env


def is_native_engine() -> bool:
    """Whether this process runs the native build (the hand module is a compiled extension)."""
    from table_controller.engine import hand

    return Path(hand.__file__ or "").suffix == ".so"


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, exit 2, as the `cardtable` command gives them."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(
        prog="python -m bench.native",
        description="Build the native (mypyc-compiled) rules engine in build/native/ and print its directory; a "
        "build of the same sources is reused.")
    parser.parse_args(argv)
    try:
        print(build())
    except NativeBuildError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    from table_controller.cli.closed_pipe import quiet_on_closed_pipe

    raise SystemExit(quiet_on_closed_pipe(main))
