"""The `cardtable` command: one subcommand group per area of the table.

Each group lives in its own module with a `register(subparsers)` function, so an area's owner
changes only that module. `main()` turns every expected failure into one line and an exit code
(see `_common`); only a bug may escape as a traceback. A reader that goes away (`cardtable ... | head`)
ends the command quietly with exit 141 (`closed_pipe`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from table_controller.cli import bench, history, records, run, shoe, sim, soak, vision
from table_controller.cli._common import EXIT_USAGE, CliError, Parser, report_error
from table_controller.cli.closed_pipe import quiet_on_closed_pipe

GROUPS = (run, records, history, sim, shoe, vision, bench, soak)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="cardtable",
        description=(
            "Controller for a live, dealt Draw Poker table: the shuffler/shoe link, the table camera, "
            "the rules engine, the hand journal and the dealer display screens."
        ),
        epilog="Exit codes: 0 ok, 1 a finding (illegal act, failed check), 2 bad input or usage; 141 the reader of "
        "its output went away (as for a tool SIGPIPE ended).",
    )
    parser.add_argument("--version", action="version", version=f"cardtable {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for group in GROUPS:
        group.register(sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cardtable")
    except PackageNotFoundError:
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    # The one place a reader going away is handled (`| head`): whichever command was printing, it ends quietly
    # with exit 141 once its `finally` blocks have closed what it had open.
    return quiet_on_closed_pipe(lambda: _dispatch(argv))


def _dispatch(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "_handler", None)
    if handler is None:
        # A group named without its subcommand: show what it offers, as usage errors do.
        name = getattr(args, "command", None)
        target = parser if name is None else _subparser(parser, name)
        target.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        code: int = handler(args)
    except CliError as exc:
        return report_error(exc, as_json=bool(getattr(args, "json", False)))
    except KeyboardInterrupt:
        return 130
    return code


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found = action.choices.get(name)
            if isinstance(found, argparse.ArgumentParser):
                return found
    return parser


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
