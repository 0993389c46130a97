"""`cardtable sim`: the simulated shoe and camera, for benches and CI without devices."""

from __future__ import annotations

from typing import Any

from table_controller.cli import sim_camera, sim_shoe
from table_controller.cli._common import Parser


def register(sub: Any) -> None:
    sim = sub.add_parser("sim", help="run simulated hardware: the shoe on a pty or TCP, the table camera")
    ssub = sim.add_subparsers(dest="sim_command", metavar="DEVICE", parser_class=Parser)
    sim_shoe.register(ssub)
    sim_camera.register(ssub)
