"""The simulator's fault control over a socket, for a shoe simulator running in a process of its own.

A simulated shoe that must outlive the controller (``cardtable sim shoe``, the soak's shoe) runs in another
process, so tests reach its :class:`ShoeControl` through this channel, as lewis reaches its devices. The
protocol is JSON lines on a loopback TCP connection (docs/protocol.md, "Simulator control"): a request
``{"call": "jam_next", "args": {"recovers": true}}`` gets ``{"ok": true, "result": null}``, or
``{"ok": false, "error": {"code": "unknown_call" | "bad_args" | "bad_request", "message": ...}}``.

``CALLS`` below is the whole command table. It lets the caller inject every fault that takes plain values,
and read the state, the dealt cards (already out of the shoe and public) and the count left: never the
order of the cards still in the shoe, the secret the shoe link also keeps.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from firmware_bridge.cards import card_code
from hardware_sim.shoe.simulator import ShoeControl, ShoeSimulator

__all__ = ["CALLS", "ControlServer", "RemoteControl", "RemoteControlError", "serve_control"]

Call = Callable[[ShoeControl, dict[str, Any]], Any]
Extra = Callable[[dict[str, Any]], Any]
MAX_LINE = 64 * 1024
MAX_COUNT = 100_000  # the largest number a call takes (a flood's pairs, a junk burst's bytes)


def _none(method: Callable[..., object]) -> Call:
    """A control method whose arguments are plain JSON values and whose result says nothing."""

    def call(control: ShoeControl, args: dict[str, Any]) -> None:
        method(control, **args)

    return call


CALLS: dict[str, Call] = {
    # the line
    "garble": _none(ShoeControl.garble),
    "clean_line": _none(ShoeControl.clean_line),
    "junk_burst": lambda c, a: c.junk_burst(**a).hex(),
    "drop_frames": _none(ShoeControl.drop_frames),
    "duplicate_frames": _none(ShoeControl.duplicate_frames),
    "reorder_frames": _none(ShoeControl.reorder_frames),
    "lose_next_reply": _none(ShoeControl.lose_next_reply),
    "delay_replies": _none(ShoeControl.delay_replies),
    "split_writes": _none(ShoeControl.split_writes),
    "merge_writes": _none(ShoeControl.merge_writes),
    "silent": _none(ShoeControl.silent),
    "send_bad_length_frame": _none(ShoeControl.send_bad_length_frame),
    "send_unknown_type_frame": _none(ShoeControl.send_unknown_type_frame),
    # the device
    "set_version": _none(ShoeControl.set_version),
    "busy_for": _none(ShoeControl.busy_for),
    "slow": _none(ShoeControl.slow),
    "reboot": _none(ShoeControl.reboot),
    "power_loss": _none(ShoeControl.power_loss),
    "jam_next": _none(ShoeControl.jam_next),
    "open_door": _none(ShoeControl.open_door),
    "close_door": _none(ShoeControl.close_door),
    "flood": _none(ShoeControl.flood),
    "vanish": _none(ShoeControl.vanish),
    "reappear": _none(ShoeControl.reappear),
    "return_cards": _none(ShoeControl.return_cards),
    "scan_returns": _none(ShoeControl.scan_returns),
    # what a test may read
    "state": lambda c, a: c.state(**a).name,
    "door_open": lambda c, a: bool(c.device.door_open),
    "cards_in_shoe": lambda c, a: c.cards_in_shoe(**a),
    "cards_out": lambda c, a: [card_code(p.face) for p in c.cards_out(**a)],
    "cards_returned": lambda c, a: [card_code(p.face) for p in c.cards_returned(**a)],
}


class RemoteControlError(Exception):
    """The control server refused a request (`code`: unknown_call, bad_args, bad_request) or is unreachable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def answer(control: ShoeControl, extra: Mapping[str, Extra], line: bytes) -> dict[str, Any]:
    """One request line in, one reply out (the sans-IO part of the server)."""
    try:
        request = json.loads(line)
        name = request["call"]
        args = request.get("args") or {}
        if not isinstance(name, str) or not isinstance(args, dict):
            raise TypeError("call must be a string and args an object")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return {"ok": False, "error": {"code": "bad_request", "message": f"{type(exc).__name__}: {exc}"}}
    except RecursionError:  # a line of 60,000 brackets: the parser's own limit, answered, not a dead handler
        return {"ok": False, "error": {"code": "bad_request", "message": "nested too deep"}}
    counts = [key for key, value in args.items()
              if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_COUNT]
    if counts:  # flood or junk_burst of 10**20: a thread that never answers, and the memory it fills
        return {"ok": False, "error": {"code": "bad_args", "message": f"{name}: {counts[0]} must be at most "
                                                                      f"{MAX_COUNT} in size"}}
    try:
        if name in extra:
            result = extra[name](args)
        elif name in CALLS:
            result = CALLS[name](control, args)
        else:
            known = ", ".join(sorted({*CALLS, *extra}))
            return {"ok": False, "error": {"code": "unknown_call", "message": f"no call {name!r}; known: {known}"}}
    except (TypeError, ValueError) as exc:
        return {"ok": False, "error": {"code": "bad_args", "message": f"{name}: {exc}"}}
    return {"ok": True, "result": result}


@dataclass
class ControlServer:
    """A running control server (a daemon thread); `address` is ``(host, port)``."""

    server: socketserver.ThreadingTCPServer
    thread: threading.Thread

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"tcp://{host}:{port}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def serve_control(sim: ShoeSimulator, *, port: int = 0, extra: Mapping[str, Extra] | None = None) -> ControlServer:
    """Serve `sim.control` on 127.0.0.1:`port` (0: any free port). `extra` adds calls of the caller's own."""
    control = sim.control
    calls = dict(extra or {})

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            while True:
                line = self.rfile.readline(MAX_LINE + 1)
                if not line:
                    return
                if len(line) > MAX_LINE:
                    reply: dict[str, Any] = {"ok": False, "error": {"code": "bad_request", "message": "line too long"}}
                    self.wfile.write((json.dumps(reply) + "\n").encode())
                    return
                self.wfile.write((json.dumps(answer(control, calls, line)) + "\n").encode())

    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True
        allow_reuse_address = True

    server = Server(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, name="shoe-control", daemon=True)
    thread.start()
    return ControlServer(server=server, thread=thread)


class RemoteControl:
    """The client side: ``RemoteControl("tcp://127.0.0.1:PORT").call("jam_next", recovers=True)``."""

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        if not url.startswith("tcp://") or ":" not in url[6:]:
            raise RemoteControlError("bad_request", f"not a control address: {url!r} (want tcp://HOST:PORT)")
        host, _, port = url[6:].rpartition(":")
        self.url = url
        self._address = (host, int(port))
        self._timeout = timeout
        self._sock: socket.socket | None = None
        self._file: Any = None
        self._lock = threading.Lock()

    def call(self, name: str, **args: Any) -> Any:
        with self._lock:
            try:
                if self._sock is None:
                    self._sock = socket.create_connection(self._address, timeout=self._timeout)
                    self._file = self._sock.makefile("rwb")
                self._file.write((json.dumps({"call": name, "args": args}) + "\n").encode())
                self._file.flush()
                line = self._file.readline()
            except OSError as exc:
                self._drop()
                raise RemoteControlError("unreachable", f"{self.url}: {exc}") from exc
            if not line:
                self._drop()
                raise RemoteControlError("unreachable", f"{self.url}: the simulator closed the control connection")
        reply = json.loads(line)
        if not reply.get("ok"):
            error = reply.get("error") or {}
            raise RemoteControlError(str(error.get("code", "error")), str(error.get("message", "")))
        return reply.get("result")

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._sock is not None:
            try:
                self._file.close()
                self._sock.close()
            finally:
                self._sock = None
                self._file = None
