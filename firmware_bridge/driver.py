"""The asyncio shoe driver the table service uses: `ShoeClient`.

One command is on the line at a time (stop-and-wait): its reply is matched by command id, so neither a
late reply nor a second command in flight can be confused with it. Each attempt waits a timeout scaled by
the baud rate (the frames' wire time plus a turnaround allowance); a lost frame is sent again with the
same command id, and the device answers a repeat from its reply cache, so a retried DEAL never deals
twice. Every call has an overall deadline. Timed operations (shuffle, verify, deal, burn) answer
IN_PROGRESS and end with an event carrying their command id; the call returns that event.

A heartbeat (PING when the line has been quiet) detects a silent device; a port error or silence past
`link_down_after` marks the link down, and a supervisor reopens the port and says HELLO again until it
answers. A device reboot shows as a new session (or a RESYNC answer) and is handled the same way.
Calls in progress wait for the link and then retry with their same command ids. Events are acknowledged
by number and delivered once each, in order, through `events()`, including the outcome of a call
whose deadline ran out.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from firmware_bridge.cards import card_code
from firmware_bridge.errors import (
    BridgeError,
    CommandRefusedError,
    DeadlineError,
    DeviceFaultError,
    LinkDownError,
    PeerError,
    UsageError,
    VersionError,
    VersionMismatchError,
)
from firmware_bridge.frames import PROTOCOL_VERSION
from firmware_bridge.host import Alive, Delivered, Garbled, Handshake, HostEndpoint, Inbound, NeedHello, Reply
from firmware_bridge.messages import (
    CAP_RETURNS,
    CardDealt,
    Cleared,
    Command,
    CommandBody,
    ConfigKey,
    DeckResult,
    Fault,
    PowerRestored,
    ReplyBody,
    Result,
    ShoeEvent,
    ShuffleDone,
    StatusInfo,
)
from firmware_bridge.transport import ByteLink, SerialLink, wire_seconds

REPLY_ALLOWANCE = 96  # bytes allowed for a reply when scaling an attempt's timeout
_REMEMBERED = 512


@dataclass(frozen=True, kw_only=True)
class ClientConfig:
    baudrate: int = 115200
    turnaround: float = 0.05  # device processing allowance per attempt, on top of wire time
    call_deadline: float = 5.0
    deal_deadline: float = 20.0
    shuffle_deadline: float = 120.0
    verify_deadline: float = 120.0
    connect_deadline: float = 5.0
    heartbeat_interval: float = 0.5
    link_down_after: float = 2.0
    reconnect_interval: float = 0.2
    busy_backoff: float = 0.05

    def attempt_timeout(self, request_bytes: int) -> float:
        """How long one attempt waits: twice the wire time of request and reply, plus the turnaround."""
        return self.turnaround + 2 * wire_seconds(request_bytes + REPLY_ALLOWANCE, self.baudrate)


@dataclass(frozen=True, kw_only=True)
class DeviceInfo:
    model: str
    serial: str
    firmware: str
    version: int
    capabilities: int
    session: int

    @property
    def scans_returns(self) -> bool:
        """The shoe reports each card loaded back into its return slot (CARD_RETURNED in `events()`)."""
        return bool(self.capabilities & CAP_RETURNS)


@dataclass(frozen=True, kw_only=True)
class DealtCard:
    card: str | None  # "Qs", or None when the shoe could not read the card
    left: int
    burn: bool
    event: CardDealt


@dataclass(kw_only=True)
class LinkStats:
    commands: int = 0
    retransmissions: int = 0
    busy: int = 0
    stale_replies: int = 0
    garbled_frames: int = 0
    duplicate_events: int = 0
    reconnects: int = 0
    resyncs: int = 0
    reboots_seen: int = 0
    events: int = 0
    errors: list[str] = field(default_factory=list)


_FINALS: dict[Command, tuple[type[ShoeEvent], ...]] = {
    Command.SHUFFLE: (ShuffleDone, Fault, PowerRestored),
    Command.VERIFY_DECK: (DeckResult, Fault, PowerRestored),
    Command.DEAL_ONE: (CardDealt, Fault, PowerRestored),
    Command.BURN: (CardDealt, Fault, PowerRestored),
    Command.CLEAR_FAULT: (Cleared,),
}


class ShoeClient:
    """Talks to one shoe. `port` is a pyserial URL or a factory of `ByteLink`s (tests, other transports)."""

    def __init__(self, port: str | Callable[[], ByteLink], *, config: ClientConfig | None = None,
                 first_cmd_id: int | None = None) -> None:
        self.config = config or ClientConfig()
        if isinstance(port, str):
            url, baud = port, self.config.baudrate
            self._factory: Callable[[], ByteLink] = lambda: SerialLink(url, baudrate=baud)
        else:
            self._factory = port
        self.stats = LinkStats()
        self.info: DeviceInfo | None = None
        self._ep = HostEndpoint()
        self._link: ByteLink | None = None
        self._reader: asyncio.Task[None] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._up = asyncio.Event()
        self._lost = asyncio.Event()
        self._closed = False
        self._fatal: BridgeError | None = None
        self._pending: dict[int, asyncio.Future[ReplyBody]] = {}
        self._by_cmd: OrderedDict[int, list[ShoeEvent]] = OrderedDict()
        self._waiters: dict[int, tuple[asyncio.Future[ShoeEvent], tuple[type[ShoeEvent], ...]]] = {}
        self._queue: asyncio.Queue[ShoeEvent | None] = asyncio.Queue()
        self._hello: asyncio.Future[Handshake] | None = None
        self._resyncing: asyncio.Task[None] | None = None
        self._cmd_lock = asyncio.Lock()
        self._next_id = first_cmd_id if first_cmd_id is not None else (secrets.randbits(30) << 1) | 1
        self._last_rx = 0.0

    # --- lifecycle ----------------------------------------------------------------------------------

    async def connect(self) -> DeviceInfo:
        """Open the port and shake hands. Raises `PortError`, `LinkDownError` or `VersionMismatchError`."""
        if self._closed:
            raise UsageError("this client is closed")
        await self._open()
        try:
            await self._handshake(self.config.connect_deadline)
        except BaseException:
            await self._drop_link()
            raise
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._supervise()), loop.create_task(self._heartbeat())]
        assert self.info is not None
        return self.info

    async def close(self) -> None:
        self._closed = True
        for task in [*self._tasks, *([self._resyncing] if self._resyncing else [])]:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        await self._drop_link()
        self._up.clear()
        self._queue.put_nowait(None)

    async def __aenter__(self) -> ShoeClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def link_up(self) -> bool:
        return self._up.is_set()

    # --- the table service's calls ------------------------------------------------------------------

    async def status(self) -> StatusInfo:
        reply = await self._simple(CommandBody(command=Command.STATUS))
        assert reply.status is not None
        return reply.status

    async def shuffle(self) -> ShuffleDone:
        event = await self._operation(Command.SHUFFLE, self.config.shuffle_deadline)
        assert isinstance(event, ShuffleDone)
        return event

    async def verify_deck(self) -> DeckResult:
        event = await self._operation(Command.VERIFY_DECK, self.config.verify_deadline)
        assert isinstance(event, DeckResult)
        return event

    async def deal_one(self) -> DealtCard:
        return self._dealt(await self._operation(Command.DEAL_ONE, self.config.deal_deadline))

    async def burn(self) -> DealtCard:
        return self._dealt(await self._operation(Command.BURN, self.config.deal_deadline))

    async def clear_fault(self) -> Cleared:
        event = await self._operation(Command.CLEAR_FAULT, self.config.call_deadline)
        assert isinstance(event, Cleared)
        return event

    async def set_config(self, key: ConfigKey, value: int) -> None:
        await self._simple(CommandBody(command=Command.SET_CONFIG, key=key, value=value))

    async def get_log(self, first: int = 1, limit: int = 32) -> tuple[ShoeEvent, ...]:
        reply = await self._simple(CommandBody(command=Command.GET_LOG, first=first, limit=limit))
        return reply.log

    async def events(self) -> AsyncIterator[ShoeEvent]:
        """Every device event, once each, in order; ends when the client closes."""
        while True:
            item = await self._queue.get()
            if item is None:
                return
            yield item

    def drain_events(self) -> list[ShoeEvent]:
        """The events received and not yet taken, without waiting."""
        out: list[ShoeEvent] = []
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is not None:
                out.append(item)
        return out

    # --- calls --------------------------------------------------------------------------------------

    def _new_id(self) -> int:
        cmd_id = self._next_id
        self._next_id = (self._next_id % 0xFFFFFFFF) + 1
        return cmd_id

    async def _simple(self, body: CommandBody) -> ReplyBody:
        loop = asyncio.get_running_loop()
        reply = await self._call(body, self._new_id(), loop.time() + self.config.call_deadline)
        if reply.result is not Result.OK:
            raise _refused(reply)
        return reply

    async def _operation(self, command: Command, deadline: float) -> ShoeEvent:
        loop = asyncio.get_running_loop()
        end = loop.time() + deadline
        cmd_id = self._new_id()
        finals = _FINALS[command]
        waiter: asyncio.Future[ShoeEvent] = loop.create_future()
        self._waiters[cmd_id] = (waiter, finals)
        try:
            reply = await self._call(CommandBody(command=command), cmd_id, end)
            if reply.result is Result.FAILED:  # a retry after the operation failed: the cached outcome
                raise DeviceFaultError(f"{command.name} stopped: {reply.fail.name}", fault=reply.fail.name)
            if reply.result not in (Result.OK, Result.IN_PROGRESS):
                raise _refused(reply)
            for event in self._by_cmd.get(cmd_id, []):
                if isinstance(event, finals):
                    return _outcome(command, event)
            # Wait in slices; after each quiet slice a PING asks the device to resend what we lack.
            poll = self.config.attempt_timeout(32)
            while True:
                remaining = end - loop.time()
                if remaining <= 0:
                    if not self._up.is_set():
                        raise LinkDownError(f"{command.name} did not finish: the shoe link is down")
                    raise self._deadline_error(f"{command.name} did not finish within {deadline:g} s")
                try:
                    event = await asyncio.wait_for(asyncio.shield(waiter), min(poll, remaining))
                    return _outcome(command, event)
                except TimeoutError:
                    if self._up.is_set():
                        await self._write(self._ep.ping())
        finally:
            self._waiters.pop(cmd_id, None)

    async def _call(self, body: CommandBody, cmd_id: int, end: float) -> ReplyBody:
        loop = asyncio.get_running_loop()
        async with self._cmd_lock:
            self.stats.commands += 1
            resend = False
            while True:
                await self._wait_up(end, body.command.name)
                future: asyncio.Future[ReplyBody] = loop.create_future()
                self._pending[cmd_id] = future
                frame = self._ep.command(cmd_id, body)
                if resend:
                    self.stats.retransmissions += 1
                resend = False
                try:
                    await self._write(frame)
                    timeout = min(self.config.attempt_timeout(len(frame)), max(0.0, end - loop.time()))
                    reply = await asyncio.wait_for(asyncio.shield(future), timeout)
                except TimeoutError:
                    if loop.time() >= end:
                        raise self._deadline_error(f"{body.command.name}: no reply") from None
                    resend = True
                    continue
                finally:
                    self._pending.pop(cmd_id, None)
                if reply.result is Result.BUSY:
                    self.stats.busy += 1
                    await asyncio.sleep(min(self.config.busy_backoff, max(0.0, end - loop.time())))
                    if loop.time() >= end:
                        raise self._deadline_error(f"{body.command.name}: the shoe stayed busy")
                    continue
                return reply

    async def _wait_up(self, end: float, what: str) -> None:
        if self._fatal is not None:
            raise self._fatal
        if self._closed:
            raise UsageError("this client is closed")
        if self._up.is_set():
            return
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(self._up.wait(), max(0.0, end - loop.time()))
        except TimeoutError:
            raise LinkDownError(f"{what}: the shoe link is down") from None
        if self._fatal is not None:
            raise self._fatal

    def _deadline_error(self, message: str) -> PeerError:
        if self._fatal is not None:
            return PeerError(str(self._fatal))
        if not self._up.is_set():
            return LinkDownError(f"{message} (the link is down)")
        return DeadlineError(message)

    @staticmethod
    def _dealt(event: ShoeEvent) -> DealtCard:
        assert isinstance(event, CardDealt)
        return DealtCard(card=None if event.card is None else card_code(event.card), left=event.left,
                         burn=event.burn, event=event)

    # --- the link -----------------------------------------------------------------------------------

    async def _open(self) -> None:
        link = self._factory()
        await link.open()
        self._link = link
        self._ep.reset_decoder()
        self._last_rx = asyncio.get_running_loop().time()
        self._reader = asyncio.get_running_loop().create_task(self._read(link))

    async def _drop_link(self) -> None:
        self._up.clear()
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        link, self._link = self._link, None
        if link is not None:
            with contextlib.suppress(BridgeError, OSError):
                await link.close()

    def _mark_lost(self, why: str) -> None:
        if self._closed:
            return
        self._up.clear()
        self.stats.errors.append(why)
        del self.stats.errors[:-20]
        self._lost.set()

    async def _write(self, data: bytes) -> None:
        link = self._link
        if link is None:
            return  # the supervisor is reconnecting; the attempt will time out and be retried
        try:
            await link.write(data)
        except (BridgeError, OSError) as exc:
            self._mark_lost(f"write: {exc}")

    async def _read(self, link: ByteLink) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                data = await link.read()
            except (BridgeError, OSError) as exc:
                self._mark_lost(f"read: {exc}")
                return
            for item in self._ep.feed(data):
                self._dispatch(item, loop.time())
            owed = self._ep.take_owed_ack()
            if owed is not None:
                await self._write(owed)

    def _dispatch(self, item: Inbound, now: float) -> None:
        if isinstance(item, Garbled):
            self.stats.garbled_frames += 1
            if isinstance(item.error, VersionError) and self._hello is not None and not self._hello.done():
                self._hello.set_exception(VersionMismatchError(
                    f"the shoe speaks protocol version {item.error.version}; this host speaks {PROTOCOL_VERSION}"))
            return
        self._last_rx = now
        if isinstance(item, Reply):
            future = self._pending.get(item.cmd_id)
            if future is not None and not future.done():
                future.set_result(item.body)
            else:
                self.stats.stale_replies += 1
        elif isinstance(item, Delivered):
            self._deliver(item.event)
        elif isinstance(item, Handshake):
            if item.rebooted:
                self.stats.reboots_seen += 1
            if self._hello is not None and not self._hello.done():
                self._hello.set_result(item)
        elif isinstance(item, NeedHello):
            self._start_resync()
        elif isinstance(item, Alive):
            pass
        self.stats.duplicate_events = self._ep.duplicates

    def _deliver(self, event: ShoeEvent) -> None:
        self.stats.events += 1
        if event.cmd:
            self._by_cmd.setdefault(event.cmd, []).append(event)
            while len(self._by_cmd) > _REMEMBERED:
                self._by_cmd.popitem(last=False)
            waiting = self._waiters.get(event.cmd)
            if waiting is not None and isinstance(event, waiting[1]) and not waiting[0].done():
                waiting[0].set_result(event)
        self._queue.put_nowait(event)

    async def _handshake(self, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + deadline
        future: asyncio.Future[Handshake] = loop.create_future()
        self._hello = future
        try:
            while True:
                hello = self._ep.hello()
                await self._write(hello)
                timeout = min(self.config.attempt_timeout(len(hello)), max(0.0, end - loop.time()))
                try:
                    shake = await asyncio.wait_for(asyncio.shield(future), timeout)
                    break
                except TimeoutError:
                    if loop.time() >= end or self._link is None:
                        raise LinkDownError(f"the shoe did not answer HELLO within {deadline:g} s") from None
        finally:
            self._hello = None
        reply = shake.reply
        if reply.version != PROTOCOL_VERSION:
            raise VersionMismatchError(f"the shoe speaks protocol version {reply.version}; "
                                       f"this host speaks {PROTOCOL_VERSION}")
        self.info = DeviceInfo(model=reply.model, serial=reply.serial, firmware=reply.firmware, version=reply.version,
                               capabilities=reply.capabilities, session=shake.session)
        self._last_rx = loop.time()
        self._up.set()
        owed = self._ep.take_owed_ack()
        if owed is not None:
            await self._write(owed)

    def _start_resync(self) -> None:
        if self._resyncing is not None and not self._resyncing.done():
            return
        if self._hello is not None or self._lost.is_set():
            return  # a handshake is already under way (or about to be, by the supervisor)
        self._up.clear()
        self.stats.resyncs += 1
        self._resyncing = asyncio.get_running_loop().create_task(self._resync())

    async def _resync(self) -> None:
        try:
            await self._handshake(self.config.link_down_after)
        except VersionMismatchError as exc:
            self._fatal = exc
            self._up.set()  # wake the waiting calls so they raise
        except BridgeError as exc:
            self._mark_lost(f"resync: {exc}")

    async def _supervise(self) -> None:
        while not self._closed:
            await self._lost.wait()
            self._lost.clear()
            if self._resyncing is not None and not self._resyncing.done():
                self._resyncing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._resyncing
            await self._drop_link()
            while not self._closed:
                self.stats.reconnects += 1
                try:
                    await self._open()
                    await self._handshake(self.config.link_down_after)
                    break
                except VersionMismatchError as exc:
                    self._fatal = exc
                    self._up.set()
                    return
                except BridgeError:
                    await self._drop_link()
                    await asyncio.sleep(self.config.reconnect_interval)

    async def _heartbeat(self) -> None:
        loop = asyncio.get_running_loop()
        interval = self.config.heartbeat_interval
        while not self._closed:
            await asyncio.sleep(interval / 2)
            if not self._up.is_set() or self._lost.is_set():
                continue
            quiet = loop.time() - self._last_rx
            if quiet >= self.config.link_down_after:
                self._mark_lost(f"the shoe has been silent for {quiet:.2f} s")
            elif quiet >= interval:
                await self._write(self._ep.ping())


def _refused(reply: ReplyBody) -> CommandRefusedError:
    return CommandRefusedError(f"{reply.command.name} refused: {reply.result.name} ({reply.fail.name})",
                               result=reply.result.name, fail_code=int(reply.fail))


def _outcome(command: Command, event: ShoeEvent) -> ShoeEvent:
    if isinstance(event, Fault):
        raise DeviceFaultError(f"{command.name} stopped: {event.fault.name} fault", fault=event.fault.name)
    if isinstance(event, PowerRestored):
        raise DeviceFaultError(f"{command.name} interrupted by a {event.cause.name.lower().replace('_', ' ')}",
                               fault=event.cause.name)
    return event


ShoeDriver = ShoeClient  # the name the table service's design notes use
