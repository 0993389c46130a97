"""One row of the benchmark report, and the Markdown table that `cardtable bench` prints.

Each benchmark module exposes `run(quick: bool) -> list[BenchRow]`. A row is one figure for one system
(ours or a reference system) measured in the same run on the same machine, so the table compares like
with like.
"""

from __future__ import annotations

import platform
from collections.abc import Iterable
from dataclasses import dataclass

OURS = "cardtable"


@dataclass(frozen=True, kw_only=True)
class BenchRow:
    area: str
    metric: str
    system: str
    value: float
    unit: str
    note: str = ""


def _format_value(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    return f"{value:.4g}"


def machine_line() -> str:
    import os

    return (f"{platform.machine()} {platform.processor() or ''}".strip()
            + f", {os.cpu_count()} cores, Python {platform.python_version()}")


def to_markdown(rows: Iterable[BenchRow]) -> str:
    lines = ["| area | metric | system | value | unit | note |", "|---|---|---|---:|---|---|"]
    for row in rows:
        system = f"**{row.system}**" if row.system.startswith(OURS) else row.system
        lines.append(f"| {row.area} | {row.metric} | {system} | {_format_value(row.value)} | {row.unit} | {row.note} |")
    return "\n".join(lines)
