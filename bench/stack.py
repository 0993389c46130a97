"""Whole-stack benchmark: card-dealt-to-display latency, hands per minute and memory per table.

The stack is the one the end-to-end tests drive (:class:`table_controller.soak.stack.LiveStack`): the shoe
simulator on a pty opened by pyserial through the firmware bridge, the controller and rules engine, the
durable SQLite journal (every entry written before it is acted on), the FastAPI app under uvicorn with the
dealer's acts sent over HTTP, and a WebSocket client on the floor stream. No camera: its frame rate is
vision's benchmark.

- Latency: from the moment the simulated shoe puts a card's event on the wire to the moment the WebSocket
  client receives the first state showing that card. Cards of the deal are journaled and shown together
  when the deal is complete (a deal cut short is a misdeal), so their latency includes the rest of the
  deal; cards served in the draw go one at a time. The reference is the wire time of the same bytes (the
  DEAL_ONE command, its reply and the CARD_DEALT event with its acknowledgement) on a real 115200-baud line.
- Hands per minute: complete hands (antes to award, with passed-out deals) by simulated players, beside
  the same controller with an in-memory shoe and journal (no devices, no disk, no web), which is what the
  rest of the stack costs.
- Memory per table: resident memory added by each further table (shoe simulator and link, journal,
  controller, stream hub) in one process, after it has played hands.

Run: ``python -m bench.stack [--quick]`` or ``cardtable bench --only stack``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench._report import OURS, BenchRow, to_markdown

AREA = "stack"
BAUD = 115200


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _rss_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class StackRun:
    """One measured run of the whole stack: latencies (seconds) of every card, and of draw cards."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.draw_latencies: list[float] = []
        self.hands = 0
        self.seconds = 0.0
        self.bytes_per_card = 0.0


async def measure_stack(hands: int, *, seed: int = 7, data: Path | None = None) -> StackRun:
    from table_controller.soak.stack import LiveStack, StackOptions

    run = StackRun()
    root = Path(tempfile.mkdtemp(prefix="cardtable-bench-")) if data is None else data
    stack = LiveStack(StackOptions(data=root, seed=seed, players=4, camera=False))
    await stack.start()
    try:
        await stack.seat_players()
        players = stack.new_players()
        await stack.play_hand(players)  # warm up: imports, first journal pages, first connection
        await stack.settle()
        stack.stream.latencies.clear()
        stack.stream.draw_latencies.clear()
        sim = stack.sim
        assert sim is not None
        bytes_before = sim.received_bytes + sim.sent_bytes
        cards_before = stack.table.cards_dealt
        started = time.perf_counter()
        for _ in range(hands):
            await stack.play_hand(players)
        run.seconds = time.perf_counter() - started
        await stack.settle()
        run.hands = hands
        run.latencies = list(stack.stream.latencies)
        cards = stack.table.cards_dealt - cards_before
        if cards:
            run.bytes_per_card = (sim.received_bytes + sim.sent_bytes - bytes_before) / cards
        run.draw_latencies = list(stack.stream.draw_latencies)
    finally:
        await stack.stop()
    return run


async def _controller_only(hands: int, seed: int) -> float:
    """Hands per minute of the controller alone: in-memory shoe and journal, no pty, disk or web."""
    from table_controller.controller.demo import play_hands, seat_players
    from table_controller.controller.devices import VirtualShoe
    from table_controller.controller.journal_port import MemoryJournal
    from table_controller.controller.players import SimPlayers
    from table_controller.controller.table import TableController
    from table_controller.service.settings import TableSettings

    table = TableController(TableSettings(pace_s=0, broadcast_delay_s=0), shoe=VirtualShoe(seed=seed),
                            journal=MemoryJournal())
    await seat_players(table, 4)
    started = time.perf_counter()
    summary = await play_hands(table, SimPlayers(table, rng=random.Random(seed)), hands=hands)
    return summary.hands / ((time.perf_counter() - started) / 60)


async def _memory_per_table(tables: int, hands: int) -> float:
    """Resident bytes each further table adds: shoe simulator on a pty and its link, SQLite journal,
    controller, stream hub; one process, each table having played ``hands`` hands."""
    from table_controller.controller.demo import play_hands, seat_players
    from table_controller.controller.players import SimPlayers
    from table_controller.controller.runtime import close_table, open_table
    from table_controller.service.hub import StreamHub
    from table_controller.service.settings import TableSettings

    root = Path(tempfile.mkdtemp(prefix="cardtable-bench-mem-"))

    async def one(k: int) -> object:
        settings = TableSettings(table_id=f"m{k}", data=root / f"m{k}", pace_s=0, broadcast_delay_s=0)
        table = await open_table(settings, seed=k, fast=True, camera=False)
        hub = StreamHub(broadcast_delay_s=0)
        table.controller.add_listener(hub.publish)
        await seat_players(table.controller, 4)
        await play_hands(table.controller, SimPlayers(table.controller, rng=random.Random(k)), hands=hands)
        return table

    first = await one(0)  # the first table pays for imports and shared caches
    gc.collect()
    before = _rss_bytes()
    opened = [await one(k) for k in range(1, tables + 1)]
    gc.collect()
    after = _rss_bytes()
    for table in [first, *opened]:
        await close_table(table)  # type: ignore[arg-type]
    return (after - before) / tables


def _wire_ms(bytes_per_card: float) -> float:
    return bytes_per_card * 10 / BAUD * 1000  # 8N1: ten bit times a byte


def run(quick: bool) -> list[BenchRow]:
    hands = 8 if quick else 40
    stack_run = asyncio.run(measure_stack(hands))
    per_minute = stack_run.hands / (stack_run.seconds / 60) if stack_run.seconds else 0.0
    alone = asyncio.run(_controller_only(40 if quick else 200, 7))
    memory = asyncio.run(_memory_per_table(2 if quick else 6, 2 if quick else 5))
    lat = [x * 1000 for x in stack_run.latencies]
    draw = [x * 1000 for x in stack_run.draw_latencies]
    wire = _wire_ms(stack_run.bytes_per_card)
    n = f"{len(lat)} cards, {stack_run.hands} hands"
    rows = [
        BenchRow(area=AREA, metric="card dealt -> display p50", system=OURS, value=_percentile(lat, 0.5), unit="ms",
                 note=f"shoe sim -> pty -> driver -> controller -> journal -> WebSocket; {n}"),
        BenchRow(area=AREA, metric="card dealt -> display p99", system=OURS, value=_percentile(lat, 0.99), unit="ms",
                 note="deal cards wait for the whole deal (journaled together)"),
        BenchRow(area=AREA, metric="draw card -> display p50", system=OURS, value=_percentile(draw, 0.5), unit="ms",
                 note=f"cards served one at a time in the draw; {len(draw)} cards"),
        BenchRow(area=AREA, metric="draw card -> display p99", system=OURS, value=_percentile(draw, 0.99), unit="ms",
                 note=""),
        BenchRow(area=AREA, metric="wire time per card", system="115200-baud line", value=wire, unit="ms",
                 note=f"{stack_run.bytes_per_card:.0f} bytes a card both ways (command, reply, event, ack), 8N1"),
        BenchRow(area=AREA, metric="hands per minute", system=OURS, value=per_minute, unit="hands/min",
                 note="whole stack: dealer acts over HTTP, SQLite journal (fsync), pty shoe sim, WebSocket client"),
        BenchRow(area=AREA, metric="hands per minute", system="controller alone", value=alone, unit="hands/min",
                 note="same controller, in-memory shoe and journal, no web"),
        BenchRow(area=AREA, metric="memory per table", system=OURS, value=memory / (1 << 20), unit="MiB",
                 note="resident memory each further table adds (shoe sim, link, journal, controller, hub)"),
    ]
    if lat:
        rows.append(BenchRow(area=AREA, metric="card dealt -> display mean", system=OURS,
                             value=statistics.fmean(lat), unit="ms", note=""))
    return rows


def draw_chart(path: str | Path, series: list[tuple[str, list[float], tuple[int, int, int]]], *, wire_ms: float,
               title: str, subtitle: str) -> None:
    """A PNG of the latency distributions: one cumulative curve per series (milliseconds), the wire time of
    a card at 115200 baud as a dashed line. Drawn with OpenCV and numpy."""
    import cv2
    import numpy as np

    w, h = 1100, 720
    left, right, top, bottom = 90, 40, 100, 190
    img = np.full((h, w, 3), 255, np.uint8)
    values = [v for _, vs, _ in series for v in vs]
    # A log scale: the bulk (milliseconds) and the tail (the slowest deals) both stay readable.
    top_value = max([*values, wire_ms * 1.2, 10.0])
    x_lo = 1.0
    x_hi = next(t for t in (50, 100, 200, 500, 1000, 2000, 5000, 10000, 1e9) if t >= top_value)
    span = np.log10(x_hi / x_lo)

    def px(x: float, y: float) -> tuple[int, int]:
        frac = float(np.log10(min(max(x, x_lo), x_hi) / x_lo) / span)
        return (int(left + (w - left - right) * frac), int(h - bottom - (h - top - bottom) * y))

    font = cv2.FONT_HERSHEY_SIMPLEX
    grey, dark = (215, 215, 215), (40, 40, 40)
    ticks = [m * 10**e for e in range(0, 6) for m in (1, 2, 5) if x_lo <= m * 10**e <= x_hi]
    for x in ticks:
        cv2.line(img, px(x, 0), px(x, 1), grey, 1)
        label = f"{x:g}"
        size = cv2.getTextSize(label, font, 0.5, 1)[0]
        cv2.putText(img, label, (px(x, 0)[0] - size[0] // 2, h - bottom + 22), font, 0.5, dark, 1, cv2.LINE_AA)
    for k in range(0, 11, 2):
        y = k / 10
        cv2.line(img, px(x_lo, y), px(x_hi, y), grey, 1)
        cv2.putText(img, f"{k * 10}%", (left - 50, px(x_lo, y)[1] + 5), font, 0.5, dark, 1, cv2.LINE_AA)
    cv2.rectangle(img, px(x_lo, 0), px(x_hi, 1), dark, 1)
    cv2.putText(img, "milliseconds (log scale) from the card leaving the shoe to the display receiving it",
                (left + 150, h - bottom + 52), font, 0.6, dark, 1, cv2.LINE_AA)
    cv2.putText(img, "share of cards", (12, top - 14), font, 0.55, dark, 1, cv2.LINE_AA)
    cv2.putText(img, title, (left, 38), font, 0.8, dark, 2, cv2.LINE_AA)
    cv2.putText(img, subtitle, (left, 66), font, 0.5, (90, 90, 90), 1, cv2.LINE_AA)
    # The reference: the wire time of one card's bytes at 115200 baud.
    x0, _ = px(wire_ms, 0)
    for y in range(top, h - bottom, 12):
        cv2.line(img, (x0, y), (x0, min(y + 6, h - bottom)), (0, 0, 200), 2)
    legend_y = h - bottom + 90
    entries = [*series, (f"wire time of a card at 115200 baud: {wire_ms:.1f} ms", [], (0, 0, 200))]
    for _name, vs, colour in series:
        ordered = sorted(vs)
        if not ordered:
            continue
        pts = [px(x_lo, 0)]
        for k, v in enumerate(ordered):
            pts.append(px(v, k / len(ordered)))
            pts.append(px(v, (k + 1) / len(ordered)))
        cv2.polylines(img, [np.array(pts, np.int32)], False, colour, 3, cv2.LINE_AA)
    for name, vs, colour in entries:
        label = name if not vs else (f"{name}: p50 {_percentile(vs, 0.5):.1f} ms, p99 {_percentile(vs, 0.99):.1f} ms,"
                                     f" n={len(vs)}")
        cv2.line(img, (left + 150, legend_y - 5), (left + 185, legend_y - 5), colour, 3, cv2.LINE_AA)
        cv2.putText(img, label, (left + 195, legend_y), font, 0.55, dark, 1, cv2.LINE_AA)
        legend_y += 26
    if not cv2.imwrite(str(path), img):
        raise OSError(f"cannot write {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stack", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--chart", metavar="PNG", help="measure the latencies and draw their distributions to PNG "
                        "(instead of the table)")
    args = parser.parse_args(argv)
    if args.chart:
        import os
        import platform

        hands = 8 if args.quick else 60
        stack_run = asyncio.run(measure_stack(hands))
        lat = [x * 1000 for x in stack_run.latencies]
        draw = [x * 1000 for x in stack_run.draw_latencies]
        load = os.getloadavg()[0]
        draw_chart(args.chart, [("all cards", lat, (200, 120, 0)), ("cards served in the draw", draw, (0, 150, 0))],
                   wire_ms=_wire_ms(stack_run.bytes_per_card),
                   title="Card dealt to display: whole stack on simulated hardware",
                   subtitle=f"{stack_run.hands} hands, shoe sim on a pty -> driver -> controller -> SQLite journal -> "
                            f"WebSocket; {os.cpu_count()} cores, {platform.python_version()}, load {load:.2f}")
        sys.stdout.write(f"wrote {args.chart}: {len(lat)} cards, {len(draw)} draw cards\n")
        return 0
    sys.stdout.write(to_markdown(run(args.quick)) + "\n")
    return 0


if __name__ == "__main__":
    from table_controller.cli.closed_pipe import quiet_on_closed_pipe

    sys.exit(quiet_on_closed_pipe(main))
