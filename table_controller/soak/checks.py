"""Checks run on a table's data directory after play, through the same commands an auditor runs.

``cardtable history verify`` must pass; ``cardtable history export --format record`` writes every hand that
ended (a voided one too: its void is on its record), and ``cardtable replay`` of each file must give the
result the table stored when the hand ended.
Conservation is checked by replaying the whole journal into a fresh controller (as a restart does): every
chip on the table was bought in, and each hand's cards were delivered once each.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from table_controller.controller.devices import VirtualShoe
from table_controller.controller.journal_port import MemoryJournal
from table_controller.controller.table import TableController
from table_controller.journal import Journal
from table_controller.service.settings import TableSettings, table_game
from table_controller.soak.stack import HandFacts, hand_facts

__all__ = ["AuditReport", "audit_data", "cli"]

RESULT_KEYS = ("status", "stacks", "carried_pot", "awards")


def cli(*argv: str) -> tuple[int, str]:
    """Run ``cardtable ARGV...`` in this process; its exit status and what it printed on stdout.

    The command is found as the installed ``cardtable`` script (its entry point), the one an auditor runs:
    the soak does not import the CLI package, which imports the soak (no import circle)."""
    found = entry_points(group="console_scripts", name="cardtable")
    if not found:
        raise RuntimeError("the cardtable command is not installed (pip install -e .)")
    main: Callable[[list[str]], int] = next(iter(found)).load()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


@dataclass
class AuditReport:
    entries: int = 0
    hands_started: int = 0
    completed: int = 0
    voided: int = 0
    open_hands: int = 0
    exported: int = 0
    replayed_same: int = 0
    chips_in: int = 0
    chips_on_table: int = 0
    verify_ok: bool = False
    findings: list[str] = field(default_factory=list)
    facts: dict[int, HandFacts] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.findings

    def as_dict(self) -> dict[str, Any]:
        return {"entries": self.entries, "hands_started": self.hands_started, "completed": self.completed,
                "voided": self.voided, "open_hands": self.open_hands, "exported": self.exported,
                "replayed_same": self.replayed_same, "chips_in": self.chips_in,
                "chips_on_table": self.chips_on_table, "verify_ok": self.verify_ok, "findings": self.findings}


def _same_result(replayed: dict[str, Any], stored: dict[str, Any]) -> list[str]:
    return [k for k in RESULT_KEYS if replayed.get(k) != stored.get(k)]


def audit_data(data: Path, *, table_id: str = "t1", game: dict[str, Any] | None = None,
               export_dir: Path | None = None) -> AuditReport:
    """Every check on one data directory; ``findings`` lists what failed (empty: all passed)."""
    report = AuditReport()
    code, out = cli("history", "verify", "--data", str(data), "--json")
    try:
        verdict = json.loads(out)
    except ValueError:
        verdict = {}
    report.verify_ok = code == 0 and bool(verdict.get("ok"))
    if not report.verify_ok:
        report.findings.append(f"history verify failed (exit {code}): {out.strip()[:300]}")
    out_dir = export_dir or (data / "export")
    code, out = cli("history", "export", "--data", str(data), "--format", "record", "--out", str(out_dir), "--json")
    if code != 0:
        report.findings.append(f"history export failed (exit {code}): {out.strip()[:300]}")
        files: list[str] = []
    else:
        files = list(json.loads(out)["files"])
    report.exported = len(files)
    with Journal.open(data_dir=data, create=False) as journal:
        stored = {h.hand_number: h.result for h in journal.hand_records(table_id)}
    for name in files:
        path = out_dir / name
        code, out = cli("replay", str(path))
        record = json.loads(path.read_text(encoding="utf-8"))
        number = _hand_number(name)
        if code != 0:
            report.findings.append(f"{name}: replay exit {code}: {out.strip()[:200]}")
            continue
        differs = _same_result(json.loads(out), stored.get(number, {}))
        if differs:
            report.findings.append(f"{name}: replay differs from the stored result in {', '.join(differs)}")
        else:
            report.replayed_same += 1
        if len(set(c for c in record["deck"] if c != "??")) != len([c for c in record["deck"] if c != "??"]):
            report.findings.append(f"{name}: a card twice in the record's deck")
    _conservation(data, table_id, game, report, stored)
    return report


def _hand_number(name: str) -> int:
    # t1-000012-h000012.json: the hand id's number
    return int(name.rsplit("-h", 1)[1].split(".", 1)[0])


def _conservation(data: Path, table_id: str, game: dict[str, Any] | None, report: AuditReport,
                  stored: dict[int | None, dict[str, Any]]) -> None:
    from table_controller.controller.durable import DurableJournal

    durable = DurableJournal.open(table_id, data_dir=data)
    try:
        entries = durable.entries()
    finally:
        durable.close()
    report.entries = len(entries)
    settings = TableSettings(table_id=table_id, data=data, pace_s=0, broadcast_delay_s=0,
                             game=table_game(game or {}))
    replica = TableController(settings, shoe=VirtualShoe(seed=0), journal=MemoryJournal(items=list(entries)))
    replica.recover()
    report.chips_in = replica.chips_in
    report.chips_on_table = replica.chips_on_table()
    if report.chips_in != report.chips_on_table:
        report.findings.append(f"chips not conserved: {report.chips_on_table} on the table, {report.chips_in} "
                               "bought in")
    facts = hand_facts(entries)
    report.facts = facts
    report.hands_started = len(facts)
    statuses = {h.hand: h.status for h in replica.history()}
    for number, f in sorted(facts.items()):
        voided = statuses.get(number) == "void" or f.status == "void"
        if voided:
            f.status = "void"
            # Every hand that ends has a record, a voided one included (its void is the engine's floor ruling).
            if number not in stored:
                report.findings.append(f"hand {number} was voided but has no stored record")
            elif stored[number].get("status") != "void":
                report.findings.append(f"hand {number} was voided but its record ends {stored[number].get('status')}")
        elif number in stored:
            f.status = "complete"
        twice = [c for c, k in Counter(c for c in f.dealt if c != "??").items() if k > 1]
        if twice:
            report.findings.append(f"hand {number}: the shoe delivered {' '.join(sorted(twice))} twice")
        if f.status == "complete":
            record = stored[number]
            if record.get("status") is None:
                report.findings.append(f"hand {number}: stored result has no status")
    report.completed = sum(1 for f in facts.values() if f.status == "complete")
    report.voided = sum(1 for f in facts.values() if f.status == "void")
    report.open_hands = sum(1 for f in facts.values() if f.status == "open")
    last = max(facts) if facts else None
    # Only the last hand may still be open (the run stopped in it); every earlier one completed or was void.
    stuck = [n for n, f in facts.items() if f.status == "open" and n != last]
    if stuck:
        report.findings.append(f"hands neither completed nor voided: {stuck}")
