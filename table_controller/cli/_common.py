"""Conventions shared by every `cardtable` subcommand.

Exit codes: 0 ok; 1 a finding (an illegal act, a deck that fails verification, a tampered journal);
2 bad input or usage; 141 the reader of stdout or stderr went away (`closed_pipe`). Errors are one line
on stderr, or one JSON object on stdout with `--json`.
A traceback is a bug: bad input of any kind must surface as `CliError` or a package error that
carries an `exit_code`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

EXIT_OK = 0
EXIT_FINDING = 1
EXIT_USAGE = 2

Handler = Callable[[argparse.Namespace], int]


class CliError(Exception):
    """A failure to report to the technician as one line, with an exit code."""

    def __init__(self, message: str, *, exit_code: int = EXIT_USAGE, code: str = "usage") -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.code = code


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def set_handler(parser: argparse.ArgumentParser, handler: Handler) -> None:
    parser.set_defaults(_handler=handler)


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, sort_keys=False) + "\n")
    sys.stdout.flush()


def report_error(exc: CliError, *, as_json: bool, prog: str = "cardtable") -> int:
    if as_json:
        print_json({"error": {"code": exc.code, "message": exc.message}})
    else:
        sys.stderr.write(f"{prog}: error: {exc.message}\n")
    return exc.exit_code


def unavailable(what: str) -> Handler:
    """Handler for a subcommand whose implementation has not landed in this build."""

    def handler(args: argparse.Namespace) -> int:
        raise CliError(f"{what} is not available in this build yet", exit_code=EXIT_USAGE, code="unavailable")

    return handler
