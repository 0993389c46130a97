"""`cardtable run` (the live table) and `cardtable demo` (the same with simulated players)."""

from __future__ import annotations

import argparse
from typing import Any

from table_controller.cli._common import set_handler, unavailable


def _add_table_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--shoe", metavar="URL", help="pyserial URL of the shoe (default: a simulated shoe on a pty)")
    p.add_argument("--camera", metavar="SOURCE", help="camera: device index, video file or stream URL "
                   "(default: the simulated table camera)")
    p.add_argument("--data", metavar="DIR", default="./cardtable-data",
                   help="data directory for the journal and exports (default: ./cardtable-data)")
    p.add_argument("--db", metavar="URL", help="journal database URL, sqlite:///PATH or postgresql://... "
                   "(default: SQLite in WAL mode under --data)")
    p.add_argument("--host", default="127.0.0.1", help="address the web server binds (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="web server port (default: 8000)")
    p.add_argument("--config", metavar="FILE", help="table configuration file (JSON): game, stakes, house rules")


def register(sub: Any) -> None:
    run = sub.add_parser("run", help="run the live table: shoe, camera, rules engine, journal and web screens",
                         description="Run one live table. With no flags: a simulated shoe on a pty, the simulated "
                         "camera, SQLite under ./cardtable-data and the web screens on http://127.0.0.1:8000/.")
    _add_table_flags(run)
    set_handler(run, unavailable("cardtable run"))

    demo = sub.add_parser("demo", help="run a simulated table with simulated players acting",
                          description="Like 'run', with simulated players acting, so hands play out on the "
                          "screens. With --hands N it plays N hands, prints a summary and exits 0.")
    _add_table_flags(demo)
    demo.add_argument("--hands", type=int, metavar="N", help="play N hands, print a summary and exit")
    demo.add_argument("--seed", type=int, metavar="S", help="seed the simulator and players (reproducible runs)")
    demo.add_argument("--form", default="jackpots", metavar="FORM", help="game form (default: jackpots)")
    demo.add_argument("--betting", default="fixed_limit", metavar="B",
                      help="betting structure: fixed_limit, spread_limit, pot_limit, no_limit (default: fixed_limit)")
    demo.add_argument("--players", type=int, default=6, metavar="K", help="players seated, 2 to 8 (default: 6)")
    set_handler(demo, unavailable("cardtable demo"))
