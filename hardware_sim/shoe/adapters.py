"""Adapters that put a `ShoeSimulator` on a real port, served from a daemon thread.

`start_pty()` opens a pseudo-terminal: the slave path (`/dev/pts/N`) is what pyserial opens, exactly
like a USB serial adapter; an optional `link_path` symlink keeps one stable name across `vanish()` and
`reappear()` (a pty comes back with a new number, a USB adapter with its old name). `start_tcp()`
listens on 127.0.0.1 for `socket://` (one host at a time; a new connection replaces the old one).
Virtual time runs at `speed` times real time.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import threading
import time
import tty
from pathlib import Path
from typing import Any, Self

from hardware_sim.shoe.simulator import ShoeControl, ShoeSimulator

TICK = 0.001


class RunningShoe:
    """A simulator being served. `url` is what to give pyserial (or `cardtable shoe --port`)."""

    def __init__(self, sim: ShoeSimulator, *, speed: float) -> None:
        self.sim = sim
        self.speed = speed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True, name="shoe-sim")
        sim.vanish_hook = self._vanish
        sim.reappear_hook = self._reappear
        self._io_lock = threading.Lock()

    @property
    def control(self) -> ShoeControl:
        return self.sim.control

    @property
    def url(self) -> str:
        raise NotImplementedError

    def start(self) -> RunningShoe:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2.0)
        with self._io_lock:
            self._close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            with self._io_lock:
                fds = self._fds()
            if fds:
                try:
                    readable, _, _ = select.select(fds, [], [], TICK)
                except (OSError, ValueError):
                    readable = []  # a descriptor closed under us by vanish(); the next turn sees the new set
            else:
                time.sleep(TICK)
                readable = []
            with self._io_lock:
                for fd in readable:
                    self._on_readable(fd)
                now = time.perf_counter()
                chunks = self.sim.process((now - last) * self.speed)
                last = now
                for chunk in chunks:
                    self._write(chunk)

    # --- per adapter --------------------------------------------------------------------------------

    def _fds(self) -> list[Any]:
        raise NotImplementedError

    def _on_readable(self, fd: Any) -> None:
        raise NotImplementedError

    def _write(self, data: bytes) -> None:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    def _open(self) -> None:
        raise NotImplementedError

    def _vanish(self) -> None:
        with self._io_lock:
            self._close()

    def _reappear(self) -> None:
        with self._io_lock:
            self._open()


class PtyShoe(RunningShoe):
    def __init__(self, sim: ShoeSimulator, *, speed: float, link_path: str | None = None) -> None:
        super().__init__(sim, speed=speed)
        self.link_path = link_path
        self._master: int | None = None
        self._slave: int | None = None
        self.tty_path = ""
        self._open()

    @property
    def url(self) -> str:
        return self.link_path or self.tty_path

    def _open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.tty_path = os.ttyname(slave)
        if self.link_path:
            tmp = Path(f"{self.link_path}.{os.getpid()}.tmp")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(self.tty_path)
            tmp.replace(self.link_path)

    def _close(self) -> None:
        if self.link_path:
            with contextlib.suppress(FileNotFoundError):
                Path(self.link_path).unlink()
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None

    def _fds(self) -> list[Any]:
        return [] if self._master is None else [self._master]

    def _on_readable(self, fd: Any) -> None:
        if fd != self._master:
            return
        try:
            data = os.read(fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            return  # EIO while no one holds the slave open: nothing to read
        if data:
            self.sim.receive(data)

    def _write(self, data: bytes) -> None:
        if self._master is None:
            return
        # Nobody reading and the buffer full: the bytes are lost, as on a real line.
        with contextlib.suppress(OSError):
            os.write(self._master, data)


class TcpShoe(RunningShoe):
    def __init__(self, sim: ShoeSimulator, *, speed: float, port: int = 0) -> None:
        super().__init__(sim, speed=speed)
        self.port = port
        self._listener: socket.socket | None = None
        self._client: socket.socket | None = None
        self._open()

    @property
    def url(self) -> str:
        return f"socket://127.0.0.1:{self.port}"

    def _open(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(2)
        listener.setblocking(False)
        self.port = listener.getsockname()[1]
        self._listener = listener

    def _close(self) -> None:
        for sock in (self._client, self._listener):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.close()
        self._client = self._listener = None

    def _fds(self) -> list[Any]:
        return [s for s in (self._listener, self._client) if s is not None]

    def _on_readable(self, fd: Any) -> None:
        if fd is self._listener and self._listener is not None:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._client is not None:
                with contextlib.suppress(OSError):
                    self._client.close()
            self._client = conn
            return
        if fd is self._client and self._client is not None:
            try:
                data = self._client.recv(4096)
            except OSError:
                data = b""
            if not data:
                with contextlib.suppress(OSError):
                    self._client.close()
                self._client = None
                return
            self.sim.receive(data)

    def _write(self, data: bytes) -> None:
        if self._client is None:
            return
        try:
            self._client.sendall(data)
        except OSError:
            with contextlib.suppress(OSError):
                self._client.close()
            self._client = None


def start_pty(sim: ShoeSimulator | None = None, *, speed: float = 1.0, link_path: str | None = None) -> PtyShoe:
    """Serve `sim` (a new simulator if None) on a new pty; returns once the path exists."""
    shoe = PtyShoe(sim or ShoeSimulator(), speed=speed, link_path=link_path)
    shoe.start()
    return shoe


def start_tcp(sim: ShoeSimulator | None = None, *, port: int = 0, speed: float = 1.0) -> TcpShoe:
    """Serve `sim` on 127.0.0.1:`port` (0: a free port, see `.port`); returns once listening."""
    shoe = TcpShoe(sim or ShoeSimulator(), speed=speed, port=port)
    shoe.start()
    return shoe


def wait_for_stop_signal(poll: float = 0.5) -> None:
    """Block the main thread until SIGINT or SIGTERM: a simulator process serves from its daemon threads
    meanwhile, and its caller stops them in a `finally` after this returns."""
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    while not stop.wait(poll):
        pass
