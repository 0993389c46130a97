"""One row of the benchmark report, and the Markdown report that `cardtable bench` prints.

Each benchmark module exposes `run(quick: bool) -> list[BenchRow]`. A row is one figure for one system
(ours, a reference system, or the goal) measured in the same run on the same machine, so the report compares
like with like. The report has one table per area: a line per metric, a column per system, ours first and
the goal last.
"""

from __future__ import annotations

import math
import os
import platform
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

OURS = "cardtable"
#: A row whose system starts with this word is a goal, not a measurement; its column comes last.
GOAL = "goal"


@dataclass(frozen=True, kw_only=True)
class BenchRow:
    area: str
    metric: str
    system: str
    value: float
    unit: str
    note: str = ""


def _format_value(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    return f"{value:.4g}"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_line() -> str:
    return (f"{_cpu_model()}, {platform.machine()}, {os.cpu_count()} cores, {platform.system()}, "
            f"Python {platform.python_version()}")


def commit_line(repo: Path | None = None) -> str:
    """The commit the code was run at, marked when the working tree had uncommitted changes."""
    where = repo or Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, check=False, timeout=30)
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        head = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown (no git)"
    if not head:
        return "unknown (not a git checkout)"
    return f"`{head}`" + (" with uncommitted changes" if dirty else "")


def _is_goal(system: str) -> bool:
    return system.startswith(GOAL)


def _area_table(rows: list[BenchRow]) -> list[str]:
    systems: list[str] = []
    metrics: list[str] = []
    units: dict[str, str] = {}
    cells: dict[tuple[str, str], BenchRow] = {}
    for row in rows:
        if row.system not in systems:
            systems.append(row.system)
        if row.metric not in metrics:
            metrics.append(row.metric)
        if not _is_goal(row.system):
            units.setdefault(row.metric, row.unit)
        cells[(row.metric, row.system)] = row
    systems.sort(key=lambda s: (_is_goal(s), not s.startswith(OURS)))  # stable: ours, references, goal

    def header(system: str) -> str:
        return f"**{system}**" if system.startswith(OURS) else system

    lines = ["| metric | unit | " + " | ".join(header(s) for s in systems) + " |",
             "|---|---|" + "---:|" * len(systems)]
    notes: list[str] = []
    for metric in metrics:
        unit = units.get(metric) or next(cells[(metric, s)].unit for s in systems if (metric, s) in cells)
        values = []
        for system in systems:
            cell = cells.get((metric, system))
            if cell is None:
                values.append("")
                continue
            text = _format_value(cell.value)
            if cell.unit != unit:
                text += f" {cell.unit}"
            values.append(text)
            if cell.note:
                notes.append(f"- {metric}, {system}: {cell.note}")
        lines.append(f"| {metric} | {unit} | " + " | ".join(values) + " |")
    if notes:
        lines.append("")
        lines.extend(notes)
    return lines


def to_markdown(rows: Iterable[BenchRow]) -> str:
    """One `##` section per area, in the order the areas first appear."""
    by_area: dict[str, list[BenchRow]] = {}
    for row in rows:
        by_area.setdefault(row.area, []).append(row)
    sections = []
    for area, area_rows in by_area.items():
        sections.append("\n".join([f"## {area}", "", *_area_table(area_rows)]))
    return "\n\n".join(sections)


def report(rows: Iterable[BenchRow], *, quick: bool, started: datetime, seconds: float, command: str,
           load_at_start: float, commit: str) -> str:
    """The whole report: what was run where and when, then the areas' tables."""
    mode = "short runs (`--quick`)" if quick else "full runs"
    load = f"load average (1 min) {load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    head = [
        "# Benchmarks",
        "",
        f"Generated by `{command}`; do not edit by hand.",
        "Our figures beside the reference systems' and the goal, measured in one run on one machine. Speed goals",
        "live here and in `bench/`, never in timed tests.",
        "",
        f"- Machine: {machine_line()}",
        f"- Date: {started.astimezone(UTC):%Y-%m-%d %H:%M} UTC, {seconds:.0f} s in all, {mode}; {load}",
        f"- Commit: {commit}",
        "",
    ]
    return "\n".join(head) + "\n" + to_markdown(rows) + "\n"
