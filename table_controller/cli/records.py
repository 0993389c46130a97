"""`cardtable replay FILE` and `cardtable schema hand-record`: hand records for auditors.

`replay` prints one JSON object on stdout: the result (exit 0); `{"error": {"action_index", "code",
"message"}}` for an act the rules forbid (exit 1); `{"error": {"code": "invalid_record", "message",
"problems": [...]}}` for a file that is not a valid record (exit 2).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from table_controller.cli._common import EXIT_FINDING, EXIT_OK, EXIT_USAGE, print_json, set_handler

EXIT_INTERNAL = 70
MAX_RECORD_BYTES = 8 * 1024 * 1024  # a hand record is a few kilobytes; /dev/zero is not one


def register(sub: Any) -> None:
    replay = sub.add_parser("replay", help="play a hand record through the rules engine and print the result",
                            description="Read a hand record (JSON, format cardtable.hand/2 or /1), play it through the "
                            "rules engine and print the result as one JSON object. Exit 1 on an illegal act, "
                            "2 on a file that is not a valid record.")
    replay.add_argument("file", metavar="FILE", help="hand record (JSON); '-' reads standard input")
    set_handler(replay, _replay)

    schema = sub.add_parser("schema", help="print the JSON Schema of a file format")
    schema.add_argument("name", choices=["hand-record"], help="which schema")
    set_handler(schema, _schema)


def _invalid(problems: list[str]) -> int:
    print_json({"error": {"code": "invalid_record", "message": "not a valid hand record", "problems": problems}})
    return EXIT_USAGE


def _replay(args: argparse.Namespace) -> int:
    from table_controller.bounded import BoundedInputError, loads, read_bounded
    from table_controller.engine.errors import EngineError
    from table_controller.engine.record import InvalidRecordError, ReplayError, replay

    try:
        raw = read_bounded(sys.stdin.buffer if args.file == "-" else args.file, max_bytes=MAX_RECORD_BYTES,
                           what=args.file if args.file != "-" else "standard input")
        data = loads(raw, max_bytes=MAX_RECORD_BYTES, what="the record")
    except BoundedInputError as exc:
        return _invalid([str(exc)])
    try:
        result = replay(data)
    except InvalidRecordError as exc:
        return _invalid(exc.problems)
    except ReplayError as exc:
        print_json(exc.to_json())
        return EXIT_FINDING
    except EngineError as exc:  # an invariant broke: a bug, reported without a traceback
        print_json({"error": {"code": "internal_error", "message": str(exc)}})
        return EXIT_INTERNAL
    print_json(result)
    return EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from table_controller.engine.record import schema

    print_json(schema())
    return EXIT_OK
