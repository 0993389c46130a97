"""The engine's scripted hand records (tests/records) survive the journal: stored with their result,
exported with `--format record`, and the exported files replay through `cardtable replay` to the same
result as the originals."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from tests.journal.helpers import Target, moment

RECORDS = sorted(p for p in (Path(__file__).resolve().parents[1] / "records").glob("*.json")
                 if not p.name.endswith(".expected.json"))


def completed_records(limit: int) -> list[dict[str, Any]]:
    """Up to `limit` scripted records of hands that complete (records of illegal acts are left out)."""
    from table_controller.engine.errors import EngineError
    from table_controller.engine.record import replay

    found: list[dict[str, Any]] = []
    for path in RECORDS:
        record = json.loads(path.read_text(encoding="utf-8"))
        try:
            replay(record)
        except EngineError:
            continue
        found.append(record)
        if len(found) == limit:
            break
    assert found
    return found


def store(target: Target, records: list[dict[str, Any]]) -> None:
    from table_controller.engine.record import replay

    with target.open() as journal, journal.writer("t1") as writer:
        for number, record in enumerate(records, start=1):
            writer.record_hand_completed(hand_id=f"h-{number}", hand_number=number, record=record,
                                         result=replay(record), at=moment(number))


def test_engine_records_round_trip_through_journal_and_replay(sqlite_target: Target, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.engine.record import replay

    originals = completed_records(12)
    store(sqlite_target, originals)
    out = tmp_path / "export"
    assert main(["history", "export", "--data", str(sqlite_target.data_dir), "--format", "record",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    for number, record in enumerate(originals, start=1):
        exported = out / f"t1-{number:06d}-h-{number}.json"
        assert json.loads(exported.read_text(encoding="utf-8")) == record
        assert main(["replay", str(exported)]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(replay(record)))


@pytest.mark.parametrize(("fmt", "suffix"), [("phh", ".phh"), ("text", ".txt")])
def test_export_phh_and_text_write_the_converters_output(sqlite_target: Target, tmp_path: Path, fmt: str,
                                                         suffix: str, capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.engine.record import replay

    phh = importlib.import_module("table_controller.engine.phh")

    originals = completed_records(4)
    store(sqlite_target, originals)
    out = tmp_path / fmt
    assert main(["history", "export", "--data", str(sqlite_target.data_dir), "--format", fmt,
                 "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {len(originals)} {fmt} file(s) to {out}"
    for number, record in enumerate(originals, start=1):
        text = (out / f"t1-{number:06d}-h-{number}{suffix}").read_text(encoding="utf-8")
        wanted = str(phh.to_phh(record) if fmt == "phh" else phh.to_text(record, replay(record)))
        assert text.rstrip("\n") == wanted.rstrip("\n") and text.endswith("\n")
