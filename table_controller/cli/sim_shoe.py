"""`cardtable sim shoe`: serve the shoe simulator on a pty or a TCP port."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from table_controller.cli._common import EXIT_OK, EXIT_USAGE, CliError, set_handler

MAX_SPEED = 1e6  # the device's virtual clock a million times faster than real time: its mechanics take no time


def register(sub: Any) -> None:
    shoe = sub.add_parser("shoe", help="serve a simulated shuffler/shoe on a pty or a TCP port",
                          description="Serve the shoe simulator. With --pty the first line printed is the tty "
                          "path to give to --port/--shoe; with --tcp PORT connect with socket://127.0.0.1:PORT.")
    where = shoe.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal")
    where.add_argument("--tcp", type=int, metavar="PORT", help="serve on a TCP port on 127.0.0.1")
    shoe.add_argument("--seed", type=int, metavar="S", help="seed the shuffle (tests only; default: OS CSPRNG)")
    shoe.add_argument("--fast", action="store_true", help="near-instant mechanics (shuffle, deal) for demos and tests")
    shoe.add_argument("--speed", type=float, default=1.0, metavar="X",
                      help="run the device's virtual clock X times faster than real time (default: 1)")
    shoe.add_argument("--link", metavar="PATH", help="with --pty: also keep a symlink PATH to the tty")
    shoe.add_argument("--control", type=int, metavar="PORT",
                      help="also serve the fault control on 127.0.0.1:PORT (0: any free port); the second line "
                      "printed is its address, tcp://127.0.0.1:PORT (docs/protocol.md, 'Simulator control')")
    shoe.add_argument("--no-scan-returns", action="store_true",
                      help="a shoe without the return slot's scanner (capability RETURNS off): returned cards are "
                      "taken in unreported")
    set_handler(shoe, _serve)


def _serve(args: argparse.Namespace) -> int:
    from hardware_sim.shoe import ShoeSimulator, SimTimings, start_pty, start_tcp, wait_for_stop_signal

    if not (math.isfinite(args.speed) and 0 < args.speed <= MAX_SPEED):  # NaN passed a test of <= 0
        raise CliError(f"--speed must be positive and at most {MAX_SPEED:g}, not {args.speed!r}", exit_code=EXIT_USAGE)
    for flag, port in (("--tcp", args.tcp), ("--control", args.control)):
        if port is not None and not 0 <= port <= 65535:
            raise CliError(f"{flag} {port} is not a TCP port", exit_code=EXIT_USAGE)
    sim = ShoeSimulator(seed=args.seed, timings=SimTimings.fast() if args.fast else None,
                        scan_returns=not args.no_scan_returns)
    try:
        if args.pty:
            running: Any = start_pty(sim, speed=args.speed, link_path=args.link)
            first_line = running.url
        else:
            running = start_tcp(sim, port=args.tcp, speed=args.speed)
            first_line = running.url
    except OSError as exc:
        raise CliError(f"cannot serve the shoe: {exc}", exit_code=EXIT_USAGE) from None
    control = None
    if args.control is not None:
        from hardware_sim.shoe.remote import serve_control

        try:
            control = serve_control(sim, port=args.control)
        except OSError as exc:
            running.stop()
            raise CliError(f"cannot serve the control on port {args.control}: {exc}", exit_code=EXIT_USAGE) from None
    sys.stdout.write(first_line + "\n" + (f"control {control.url}\n" if control is not None else ""))
    sys.stdout.flush()
    try:
        wait_for_stop_signal()
    finally:
        if control is not None:
            control.stop()
        running.stop()
    return EXIT_OK
