"""`cardtable soak`: the long fault soak of the whole stack (kill -9, garbled line, jams, dropouts)."""

from __future__ import annotations

from typing import Any

from table_controller.cli._common import set_handler, unavailable


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
    set_handler(soak, unavailable("cardtable soak"))
