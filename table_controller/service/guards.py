"""What every HTTP request passes before a route sees it, and every response carries.

How it works. :class:`RequestGuard` is a plain ASGI middleware in front of the app:

* **Bounds.** A request body is read to at most :data:`MAX_BODY` bytes (a larger one is a 413) and, when it
  is JSON, parsed within :mod:`table_controller.bounded`'s bounds (depth, integer length): a breach is a 422
  in the API's one error shape, never a traceback. The route then reads the same bytes.
* **Idempotent retries** (the IETF httpapi ``Idempotency-Key`` header). On a mutating request (POST, PUT,
  PATCH, DELETE) under ``/api/tables/{id}/`` the key, scoped to the caller's role, is looked up in the
  table's journaled answers: the same key with the same request (method, path, body) gets the first answer
  again, marked ``Idempotent-Replayed: true``; the same key with another request is a 422; a key whose first
  request is still being answered is a 409. An answer other than a 5xx or a 403 is journaled, so a retry
  after a restart gets it too.
* **Headers.** Every response carries a Content-Security-Policy (scripts only from this server or the pages'
  own inline scripts, by hash; ``frame-ancestors 'none'``), ``Referrer-Policy: no-referrer``,
  ``X-Content-Type-Options: nosniff`` and, for the API, ``Cache-Control: no-store``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from table_controller.bounded import BoundedInputError, loads

__all__ = ["MAX_BODY", "RequestGuard", "content_security_policy"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOG = logging.getLogger("cardtable.service")
MAX_BODY = 64 * 1024
MAX_KEY = 200
_MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_TABLE_PATH = re.compile(r"^/api/tables/([^/]+)/")
_KEY_CHARS = re.compile(r"^[\x21-\x7e]+$")
_HOST = re.compile(r"^[A-Za-z0-9.\-\[\]:]{1,255}$")
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def content_security_policy(web_dir: Path) -> str:
    """The policy for the pages in ``web_dir``: their inline scripts are allowed by hash, nothing else inline."""
    hashes: set[str] = set()
    for page in sorted(web_dir.glob("*.html")):
        for script in _INLINE_SCRIPT.findall(page.read_text(encoding="utf-8")):
            digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
            hashes.add(f"'sha256-{digest}'")
    scripts = " ".join(["'self'", *sorted(hashes)])
    return ("default-src 'self'; "
            f"script-src {scripts}; "
            "style-src 'self' 'unsafe-inline'; "  # style attributes on the pages; styles run no code
            "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")


class RequestGuard:
    def __init__(self, app: ASGIApp, *, tables: Callable[[str], Any | None], role: Callable[[Scope], str],
                 csp: str) -> None:
        """``tables``: the controller of a table id (None if unknown); ``role``: the role the request's
        credentials grant (a bad token counts as one role of its own, so it never shares keys)."""
        self.app = app
        self.tables = tables
        self.role = role
        self.csp = csp
        self.headers = [
            (b"referrer-policy", b"no-referrer"),
            (b"x-content-type-options", b"nosniff"),
        ]
        self._in_flight: set[tuple[str, str]] = set()

    def _policy(self, scope: Scope) -> bytes:
        """The policy with this server's own WebSocket origin named: some browsers do not count ws: as 'self'."""
        host = _header(scope, b"host")
        policy = self.csp
        if host is not None and _HOST.match(host):
            policy = policy.replace("connect-src 'self'", f"connect-src 'self' ws://{host} wss://{host}")
        return policy.encode("latin-1")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = str(scope.get("path", "")).startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"content-security-policy", self._policy(scope)), *self.headers]
                if api:
                    extra.append((b"cache-control", b"no-store"))
                names = {name for name, _ in extra}
                message["headers"] = [h for h in message.get("headers", []) if h[0].lower() not in names] + extra
            await send(message)

        if scope.get("method") not in _MUTATING:
            await self.app(scope, receive, send_with_headers)
            return
        body, more = await _read_body(receive)
        if more:
            await _error(send_with_headers, 413, "too_large", f"the request body is larger than {MAX_BODY} bytes")
            return
        if body.strip():
            try:
                loads(body, max_bytes=MAX_BODY, what="the request body")
            except BoundedInputError as exc:
                await _error(send_with_headers, 422, "bad_request", str(exc))
                return
        replay = _replaying(body, receive)
        key = _header(scope, b"idempotency-key")
        match = _TABLE_PATH.match(str(scope.get("path", "")))
        table = self.tables(match.group(1)) if match is not None else None
        if key is None or table is None:
            await self.app(scope, replay, send_with_headers)
            return
        if len(key) > MAX_KEY or not _KEY_CHARS.match(key):
            await _error(send_with_headers, 422, "bad_idempotency_key",
                         f"Idempotency-Key must be 1 to {MAX_KEY} visible ASCII characters")
            return
        scoped = f"{self.role(scope)}|{key}"
        fingerprint = hashlib.sha256(b"\n".join([str(scope.get("method")).encode(), str(scope.get("path")).encode(),
                                                 scope.get("query_string", b""), body])).hexdigest()
        first = table.recall_answer(scoped)
        if first is not None:
            stored_fingerprint, status, text = first
            if stored_fingerprint != fingerprint:
                await _error(send_with_headers, 422, "idempotency_key_reused",
                             "this Idempotency-Key was used with another request")
                return
            await _respond(send_with_headers, status, text.encode("utf-8"), replayed=True)
            return
        flight = (match.group(1) if match is not None else "", scoped)
        if flight in self._in_flight:
            await _error(send_with_headers, 409, "idempotency_key_in_use",
                         "a request with this Idempotency-Key is still being answered")
            return
        self._in_flight.add(flight)
        captured: dict[str, Any] = {"status": 500, "body": b""}

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                captured["status"] = message["status"]
            elif message["type"] == "http.response.body":
                captured["body"] += message.get("body", b"")
            await send_with_headers(message)

        try:
            await self.app(scope, replay, capture)
            status = int(captured["status"])
            if status < 500 and status != 403:
                text = bytes(captured["body"]).decode("utf-8", "replace")
                try:
                    table.remember_answer(scoped, fingerprint, status, text)
                except Exception as exc:  # the answer is sent; a journal that failed is the journal's alarm
                    LOG.warning("the answer to Idempotency-Key %r was not journaled: %s", key, exc)
        finally:
            self._in_flight.discard(flight)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The body, and whether it went past :data:`MAX_BODY` (then the rest is not read)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks), False


def _replaying(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


async def _respond(send: Send, status: int, body: bytes, *, replayed: bool = False) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if replayed:
        headers.append((b"idempotent-replayed", b"true"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _error(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message, "rule": None}}).encode("utf-8")
    await _respond(send, status, body)
