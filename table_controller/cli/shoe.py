"""`cardtable shoe`: talk to a shuffler/shoe at the bench.

Exit codes: 0 ok; 1 a finding (the deck fails verification, the shoe refuses or faults); 2 bad input or
an unreachable port. Errors are one line (or one JSON object with --json).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from typing import Any

from table_controller.cli._common import (
    EXIT_FINDING,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Parser,
    add_json_flag,
    print_json,
    set_handler,
)

MAX_TIMEOUT_S = 3600.0  # an hour: anything longer is a mistake, and NaN or infinity would never end

def register(sub: Any) -> None:
    shoe = sub.add_parser("shoe", help="talk to a shuffler/shoe: status, shuffle, verify, deal")
    ssub = shoe.add_subparsers(dest="shoe_command", metavar="ACTION", parser_class=Parser)
    for name, text in (("status", "print the shoe's state, identity and counters"),
                       ("shuffle", "shuffle the deck in the shoe"),
                       ("verify", "verify the deck: 52 cards, none missing, none twice (exit 1 if not)"),
                       ("deal", "deal cards one at a time and print each scanned card")):
        p = ssub.add_parser(name, help=text)
        p.add_argument("--port", required=True, metavar="URL",
                       help="pyserial URL: /dev/ttyUSB0, socket://HOST:PORT, rfc2217://HOST:PORT, loop://")
        add_json_flag(p)
        p.add_argument("--baud", type=int, default=115200, metavar="BPS", help="line speed (default: 115200)")
        p.add_argument("--timeout", type=float, default=None, metavar="S",
                       help="overall deadline in seconds for the action (default: the driver's per-call deadlines)")
        if name == "deal":
            p.add_argument("--count", type=int, default=1, metavar="N", help="cards to deal (default: 1)")
        set_handler(p, _handler(name))


def _handler(name: str) -> Any:
    def handler(args: argparse.Namespace) -> int:
        if args.baud <= 0:
            raise CliError(f"--baud {args.baud} is not a line speed", exit_code=EXIT_USAGE)
        if name == "deal" and not 1 <= args.count <= 52:
            raise CliError(f"--count {args.count} is not 1..52", exit_code=EXIT_USAGE)
        if args.timeout is not None and not (math.isfinite(args.timeout) and 0 < args.timeout <= MAX_TIMEOUT_S):
            raise CliError(f"--timeout must be a number of seconds, more than 0 and at most {MAX_TIMEOUT_S:g}, "
                           f"not {args.timeout!r}", exit_code=EXIT_USAGE)
        try:
            return asyncio.run(_run(name, args))
        except CliError:
            raise
        except Exception as exc:
            from firmware_bridge.errors import BridgeError, CommandRefusedError, DeviceFaultError

            if isinstance(exc, CommandRefusedError | DeviceFaultError):
                raise CliError(str(exc), exit_code=EXIT_FINDING, code=exc.code) from None
            if isinstance(exc, BridgeError):
                raise CliError(str(exc), exit_code=EXIT_USAGE, code=exc.code) from None
            raise

    return handler


async def _run(name: str, args: argparse.Namespace) -> int:
    from firmware_bridge.driver import ClientConfig, ShoeClient

    config = ClientConfig(baudrate=args.baud)
    if args.timeout is not None:
        t = args.timeout
        config = ClientConfig(baudrate=args.baud, call_deadline=t, deal_deadline=t, shuffle_deadline=t,
                              verify_deadline=t, connect_deadline=t)
    client = ShoeClient(args.port, config=config)
    try:
        info = await client.connect()
        if name == "status":
            status = await client.status()
            row = {"model": info.model, "serial": info.serial, "firmware": info.firmware,
                   "protocol": info.version, "state": status.state.name, "fault": status.fault.name,
                   "cards_in_shoe": status.cards_in_shoe, "cards_dealt": status.cards_dealt,
                   "door_open": status.door_open, "shuffles": status.shuffles, "last_event": status.last_event}
            _emit(args, row, " ".join(f"{k}={v}" for k, v in row.items()))
            return EXIT_OK
        if name == "shuffle":
            done = await client.shuffle()
            _emit(args, {"shuffled": True, "count": done.count}, f"shuffled {done.count} cards")
            return EXIT_OK
        if name == "verify":
            from firmware_bridge.cards import card_code

            result = await client.verify_deck()
            row = {"ok": result.ok, "count": result.count, "unreadable": result.unreadable,
                   "missing": [card_code(c) for c in sorted(result.missing)],
                   "duplicate": [card_code(c) for c in sorted(result.duplicate)],
                   "extra": [card_code(c) for c in result.extra]}
            text = "deck ok: 52 cards" if result.ok else "deck FAILS: " + " ".join(
                f"{k}={v}" for k, v in row.items() if k != "ok")
            _emit(args, row, text)
            return EXIT_OK if result.ok else EXIT_FINDING
        for _ in range(args.count):
            dealt = await client.deal_one()
            card = dealt.card if dealt.card is not None else "unreadable"
            _emit(args, {"card": dealt.card, "left": dealt.left}, f"{card} ({dealt.left} left)")
        return EXIT_OK
    finally:
        await client.close()


def _emit(args: argparse.Namespace, obj: dict[str, Any], text: str) -> None:
    if args.json:
        print_json(obj)
    else:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
