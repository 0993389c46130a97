"""The WebSocket hub: one stream per view (public, dealer, floor, broadcast) for each table.

The controller calls :meth:`StreamHub.publish` with the full state after every change. The hub cuts it to
each view once, serialises it once and puts the text on every subscriber's queue. Every message is a whole
state (``{"type": "state", "seq": N, "state": {...}}``), so a slow client that misses messages only skips
to the newest: its queue keeps the latest ``QUEUE_SIZE`` messages and drops the oldest.

The broadcast stream holds each message back ``delay_s`` seconds before it goes out. Every delivery that
carries hole cards (floor, broadcast) is reported to the ``audit`` callback once per subscriber and hand,
so the journal records who saw which hand's hole cards.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from table_controller.service.roles import Role
from table_controller.service.views import Full, broadcast_view, dealer_view, floor_view, public_view

__all__ = ["AuditFn", "StreamHub", "Subscription"]

QUEUE_SIZE = 256

AuditFn = Callable[[Role, str, int], None]
"""audit(role, client, hand): a client of this role was sent the hole cards of this hand."""


@dataclass(eq=False)
class Subscription:
    role: Role
    client: str
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    audited_hands: set[int] = field(default_factory=set)

    def offer(self, text: str) -> None:
        if self.queue.maxsize and self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(text)


class StreamHub:
    def __init__(self, *, broadcast_delay_s: float, audit: AuditFn | None = None) -> None:
        self.broadcast_delay_s = broadcast_delay_s
        self._audit = audit
        self._subs: dict[Role, list[Subscription]] = {role: [] for role in Role}
        self._seq = itertools.count(1)
        self.seq = 0  # the last state published: what a screen that is up to date has seen
        self._latest: dict[Role, tuple[str, int]] = {}
        self._pending: set[asyncio.TimerHandle] = set()

    def subscribe(self, role: Role, client: str, *, maxsize: int = QUEUE_SIZE) -> Subscription:
        """A new subscriber; it gets the latest state at once. ``maxsize=0``: keep every message (tests)."""
        sub = Subscription(role=role, client=client, queue=asyncio.Queue(maxsize))
        self._subs[role].append(sub)
        latest = self._latest.get(role)
        if latest is not None:
            self._deliver(sub, *latest)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs[sub.role]
        if sub in subs:
            subs.remove(sub)

    def subscribers(self, role: Role) -> int:
        return len(self._subs[role])

    def backlog(self) -> int:
        """Messages queued and not yet sent, over every subscriber."""
        return sum(sub.queue.qsize() for subs in self._subs.values() for sub in subs)

    def publish(self, state: Full) -> None:
        full = floor_view(state)  # mapped once, then cut per role
        seq = self.seq = next(self._seq)
        texts = {
            Role.PUBLIC: public_view(full).model_dump_json(),
            Role.DEALER: dealer_view(full).model_dump_json(),
            Role.FLOOR: full.model_dump_json(),
        }
        for role, text in texts.items():
            self._send(role, _frame(seq, text), full.hand)
        bcast = _frame(seq, broadcast_view(full, delay_s=self.broadcast_delay_s).model_dump_json())
        if self.broadcast_delay_s <= 0:
            self._send(Role.BROADCAST, bcast, full.hand)
        else:
            loop = asyncio.get_running_loop()
            handle: asyncio.TimerHandle | None = None

            def release() -> None:
                if handle is not None:
                    self._pending.discard(handle)
                self._send(Role.BROADCAST, bcast, full.hand)

            handle = loop.call_later(self.broadcast_delay_s, release)
            self._pending.add(handle)

    def close(self) -> None:
        for handle in self._pending:
            handle.cancel()
        self._pending.clear()

    def _send(self, role: Role, text: str, hand: int) -> None:
        self._latest[role] = (text, hand)
        for sub in list(self._subs[role]):
            self._deliver(sub, text, hand)

    def _deliver(self, sub: Subscription, text: str, hand: int) -> None:
        if sub.role in (Role.FLOOR, Role.BROADCAST) and hand not in sub.audited_hands:
            sub.audited_hands.add(hand)
            if self._audit is not None:
                self._audit(sub.role, sub.client, hand)
        sub.offer(text)


def _frame(seq: int, state_json: str) -> str:
    # The state is already JSON; splice it in rather than parse and dump it again.
    return '{"type":"state","seq":' + json.dumps(seq) + ',"state":' + state_json + "}"
