"""Fixtures for the journal tests: the same tests run on SQLite and, when a server is given, PostgreSQL.

PostgreSQL tests need CARDTABLE_TEST_POSTGRES_URL (CI sets it in .ci/start-services); each test gets
a fresh schema, chosen through libpq's `options=-csearch_path=...`, dropped afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.journal.helpers import Target, postgres_url_or_skip


@pytest.fixture
def postgres_target(tmp_path: Path) -> Iterator[Target]:
    base = postgres_url_or_skip()
    import psycopg

    schema = f"journal_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base else "?"
    url = f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
    try:
        yield Target(kind="postgres", data_dir=tmp_path, url=url)
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def sqlite_target(tmp_path: Path) -> Target:
    return Target(kind="sqlite", data_dir=tmp_path / "data", url=None)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def target(request: pytest.FixtureRequest) -> Target:
    name = "sqlite_target" if request.param == "sqlite" else "postgres_target"
    found: Target = request.getfixturevalue(name)
    return found
