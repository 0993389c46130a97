"""`cardtable shoe`: talk to a shuffler/shoe at the bench."""

from __future__ import annotations

from typing import Any

from table_controller.cli._common import Parser, add_json_flag, set_handler, unavailable


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
        if name == "deal":
            p.add_argument("--count", type=int, default=1, metavar="N", help="cards to deal (default: 1)")
        set_handler(p, unavailable(f"cardtable shoe {name}"))
