"""The native build (bench/native.py) is the same engine: the engine's whole test suite passes on it.

The build compiles the engine's hot modules with mypyc into build/native/<hash>/ (never beside the sources), and
a child pytest runs there, where the compiled modules come first. The child runs every engine test (the golden
event streams, the scripted hands of the rule books, the PokerKit differential test, the property tests), the
events' tests (there the events are compiled classes) and the recovery tests of the controller, which drive the
compiled hand through the table. On CI the build must be possible (gcc and the Python headers are installed):
there this test fails rather than skips when it is not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import native

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def build_dir() -> Path:
    reason = native.unavailable()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to make the native build: {reason}")
        pytest.skip(f"the native build cannot be made on this machine: {reason}")
    return native.build()


def _child(build_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=build_dir, env=native.environment(build_dir),
                          capture_output=True, text=True, check=False, timeout=800)


def test_the_build_holds_compiled_modules_and_no_source_tree_is_touched(build_dir: Path) -> None:
    for module in native.NATIVE_MODULES:
        source = Path(module)
        assert list((build_dir / source.parent).glob(f"{source.stem}.*.so")), module
        assert not list((native.ROOT / source.parent).glob(f"{source.stem}.*.so")), "a .so beside the sources"
    done = _child(build_dir, "-c", "from bench.native import is_native_engine; print(is_native_engine())")
    assert done.stdout.strip() == "True", done.stderr
    assert not native.is_native_engine()  # this process, on the working tree, runs the interpreted engine


def test_a_compiled_event_refuses_a_write_at_run_time(build_dir: Path) -> None:
    script = ("from table_controller.engine.events import Checked\n"
              "event = Checked(seat=3)\n"
              "try:\n"
              "    event.seat = 4\n"
              "except AttributeError as exc:\n"
              "    print('refused:', exc, event.seat)\n")
    done = _child(build_dir, "-c", script)
    assert done.stdout.startswith("refused:") and done.stdout.rstrip().endswith(" 3"), done.stdout + done.stderr


def test_the_build_is_reused_while_the_sources_are_unchanged(build_dir: Path) -> None:
    assert native.build() == build_dir
    assert build_dir.name == native.source_hash()


def test_the_engine_suite_passes_on_the_native_build(build_dir: Path) -> None:
    done = _child(build_dir, "-m", "pytest", "tests/engine", "tests/native/test_events.py",
                  "tests/controller/test_recovery.py", "-q",
                  "-p", "no:cacheprovider", "-x")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


def test_a_random_hand_gives_the_same_record_on_both_builds(build_dir: Path) -> None:
    script = ("import json, random\n"
              "from bench.engine import CONFIG, CODES\n"
              "from table_controller.engine.hand import Hand, SeatSpec\n"
              "from table_controller.engine.simulate import play_random\n"
              "out = []\n"
              "for seed in range(40):\n"
              "    rng = random.Random(seed)\n"
              "    deck = list(CODES)\n"
              "    rng.shuffle(deck)\n"
              "    n = 2 + seed % 7\n"
              "    hand = Hand(CONFIG, [SeatSpec(seat=k + 1, stack=60 + 10 * k) for k in range(n)], 1 + seed % n,"
              " deck=deck)\n"
              "    play_random(hand, rng)\n"
              "    out.append([e.to_json() for e in hand.events])\n"
              "print(json.dumps(out))\n")
    compiled = _child(build_dir, "-c", script)
    assert compiled.returncode == 0, compiled.stderr
    interpreted = subprocess.run([sys.executable, "-c", script], cwd=native.ROOT, capture_output=True, text=True,
                                 check=True, timeout=300)
    assert compiled.stdout == interpreted.stdout
    assert len(compiled.stdout) > 10_000  # forty whole hands of events, not an empty list
