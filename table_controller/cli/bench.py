"""`cardtable bench`: our figures beside the reference systems', measured in one run.

Every module in `BENCH_MODULES` exposes `run(quick: bool) -> list[BenchRow]`. The report is Markdown: the
machine, the date and the commit, then one table per area; a benchmark that fails is reported as a failed row
rather than hiding the others. `cardtable bench --out docs/benchmarks.md` writes the project's figures page.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from datetime import UTC, datetime
from typing import Any

from table_controller.cli._common import EXIT_FINDING, EXIT_OK, CliError, set_handler

BENCH_MODULES = ("bench.evaluator", "bench.engine", "bench.serial", "bench.vision", "bench.stack")


def register(sub: Any) -> None:
    bench = sub.add_parser("bench", help="run the benchmarks and print a Markdown report",
                           description="Run every benchmark in one process and print a Markdown report, one "
                           "table per area: our figures beside the reference systems' (PokerKit, treys, "
                           "phevaluator, eval7, the wire time of the serial link) and the goal, measured on this "
                           "machine in this run.")
    bench.add_argument("--quick", action="store_true", help="short runs, for CI")
    bench.add_argument("--only", metavar="AREA", action="append",
                       help="run only these benchmark modules (evaluator, engine, serial, vision, stack)")
    bench.add_argument("--out", metavar="FILE", help="also write the Markdown report to FILE")
    set_handler(bench, _bench)


def _bench(args: argparse.Namespace) -> int:
    from bench._report import BenchRow, commit_line, report

    areas = [name.split(".", 1)[1] for name in BENCH_MODULES]
    unknown = [area for area in args.only or () if area not in areas]
    if unknown:  # it ran nothing and said nothing
        raise CliError(f"--only {unknown[0]} is not a benchmark area: {', '.join(areas)}")
    if args.out:  # refuse before a run of minutes, not after it
        folder = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise CliError(f"cannot write {args.out}: no writable folder {folder}")
        if os.path.isdir(args.out):
            raise CliError(f"cannot write {args.out}: it is a directory")
    started_at = datetime.now(UTC)
    started_all = time.perf_counter()
    load_at_start = os.getloadavg()[0]
    commit = commit_line()  # the code as it was when the run began
    rows: list[BenchRow] = []
    failed = []
    wanted: tuple[str, ...] = BENCH_MODULES
    if args.only:
        wanted = tuple(m for m in BENCH_MODULES if m.split(".", 1)[1] in args.only)
    for name in wanted:
        short = name.split(".", 1)[1]
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # this benchmark has not been written in this build
            raise
        sys.stderr.write(f"bench: running {short}...\n")
        started = time.perf_counter()
        try:
            rows.extend(module.run(quick=bool(args.quick)))
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            failed.append(short)
            rows.append(BenchRow(area=short, metric="failed", system="cardtable", value=0, unit="-",
                                 note=f"{type(exc).__name__}: {exc}"[:200]))
        sys.stderr.write(f"bench: {short} took {time.perf_counter() - started:.1f} s\n")
    command = "cardtable bench" + (" --quick" if args.quick else "") + "".join(f" --only {a}" for a in args.only or ())
    text = report(rows, quick=bool(args.quick), started=started_at, seconds=time.perf_counter() - started_all,
                  command=command + (f" --out {args.out}" if args.out else ""), load_at_start=load_at_start,
                  commit=commit)
    if args.out:  # written before the report is printed: a reader of stdout gone away ends the command there
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            sys.stdout.write(text)  # a run of minutes keeps its figures when the file cannot take them
            raise CliError(f"cannot write {args.out}: {exc.strerror or exc}") from exc
    sys.stdout.write(text)
    return EXIT_FINDING if failed else EXIT_OK
