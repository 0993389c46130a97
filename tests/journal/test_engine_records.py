"""The engine's scripted hand records (tests/records) survive the journal: stored with their result,
exported with `--format record`, and the exported files replay through `cardtable replay` to the same
result as the originals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.cli import main
from tests.journal.conftest import Target, moment

RECORDS = sorted(p for p in (Path(__file__).resolve().parents[1] / "records").glob("*.json")
                 if not p.name.endswith(".expected.json"))


@pytest.mark.skipif(not RECORDS, reason="no scripted hand records in tests/records yet")
def test_engine_records_round_trip_through_journal_and_replay(sqlite_target: Target, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.engine.errors import EngineError
    from table_controller.engine.record import replay

    originals: list[dict[str, object]] = []
    for path in RECORDS:
        record = json.loads(path.read_text(encoding="utf-8"))
        try:
            replay(record)
        except EngineError:
            continue  # a record of an illegal act: the journal only stores hands that completed
        originals.append(record)
        if len(originals) == 12:
            break
    assert originals
    with sqlite_target.open() as journal, journal.writer("t1") as writer:
        for number, record in enumerate(originals, start=1):
            writer.record_hand_completed(hand_id=f"h-{number}", hand_number=number, record=record,
                                         result=replay(record), at=moment(number))
    out = tmp_path / "export"
    assert main(["history", "export", "--data", str(sqlite_target.data_dir), "--format", "record",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    for number, record in enumerate(originals, start=1):
        exported = out / f"t1-{number:06d}-h-{number}.json"
        assert json.loads(exported.read_text(encoding="utf-8")) == record
        assert main(["replay", str(exported)]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(replay(record)))
