"""`cardtable sim shoe`: serve the shoe simulator on a pty or a TCP port."""

from __future__ import annotations

from typing import Any

from table_controller.cli._common import set_handler, unavailable


def register(sub: Any) -> None:
    shoe = sub.add_parser("shoe", help="serve a simulated shuffler/shoe on a pty or a TCP port",
                          description="Serve the shoe simulator. With --pty the first line printed is the tty "
                          "path to give to --port/--shoe; with --tcp PORT connect with socket://127.0.0.1:PORT.")
    where = shoe.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal")
    where.add_argument("--tcp", type=int, metavar="PORT", help="serve on a TCP port on 127.0.0.1")
    shoe.add_argument("--seed", type=int, metavar="S", help="seed the shuffle (tests only; default: OS CSPRNG)")
    set_handler(shoe, unavailable("cardtable sim shoe"))
