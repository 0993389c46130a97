"""`cardtable history verify` and `cardtable history export`: output, files and exit codes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import types
from pathlib import Path

import pytest

from table_controller.cli import main
from tests.journal.helpers import Target, moment

RECORDS = [
    {"format": "cardtable.hand/1", "hand": n, "seats": [{"seat": 1, "stack": 100 * n}]} for n in (1, 2, 3)
]


def fill(target: Target) -> str:
    """Two tables, three completed hands; returns t1's head as TABLE:SEQ:HASH."""
    with target.open() as journal:
        with journal.writer("t1") as writer:
            for n, record in enumerate(RECORDS[:2], start=1):
                writer.append("hand.started", {"dealer_seat": n}, at=moment(10 * n), hand_id=f"h-{n}", hand_number=n)
                writer.record_hand_completed(hand_id=f"h-{n}", hand_number=n, record=record,
                                             result={"winners": [n]}, at=moment(10 * n + 1))
            head = writer.head
        with journal.writer("t2") as writer:
            writer.record_hand_completed(hand_id="h-3", hand_number=3, record=RECORDS[2], result={"winners": []},
                                         at=moment(40))
    assert head is not None
    return head.to_text()


def args_for(target: Target) -> list[str]:
    return ["--data", str(target.data_dir)] + (["--db", target.url] if target.url else [])


def test_verify_intact_prints_a_summary_and_heads(target: Target, capsys: pytest.CaptureFixture[str]) -> None:
    head = fill(target)
    assert main(["history", "verify", *args_for(target)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("intact: 5 entries, 2 tables, 3 hands")
    assert f"head {head}" in out


def test_verify_json(target: Target, capsys: pytest.CaptureFixture[str]) -> None:
    fill(target)
    assert main(["history", "verify", *args_for(target), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert (found["ok"], found["entries"], found["tables"], found["hands"], found["break"]) == (True, 5, 2, 3, None)
    assert found["heads"]["t2"]["seq"] == 1


def test_verify_tampered_exits_1_naming_the_first_broken_entry(target: Target,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    fill(target)
    target.tamper(("UPDATE journal_entries SET payload = '{\"dealer_seat\":9}' WHERE table_id = 't1' AND seq = 3",
                   ()))
    assert main(["history", "verify", *args_for(target)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert "TAMPERED: table 't1' entry seq 3: stored hash" in line and "[hash_mismatch]" in line
    assert main(["history", "verify", *args_for(target), "--json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["ok"] is False
    assert (found["break"]["table_id"], found["break"]["seq"], found["break"]["code"]) == ("t1", 3, "hash_mismatch")


def test_verify_with_anchor_detects_a_truncated_tail(target: Target, capsys: pytest.CaptureFixture[str]) -> None:
    head = fill(target)
    assert main(["history", "verify", *args_for(target), "--anchor", head]) == 0
    target.tamper(("DELETE FROM journal_entries WHERE table_id = 't1' AND seq = 4", ()))
    assert main(["history", "verify", *args_for(target)]) == 0  # a chain alone cannot see it
    assert main(["history", "verify", *args_for(target), "--anchor", head]) == 1
    assert "[truncated]" in capsys.readouterr().err


@pytest.mark.parametrize("anchor", ["t1", "t1:x:ab", "t1:3:nothex", "bad id:1:" + "a" * 64])
def test_verify_bad_anchor_is_usage(sqlite_target: Target, anchor: str, capsys: pytest.CaptureFixture[str]) -> None:
    fill(sqlite_target)
    assert main(["history", "verify", "--data", str(sqlite_target.data_dir), "--anchor", anchor]) == 2
    assert "anchor" in capsys.readouterr().err


def test_verify_missing_unreadable_or_bad_url_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases: list[tuple[list[str], str]] = [
        (["--data", str(tmp_path / "nowhere")], "does not exist"),
        (["--data", __file__], "is not a directory"),  # it exists: "does not exist" was wrong
        (["--data", str(tmp_path)], "no journal database"),
        (["--db", "mysql://u:secret@host/db"], "unsupported journal URL"),
        (["--db", "sqlite://"], "names no file"),
        (["--db", "postgresql://u:secret@127.0.0.1:1/db"], "cannot connect"),
    ]
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "journal.sqlite3").write_bytes(b"this is not a database" * 100)
    cases.append((["--data", str(garbage)], "cannot open journal database"))
    other = tmp_path / "other"
    other.mkdir()
    sqlite3.connect(other / "journal.sqlite3").execute("CREATE TABLE unrelated (x)").connection.close()
    cases.append((["--data", str(other)], "not a cardtable journal"))
    for extra, message in cases:
        assert main(["history", "verify", *extra]) == 2, extra
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and message in err, (extra, err)
        assert "secret" not in err
        assert main(["history", "verify", *extra, "--json"]) == 2
        assert message in json.loads(capsys.readouterr().out)["error"]["message"]


def test_verify_never_prints_a_traceback_as_a_process(tmp_path: Path) -> None:
    (tmp_path / "journal.sqlite3").write_bytes(b"\x00" * 4096)
    proc = subprocess.run([sys.executable, "-m", "table_controller.cli", "history", "verify", "--data", str(tmp_path)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("cardtable: error:")


def test_export_records_writes_one_file_per_hand(target: Target, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    fill(target)
    out = tmp_path / "export"
    assert main(["history", "export", *args_for(target), "--format", "record", "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote 3 record file(s) to {out}"
    files = sorted(p.name for p in out.iterdir())
    assert files == ["t1-000001-h-1.json", "t1-000002-h-2.json", "t2-000003-h-3.json"]
    for name, record in zip(files, RECORDS, strict=True):
        assert json.loads((out / name).read_text(encoding="utf-8")) == record


def test_export_one_table_as_json(sqlite_target: Target, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill(sqlite_target)
    out = tmp_path / "export"
    argv = ["history", "export", "--data", str(sqlite_target.data_dir), "--format", "record", "--out", str(out),
            "--table", "t2", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["files"] == ["t2-000003-h-3.json"]
    assert main([*argv[:-3], "--table", "t9"]) == 2
    assert "no entries" in capsys.readouterr().err


def test_export_refuses_a_tampered_journal(sqlite_target: Target, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    fill(sqlite_target)
    sqlite_target.tamper(("DELETE FROM journal_entries WHERE table_id = 't1' AND seq = 2", ()))
    out = tmp_path / "export"
    argv = ["history", "export", "--data", str(sqlite_target.data_dir), "--format", "record", "--out", str(out)]
    assert main(argv) == 1
    assert "tampered journal: table 't1' entry seq 3" in capsys.readouterr().err
    assert not out.exists()


def test_export_bad_out_and_missing_journal_exit_2(sqlite_target: Target, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    fill(sqlite_target)
    a_file = tmp_path / "file"
    a_file.write_text("x")
    data = str(sqlite_target.data_dir)
    assert main(["history", "export", "--data", data, "--format", "record", "--out", str(a_file)]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["history", "export", "--data", str(tmp_path / "none"), "--format", "record", "--out",
                 str(tmp_path / "o")]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["phh", "text"])
def test_export_phh_and_text_need_the_converter(sqlite_target: Target, tmp_path: Path, fmt: str,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A build without the converter (a slimmed-down install) says so in one line, exit 2, and writes nothing."""
    monkeypatch.setitem(sys.modules, "table_controller.engine.phh", None)  # import now raises ImportError
    fill(sqlite_target)
    assert main(["history", "export", "--data", str(sqlite_target.data_dir), "--format", fmt, "--out",
                 str(tmp_path / "o")]) == 2
    assert "table_controller.engine.phh" in capsys.readouterr().err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_verify_accepts_a_sqlite_url(sqlite_target: Target, capsys: pytest.CaptureFixture[str]) -> None:
    fill(sqlite_target)
    db = (sqlite_target.data_dir / "journal.sqlite3").resolve()
    assert main(["history", "verify", "--db", f"sqlite://{db}"]) == 0  # sqlite:///tmp/.../journal.sqlite3
    assert "intact: 5 entries" in capsys.readouterr().out


def fake_converters(monkeypatch: pytest.MonkeyPatch, *, fail: bool = False) -> None:
    """Stand in for table_controller.engine.phh, to pin down how export uses whatever converters it finds."""
    module = types.ModuleType("table_controller.engine.phh")

    def to_phh(record: dict[str, object]) -> str:
        if fail:
            raise RuntimeError("no PHH variant for this game")
        return f"variant = \"F5CD\"\nhand = {record['hand']}"

    def to_text(record: dict[str, object], result: dict[str, object]) -> str:
        return f"Hand {record['hand']}: winners {result['winners']}\n"

    module.to_phh = to_phh  # type: ignore[attr-defined]
    module.to_text = to_text  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "table_controller.engine.phh", module)


@pytest.mark.parametrize(("fmt", "first"), [("phh", 'variant = "F5CD"\nhand = 1\n'),
                                            ("text", "Hand 1: winners [1]\n")])
def test_export_writes_what_the_converters_return(sqlite_target: Target, tmp_path: Path, fmt: str, first: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    fake_converters(monkeypatch)
    fill(sqlite_target)
    out = tmp_path / "o"
    assert main(["history", "export", "--data", str(sqlite_target.data_dir), "--format", fmt, "--out", str(out)]) == 0
    suffix = ".phh" if fmt == "phh" else ".txt"
    assert sorted(p.name for p in out.iterdir()) == [f"t1-000001-h-1{suffix}", f"t1-000002-h-2{suffix}",
                                                     f"t2-000003-h-3{suffix}"]
    assert (out / f"t1-000001-h-1{suffix}").read_text(encoding="utf-8") == first


def test_export_names_the_hand_a_converter_refuses(sqlite_target: Target, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    fake_converters(monkeypatch, fail=True)
    fill(sqlite_target)
    argv = ["history", "export", "--data", str(sqlite_target.data_dir), "--format", "phh", "--out", str(tmp_path / "o")]
    assert main(argv) == 1
    assert capsys.readouterr().err.strip() == (
        "cardtable: error: hand h-1 of table t1: cannot convert to phh: no PHH variant for this game")


def test_export_refuses_to_overwrite_unless_forced(sqlite_target: Target, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    fill(sqlite_target)
    out = tmp_path / "export"
    argv = ["history", "export", "--data", str(sqlite_target.data_dir), "--format", "record", "--out", str(out)]
    assert main(argv) == 0
    kept = sorted(out.iterdir())
    kept[0].write_text("the floor's own notes\n", encoding="utf-8")
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--force" in err
    assert kept[0].read_text(encoding="utf-8") == "the floor's own notes\n"  # nothing was overwritten
    assert main([*argv, "--force"]) == 0
    assert kept[0].read_text(encoding="utf-8") != "the floor's own notes\n"


def test_verify_a_row_nested_a_hundred_thousand_deep_is_a_finding_not_a_traceback(
        target: Target, capsys: pytest.CaptureFixture[str]) -> None:
    fill(target)
    deep = '{"a":' + "[" * 100_000 + "]" * 100_000 + "}"
    target.tamper(("UPDATE journal_entries SET payload = ? WHERE table_id = 't1' AND seq = 2", (deep,)))
    assert main(["history", "verify", *args_for(target)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert "seq 2" in line and "nested more than" in line


def test_a_journal_cut_off_mid_page_is_damage_at_a_place(sqlite_target: Target, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with sqlite_target.open() as journal, journal.writer("t1") as writer:
        for n in range(300):
            writer.append("note", {"text": "x" * 200, "n": n}, at=moment(n))
    path = sqlite_target.data_dir / "journal.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.truncate(size // 2 + 1000)
    for argv in (["history", "verify", "--data", str(sqlite_target.data_dir)],
                 ["history", "export", "--data", str(sqlite_target.data_dir), "--format", "record", "--out",
                  str(tmp_path / "out")]):
        assert main(argv) == 1
        [line] = capsys.readouterr().err.splitlines()
        assert "damaged" in line and "cut off mid-page" in line and "malformed" not in line
