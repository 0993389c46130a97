"""`cardtable soak`: the long fault soak of the whole stack (kill -9, garbled line, jams, dropouts)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from table_controller.cli._common import EXIT_FINDING, EXIT_OK, CliError, print_json, set_handler

MAX_KILLS = 100_000  # each kill is a restart of a second or more: more than a day of them


def register(sub: Any) -> None:
    soak = sub.add_parser("soak", help="play many hands on simulated hardware while injecting crashes and faults",
                          description="The long version of the CI fault soak: plays hands through the whole stack "
                          "on simulated hardware, kills the controller (kill -9) at random points and restarts it "
                          "on the same data, garbles the line, jams the shoe, opens the door, cuts the power and "
                          "drops camera frames; then checks conservation and the journal. Exit 1 on any finding.")
    soak.add_argument("--hands", type=int, default=200, metavar="N", help="hands to play (default: 200)")
    soak.add_argument("--kills", type=int, default=20, metavar="K", help="controller kills (default: 20)")
    soak.add_argument("--seed", type=int, metavar="S", help="seed the fault schedule")
    soak.add_argument("--data", metavar="DIR", help="data directory (default: a new temporary directory)")
    soak.add_argument("--json", action="store_true", help="print the summary as JSON")
    set_handler(soak, _soak)


def _soak(args: argparse.Namespace) -> int:
    from table_controller.soak.runner import run_soak

    if args.hands < 1:
        raise CliError(f"--hands must be at least 1, not {args.hands}")
    if args.kills < 0:
        raise CliError(f"--kills must not be negative, not {args.kills}")
    if args.kills > MAX_KILLS:  # the plan of kills is drawn up front: 10**20 of them is a memory blow-up
        raise CliError(f"--kills must be at most {MAX_KILLS}, not {args.kills}")
    if args.data:
        data = Path(args.data)
        if data.exists() and (not data.is_dir() or any(data.iterdir())):
            raise CliError(f"--data {data} must be a new or empty directory (the soak audits everything in it)")
        try:
            data.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"cannot create --data {data}: {exc.strerror or exc}") from None
    else:
        data = Path(tempfile.mkdtemp(prefix="cardtable-soak-"))
    sys.stderr.write(f"soak: {args.hands} hands, {args.kills} kills, data in {data}\n")

    def progress(text: str) -> None:
        sys.stderr.write(f"soak: {text}\n")
        sys.stderr.flush()

    summary = run_soak(hands=args.hands, kills=args.kills, data=data, seed=args.seed, progress=progress)
    if args.json:
        print_json(summary.as_dict())
    else:
        faults = ", ".join(f"{k} {v}" for k, v in sorted(summary.faults.items()))
        sys.stdout.write(
            f"Soak: {summary.completed} hands completed, {summary.voided} voided ({summary.voided_at_restart} at a "
            f"restart after a kill, {summary.dealer_voids} by the dealer after a device fault); "
            f"{summary.kills} kill -9s, {summary.starts} controller starts; faults injected: {faults}; "
            f"{summary.prompts} dealer prompts, {summary.retries} retries; camera dropouts "
            f"{summary.camera_dropouts}, camera misreads ruled by the floor {summary.camera_misreads}; "
            f"journal {'verified' if summary.verify_ok else 'NOT verified'} ({summary.journal_entries} entries); "
            f"{summary.replayed_same}/{summary.exported} exported records replay to the stored result; chips "
            f"{summary.chips_on_table} on the table, {summary.chips_in} bought in; {summary.seconds:.0f} s\n")
        for finding in summary.findings:
            sys.stdout.write(f"FINDING: {finding}\n")
    return EXIT_OK if summary.ok else EXIT_FINDING
