"""The camera frames behind camera alerts, kept so the floor can review them, after a restart too.

A frame is evidence for a ruling: the floor's hand-history browser shows the frame that raised an alert
(``GET /api/tables/{id}/alerts/{alert}/frame.jpg``). With a folder (the table's data folder,
``DATA/alert-frames/``) each frame is a file named by its alert's time and id, so a restarted table, whose
journal replays the same alerts with the same ids, finds them again; a frame whose name does not match its
alert's time (an old folder beside a new journal) is never shown for it. Without a folder (tests, a table
in memory) the frames live in memory only.

Bounded: at most ``keep`` frames and ``max_bytes`` in all; the oldest go first. Private: the folder is
0700 and each file 0600, created that way (a frame may show hole cards). Atomic: a frame is written to a
temporary file, flushed to disk, then renamed into place, so a crash leaves the old set or the new one,
never half a JPEG.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections import OrderedDict
from pathlib import Path

__all__ = ["FOLDER_NAME", "AlertFrames"]

FOLDER_NAME = "alert-frames"
KEEP = 200
MAX_BYTES = 64 * 1024 * 1024
MAX_FRAME_BYTES = 8 * 1024 * 1024  # a camera frame is well under this; a bigger one is not kept
_ALERT_ID = re.compile(r"^a[0-9]{1,12}$")
_NAME = re.compile(r"^([0-9]{13,16})-(a[0-9]{1,12})\.jpg$")


class AlertFrames:
    def __init__(self, folder: Path | None = None, *, keep: int = KEEP, max_bytes: int = MAX_BYTES) -> None:
        self.folder = folder
        self.keep = keep
        self.max_bytes = max_bytes
        self._memory: OrderedDict[str, bytes] = OrderedDict()
        self.errors: list[str] = []  # frames that could not be written (the alert itself stands)
        if folder is not None:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            with contextlib.suppress(OSError):
                folder.chmod(0o700)

    @staticmethod
    def _name(alert_id: str, at_ms: int) -> str:
        if not _ALERT_ID.match(alert_id) or not 0 <= at_ms < 10**16:
            raise ValueError(f"not an alert id and time: {alert_id!r}, {at_ms!r}")
        return f"{at_ms:013d}-{alert_id}.jpg"

    def put(self, alert_id: str, at_ms: int, jpeg: bytes) -> bool:
        """Keep the frame alert ``alert_id`` (raised at ``at_ms``) was raised on. False when it was not kept."""
        if not jpeg or len(jpeg) > MAX_FRAME_BYTES:
            return False
        name = self._name(alert_id, at_ms)
        if self.folder is None:
            self._memory[name] = jpeg
            while len(self._memory) > self.keep or sum(map(len, self._memory.values())) > self.max_bytes:
                self._memory.popitem(last=False)
            return name in self._memory
        try:
            _write_private(self.folder / name, jpeg)
        except OSError as exc:
            self.errors.append(f"{name}: {exc.strerror or exc}")
            del self.errors[:-20]
            return False
        self._prune()
        return (self.folder / name).exists()

    def get(self, alert_id: str, at_ms: int) -> bytes | None:
        """The frame behind alert ``alert_id`` raised at ``at_ms``, or None if none is kept."""
        try:
            name = self._name(alert_id, at_ms)
        except ValueError:
            return None
        if self.folder is None:
            return self._memory.get(name)
        try:
            with open(self.folder / name, "rb") as handle:
                jpeg = handle.read(MAX_FRAME_BYTES + 1)
        except OSError:
            return None
        return jpeg if len(jpeg) <= MAX_FRAME_BYTES else None  # not one this table kept: never read whole

    def has(self, alert_id: str, at_ms: int) -> bool:
        try:
            name = self._name(alert_id, at_ms)
        except ValueError:
            return False
        if self.folder is None:
            return name in self._memory
        return (self.folder / name).is_file()

    def _prune(self) -> None:
        assert self.folder is not None
        frames: list[tuple[str, int]] = []
        for entry in os.scandir(self.folder):
            if entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)  # a write cut short by a crash
            elif _NAME.match(entry.name):
                with contextlib.suppress(OSError):
                    frames.append((entry.name, entry.stat().st_size))
        frames.sort()  # by time: the names start with it
        total = sum(size for _, size in frames)
        while frames and (len(frames) > self.keep or total > self.max_bytes):
            name, size = frames.pop(0)
            with contextlib.suppress(OSError):
                (self.folder / name).unlink()
            total -= size


def _write_private(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
