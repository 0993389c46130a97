"""docs/journal.md's examples, run: the worked hash example and the standard-library auditor script."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

from table_controller.journal import canonical_text, entry_hash
from tests.journal.helpers import Target, moment

DOC = Path(__file__).resolve().parents[2] / "docs" / "journal.md"


def test_worked_example_hashes_are_what_the_journal_computes() -> None:
    pairs = re.findall(r"^body +(\{.*\})\nsha256 +([0-9a-f]{64})$", DOC.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(pairs) == 2
    prev = "0" * 64
    for body_text, digest in pairs:
        body = json.loads(body_text)
        assert canonical_text(body) == body_text
        assert hashlib.sha256(body_text.encode("utf-8")).hexdigest() == digest
        assert body.pop("v") == 1
        assert body["prev_hash"] == prev
        assert entry_hash(**body) == digest
        prev = digest


def auditor_script(tmp_path: Path) -> Path:
    blocks = re.findall(r"```python\n(# auditor:.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1
    script = tmp_path / "auditor.py"
    script.write_text(blocks[0], encoding="utf-8")
    return script


def run(script: Path, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(script), str(db)], capture_output=True, text=True, check=False,
                          timeout=60)


def test_auditor_script_agrees_with_verify(sqlite_target: Target, tmp_path: Path) -> None:
    script = auditor_script(tmp_path)
    with sqlite_target.open() as journal:
        for table in ("t1", "t2"):
            with journal.writer(table) as writer:
                for i in range(4):
                    writer.append("action.bet", {"seat": i + 1, "chips": 5 * i, "say": "tab\there ♦"},
                                  at=moment(i), hand_id="h-1", hand_number=1)
    db = sqlite_target.data_dir / "journal.sqlite3"
    proc = run(script, db)
    assert (proc.returncode, proc.stdout.strip()) == (0, "ok 8 entries")
    sqlite_target.tamper(("UPDATE journal_entries SET payload = ? WHERE table_id = 't2' AND seq = 2",
                          ('{"chips":500,"say":"tab\\there ♦","seat":2}',)))
    proc = run(script, db)
    assert proc.returncode == 1 and proc.stderr.strip() == "BROKEN at table t2 seq 2"
    with sqlite_target.open(create=False) as journal:
        brk = journal.verify().first_break
    assert brk is not None and (brk.table_id, brk.seq) == ("t2", 2)
