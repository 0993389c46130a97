"""`cardtable demo --hands N` plays on the simulated shoe and journal and exits 0 with a summary; bad usage
exits 2 with one line."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.cli.run import _shut_down, exit_on_sigterm
from table_controller.controller.sim_process import STATE_NAME, process_alive
from table_controller.journal import Journal


def test_demo_hands_summary_and_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--hands", "4", "--seed", "3", "--players", "4", "--data", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Summary: 4 hands played" in out
    assert "chips conserved: yes" in out
    assert "4 decks verified" in out
    assert "hand #4 (4/4 of this run)" in out  # progress, numbered as the screens number the hands
    with Journal.open(data_dir=tmp_path) as journal:
        assert journal.verify().ok
        assert len(list(journal.hand_records("t1"))) == 4


def test_demo_json_summary_and_restart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--hands", "2", "--seed", "5", "--data", str(tmp_path), "--json"]) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert first["hands"] == 2 and first["chips_conserved"] and first["ok"]
    # A second run on the same data recovers the table from the journal and plays on.
    assert main(["demo", "--hands", "2", "--seed", "6", "--data", str(tmp_path), "--json"]) == 0
    second = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert second["hands"] == 2 and second["chips_conserved"]
    with Journal.open(data_dir=tmp_path) as journal:
        assert len(list(journal.hand_records("t1"))) == 4


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["demo", "--hands", "2", "--players", "9"], "--players must be 2 to 8"),
        (["demo", "--hands", "0"], "--hands must be at least 1"),
        (["demo", "--hands", "2", "--form", "strip_poker"], "game.form: Input should be 'five_card_draw'"),
        (["demo", "--hands", "2", "--betting", "whatever"], "game.betting: Input should be 'fixed_limit'"),
    ],
)
def test_bad_usage_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                       needle: str) -> None:
    code = main([*argv, "--data", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_broken_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "t.json"
    cfg.write_text('{"port": "x"}')
    assert main(["run", "--config", str(cfg)]) == 2
    assert "port" in capsys.readouterr().err


def test_port_in_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["run", "--port", str(port), "--data", str(tmp_path)]) == 2
    assert "already in use" in capsys.readouterr().err


def test_demo_at_a_shoe_without_a_reader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The simulated players see their own cards (from the simulator process, through the shoe link) while
    the table sees "??" until a hand is shown; the hands end and every record replays."""
    code = main(["demo", "--hands", "3", "--seed", "4", "--no-reader", "--data", str(tmp_path), "--json"])
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and summary["hands"] == 3 and summary["ok"], summary
    with Journal.open(data_dir=tmp_path) as journal:
        cards = [c for e in journal.read_all("t1") if e.kind == "deal" for c in e.payload["codes"]]
        assert cards and set(cards) == {"??"}
        assert len(list(journal.hand_records("t1"))) == 3


@contextlib.contextmanager
def _ctrl_c_reaches_children() -> Iterator[None]:
    """Ctrl-C as from a terminal for the processes started inside. A test run started as a background job of a
    non-interactive shell (a CI script's `&`) has SIGINT ignored, and an ignored signal stays ignored across exec;
    a handled one is reset to the default there."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _banner(proc: subprocess.Popen[str]) -> list[str]:
    """The lines `cardtable run` prints at start, up to the one saying how to stop it."""
    assert proc.stdout is not None
    banner = []
    for line in proc.stdout:
        banner.append(line)
        if "Ctrl-C stops" in line:
            break
    return banner


def _terminated(proc: subprocess.Popen[str]) -> int:
    """A table started by a test, stopped as a service manager stops it (SIGTERM): its exit code."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    finally:
        proc.communicate(timeout=10)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_run_starts_the_shoe_simulator_as_its_own_process_and_ctrl_c_stops_it(tmp_path: Path,
                                                                              stop: signal.Signals) -> None:
    """Ctrl-C, or SIGTERM from a service manager: the controller stops and the simulator's process with it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tmp_path / "data"
    tokens: list[str] = []
    for start in range(2):  # started, stopped with Ctrl-C, started again: the screens' tokens stay the same
        with _ctrl_c_reaches_children():
            proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--data", str(data),
                                     "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            banner = _banner(proc)
            text = "".join(banner)
            assert "simulated shoe, process" in text and "(started)" in text, text
            tokens.append("".join(line for line in banner if "token" in line and "?token=" in line))
            pid = int(json.loads((data / STATE_NAME).read_text())["pid"])
            assert pid != proc.pid and process_alive(pid)
            proc.send_signal(stop)
            assert proc.wait(30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=10)  # waits, and closes the pipes
        assert not process_alive(pid), f"Ctrl-C stops the simulator with the controller (start {start + 1})"
        assert not (data / STATE_NAME).exists()
    assert tokens[0] and tokens[0] == tokens[1], tokens  # every bookmarked screen link still works
    assert (data / "tokens.json").stat().st_mode & 0o777 == 0o600


def test_a_counted_demo_run_gets_its_own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CARDTABLE_DATA", raising=False)
    assert main(["demo", "--hands", "1", "--seed", "7", "--players", "3"]) == 0
    out = capsys.readouterr().out
    runs = list((tmp_path / "cardtable-data" / "runs").iterdir())
    assert len(runs) == 1 and runs[0].name.startswith(time.strftime("%Y%m%d", time.gmtime()))
    assert f"Journal and records: {Path('cardtable-data') / 'runs' / runs[0].name}" in out
    assert not list((tmp_path / "cardtable-data").glob("*.sqlite*"))  # the live demo's folder is left alone
    with Journal.open(data_dir=runs[0]) as journal:
        assert len(list(journal.hand_records("t1"))) == 1


class _Server:
    should_exit = False


def test_sigterm_in_the_middle_of_a_loop_callback_still_stops_the_server() -> None:
    """The signal may arrive while any callback of the event loop runs: the server must still be told to
    exit (an exception raised by the handler would be logged by asyncio and the table would run on)."""
    server = _Server()
    before = signal.getsignal(signal.SIGTERM)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def callback() -> None:  # a plain loop callback, as a broadcast or a shoe read would be
            os.kill(os.getpid(), signal.SIGTERM)
            done.set_result(None)

        loop.call_soon(callback)
        await done

    with exit_on_sigterm(server):
        asyncio.run(main())
    assert server.should_exit is True
    assert signal.getsignal(signal.SIGTERM) == before  # the previous handler is back


def test_a_ctrl_c_raised_again_during_the_shutdown_still_closes_the_table() -> None:
    """uvicorn raises a captured Ctrl-C again after the server stops, and asyncio.run cancels the command's task
    wherever its cleanup waits: the players' and camera's tasks still end and the table still closes (its shoe
    simulator's process was left running), and the cancellation goes on after."""
    steps: list[str] = []

    async def command() -> None:
        async def player() -> None:
            try:
                await asyncio.sleep(3600)
            finally:
                steps.append("players stopped")

        async def close() -> None:
            await asyncio.sleep(0.05)  # the shoe simulator's process takes a moment to end
            steps.append("table closed")

        players = asyncio.create_task(player())
        await asyncio.sleep(0)
        await _shut_down([players], close)

    async def main() -> None:
        task = asyncio.create_task(command())
        await asyncio.sleep(0.01)  # the cleanup is under way, waiting for the table to close
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert steps == ["players stopped", "table closed"]


def test_run_on_port_0_prints_the_port_it_serves_on(tmp_path: Path) -> None:
    """--port 0 (any free port) printed http://127.0.0.1:0/ for every screen: links that open nothing."""
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--data", str(tmp_path / "data"),
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        [start] = [line for line in _banner(proc) if "start page" in line]
        port = int(start.split("http://127.0.0.1:", 1)[1].split("/", 1)[0])
        assert port > 0
        deadline = time.monotonic() + 20
        while True:  # the link opens the table's start page
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
                    conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
                    assert conn.recv(12).startswith(b"HTTP/1.1 200")
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        code = _terminated(proc)  # stops the shoe simulator's process with it, a failed check or not
    assert code == 0


def test_run_says_at_start_when_the_journal_was_dealt_another_game(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The live table starts on a journal of hands at ante 1 with settings at ante 5: its banner says which game the
    journal's last hand was dealt with and which one new hands deal."""
    data = tmp_path / "data"
    assert main(["demo", "--hands", "2", "--seed", "2", "--players", "3", "--data", str(data)]) == 0
    capsys.readouterr()
    config = tmp_path / "table.json"
    config.write_text(json.dumps({"game": {"stakes": {"ante": 5, "small_bet": 2, "big_bet": 4, "cap": 4}}}))
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--data", str(data), "--port", "0",
                             "--config", str(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = _banner(proc)
    finally:
        code = _terminated(proc)
    assert code == 0
    [line] = [line for line in banner if line.startswith("  game:")]
    assert ("the journal's last hand (#2) was dealt as jackpots, fixed_limit, stakes {'ante': 1," in line
            and "; new hands deal jackpots, fixed_limit, stakes {'ante': 5," in line), line
