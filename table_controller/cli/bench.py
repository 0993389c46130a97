"""`cardtable bench`: our figures beside the reference systems', measured in one run."""

from __future__ import annotations

from typing import Any

from table_controller.cli._common import set_handler, unavailable


def register(sub: Any) -> None:
    bench = sub.add_parser("bench", help="run the benchmarks and print one Markdown table")
    bench.add_argument("--quick", action="store_true", help="short runs, for CI")
    set_handler(bench, unavailable("cardtable bench"))
