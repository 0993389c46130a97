"""Shoe link benchmark: command round trips per second over a pty, and the software time per round trip
beside the wire time of the same bytes at 115200 baud.

A pty has no baud rate, so a round trip over it is all software: the asyncio driver, pyserial, the
kernel's pty, and the simulated shoe's thread with its protocol core. The wire-time row is what the
same request and reply would take on a real 115200-baud 8N1 line; the ratio says how much of a real
round trip is ours. Run: `python -m bench.serial [--quick]` or `cardtable bench --only serial`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from bench._report import OURS, BenchRow, to_markdown
from firmware_bridge.driver import ClientConfig, ShoeClient
from firmware_bridge.frames import Frame, FrameDecoder, frame_bytes
from firmware_bridge.host import HostEndpoint
from firmware_bridge.messages import Command, CommandBody, FailCode, ReplyBody, Result, StatusInfo
from firmware_bridge.states import DeviceState
from firmware_bridge.transport import wire_seconds
from hardware_sim.shoe import ShoeSimulator, SimTimings, start_pty

AREA = "serial"
BAUD = 115200


def _status_frames() -> tuple[bytes, bytes]:
    host = HostEndpoint()
    host.session = 0x12345678
    request = host.command(1, CommandBody(command=Command.STATUS))
    status = StatusInfo(state=DeviceState.READY, fault=FailCode.NONE, cards_in_shoe=40, cards_dealt=12,
                        door_open=False, shuffles=3, last_event=99, unacked=0, deal_speed=5)
    reply = frame_bytes(Frame(body=ReplyBody(command=Command.STATUS, result=Result.OK, status=status),
                              session=0x12345678, corr=1))
    return request, reply


def _codec_seconds(rounds: int) -> float:
    """Host-side protocol work per round trip: build the command frame, decode the reply frame."""
    _, reply = _status_frames()
    host = HostEndpoint()
    host.session = 0x12345678
    decoder = FrameDecoder()
    body = CommandBody(command=Command.STATUS)
    started = time.perf_counter()
    for i in range(rounds):
        host.command(i + 1, body)
        decoder.feed(reply)
    return (time.perf_counter() - started) / rounds


async def _over_pty(rounds: int, deals: int) -> tuple[float, float]:
    sim = ShoeSimulator(seed=1, timings=SimTimings.fast())
    with start_pty(sim) as shoe:
        client = ShoeClient(shoe.url, config=ClientConfig(baudrate=BAUD))
        await client.connect()
        try:
            for _ in range(20):
                await client.status()  # warm up
            started = time.perf_counter()
            for _ in range(rounds):
                await client.status()
            per_status = (time.perf_counter() - started) / rounds
            await client.shuffle()
            started = time.perf_counter()
            for _ in range(deals):
                await client.deal_one()
            per_deal = (time.perf_counter() - started) / deals
        finally:
            await client.close()
    return per_status, per_deal


def run(quick: bool = False) -> list[BenchRow]:
    rounds = 300 if quick else 3000
    per_status, per_deal = asyncio.run(_over_pty(rounds, 20 if quick else 52))
    request, reply = _status_frames()
    nbytes = len(request) + len(reply)
    wire = wire_seconds(nbytes, BAUD)
    codec = _codec_seconds(2000 if quick else 20000)
    return [
        BenchRow(area=AREA, metric="STATUS round trips over a pty", system=OURS, value=1 / per_status,
                 unit="round trips/s", note=f"{rounds} sequential calls, driver + pyserial + simulated shoe"),
        BenchRow(area=AREA, metric="time per STATUS round trip", system=OURS, value=per_status * 1e6, unit="µs",
                 note="all software (a pty has no baud rate)"),
        BenchRow(area=AREA, metric="time per STATUS round trip", system=f"wire time at {BAUD} baud",
                 value=wire * 1e6, unit="µs", note=f"{len(request)} + {len(reply)} bytes, 8N1"),
        BenchRow(area=AREA, metric="software share of a real round trip", system=OURS,
                 value=100 * per_status / (per_status + wire), unit="%",
                 note=f"software / (software + wire at {BAUD})"),
        BenchRow(area=AREA, metric="host codec per round trip", system=OURS, value=codec * 1e6, unit="µs",
                 note="build the command frame + decode the reply frame (sans-IO)"),
        BenchRow(area=AREA, metric="deal_one() over a pty", system=OURS, value=1 / per_deal, unit="cards/s",
                 note="command, IN_PROGRESS, CARD_DEALT event, ACK; the simulated deal itself takes 2 ms"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serial", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sys.stdout.write(to_markdown(run(quick=args.quick)) + "\n")
    return 0


if __name__ == "__main__":
    from table_controller.cli.closed_pipe import quiet_on_closed_pipe

    sys.exit(quiet_on_closed_pipe(main))
