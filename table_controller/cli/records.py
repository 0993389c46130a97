"""`cardtable replay FILE` and `cardtable schema hand-record`: hand records for auditors."""

from __future__ import annotations

from typing import Any

from table_controller.cli._common import set_handler, unavailable


def register(sub: Any) -> None:
    replay = sub.add_parser("replay", help="play a hand record through the rules engine and print the result",
                            description="Read a hand record (JSON, format cardtable.hand/1), play it through the "
                            "rules engine and print the result as one JSON object. Exit 1 on an illegal act, "
                            "2 on a file that is not a valid record.")
    replay.add_argument("file", metavar="FILE", help="hand record (JSON); '-' reads standard input")
    set_handler(replay, unavailable("cardtable replay"))

    schema = sub.add_parser("schema", help="print the JSON Schema of a file format")
    schema.add_argument("name", choices=["hand-record"], help="which schema")
    set_handler(schema, unavailable("cardtable schema"))
