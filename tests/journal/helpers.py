"""Helpers of the journal tests: where a test's journal lives (`Target`) and deterministic timestamps."""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from table_controller.journal import Journal

POSTGRES_ENV = "CARDTABLE_TEST_POSTGRES_URL"
BASE_TIME = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def moment(i: int) -> datetime:
    """A deterministic timestamp: the journal never reads a clock, tests never need one."""
    return BASE_TIME + timedelta(seconds=i, microseconds=7 * i)


@dataclass
class Target:
    """Where a test's journal lives, plus a back door for tampering with it as an attacker would."""

    kind: str
    data_dir: Path
    url: str | None

    def open(self, *, create: bool = True) -> Journal:
        return Journal.open(data_dir=self.data_dir, url=self.url, create=create)

    def tamper(self, *statements: tuple[str, tuple[Any, ...]]) -> None:
        """Run SQL (with '?' placeholders) directly on the database, append-only triggers disabled."""
        if self.kind == "sqlite":
            conn = sqlite3.connect(self.data_dir / "journal.sqlite3")
            try:
                conn.execute("DROP TRIGGER IF EXISTS journal_entries_no_update")
                conn.execute("DROP TRIGGER IF EXISTS journal_entries_no_delete")
                for sql, params in statements:
                    conn.execute(sql, params)
                conn.commit()
            finally:
                conn.close()
            return
        import psycopg

        assert self.url is not None
        with psycopg.connect(self.url) as pg:
            pg.execute("ALTER TABLE journal_entries DISABLE TRIGGER USER")
            for sql, params in statements:
                pg.execute(sql.replace("?", "%s"), params)
            pg.execute("ALTER TABLE journal_entries ENABLE TRIGGER USER")


def postgres_url_or_skip() -> str:
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(f"{POSTGRES_ENV} is not set: no PostgreSQL server for the journal tests "
                    "(.ci/start-services starts one and sets it)")
    return url


@contextmanager
def fresh_schema() -> Iterator[str]:
    """The URL of a new, empty schema of the test server (chosen through libpq's `options=-csearch_path=...`),
    dropped afterwards."""
    base = postgres_url_or_skip()
    import psycopg

    schema = f"journal_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
