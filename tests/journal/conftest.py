"""Fixtures for the journal tests: the same tests run on SQLite and, when a server is given, PostgreSQL.

PostgreSQL tests need CARDTABLE_TEST_POSTGRES_URL (CI sets it in .ci/start-services); each test gets
a fresh schema, chosen through libpq's `options=-csearch_path=...`, dropped afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.journal.helpers import Target, fresh_schema


@pytest.fixture
def postgres_target(tmp_path: Path) -> Iterator[Target]:
    with fresh_schema() as url:
        yield Target(kind="postgres", data_dir=tmp_path, url=url)


@pytest.fixture
def sqlite_target(tmp_path: Path) -> Target:
    return Target(kind="sqlite", data_dir=tmp_path / "data", url=None)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def target(request: pytest.FixtureRequest) -> Target:
    name = "sqlite_target" if request.param == "sqlite" else "postgres_target"
    found: Target = request.getfixturevalue(name)
    return found
