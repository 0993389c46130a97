"""One live table on simulated hardware, driven through its public surfaces (see the package docstring).

How it works. :class:`LiveStack` builds what ``cardtable run`` builds, from the same public parts: a
:class:`TimedShoeSimulator` served on a pty, the firmware bridge's ``ShoeClient`` opening that tty with
pyserial, the durable journal under the data directory, the controller (recovering from the journal, and
voiding a hand a previous process left half dealt, as ``open_table`` does), and the FastAPI app served by
uvicorn on a free local port. The dealer plays through HTTP with the dealer token; the decisions come from
the demo's simulated players. A WebSocket client reads the floor stream and notes when each card first
reaches the display; the simulator notes when each card left the shoe, so the difference is the
card-dealt-to-display latency. At a showdown the controller's own ``TableCamera`` (vision recognizer and
seat tracker) takes frames from :class:`ShowdownSource`, the simulated camera filming the shown hands, and
reports each card it reads to the controller, which halts the hand on a card the shoe did not deal to that
seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from firmware_bridge.driver import ShoeClient
from hardware_sim.shoe import RunningShoe, SimTimings, start_pty
from table_controller.controller.durable import DurableJournal
from table_controller.controller.players import SimPlayers
from table_controller.controller.shoe_link import ShoeLink
from table_controller.controller.table import TableController
from table_controller.service.settings import TableSettings, table_game
from table_controller.soak.shoe import LocalSoakShoe, RemoteSoakShoe, SoakShoe
from table_controller.soak.timed_sim import TimedShoeSimulator

__all__ = ["STAKES", "HandFacts", "LiveStack", "ShowdownSource", "StackOptions", "TimedShoeSimulator", "game_for",
           "hand_facts", "showdown_layout"]

# Stakes per betting structure, and the blind each blind form needs (as `cardtable demo` sets them).
STAKES: dict[str, dict[str, int]] = {
    "fixed_limit": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4},
    "spread_limit": {"ante": 1, "min_bet": 2, "max_bet": 10},
    "pot_limit": {"ante": 1, "min_bet": 2},
    "no_limit": {"ante": 1, "min_bet": 2},
}
BLINDS: dict[str, dict[str, int]] = {"blind_and_straddle": {"blind": 1}, "english_blind_and_straddle": {"blind": 1},
                                     "blind_opening": {"blind": 2}}
MAX_STEPS_PER_HAND = 400


def game_for(form: str, betting: str) -> dict[str, Any]:
    stakes = dict(STAKES[betting])
    stakes.update(BLINDS.get(form, {}))
    return {"form": form, "betting": betting, "stakes": stakes}


def showdown_layout() -> Any:
    """The camera's view of a four-seat table: one quadrant per seat, wide enough for a shown hand laid out
    card by card (the default six-seat layout fans a hand so tightly that few indices stay readable)."""
    from hardware_sim.camera import TableLayout
    from vision.calibration import Zone

    corners = ((0.0, 225.0), (400.0, 225.0), (400.0, 0.0), (0.0, 0.0))
    zones = tuple(Zone(name=f"seat {n}", kind="seat", seat=n,
                       polygon=((x, y), (x + 400.0, y), (x + 400.0, y + 225.0), (x, y + 225.0)))
                  for n, (x, y) in enumerate(corners, start=1))
    return TableLayout(zones=zones)


class ShowdownSource:
    """A frame source for the controller's ``TableCamera``: the simulated camera filming the shown hands.

    Each seat (1 to 4) has a quadrant of the table, wide enough for a hand laid out card by card; the frame
    is 1280 x 720, the recognizer's design size (at 960 x 540 it misreads more suits). ``lost`` makes the
    camera give no frame (a dropout); ``foreign`` lays an extra card in a seat's quadrant, as a player holding
    a card from outside the shoe would."""

    WIDTH, HEIGHT = 1280, 720

    def __init__(self, table: TableController, *, seed: int = 0) -> None:
        from hardware_sim.camera import RenderOptions, TableScene, calibration_for

        self.table = table
        self.seed = seed
        self.name = f"simulated showdown camera (seed {seed})"
        self.options = RenderOptions(width=self.WIDTH, height=self.HEIGHT)
        self.layout = showdown_layout()
        self._calibration = calibration_for(TableScene(layout=self.layout), seed, self.options)
        self._rng = random.Random(seed)
        self.foreign: dict[int, str] = {}
        self.lost = False
        self.frames = 0
        self._t0 = time.monotonic()

    def calibration(self) -> Any:
        return self._calibration

    def scene(self) -> Any:
        from hardware_sim.camera import PlacedCard, TableScene

        hand = self.table.hand
        infos = hand.seat_info() if hand is not None else {}
        placed: list[PlacedCard] = []
        for seat in range(1, 5):
            info = infos.get(seat)
            cards = [c for c in info.shown if c != "??"] if info is not None else []
            extra = self.foreign.get(seat)
            if extra is not None and extra not in cards:
                cards.append(extra)
            x0, y0 = self.layout.seat_zone(seat).polygon[0]
            for i, code in enumerate(cards[:5]):
                placed.append(PlacedCard(card=code, x=x0 + 50.0 + 75.0 * i, y=y0 + 112.0,
                                         angle=self._rng.uniform(-6.0, 6.0)))
        return TableScene(cards=tuple(placed), layout=self.layout)

    def read(self) -> tuple[float, Any] | None:
        from hardware_sim.camera import render

        if self.lost:
            return None
        image = render(self.scene(), self.seed, self.options, frame_index=self.frames)
        self.frames += 1
        return time.monotonic() - self._t0, image

    def close(self) -> None:
        self.lost = True


@dataclass(kw_only=True)
class StackOptions:
    data: Path
    form: str = "jackpots"
    betting: str = "fixed_limit"
    players: int = 4
    seed: int | None = None
    stack: int = 100
    camera: bool = True
    camera_dropout: float = 0.0
    table_id: str = "t1"
    reader: bool = True  # False: a shoe without a card reader (hole cards "??" until shown)
    # The state file of a shoe process that outlives this one (the long soak's); None: a simulator in-process.
    shoe_state: Path | None = None


@dataclass
class HandFacts:
    """One hand as the journal holds it: the cards the shoe delivered, the burns, and how it ended."""

    hand: int
    status: str = "open"
    dealt: list[str] = field(default_factory=list)  # the shoe's cards, in order, as journaled
    burns: list[str] = field(default_factory=list)


@dataclass
class _StreamState:
    messages: int = 0
    bad: int = 0
    twice: int = 0  # states that showed one card in two places at once
    seen: dict[int, set[str]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)  # seconds, card out of the shoe -> on the display
    # The same for cards served in the draw (the deal's cards reach the display together, in one state).
    draw_latencies: list[float] = field(default_factory=list)


class LiveStack:
    """One table, started with :meth:`start` (or ``async with``), played with :meth:`play_hand`."""

    def __init__(self, options: StackOptions) -> None:
        self.options = options
        self.dealer_token = secrets.token_urlsafe(12)
        self.floor_token = secrets.token_urlsafe(12)
        self.sim: TimedShoeSimulator | None = None  # the in-process simulator, when there is one
        self.shoe: SoakShoe | None = None  # the simulator, in-process or not, through its control calls
        self.running: RunningShoe | None = None
        self.controller: TableController | None = None
        self.camera: Any | None = None
        self.source: ShowdownSource | None = None
        self._drop_rng = random.Random(options.seed)
        self.journal: DurableJournal | None = None
        self.http: httpx.AsyncClient | None = None
        self.base_url = ""
        self.stream = _StreamState()
        self.voided_at_start = False
        self.resumed_at_start: int | None = None  # the hand a killed predecessor left, resumed at this start
        self.camera_reads = 0
        self.camera_misreads = 0
        self.camera_dropouts = 0
        self.looks_per_hand = 1
        self.requests = 0
        self._server: Any = None
        self._link: ShoeLink | None = None
        self._server_task: asyncio.Task[Any] | None = None
        self._ws_task: asyncio.Task[None] | None = None
        self._ws_ready = asyncio.Event()
        self._looked: set[tuple[int, tuple[int, ...]]] = set()
        seed = options.seed
        self._players_rng = random.Random(seed) if seed is not None else random.SystemRandom()

    async def __aenter__(self) -> LiveStack:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def table(self) -> TableController:
        assert self.controller is not None, "start the stack first"
        return self.controller

    def settings(self) -> TableSettings:
        o = self.options
        return TableSettings(table_id=o.table_id, data=o.data, game=table_game(game_for(o.form, o.betting)),
                             pace_s=0, broadcast_delay_s=0,
                             dealer_token=self.dealer_token, floor_token=self.floor_token, port=0,
                             card_reader=o.reader)

    async def start(self) -> None:
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        import uvicorn

        from table_controller.service.app import TableRegistry, create_app
        from table_controller.service.roles import RoleTokens

        o = self.options
        settings = self.settings()
        if o.shoe_state is not None:
            self.shoe = RemoteSoakShoe(o.shoe_state)
        else:
            self.sim = TimedShoeSimulator(seed=o.seed, timings=SimTimings.fast())
            self.running = start_pty(self.sim, speed=1.0)
            self.shoe = LocalSoakShoe(self.sim, self.running.url)
        url = self.shoe.url
        link = ShoeLink(ShoeClient(url), has_reader=o.reader, label=f"simulator {url}")
        self._link = link
        await link.connect()
        self.journal = DurableJournal.open(o.table_id, data_dir=o.data)
        self.controller = TableController(settings, shoe=link, journal=self.journal)
        if o.camera:
            from table_controller.controller.camera import TableCamera

            self.source = ShowdownSource(self.controller, seed=o.seed or 0)
            self.camera = TableCamera(self.source, calibration=self.source.calibration(), period_s=0.0)
            self.controller.camera = self.camera
        if self.controller.recover() and self.controller.in_play():
            if self.sim is not None:
                # A simulator in this process died with the killed one: a fresh one holds a new deck, so the
                # hand the killed process left is void.
                await self.controller.void_in_play("the simulated shoe restarted with a new deck")
                self.voided_at_start = True
            else:
                # The shoe process kept its deck and its log, as a real shoe does: the hand goes on, with the
                # cards dealt while the controller was down taken from the shoe's log.
                self.resumed_at_start = self.controller.hand_no
                await self.controller.resume()
        tokens = RoleTokens(dealer=self.dealer_token, floor=self.floor_token, broadcast=secrets.token_urlsafe(12))
        registry = TableRegistry([self.controller], tokens=tokens, broadcast_delay_s=0)
        app = create_app(registry)
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", lifespan="on")
        self._server = uvicorn.Server(config)
        self._server.install_signal_handlers = lambda: None  # older uvicorn; newer ones use capture_signals
        self._server_task = asyncio.create_task(self._serve())
        for _ in range(500):
            if self._server.started:
                break
            await asyncio.sleep(0.01)
        if not self._server.started:
            raise RuntimeError("the web server did not start")
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}"
        self.http = httpx.AsyncClient(base_url=self.base_url, timeout=60.0,
                                      headers={"Authorization": f"Bearer {self.dealer_token}"})
        self._ws_task = asyncio.create_task(self._watch(f"ws://127.0.0.1:{port}/ws/tables/{o.table_id}/floor"
                                                        f"?token={self.floor_token}"))
        await asyncio.wait_for(self._ws_ready.wait(), 10)

    async def _serve(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            await self._server.serve()

    async def _watch(self, url: str) -> None:
        from websockets.asyncio.client import connect

        async with connect(url, max_size=None) as ws:
            self._ws_ready.set()
            async for text in ws:
                arrived = time.perf_counter()
                self._on_message(text, arrived)

    def _on_message(self, text: str | bytes, arrived: float) -> None:
        st = self.stream
        st.messages += 1
        try:
            msg = json.loads(text)
            state = msg["state"]
            hand = int(state["hand"])
            seats = state["seats"]
        except (ValueError, KeyError, TypeError):
            st.bad += 1
            return
        seen = st.seen.setdefault(hand, set())
        dealt_before = bool(seen)
        shoe = self.shoe
        placed = [c for seat in seats for c in dict.fromkeys([*seat.get("hole", ()), *seat.get("shown", ())])
                  if c != "??"]
        if len(placed) != len(set(placed)):
            st.twice += 1
        for seat in seats:
            for code in list(seat.get("hole", ())) + list(seat.get("shown", ())):
                if code == "??" or code in seen:
                    continue
                seen.add(code)
                out_at = shoe.call("out_at", code=code) if shoe is not None else None
                if out_at is not None and arrived >= out_at:
                    st.latencies.append(arrived - out_at)
                    if dealt_before:
                        st.draw_latencies.append(arrived - out_at)

    async def stop(self) -> None:
        if self._ws_task is not None:
            self._ws_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._ws_task
        if self.http is not None:
            await self.http.aclose()
        if self._server is not None:
            self._server.should_exit = True
        if self._server_task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._server_task, 10)
        if self._link is not None:
            with contextlib.suppress(Exception):
                await self._link.close()
        if self.running is not None:
            self.running.stop()
        if isinstance(self.shoe, RemoteSoakShoe):
            self.shoe.close()  # only the connection: the shoe process outlives this one, as a real shoe does
        if self.journal is not None:
            with contextlib.suppress(Exception):
                self.journal.close()

    # -- the dealer, over HTTP -------------------------------------------------------------------------------

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        assert self.http is not None
        self.requests += 1
        response = await self.http.request(method, f"/api/tables/{self.options.table_id}{path}", json=body)
        if response.status_code >= 500:
            raise RuntimeError(f"{method} {path}: server error {response.status_code}: {response.text[:300]}")
        return response

    async def seat_players(self) -> None:
        from table_controller.controller.demo import NAMES

        for k in range(self.options.players):
            seat = k + 1
            if seat not in self.table.seats:
                r = await self.call("POST", f"/seats/{seat}", {"name": NAMES[k], "buy_in": self.options.stack})
                if r.status_code != 201:
                    raise RuntimeError(f"sit down at seat {seat}: {r.status_code} {r.text[:200]}")

    async def top_up(self) -> None:
        t = self.table
        for seat, st in sorted(t.seats.items()):
            if st.stack < max(t.settings.buy_in_min, 1):
                amount = self.options.stack - st.stack
                kind = "buy-in" if st.stack == 0 else "rebuy"
                r = await self.call("POST", f"/seats/{seat}/{kind}", {"amount": amount})
                if r.status_code != 200:
                    raise RuntimeError(f"{kind} at seat {seat}: {r.status_code} {r.text[:200]}")

    def in_play(self) -> bool:
        return self.table.in_play()

    async def start_hand(self) -> httpx.Response:
        return await self.call("POST", "/hand")

    async def step(self, players: SimPlayers) -> bool:
        """One act of the player to act, entered by the dealer over HTTP; False if nobody is to act."""
        decision = players.decide()
        if decision is None:
            return False
        kind, kw = decision
        if kind == "draw":
            body: dict[str, Any] = {"seat": kw["seat"]}
            if kw.get("discard") is not None:
                body["discard"] = list(kw["discard"])
            else:
                body["count"] = kw["count"]  # a shoe without a reader: the table cannot name the cards
            r = await self.call("POST", "/draw", body)
        else:
            body = {"seat": kw["seat"], "act": kw["act"]}
            if kw.get("to") is not None:
                body["to"] = kw["to"]
            if kw.get("cards"):
                body["cards"] = list(kw["cards"])  # a show the dealer names on the card picker
            r = await self.call("POST", "/actions", body)
        if r.status_code != 200:
            raise RuntimeError(f"{kind} {kw}: refused {r.status_code}: {r.text[:300]}")
        players.acts += 1
        await self._camera_look()
        return True

    async def _camera_look(self) -> None:
        """At a showdown, the table camera takes two frames of the shown hands (its tracker decides by votes
        over frames) and reports what it reads to the controller. A dropout loses the frames instead."""
        t = self.table
        if self.camera is None or self.source is None or t.hand is None:
            return
        view = t.full_view()
        shown = {s.seat: s.shown for s in view.seats if s.shown}
        if not shown:
            return
        key = (view.hand, tuple(sorted(shown)))
        if key in self._looked or sum(1 for k in self._looked if k[0] == view.hand) >= self.looks_per_hand:
            return
        self._looked.add(key)
        dropout = self.options.camera_dropout
        self.source.lost = bool(dropout) and self._drop_rng.random() < dropout
        if self.source.lost:
            self.camera_dropouts += 1
        for _ in range(2):
            if await self.camera.step(t):
                self.camera_reads += sum(1 for d in self.camera.detections()
                                         if d["code"] not in ("face down", "unread") and d["zone"])
        self.source.lost = False

    async def camera_misread_ruling(self) -> bool:
        """The floor's answer to a camera alert: it compares the cards on the felt with the shoe's record. A
        card the simulated table does not hold is a misread by the recognizer: the floor acknowledges the
        alert and resumes the hand (over HTTP, with the floor token). True if it ruled."""
        t = self.table
        alerts = [a for a in t.full_view().alerts if a.kind == "camera_mismatch" and not a.acknowledged]
        if not alerts or self.camera is None:
            return False
        assert self.http is not None
        auth = {"Authorization": f"Bearer {self.floor_token}"}
        base = f"/api/tables/{self.options.table_id}"
        for alert in alerts:
            r = await self.http.post(f"{base}/alerts/{alert.id}/ack", headers=auth)
            if r.status_code != 200:
                raise RuntimeError(f"ack alert: {r.status_code} {r.text[:200]}")
        r = await self.http.post(f"{base}/rulings", headers=auth,
                                 json={"kind": "resume", "by": "floor", "reason": "camera misread: the cards on the "
                                       "felt match the shoe's record"})
        if r.status_code != 200:
            raise RuntimeError(f"resume ruling: {r.status_code} {r.text[:200]}")
        self.camera_misreads += len(alerts)
        return True

    def new_players(self) -> SimPlayers:
        """The demo's simulated players. At a shoe without a reader they still see their own cards: the
        faces the simulated shoe dealt, in order (the table does not)."""
        shoe = self.shoe
        if self.options.reader or shoe is None:
            return SimPlayers(self.table, rng=self._players_rng)
        return SimPlayers(self.table, rng=self._players_rng, truth=lambda: list(shoe.call("cards_out")))

    async def play_hand(self, players: SimPlayers) -> int:
        """Start a hand over HTTP and play it to its end; returns its number. A paused or halted table
        raises: the caller decides how the dealer answers (see the soak)."""
        await self.top_up()
        r = await self.start_hand()
        if r.status_code != 201:
            raise RuntimeError(f"start hand: {r.status_code} {r.text[:300]}")
        number = self.table.hand_no
        for _ in range(MAX_STEPS_PER_HAND):
            if not self.in_play():
                return number
            if self.table.halted and await self.camera_misread_ruling():
                continue
            if self.table.halted or self.table.paused:
                raise RuntimeError(f"hand {number} stopped: {self.table.message}")
            if not await self.step(players):
                await asyncio.sleep(0.005)
        raise RuntimeError(f"hand {number} did not finish in {MAX_STEPS_PER_HAND} steps")

    async def settle(self, timeout: float = 5.0) -> None:
        """Wait until the floor stream has caught up with the table's last state."""
        assert self._server is not None
        end = time.monotonic() + timeout
        count = -1
        while time.monotonic() < end:
            await asyncio.sleep(0.05)
            if self.stream.messages == count:
                return
            count = self.stream.messages


def hand_facts(entries: list[Any]) -> dict[int, HandFacts]:
    """Per hand, from the journal's entries (``DurableJournal.entries()``): the cards the shoe delivered in
    order, the burns, and whether it completed or was voided."""
    facts: dict[int, HandFacts] = {}
    for entry in entries:
        if entry.kind == "hand.start":
            number = int(entry.data["hand"])
            facts[number] = HandFacts(hand=number)
            continue
        if entry.hand is None or entry.hand not in facts:
            continue
        f = facts[entry.hand]
        if entry.kind == "deal":
            f.dealt.extend(entry.data["codes"])
        elif entry.kind == "card":
            f.dealt.append(entry.data["code"])
            if entry.data.get("kind") == "burn":
                f.burns.append(entry.data["code"])
        elif _voids(entry.kind, entry.data):
            f.status = "void"
    return facts


# The journal entries that void the hand in progress: a void, the dealer's "void" answer to a device fault
# prompt, the floor's void ruling and a misdeal reported as an irregularity.
_VOIDING = {"void": None, "prompt.answer": ("choice", "void"), "ruling": ("kind", "void_hand"),
            "irregularity": ("kind", "misdeal")}


def _voids(kind: str, data: dict[str, Any]) -> bool:
    if kind not in _VOIDING:
        return False
    test = _VOIDING[kind]
    return test is None or data.get(test[0]) == test[1]
