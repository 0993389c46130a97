"""Writing and replaying a table's chain: the API the controller uses, on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from table_controller.journal import (
    GENESIS_HASH,
    KIND_HAND_COMPLETED,
    KIND_HOLE_CARDS_READ,
    ChainBrokenError,
    JournalUsageError,
    WriterBusyError,
)
from tests.journal.helpers import Target, fresh_schema, moment

RECORD = {"format": "cardtable.hand/1", "seats": [{"seat": 1, "stack": 500}], "actions": ["bet 10"]}


def test_entries_chain_from_genesis_and_replay_in_order(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        written = [writer.append("action.bet", {"seat": i % 6 + 1, "chips": i}, at=moment(i),
                                 hand_id="h-1", hand_number=1) for i in range(12)]
        assert [e.seq for e in written] == list(range(1, 13))
        assert written[0].prev_hash == GENESIS_HASH
        assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(written))
        assert all(e.hash == e.computed_hash() for e in written)
    with target.open(create=False) as journal:
        assert list(journal.read_all("t1")) == written
        assert list(journal.entries_since("t1", 9)) == written[9:]
        assert list(journal.entries_since("t1", 9, expected_hash=written[8].hash)) == written[9:]
        assert list(journal.entries_since("t1", 12)) == []
        assert list(journal.entries_since("t1", 0)) == written
        assert journal.head("t1") is not None and journal.head("t1") == journal.verify().heads["t1"]


def test_restarted_writer_resumes_at_the_head(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        first = writer.append("hand.started", {"dealer_seat": 1}, at=moment(1), hand_id="h-1", hand_number=1)
    with target.open() as journal, journal.writer("t1") as writer:
        assert writer.head is not None and (writer.head.seq, writer.head.hash) == (1, first.hash)
        second = writer.append("action.check", {"seat": 2}, at=moment(2), hand_id="h-1", hand_number=1)
    assert (second.seq, second.prev_hash) == (2, first.hash)


def test_entries_since_refuses_a_chain_that_differs_from_what_the_caller_applied(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        for i in range(3):
            writer.append("action.bet", {"chips": i}, at=moment(i))
        with pytest.raises(ChainBrokenError, match="caller holds"):
            list(journal.entries_since("t1", 2, expected_hash="ab" * 32))
        with pytest.raises(ChainBrokenError, match="no entry seq 7"):
            list(journal.entries_since("t1", 7))


def test_tables_are_independent_chains(target: Target) -> None:
    with target.open() as journal:
        with journal.writer("t1") as w1, journal.writer("t2") as w2:
            a = w1.append("hand.started", {"n": 1}, at=moment(1))
            b = w2.append("hand.started", {"n": 1}, at=moment(1))
        assert (a.seq, b.seq) == (1, 1) and a.hash != b.hash  # the table id is part of the hash
        assert journal.tables() == ["t1", "t2"]


def test_one_writer_per_table(target: Target) -> None:
    with target.open() as journal, journal.writer("t1"):
        with pytest.raises(WriterBusyError):
            journal.writer("t1")
        with target.open() as other, pytest.raises(WriterBusyError):
            other.writer("t1")
        other_table = journal.writer("t2")
        other_table.close()
    with target.open() as journal, journal.writer("t1") as again:  # released on close
        assert again.head is None


@pytest.mark.postgres
def test_journals_in_two_schemas_of_one_database_each_have_a_writer_of_a_table(postgres_target: Target,
                                                                               tmp_path: Path) -> None:
    """Advisory locks belong to the database: a writer's lock names its schema, or a second journal in the same
    database (another card room, a parallel test) would find its table busy."""
    with fresh_schema() as url:
        second = Target(kind="postgres", data_dir=tmp_path / "second", url=url)
        with postgres_target.open() as a, second.open() as b, a.writer("t1"), b.writer("t1") as w:
            assert w.append("hand.started", {"n": 1}, at=moment(1)).seq == 1


def test_closed_writer_refuses_to_append(target: Target) -> None:
    with target.open() as journal:
        writer = journal.writer("t1")
        writer.close()
        with pytest.raises(JournalUsageError, match="closed"):
            writer.append("x", {}, at=moment(0))


def test_hole_card_reads_are_journaled_with_who_and_why(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        entry = writer.record_hole_card_access(role="floor", who="floor supervisor Kim", why="ruling on a misdeal",
                                               seats=[2, 5], at=moment(3), hand_id="h-7", hand_number=7)
        assert entry.kind == KIND_HOLE_CARDS_READ
        assert entry.payload == {"role": "floor", "who": "floor supervisor Kim", "why": "ruling on a misdeal",
                                 "seats": [2, 5]}
        with pytest.raises(JournalUsageError, match="why"):
            writer.record_hole_card_access(role="floor", who="Kim", why="", at=moment(4))
        with pytest.raises(JournalUsageError, match="seats"):
            writer.record_hole_card_access(role="floor", who="Kim", why="x", seats=[11], at=moment(4))
        assert [e.kind for e in journal.read_all("t1")] == [KIND_HOLE_CARDS_READ]


def test_completed_hands_come_back_as_records(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        writer.append("hand.started", {"dealer_seat": 1}, at=moment(0), hand_id="h-1", hand_number=1)
        done = writer.record_hand_completed(hand_id="h-1", hand_number=1, record=RECORD, result={"winners": [1]},
                                            at=moment(1))
        assert done.kind == KIND_HAND_COMPLETED
        with pytest.raises(JournalUsageError, match="format"):
            writer.record_hand_completed(hand_id="h-2", hand_number=2, record={"seats": []}, result={}, at=moment(2))
        hands = list(journal.hand_records())
    assert len(hands) == 1
    assert (hands[0].table_id, hands[0].hand_id, hands[0].hand_number, hands[0].seq) == ("t1", "h-1", 1, 2)
    assert hands[0].record == RECORD and hands[0].result == {"winners": [1]}


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        ("action.bet", {"chips": 1.5}, "floats are not allowed"),
        ("action.bet", {"chips": 2**60}, "outside"),
        ("action.bet", {"bad": "\ud800"}, "lone surrogate"),
        ("action.bet", {"cards": (1, 2)}, "tuple is not a JSON value"),
        ("Action Bet", {}, "kind"),
        ("hole_cards.read", {"role": "floor"}, "who"),
    ],
)
def test_bad_entries_are_refused_and_nothing_is_stored(target: Target, kind: str, payload: dict[str, object],
                                                       message: str) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        with pytest.raises(JournalUsageError, match=message):
            writer.append(kind, payload, at=moment(0))
        assert writer.head is None
        assert list(journal.read_all("t1")) == []


def test_timestamps_must_be_aware_and_are_stored_in_utc(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        with pytest.raises(JournalUsageError, match="timezone-aware"):
            writer.append("x", {}, at=datetime(2026, 11, 30, 9, 0))  # naive on purpose
        paris = timezone(timedelta(hours=1))
        entry = writer.append("x", {}, at=datetime(2026, 11, 30, 10, 0, 0, 250, tzinfo=paris))
    assert entry.at == "2026-11-30T09:00:00.000250Z"
    assert entry.timestamp == datetime(2026, 11, 30, 10, 0, 0, 250, tzinfo=paris)


@pytest.mark.parametrize("table_id", ["", "has space", "-lead", "x" * 65, "t/1"])
def test_bad_table_ids_are_refused(target: Target, table_id: str) -> None:
    with target.open() as journal, pytest.raises(JournalUsageError, match="bad table id"):
        journal.writer(table_id)


def test_writer_refuses_to_extend_a_broken_chain(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        for i in range(3):
            writer.append("x", {"i": i}, at=moment(i))
    target.tamper(("DELETE FROM journal_entries WHERE seq = 2", ()))
    with target.open() as journal, pytest.raises(ChainBrokenError, match="seq 3"):
        journal.writer("t1")


def test_writer_without_full_verification_still_checks_the_head(target: Target) -> None:
    with target.open() as journal, journal.writer("t1") as writer:
        for i in range(3):
            writer.append("x", {"i": i}, at=moment(i))
    target.tamper(("DELETE FROM journal_entries WHERE seq = 2", ()))
    with target.open() as journal, journal.writer("t1", verify=False) as writer:
        assert writer.head is not None and writer.head.seq == 3  # the gap behind the head is not looked at
    target.tamper(("UPDATE journal_entries SET payload = '{\"i\":9}' WHERE seq = 3", ()))
    with target.open() as journal, pytest.raises(ChainBrokenError, match="head entry"):
        journal.writer("t1", verify=False)
