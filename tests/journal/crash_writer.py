"""A journal writer to be killed: appends entries forever, printing each seq once `append` returned.

Run as `python crash_writer.py DATA_DIR`. Prints "ready SEQ" once it holds the table and knows
its head, then one line per durable entry. `expected_payload(seq)` is what entry `seq` must hold,
so the test can check that what survived a kill -9 is exactly a prefix of what was written.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta

from table_controller.journal import Journal

TABLE = "crash-table"


def expected_payload(seq: int) -> dict[str, object]:
    # Sizes from a few bytes to ~24 KiB, so entries span several SQLite pages and a kill can land
    # in the middle of writing one.
    return {"seq": seq, "pad": "♣" * ((seq * 7919) % 8000), "seats": list(range(seq % 7))}


def main(data_dir: str) -> None:
    base = datetime(2026, 11, 30, tzinfo=UTC)
    journal = Journal.open(data_dir=data_dir)
    writer = journal.writer(TABLE)
    print(f"ready {writer.last_seq}", flush=True)
    while True:
        seq = writer.last_seq + 1
        writer.append("crash.test", expected_payload(seq), at=base + timedelta(milliseconds=seq),
                      hand_id=f"h-{seq // 10}", hand_number=seq // 10)
        print(seq, flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
