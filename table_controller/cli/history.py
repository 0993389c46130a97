"""`cardtable history`: the hand journal (export, verify)."""

from __future__ import annotations

from typing import Any

from table_controller.cli._common import Parser, set_handler, unavailable


def register(sub: Any) -> None:
    history = sub.add_parser("history", help="export and verify the hand journal")
    hsub = history.add_subparsers(dest="history_command", metavar="ACTION", parser_class=Parser)
    export = hsub.add_parser("export", help="write one file per hand: replayable records, PHH or plain text")
    export.add_argument("--data", metavar="DIR", default="./cardtable-data", help="data directory of the table")
    export.add_argument("--db", metavar="URL", help="journal database URL (default: SQLite under --data)")
    export.add_argument("--format", required=True, choices=["record", "phh", "text"], help="output format")
    export.add_argument("--out", metavar="DIR", required=True, help="directory to write the files into")
    set_handler(export, unavailable("cardtable history export"))
    verify = hsub.add_parser("verify", help="check the journal's hash chain; exit 1 if it was tampered with")
    verify.add_argument("--data", metavar="DIR", default="./cardtable-data", help="data directory of the table")
    verify.add_argument("--db", metavar="URL", help="journal database URL (default: SQLite under --data)")
    verify.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")
    set_handler(verify, unavailable("cardtable history verify"))
