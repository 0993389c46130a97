"""A journal writer to be killed: appends entries forever, printing each seq once `append` returned.

Run as `python crash_writer.py DATA_DIR` (or a postgresql:// URL). Prints "ready SEQ" once it holds the table and knows
its head, then one line per durable entry. `expected_payload(seq)` is what entry `seq` must hold,
so the test can check that what survived a kill -9 is exactly a prefix of what was written.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta

from table_controller.journal import Journal, TableWriter, WriterBusyError

TABLE = "crash-table"


def expected_payload(seq: int) -> dict[str, object]:
    # Sizes from a few bytes to ~24 KiB, so entries span several SQLite pages and a kill can land
    # in the middle of writing one.
    return {"seq": seq, "pad": "♣" * ((seq * 7919) % 8000), "seats": list(range(seq % 7))}


def take_table(journal: Journal) -> TableWriter:
    # After a kill -9 the PostgreSQL server may take a moment to notice the dead session and drop its
    # advisory lock; a restarted controller waits for it the same way.
    for _ in range(100):
        try:
            return journal.writer(TABLE)
        except WriterBusyError:
            time.sleep(0.05)
    return journal.writer(TABLE)


def main(where: str) -> None:
    base = datetime(2026, 11, 30, tzinfo=UTC)
    is_url = where.startswith("postgresql://")
    journal = Journal.open(url=where) if is_url else Journal.open(data_dir=where)
    writer = take_table(journal)
    print(f"ready {writer.last_seq}", flush=True)
    while True:
        seq = writer.last_seq + 1
        writer.append("crash.test", expected_payload(seq), at=base + timedelta(milliseconds=seq),
                      hand_id=f"h-{seq // 10}", hand_number=seq // 10)
        print(seq, flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
