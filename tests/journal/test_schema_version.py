"""The journal reads its stored `schema_version` when it opens, and refuses a layout it does not read."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from table_controller.cli import main
from table_controller.journal.backend import SCHEMA_VERSION
from table_controller.journal.errors import JournalSchemaError
from tests.journal.helpers import Target, moment

SET_VERSION = "UPDATE journal_meta SET value = ? WHERE key = 'schema_version'"


def _journal_with_one_entry(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        writer.append("hand.started", {"dealer_seat": 1}, at=moment(1), hand_id="h-1", hand_number=1)


def _stored_version(target: Target) -> object:
    found: list[object] = []
    if target.kind == "sqlite":
        import sqlite3

        conn = sqlite3.connect(target.data_dir / "journal.sqlite3")
        try:
            found.extend(row[0] for row in conn.execute("SELECT value FROM journal_meta WHERE key = 'schema_version'"))
        finally:
            conn.close()
    else:
        import psycopg

        assert target.url is not None
        with psycopg.connect(target.url) as pg:
            found.extend(row[0] for row in pg.execute("SELECT value FROM journal_meta WHERE key = 'schema_version'"))
    assert len(found) == 1
    return found[0]


def test_a_new_journal_stores_the_version_this_code_writes_and_opens_again(target: Target) -> None:
    _journal_with_one_entry(target)
    assert _stored_version(target) == str(SCHEMA_VERSION)
    for create in (True, False):
        with target.open(create=create) as journal:
            assert journal.verify().entries == 1


@pytest.mark.parametrize(("stored", "says"), [
    (str(SCHEMA_VERSION + 1), "written by a newer cardtable"),
    ("two", "unreadable schema_version"),
    ("0", "older than any this cardtable reads"),
])
def test_a_version_this_code_does_not_read_is_refused_in_one_line(target: Target, stored: str, says: str) -> None:
    _journal_with_one_entry(target)
    target.tamper((SET_VERSION, (stored,)))
    for create in (True, False):
        with pytest.raises(JournalSchemaError) as refused:
            target.open(create=create)
        message = str(refused.value)
        assert says in message and len(message.splitlines()) == 1
        assert refused.value.exit_code == 2
    assert _stored_version(target) == stored  # refused without touching it


def test_a_journal_without_a_version_is_refused(target: Target) -> None:
    _journal_with_one_entry(target)
    target.tamper(("DELETE FROM journal_meta WHERE key = 'schema_version'", ()))
    with pytest.raises(JournalSchemaError, match="no schema_version"):
        target.open(create=False)


def test_the_history_command_refuses_a_newer_journal_with_exit_2(sqlite_target: Target,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _journal_with_one_entry(sqlite_target)
    sqlite_target.tamper((SET_VERSION, (str(SCHEMA_VERSION + 1),)))
    assert main(["history", "verify", "--data", str(sqlite_target.data_dir)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "upgrade cardtable" in err
    assert main(["history", "verify", "--data", str(sqlite_target.data_dir), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "schema_version"


def test_the_demo_on_a_newer_journal_stops_with_one_line(sqlite_target: Target) -> None:
    _journal_with_one_entry(sqlite_target)
    sqlite_target.tamper((SET_VERSION, (str(SCHEMA_VERSION + 1),)))
    done = subprocess.run([sys.executable, "-m", "table_controller.cli", "demo", "--hands", "1", "--data",
                           str(sqlite_target.data_dir), "--port", "0"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert len(done.stderr.splitlines()) == 1 and "newer cardtable" in done.stderr, done.stderr
