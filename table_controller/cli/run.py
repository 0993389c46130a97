"""`cardtable run` (the live table) and `cardtable demo` (the same with simulated players)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import random
import signal
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol

from table_controller.cli._common import EXIT_FINDING, EXIT_OK, EXIT_USAGE, CliError, print_json, set_handler

SCREENS = (
    ("start page", "/", None),
    ("table display", "/table", None),
    ("dealer console", "/dealer", "dealer"),
    ("floor view", "/floor", "floor"),
    ("camera view", "/camera", "floor"),
    ("broadcast", "/broadcast", "broadcast"),
    ("API (OpenAPI)", "/docs", None),
)


def _add_table_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--shoe", metavar="URL", help="pyserial URL of the shoe (default: a simulated shoe on a pty)")
    p.add_argument("--camera", metavar="SOURCE", help="camera: device index, video file or stream URL "
                   "(default: the simulated table camera)")
    p.add_argument("--data", metavar="DIR",
                   help="data directory for the journal, exports and the kept role tokens (default: "
                   "./cardtable-data; a counted demo run, --hands N, gets its own folder under it, runs/)")
    p.add_argument("--db", metavar="URL", help="journal database URL, sqlite:///PATH or postgresql://... "
                   "(default: SQLite in WAL mode under --data)")
    # No argparse defaults here: the settings hold them, so a value in --config is not overridden by a
    # flag the user did not give.
    p.add_argument("--host", help="address the web server binds (default: 127.0.0.1)")
    p.add_argument("--port", type=int, help="web server port (default: 8000)")
    p.add_argument("--config", metavar="FILE", help="table configuration file (JSON): game, stakes, house rules")
    p.add_argument("--no-reader", action="store_true",
                   help="the shoe has no card reader: hole cards stay unknown until shown")


def register(sub: Any) -> None:
    run = sub.add_parser("run", help="run the live table: shoe, camera, rules engine, journal and web screens",
                         description="Run one live table. With no flags: a simulated shoe on a pty, the simulated "
                         "camera, SQLite under ./cardtable-data and the web screens on http://127.0.0.1:8000/. "
                         "Prints the URL of every screen and the floor token at start; Ctrl-C stops.")
    _add_table_flags(run)
    set_handler(run, _run)

    demo = sub.add_parser("demo", help="run a simulated table with simulated players acting",
                          description="Like 'run', with simulated players acting, so hands play out on the "
                          "screens. With --hands N it plays N hands, prints a summary and exits 0.")
    _add_table_flags(demo)
    demo.add_argument("--hands", type=int, metavar="N", help="play N hands, print a summary and exit")
    demo.add_argument("--seed", type=int, metavar="S", help="seed the simulator and players (reproducible runs)")
    demo.add_argument("--form", default="jackpots", metavar="FORM", help="game form (default: jackpots)")
    demo.add_argument("--betting", default="fixed_limit", metavar="B",
                      help="betting structure: fixed_limit, spread_limit, pot_limit, no_limit (default: fixed_limit)")
    demo.add_argument("--players", type=int, default=6, metavar="K", help="players seated, 2 to 8 (default: 6)")
    demo.add_argument("--pace", type=float, metavar="SECONDS",
                      help="seconds between the simulated players' acts (default: 1.2 in the browser; none with "
                      "--hands)")
    demo.add_argument("--json", action="store_true", help="with --hands: print the summary as JSON")
    set_handler(demo, _demo)


_STAKES = {
    "fixed_limit": {"ante": 1, "small_bet": 2, "big_bet": 4, "cap": 4},
    "spread_limit": {"ante": 1, "min_bet": 2, "max_bet": 10},
    "pot_limit": {"ante": 1, "min_bet": 2},
    "no_limit": {"ante": 1, "min_bet": 2},
}
_BLINDS = {"blind_and_straddle": {"blind": 1}, "english_blind_and_straddle": {"blind": 1},
           "blind_opening": {"blind": 2}}


def _settings(args: argparse.Namespace, *, demo: bool) -> Any:
    from table_controller.service.settings import ConfigError, load_settings

    overrides: dict[str, Any] = {
        "shoe": args.shoe, "camera": args.camera, "data": args.data, "db": args.db, "host": args.host,
        "port": args.port,
    }
    if args.no_reader:
        overrides["card_reader"] = False
    if demo:
        stakes = dict(_STAKES.get(args.betting, _STAKES["fixed_limit"]))
        stakes.update(_BLINDS.get(args.form, {}))
        overrides["game"] = {"form": args.form, "betting": args.betting, "stakes": stakes}
        if args.pace is not None:
            overrides["pace_s"] = args.pace
    try:
        settings = load_settings(args.config, **overrides)
    except ConfigError as exc:
        raise CliError(exc.message, code="bad_config") from exc
    if demo and args.hands is not None and "data" not in settings.model_fields_set:
        # A counted run is a test drive: it must not play on (or void the hand of) the live demo's table.
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        seed = f"-seed{args.seed}" if args.seed is not None else ""
        settings = settings.model_copy(update={"data": settings.data / "runs" / f"{stamp}{seed}-{os.getpid()}"})
    if demo and not 2 <= args.players <= settings.seats:
        raise CliError(f"--players must be 2 to {settings.seats}, not {args.players}")
    if demo and args.hands is not None and args.hands < 1:
        raise CliError(f"--hands must be at least 1, not {args.hands}")
    return settings


def _check_port(host: str, port: int) -> int:
    """The port the web server will bind: ``port``, or for 0 the free one the system gives (the banner printed
    ``http://127.0.0.1:0/``, a link that opens nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            why = "is already in use" if exc.errno == errno.EADDRINUSE else f"cannot be bound ({exc.strerror})"
            raise CliError(f"{host}:{port} {why}: pick another with --port", code="port_unavailable") from exc
        return int(s.getsockname()[1])


async def _open(settings: Any, *, seed: int | None, fast: bool, camera: bool = True) -> Any:
    from table_controller.controller.errors import JournalEntryError, TableError
    from table_controller.controller.runtime import open_table

    try:
        return await open_table(settings, seed=seed, fast=fast, camera=camera, sim_process=True)
    except JournalEntryError as exc:  # the journal holds an entry this controller cannot replay: bad input
        raise CliError(exc.message, exit_code=exc.exit_code, code=exc.code) from exc
    except TableError as exc:
        raise CliError(exc.message, exit_code=_start_exit_code(exc), code=exc.code) from exc
    except OSError as exc:
        raise CliError(f"cannot open the shoe or the journal: {exc}", code="device_unavailable") from exc
    except Exception as exc:  # a bridge or journal error surfacing at start: one line, not a traceback
        raise CliError(f"cannot start the table: {exc or type(exc).__name__}", exit_code=EXIT_FINDING,
                       code="start_failed") from exc


def _start_exit_code(exc: Any) -> int:
    """The exit code of a table that could not start: 2 where what it was given cannot be used (a --data that
    is a file, a --db URL, a journal another controller holds, a shoe port or camera source that cannot be
    opened or does not answer, a calibration file), as `cardtable shoe` and `history` answer them; 1 for a
    finding (a damaged journal, a shoe that refuses or faults)."""
    from firmware_bridge.errors import BridgeError, CommandRefusedError, DeviceFaultError
    from table_controller.journal import JournalError

    cause = exc.__cause__
    if isinstance(cause, JournalError):
        return int(cause.exit_code)
    if isinstance(cause, BridgeError) and not isinstance(cause, CommandRefusedError | DeviceFaultError):
        return EXIT_USAGE
    if exc.code in ("camera_unavailable", "camera_uncalibrated"):
        return EXIT_USAGE
    return int(getattr(exc, "exit_code", EXIT_FINDING))


def _banner(table: Any, tokens: Any, settings: Any) -> None:
    base = f"http://{settings.host}:{settings.port}"
    c = table.controller
    from table_controller.engine.config import config_to_json

    g = config_to_json(settings.game)
    out = sys.stdout
    out.write(f"cardtable: table {c.table_id} \"{settings.table_name}\": {g['form']}, {g['betting']}, "
              f"stakes {g['stakes']}\n")
    out.write(f"  shoe:    {table.shoe_label} ({'card reader' if settings.card_reader else 'no card reader'})\n")
    if table.camera is not None:
        out.write(f"  camera:  {table.camera.label} (one frame each {settings.camera_period_s:g} s)\n")
    out.write(f"  journal: {table.journal_label}" + (f" (recovered {table.recovered} entries)" if table.recovered
                                                     else "") + "\n")
    change = c.game_change()
    if change is not None:  # the settings changed the game since the journal's last hand: it kept its own
        out.write(f"  game:    {change}\n")
    out.write("Screens:\n")
    for label, path, role in SCREENS:
        token = tokens.token_of(_role(role)) if role else None
        out.write(f"  {label:<15} {base}{path}" + (f"?token={token}" if token else "") + "\n")
    out.write(f"Floor token: {tokens.floor}\n")
    out.write(f"Dealer token: {tokens.dealer}\n")
    out.write(f"Tokens not set in the config are kept in {settings.data}/tokens.json (the links stay valid after a "
              "restart; delete the file for new ones)\n")
    out.write("Ctrl-C stops the table.\n")
    out.flush()


def _role(name: str) -> Any:
    from table_controller.service.roles import Role

    return Role(name)


class _Stoppable(Protocol):
    should_exit: bool


@contextlib.contextmanager
def exit_on_sigterm(server: _Stoppable) -> Iterator[None]:
    """SIGTERM (a service manager stopping the table) ends the server as Ctrl-C does; the caller's cleanup
    then stops the camera, the players and the shoe simulator's process, so nothing is left running.

    The handler only asks the server to exit: an exception raised from a signal handler lands in whatever
    callback of the event loop was running, which asyncio logs and carries on from. Installed before the
    banner is printed, so a manager that stops the table as soon as it has started is heard too."""

    def terminated(signum: int, frame: Any) -> None:
        server.should_exit = True

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


async def _serve(settings: Any, *, seed: int | None, players: int | None) -> int:
    import uvicorn

    from table_controller.controller.demo import play_hands, seat_players
    from table_controller.controller.players import SimPlayers
    from table_controller.controller.runtime import close_table, shoe_truth
    from table_controller.service.app import TableRegistry, create_app
    from table_controller.service.settings import ConfigError
    from table_controller.service.token_store import load_tokens

    port = _check_port(settings.host, settings.port)
    if port != settings.port:
        settings = settings.model_copy(update={"port": port})
    table = await _open(settings, seed=seed, fast=False)
    try:
        tokens = load_tokens(settings)
    except ConfigError as exc:
        await close_table(table)
        raise CliError(exc.message, code="bad_tokens") from exc
    registry = TableRegistry([table.controller], tokens=tokens, broadcast_delay_s=settings.broadcast_delay_s)
    app = create_app(registry)
    server = uvicorn.Server(uvicorn.Config(app, host=settings.host, port=settings.port, log_level="warning",
                                           lifespan="on"))
    terminal = _Terminal(server)
    table.controller.add_listener(_StopTeller(f"http://{settings.host}:{settings.port}/floor", terminal.write))
    demo_task: asyncio.Task[Any] | None = None
    camera_task = asyncio.create_task(table.camera.run(table.controller)) if table.camera is not None else None
    if players is not None:
        sim = SimPlayers(table.controller, rng=random.Random(seed) if seed is not None else random.SystemRandom(),
                         truth=shoe_truth(table))

        async def loop() -> None:
            await asyncio.sleep(1.0)
            await seat_players(table.controller, players)
            await play_hands(table.controller, sim, hands=None, pace_s=settings.pace_s,
                             progress=lambda n, t: _progress_line(n, None, t, terminal.write), wait_for_floor=True)

        demo_task = asyncio.create_task(loop())
    try:
        with exit_on_sigterm(server):
            _banner(table, tokens, settings)
            await table.controller.resume()
            await server.serve()
    finally:
        await _shut_down([t for t in (demo_task, camera_task) if t is not None], lambda: close_table(table))
    if terminal.closed is not None:
        raise terminal.closed  # now that the table is closed: main ends the command quietly (closed_pipe)
    return EXIT_OK


async def _shut_down(tasks: list[asyncio.Task[Any]], close: Callable[[], Awaitable[None]]) -> None:
    """Stop the serving table's tasks (the simulated players, the camera), then close the table (the shoe, its
    simulator's process, the journal), all of it even when this command is cancelled meanwhile.

    uvicorn raises a Ctrl-C it captured again once the server has stopped, and `asyncio.run` answers that by
    cancelling the command's task, wherever it then waits in this cleanup: a table closed half-way would leave the
    shoe simulator's process running after the command. So the cleanup runs as a task of its own, shielded; the
    cancellation goes on once it is done."""

    async def shut() -> None:
        for task in tasks:
            await _cancel(task)
        await close()

    cleanup = asyncio.ensure_future(shut())
    try:
        await asyncio.shield(cleanup)
    except asyncio.CancelledError:
        await cleanup
        raise


async def _cancel(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait for its end, asking again each second while it plays on: on Python 3.11
    `asyncio.wait_for` (the shoe driver waits with it) drops a cancellation that comes as the future it waits for
    completes (CPython gh-86296, fixed in 3.12), and a shoe that answers quickly makes that common: the demo's
    players then dealt on after Ctrl-C or a closed stdout, and the command never ended. A second between two
    requests leaves a task's own cleanup after the first the time it needs."""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=1.0)
    if not task.cancelled():
        task.exception()  # retrieved: an error of the players or the camera at the end is not logged at exit


def _print(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


class _Terminal:
    """Prints the lines a serving table writes as it runs: the demo's hands, a halt or a pause.

    They are written from a controller listener and the simulated players' task, where a `BrokenPipeError` (the
    reader of stdout went away) would break off a controller step or end the players unseen while the server
    serves on. Instead the server is stopped, and the error raised again once the table is closed."""

    def __init__(self, server: _Stoppable) -> None:
        self.server = server
        self.closed: BrokenPipeError | None = None

    def write(self, text: str) -> None:
        if self.closed is not None:
            return
        try:
            _print(text)
        except BrokenPipeError as exc:
            self.closed = exc
            self.server.should_exit = True


class _StopTeller:
    """Says in the terminal when the table halts or pauses (and when it goes on): the operator of a demo
    or a live table sees it without a browser open."""

    def __init__(self, floor_url: str, write: Callable[[str], None] = _print) -> None:
        self.floor_url = floor_url
        self.write = write
        self.phase = ""

    def __call__(self, view: Any) -> None:
        phase = view.phase
        if phase == self.phase:
            return
        if phase == "halted":
            self.write(f"HALTED at hand #{view.hand}: {view.message.removeprefix('HALTED: ')} Floor view: "
                       f"{self.floor_url}\n")
        elif phase == "paused":
            self.write(f"PAUSED at hand #{view.hand}: {view.message.removeprefix('PAUSED: ')}\n")
        elif self.phase in ("halted", "paused"):
            self.write(f"hand #{view.hand} goes on: {view.message}\n")
        self.phase = phase


def _progress_line(played: int, total: int | None, table: Any, write: Callable[[str], None] = _print) -> None:
    """One line per hand, numbered as the screens number it (``Hand #N``); a counted run adds its own count."""
    summary = table.history()[-1] if table.history() else None
    what = ""
    number = table.hand_no
    if summary is not None:
        number = summary.hand
        if summary.awards:
            what = ", ".join(f"seat {a.seat} wins {a.amount}" for a in summary.awards)
        else:
            what = summary.status.replace("_", " ")
    counted = f" ({played}/{total} of this run)" if total else ""
    write(f"hand #{number}{counted}: {what} · chips on table {table.chips_on_table()} (bought in {table.chips_in})\n")


async def _headless(settings: Any, *, hands: int, seed: int | None, players: int, as_json: bool,
                    pace_s: float = 0.0) -> int:
    from table_controller.controller.demo import play_hands, seat_players
    from table_controller.controller.errors import TableError
    from table_controller.controller.players import SimPlayers
    from table_controller.controller.runtime import close_table, shoe_truth

    table = await _open(settings, seed=seed, fast=True, camera=False)
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    every = max(1, hands // 10)
    last = [time.monotonic()]

    def progress(n: int, t: Any) -> None:
        if as_json:
            return
        if n % every == 0 or n == hands or time.monotonic() - last[0] > 2:
            last[0] = time.monotonic()
            _progress_line(n, hands, t)

    change = table.controller.game_change()
    if change is not None and not as_json:  # what the live table's banner says (_banner)
        sys.stdout.write(f"cardtable: {change}\n")
    try:
        await table.controller.resume()
        await seat_players(table.controller, players)
        summary = await play_hands(table.controller, SimPlayers(table.controller, rng=rng, truth=shoe_truth(table)),
                                   hands=hands, pace_s=pace_s, progress=progress, between_hands_s=0.0)
    except TableError as exc:
        raise CliError(f"the demo stopped: {exc.message}", exit_code=EXIT_FINDING, code=exc.code) from exc
    finally:
        await close_table(table)
    data = summary.as_dict()
    if as_json:
        print_json(data)
    else:
        ok = "yes" if summary.chips_conserved else "NO"
        sys.stdout.write(
            f"Summary: {summary.hands} hands played ({summary.passed_out} passed out, {summary.voided} void), "
            f"{summary.acts} player acts, {summary.cards_dealt} cards dealt by the shoe, "
            f"{summary.decks_verified} decks verified (52 cards, none missing, none twice); "
            f"chips conserved: {ok} ({summary.chips_on_table} on the table, {summary.chips_expected} bought in); "
            f"{summary.seconds:.1f} s\n")
        if summary.halted:
            sys.stdout.write(f"HALTED at hand #{table.controller.hand_no}: {summary.halted.removeprefix('HALTED: ')} "
                             f"(start the table on this data to rule on it from the floor view)\n")
        sys.stdout.write(f"Journal and records: {settings.data}\n")
    return EXIT_OK if summary.ok else EXIT_FINDING


def _run(args: argparse.Namespace) -> int:
    settings = _settings(args, demo=False)
    try:
        return asyncio.run(_serve(settings, seed=None, players=None))
    except KeyboardInterrupt:
        return EXIT_OK


def _demo(args: argparse.Namespace) -> int:
    settings = _settings(args, demo=True)
    if args.hands is not None:
        return asyncio.run(_headless(settings, hands=args.hands, seed=args.seed, players=args.players,
                                     as_json=args.json, pace_s=args.pace or 0.0))
    try:
        return asyncio.run(_serve(settings, seed=args.seed, players=args.players))
    except KeyboardInterrupt:
        return EXIT_OK
