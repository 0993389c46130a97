"""The suite's two tiers: `make check` runs every test not marked `slow`, `make test` runs them all.

A test is slow when it is marked so itself, or when it lives in one of the places below: whole stacks with
real processes, ptys and servers, the kill -9 soak, the native build, headless Chromium, API fuzzing, the
differential run against PokerKit, the runs over the shared data sets and the heaviest rendered vision scenes.
They are listed here, in one place, so the fast tier is chosen on purpose.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

#: Paths under tests/ (shell patterns) whose tests are all in the slow tier.
SLOW_PATHS = (
    "e2e/*",
    "soak/*",
    "native/*",
    "browser/*",
    "api/test_schemathesis.py",
    "controller/test_kill9.py",
    "controller/test_resume_after_kill9.py",
    "journal/test_crash.py",
    "engine/test_differential_pokerkit.py",
    "vision/test_datasets.py",
    "vision/test_*_bench.py",
    # Vision files whose rendered scenes take a minute or more of CPU each.
    "vision/test_detect_covered.py",
    "vision/test_detect_covered_shade.py",
    "vision/test_read_backs_low_bar.py",
    "vision/test_read_labelled.py",
    "vision/test_wrong_unsure_back.py",
    "vision/test_focus.py",
    "vision/test_framed.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        try:
            where = item.path.relative_to(TESTS).as_posix()
        except ValueError:
            continue
        if any(fnmatch(where, pattern) for pattern in SLOW_PATHS):
            item.add_marker(pytest.mark.slow)
