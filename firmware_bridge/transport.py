"""Byte links for the asyncio driver: any pyserial URL, or anything else with the same four methods.

pyserial is blocking, so `SerialLink` reads in a daemon thread (short read timeouts, so closing is
prompt) and hands bytes to the event loop; writes go straight to the port, which for the small frames
of this protocol returns at once. A vanished port (USB adapter pulled, TCP peer gone) surfaces as
`PortError` from `read()`; the driver then reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import threading
from typing import Any, Protocol
from urllib.parse import urlsplit

import serial

from firmware_bridge.errors import PortError


class ByteLink(Protocol):
    async def open(self) -> None: ...

    async def read(self) -> bytes: ...

    async def write(self, data: bytes) -> None: ...

    async def close(self) -> None: ...


def wire_seconds(nbytes: int, baudrate: int) -> float:
    """Time `nbytes` take on an 8N1 line: ten bit times per byte."""
    return nbytes * 10 / baudrate


def url_problem(url: str) -> str | None:
    """What is wrong with a network URL's address (``socket://``, ``rfc2217://``), said plainly: pyserial's own
    word for a port of 99999 is ``'debug|info|warning|error'``. None for a good one or another kind of URL."""
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme not in ("socket", "rfc2217"):
        return None
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:  # a port out of range or not a number, a bracket not closed
        host, port = None, None
    if not host or port is None or not 1 <= port <= 65535:
        return f"expected {scheme}://HOST:PORT with a port from 1 to 65535"
    return None


class SerialLink:
    """A pyserial port (`/dev/ttyUSB0`, `socket://`, `rfc2217://`, `loop://`, `spy://`) as a `ByteLink`."""

    def __init__(self, url: str, *, baudrate: int = 115200) -> None:
        self.url = url
        self.baudrate = baudrate
        self._port: serial.SerialBase | None = None
        self._queue: asyncio.Queue[bytes | BaseException] = asyncio.Queue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    async def open(self) -> None:
        problem = url_problem(self.url)
        if problem is not None:
            raise PortError(f"cannot open {self.url}: {problem}")
        loop = asyncio.get_running_loop()
        try:
            port = await loop.run_in_executor(None, self._open_blocking)
        except Exception as exc:  # pyserial's URL handlers raise many kinds; all mean "no port"
            raise PortError(f"cannot open {self.url}: {exc or type(exc).__name__}") from None
        self._port = port
        self._queue = asyncio.Queue()
        self._stop.clear()
        self._thread = threading.Thread(target=self._reader, args=(port, loop, self._queue), daemon=True,
                                        name=f"serial-reader {self.url}")
        self._thread.start()

    def _open_blocking(self) -> serial.SerialBase:
        port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.02, do_not_open=True)
        if "://" not in self.url:
            port.write_timeout = 2.0  # a real device: a stuck line must not block the loop (rfc2217 lacks this)
        port.open()
        sock = getattr(port, "_socket", None)
        if sock is not None:  # socket:// and rfc2217://: small frames must not wait for Nagle
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return port

    def _reader(self, port: serial.SerialBase, loop: asyncio.AbstractEventLoop,
                queue: asyncio.Queue[bytes | BaseException]) -> None:
        while not self._stop.is_set():
            try:
                data = port.read(max(1, getattr(port, "in_waiting", 1)))
            except Exception as exc:  # any failure of the port ends this connection
                if not self._stop.is_set():
                    self._deliver(loop, queue, PortError(f"{self.url}: {exc}"))
                return
            if data:
                self._deliver(loop, queue, data)

    @staticmethod
    def _deliver(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[bytes | BaseException],
                 item: bytes | BaseException) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is listening any more
            loop.call_soon_threadsafe(queue.put_nowait, item)

    async def read(self) -> bytes:
        item = await self._queue.get()
        if isinstance(item, BaseException):
            raise item
        return item

    async def write(self, data: bytes) -> None:
        port = self._port
        if port is None:
            raise PortError(f"{self.url} is not open")
        try:
            port.write(data)
        except (serial.SerialException, OSError) as exc:
            raise PortError(f"{self.url}: {exc}") from None

    async def close(self) -> None:
        self._stop.set()
        port, self._port = self._port, None
        thread, self._thread = self._thread, None
        if thread is not None:
            await asyncio.get_running_loop().run_in_executor(None, thread.join, 1.0)
        if port is not None:
            _close_port(port)


def _close_port(port: serial.SerialBase) -> None:
    """Close a pyserial port and what its URL handler opened for it.

    pyserial's socket:// handler skips closing its socket when the shutdown before it fails (the peer is
    already gone), and the spy:// handler never closes its log file: a controller that reconnects would
    leak one descriptor per reconnect.
    """
    sock: Any = getattr(port, "_socket", None)
    log: Any = getattr(getattr(port, "formatter", None), "output", None)
    with contextlib.suppress(Exception):  # closing a vanished port may fail; it is closed anyway
        port.close()
    if isinstance(sock, socket.socket):
        sock.close()
    if log is not None and log not in (sys.stdout, sys.stderr) and hasattr(log, "close"):
        log.close()
