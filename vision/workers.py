"""A second process that reads half of a frame's outlines while the recognizer reads the other half.

Why: a 1280 x 720 frame of ten cards spends about half its time reading the outlines found (`pipeline.read_found`:
warping index corners, cutting glyphs, matching templates), each outline on its own. That is many small numpy
and OpenCV calls, so Python threads share one core (the GIL is held between calls: measured, two threads
read a frame no faster than one). A process is the way onto the second core.

How: the frame goes through shared memory (one copy of the pixels, no pickling); the outlines and the
readings go through a pipe. The recognizer sends every other outline (outlines 1, 3, 5, ...), reads the
others itself, then takes the worker's readings back and puts them in order: the detections are those a
single process gives, in the same order (tests/vision/test_workers.py).

The worker starts without holding anything up: until it says it is ready (its interpreter started, its
profile taken: about a second), the recognizer reads every outline itself; `Recognizer.start_workers()`
waits for it instead (the bench and the CLI do, before timing).

Nothing is lost when the worker fails: if it dies, errs or does not answer within `REPLY_TIMEOUT_S`, the
recognizer reads those outlines itself, stops the worker and starts a new one at the next frame (at most
`MAX_RESTARTS` times; then it reads alone). The worker (`python -m vision.workers`) is stopped by `close()`,
when the recognizer is collected or the program exits, and ends by itself when its pipe closes (the program
killed).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Sequence
from multiprocessing import resource_tracker, shared_memory
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.profile import DeckProfile

Image = npt.NDArray[np.uint8]

# A worker that has not answered within this time is taken for hung: far above a frame's own work (tens of
# milliseconds), and under the camera's period between two frames at the table (1 s).
REPLY_TIMEOUT_S = 0.8
# A worker must be ready (its interpreter started, numpy and OpenCV imported, its profile taken) within this
# time; until then the frames are read in the recognizer's process alone.
STARTUP_TIMEOUT_S = 60.0
# A worker failing again and again (no memory, a broken install) is not started for ever.
MAX_RESTARTS = 3


def _serve(conn: Connection) -> None:
    """The worker's loop: its profile first, then (shared memory name, frame shape, outlines) in and
    ("ok", FoundReads) or ("error", why) out, until None or the pipe closes."""
    import cv2

    from vision.pipeline import read_found

    cv2.setNumThreads(1)
    profile: DeckProfile = conn.recv()
    conn.send("ready")
    attached: shared_memory.SharedMemory | None = None
    try:
        while True:
            try:
                message = conn.recv()
            except EOFError:
                return
            if message is None:
                return
            name, shape, quads = message
            try:
                if attached is None or attached.name != name:
                    if attached is not None:
                        attached.close()
                    attached = _attach(name)
                image: Image = np.ndarray(shape, np.uint8, attached.buf)
                conn.send(("ok", [read_found(image, quad, profile) for quad in quads]))
                del image
            except Exception as exc:  # reported, and the recognizer reads these outlines itself
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        if attached is not None:
            attached.close()


def _attach(name: str) -> shared_memory.SharedMemory:
    """The recognizer's shared memory, which it alone frees: attaching registers it with this process's
    resource tracker (Python before 3.13), which would unlink it when this process ends."""
    memory = shared_memory.SharedMemory(name=name)
    resource_tracker.unregister(memory._name, "shared_memory")  # type: ignore[attr-defined]
    return memory


class _Worker:
    """One worker process, its pipe and the shared memory the frames go through."""

    def __init__(self, profile: DeckProfile) -> None:
        # A fresh interpreter running this module: never a fork of a process that may hold threads and
        # locks (a web server, a camera thread), and unlike multiprocessing's "spawn" it does not import
        # the caller's main module again (a script without a `__main__` guard would run twice).
        ours, theirs = socket.socketpair()
        path = os.pathsep.join(entry for entry in sys.path if entry)
        env = {**os.environ, "PYTHONPATH": path}
        try:
            self.process = subprocess.Popen([sys.executable, "-m", "vision.workers", str(theirs.fileno())],
                                            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env)
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        # The profile (hundreds of kilobytes, more than a socket buffer) goes from a thread, so that a
        # worker slow to start never holds up a frame: frames are read here until it says it is ready.
        self._sending = threading.Thread(target=self._send_profile, args=(profile,), daemon=True,
                                         name="cardtable-vision-worker-profile")
        self._sending.start()
        self._started_at = time.monotonic()
        self.ready = False
        self.memory: shared_memory.SharedMemory | None = None

    def _send_profile(self, profile: DeckProfile) -> None:
        with contextlib.suppress(OSError, ValueError):  # the worker died: the next frame finds out
            self.conn.send(profile)

    def poll_ready(self) -> bool:
        """Whether the worker has its profile and waits for frames (it has said "ready"); never blocks.
        Raises when it died, or is not ready within STARTUP_TIMEOUT_S."""
        if not self.ready:
            if self.conn.poll(0):
                said = self.conn.recv()
                if said != "ready":
                    raise RuntimeError(f"the worker said {said!r} before it was ready")
                self._sending.join()
                self.ready = True
            elif not self.alive:
                raise EOFError("the worker ended before it was ready")
            elif time.monotonic() - self._started_at > STARTUP_TIMEOUT_S:
                raise TimeoutError(f"not ready within {STARTUP_TIMEOUT_S} s")
        return self.ready

    def wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.poll_ready():
            if time.monotonic() > deadline:
                return False
            self.conn.poll(0.01)
        return True

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, image: Image, quads: Sequence[npt.NDArray[np.float32]]) -> None:
        if self.memory is None or self.memory.size < image.nbytes:
            self._free_memory()
            self.memory = shared_memory.SharedMemory(create=True, size=max(image.nbytes, 1))
        view: Image = np.ndarray(image.shape, np.uint8, self.memory.buf)
        view[...] = image
        del view
        self.conn.send((self.memory.name, image.shape, list(quads)))

    def receive(self) -> list[Any]:
        if not self.conn.poll(REPLY_TIMEOUT_S):
            raise TimeoutError(f"no answer within {REPLY_TIMEOUT_S} s")
        status, body = self.conn.recv()
        if status != "ok":
            raise RuntimeError(str(body))
        return list(body)

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        try:
            self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5.0)
        self._sending.join(timeout=1.0)
        self.conn.close()
        self._free_memory()

    def _free_memory(self) -> None:
        if self.memory is not None:
            self.memory.close()
            self.memory.unlink()
            self.memory = None


class ReadingWorkers:
    """`read(image, quads)`: `[read_found(image, q, profile) for q in quads]`, half of it in a second process."""

    def __init__(self, profile: DeckProfile) -> None:
        self.profile = profile
        self._worker: _Worker | None = None
        self.restarts = 0
        self.failures: list[str] = []  # why the worker failed, oldest first (for the logs and the tests)
        self._finalizer = weakref.finalize(self, ReadingWorkers._stop, [None])

    def read(self, image: Image, quads: Sequence[npt.NDArray[np.float32]]) -> list[Any]:
        from vision.pipeline import read_found

        worker = self._started()
        try:
            ready = worker is not None and worker.poll_ready()
        except (OSError, EOFError, TimeoutError, RuntimeError) as exc:
            self._failed(f"start: {type(exc).__name__}: {exc}")
            ready = False
        if worker is None or not ready:
            return [read_found(image, quad, self.profile) for quad in quads]
        theirs_quads = list(quads[1::2])
        sent = False
        try:
            worker.send(np.ascontiguousarray(image), theirs_quads)
            sent = True
        except (OSError, ValueError) as exc:
            self._failed(f"send: {type(exc).__name__}: {exc}")
        try:
            mine = [read_found(image, quad, self.profile) for quad in quads[0::2]]
        except BaseException:
            # The worker's answer to this frame must never be taken for the next frame's.
            if sent:
                self._stop_worker()
            raise
        theirs: list[Any] | None = None
        if sent and self._worker is not None:
            try:
                theirs = self._worker.receive()
                if len(theirs) != len(theirs_quads):
                    raise RuntimeError(f"{len(theirs)} readings for {len(theirs_quads)} outlines")
            except (OSError, EOFError, TimeoutError, RuntimeError) as exc:
                self._failed(f"receive: {type(exc).__name__}: {exc}")
                theirs = None
        if theirs is None:
            theirs = [read_found(image, quad, self.profile) for quad in theirs_quads]
        out: list[Any] = [None] * len(quads)
        out[0::2] = mine
        out[1::2] = theirs
        return out

    def close(self) -> None:
        self._stop_worker()
        self._finalizer.detach()

    @property
    def alive(self) -> bool:
        return self._worker is not None and self._worker.alive

    def start(self, timeout: float = STARTUP_TIMEOUT_S) -> bool:
        """Start the worker now and wait until it is ready (else it starts at the first frame with two
        outlines and takes the frames from the first one after it is ready). False: not ready in time."""
        worker = self._started()
        try:
            return worker is not None and worker.wait_ready(timeout)
        except (OSError, EOFError, TimeoutError, RuntimeError) as exc:
            self._failed(f"start: {type(exc).__name__}: {exc}")
            return False

    def _started(self) -> _Worker | None:
        if self._worker is None and self.restarts <= MAX_RESTARTS:
            try:
                self._worker = _Worker(self.profile)
            except (OSError, ValueError) as exc:
                self.failures.append(f"start: {type(exc).__name__}: {exc}")
                self.restarts += 1
                return None
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, ReadingWorkers._stop, [self._worker])
        return self._worker

    def _failed(self, why: str) -> None:
        self.failures.append(why)
        self.restarts += 1
        self._stop_worker()

    def _stop_worker(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    @staticmethod
    def _stop(workers: list[_Worker | None]) -> None:
        for worker in workers:
            if worker is not None:
                worker.close()


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
