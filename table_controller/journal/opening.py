"""Opening a journal's backend from a URL or a data directory: PostgreSQL or SQLite.

Its own module so that the backends import the shared base (``backend.py``) and nothing imports back: the
base does not know its backends.
"""

from __future__ import annotations

from pathlib import Path

from table_controller.journal.backend import SQLITE_FILENAME, JournalBackend, redact_url
from table_controller.journal.errors import JournalUnavailableError
from table_controller.journal.postgres_backend import PostgresBackend
from table_controller.journal.sqlite_backend import SqliteBackend

__all__ = ["open_backend"]


def open_backend(*, data_dir: str | Path | None = None, url: str | None = None, create: bool = True) -> JournalBackend:
    """Open the journal at `url`, or the SQLite file under `data_dir` when no URL is given.

    URLs: `postgresql://...` (or `postgres://`), `sqlite:///ABSOLUTE/PATH` or `sqlite:RELATIVE/PATH`.
    With `create=False` a journal that does not exist yet is an error (JournalUnavailableError), and
    SQLite is opened read-only.
    """
    if url:
        lowered = url.lower()
        if lowered.startswith(("postgresql://", "postgres://")):
            return PostgresBackend(url, create=create)
        if lowered.startswith("sqlite:"):
            path = url[len("sqlite:"):]
            if path.startswith("//"):
                path = path[2:]
            if not path:
                raise JournalUnavailableError(f"journal URL {url!r} names no file (sqlite:///PATH)")
            return SqliteBackend(Path(path), create=create)
        raise JournalUnavailableError(
            f"unsupported journal URL {redact_url(url)!r}: expected postgresql://USER:PASSWORD@HOST/DB or sqlite:///PATH")
    if data_dir is None:
        raise JournalUnavailableError("no journal given: pass a data directory or a database URL")
    directory = Path(data_dir)
    if create:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalUnavailableError(f"cannot create data directory {directory}: {exc.strerror or exc}") from exc
    elif not directory.is_dir():
        why = "is not a directory" if directory.exists() else "does not exist"  # /dev/zero, a file: it exists
        raise JournalUnavailableError(f"data directory {directory} {why}")
    return SqliteBackend(directory / SQLITE_FILENAME, create=create)
