"""The simulated shuffler / dealing shoe: device model, line faults, adapters (pty, TCP, in-memory).

Start one in-process with `start_pty()` or `start_tcp()` (a daemon thread), or wire a `MemoryLink` to a
`ShoeSimulator` for tests; inject faults through `.control` (a `ShoeControl`).
"""

from hardware_sim.shoe.adapters import PtyShoe, RunningShoe, TcpShoe, start_pty, start_tcp, wait_for_stop_signal
from hardware_sim.shoe.line import ByteFaults, LineFaults
from hardware_sim.shoe.memory import MemoryLink
from hardware_sim.shoe.model import PhysicalCard, ShoeDevice, SimTimings, standard_deck
from hardware_sim.shoe.simulator import ShoeControl, ShoeSimulator

__all__ = ["ByteFaults", "LineFaults", "MemoryLink", "PhysicalCard", "PtyShoe", "RunningShoe", "ShoeControl",
           "ShoeDevice", "ShoeSimulator", "SimTimings", "TcpShoe", "standard_deck", "start_pty", "start_tcp",
           "wait_for_stop_signal"]
