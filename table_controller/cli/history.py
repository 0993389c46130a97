"""`cardtable history`: the hand journal (export, verify).

`verify` walks every table's hash chain (docs/journal.md): exit 0 with a summary when intact,
1 naming the first broken entry when not, 2 when the database is missing, unreadable or the URL
is bad. `export` writes one file per completed hand: the stored hand record (JSON), PHH, or a
plain-text history; it verifies the journal first and refuses (exit 1) to export from a broken one.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_controller.cli._common import (
    EXIT_FINDING,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Parser,
    print_json,
    set_handler,
)
from table_controller.journal import Anchor, HandRecordEntry, Journal, JournalError, VerifyReport

_SUFFIX = {"record": ".json", "phh": ".phh", "text": ".txt"}


def register(sub: Any) -> None:
    history = sub.add_parser("history", help="export and verify the hand journal")
    hsub = history.add_subparsers(dest="history_command", metavar="ACTION", parser_class=Parser)
    export = hsub.add_parser("export", help="write one file per hand: replayable records, PHH or plain text")
    export.add_argument("--data", metavar="DIR", default="./cardtable-data", help="data directory of the table")
    export.add_argument("--db", metavar="URL", help="journal database URL (default: SQLite under --data)")
    export.add_argument("--format", required=True, choices=["record", "phh", "text"], help="output format")
    export.add_argument("--out", metavar="DIR", required=True, help="directory to write the files into")
    export.add_argument("--table", metavar="ID", help="export only this table's hands")
    export.add_argument("--force", action="store_true", help="overwrite files already in --out (refused otherwise)")
    export.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")
    set_handler(export, _export)
    verify = hsub.add_parser("verify", help="check the journal's hash chain; exit 1 if it was tampered with")
    verify.add_argument("--data", metavar="DIR", default="./cardtable-data", help="data directory of the table")
    verify.add_argument("--db", metavar="URL", help="journal database URL (default: SQLite under --data)")
    verify.add_argument("--anchor", metavar="TABLE:SEQ:HASH", action="append", default=[],
                        help="a head recorded earlier (as printed by verify); detects a truncated or rewritten "
                             "chain. Repeatable")
    verify.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")
    set_handler(verify, _verify)


def _open(args: argparse.Namespace) -> Journal:
    try:
        return Journal.open(data_dir=args.data, url=args.db or None, create=False)
    except JournalError as exc:
        raise CliError(exc.message, exit_code=exc.exit_code if exc.code == "damaged" else EXIT_USAGE,
                       code=exc.code) from exc


def _anchors(texts: list[str]) -> list[Anchor]:
    try:
        return [Anchor.parse(text) for text in texts]
    except JournalError as exc:
        raise CliError(exc.message, exit_code=EXIT_USAGE, code=exc.code) from exc


def _run_verify(journal: Journal, anchors: list[Anchor]) -> VerifyReport:
    try:
        return journal.verify(anchors)
    except JournalError as exc:
        raise CliError(exc.message, exit_code=exc.exit_code, code=exc.code) from exc


def _verify(args: argparse.Namespace) -> int:
    anchors = _anchors(args.anchor)
    with _open(args) as journal:
        report = _run_verify(journal, anchors)
        where = journal.description
    if args.json:
        print_json({**report.as_dict(), "journal": where})
        return EXIT_OK if report.ok else EXIT_FINDING
    if report.first_break is not None:
        sys.stderr.write(f"cardtable: journal {where} is TAMPERED: {report.first_break.describe()} "
                         f"[{report.first_break.code}]\n")
        return EXIT_FINDING
    out = sys.stdout
    out.write(f"journal {where} intact: {report.entries} entries, {report.tables} tables, {report.hands} hands\n")
    for anchor in report.heads.values():
        out.write(f"head {anchor.to_text()}\n")
    return EXIT_OK


def _converter(fmt: str) -> Callable[[HandRecordEntry], str]:
    if fmt == "record":
        return lambda hand: json.dumps(hand.record, indent=2, ensure_ascii=False) + "\n"
    try:
        phh = importlib.import_module("table_controller.engine.phh")
        to_phh, to_text = phh.to_phh, phh.to_text
    except (ImportError, AttributeError) as exc:
        raise CliError(f"--format {fmt} needs table_controller.engine.phh (to_phh, to_text), which is not in "
                       "this build yet; use --format record", exit_code=EXIT_USAGE, code="unavailable") from exc
    if fmt == "phh":
        return lambda hand: _as_text(to_phh(hand.record))
    return lambda hand: _as_text(to_text(hand.record, hand.result))


def _as_text(text: object) -> str:
    body = str(text)
    return body if body.endswith("\n") else body + "\n"


def _export(args: argparse.Namespace) -> int:
    convert = _converter(args.format)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out} exists and is not a directory")
    with _open(args) as journal:
        report = _run_verify(journal, [])
        if report.first_break is not None:
            raise CliError(f"refusing to export from a tampered journal: {report.first_break.describe()}",
                           exit_code=EXIT_FINDING, code="tampered")
        if args.table is not None and args.table not in report.heads:
            raise CliError(f"table {args.table!r} has no entries in journal {journal.description}")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"cannot create --out {out}: {exc.strerror or exc}") from exc
        written: list[str] = []
        try:
            hands = _with_late_returns(journal, list(journal.hand_records(args.table)))
            there = sorted(name for name in (_file_name(hand, args.format) for hand in hands) if (out / name).exists())
            if there and not args.force:
                raise CliError(f"--out {out} already holds {len(there)} of these files ({there[0]}...): nothing "
                               "was written; add --force to overwrite them", code="would_overwrite")
            for hand in hands:
                name = _file_name(hand, args.format)
                try:
                    text = convert(hand)
                except Exception as exc:  # the converter is another module's: any failure is this hand's finding
                    raise CliError(f"hand {hand.hand_id} of table {hand.table_id}: cannot convert to "
                                   f"{args.format}: {exc}", exit_code=EXIT_FINDING, code="bad_record") from exc
                try:
                    (out / name).write_text(text, encoding="utf-8")
                except OSError as exc:
                    raise CliError(f"cannot write {out / name}: {exc.strerror or exc}") from exc
                written.append(name)
        except JournalError as exc:
            raise CliError(exc.message, exit_code=exc.exit_code, code=exc.code) from exc
    if args.json:
        print_json({"ok": True, "format": args.format, "out": str(out), "files": written})
    else:
        sys.stdout.write(f"wrote {len(written)} {args.format} file(s) to {out}\n")
    return EXIT_OK


def _with_late_returns(journal: Journal, hands: list[HandRecordEntry]) -> list[HandRecordEntry]:
    """Each hand's record with the cards a scanning shoe read coming back after the record was stored (its
    muck, fed back between hands), as the live table shows them (controller/returns.py)."""
    from table_controller.controller.returns import RETURNED, THIS_DECK, with_late_return

    out = {(h.table_id, h.hand_number): h for h in hands}
    for table in sorted({h.table_id for h in hands}):
        for entry in journal.read_all(table):
            if entry.kind != RETURNED or entry.payload.get("deck") != THIS_DECK:
                continue
            hand = out.get((table, entry.hand_number))
            if hand is not None and entry.seq > hand.seq:
                out[(table, entry.hand_number)] = hand.model_copy(
                    update={"record": with_late_return(hand.record, dict(entry.payload))})
    return [out[(h.table_id, h.hand_number)] for h in hands]


def _file_name(hand: HandRecordEntry, fmt: str) -> str:
    # Table and hand ids are restricted to [A-Za-z0-9._-] by the journal, so they are safe in names.
    number = f"{hand.hand_number:06d}" if hand.hand_number is not None else "nonum"
    return f"{hand.table_id}-{number}-{hand.hand_id}{_SUFFIX[fmt]}"
