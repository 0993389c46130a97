"""The bridge and the simulator over real links: a pty opened by pyserial, socket://, ser2net's RFC 2217,
and a cable that garbles 1% of the bytes both ways."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest

from firmware_bridge.driver import ClientConfig, ShoeClient
from hardware_sim.shoe import ShoeSimulator, SimTimings, start_pty, start_tcp
from tests.firmware_bridge._support import FAST, Session, later, new_sim, session


async def deal_decks(s: Session, decks: int = 1) -> list[str | None]:
    """Shuffle and deal `decks` whole decks one card at a time; check each deck comes out exactly once. Returns
    every card; `s.cards` keeps the last deck, the one still out of the shoe."""
    everything: list[str | None] = []
    for _ in range(decks):
        await s.client.shuffle()
        s.cards.clear()  # the shuffle took the previous deck back
        deck = await s.deal(52)
        assert sorted(c or "?" for c in deck) == sorted({c or "?" for c in deck}) and len(deck) == 52
        everything += deck
    return everything


def _serve_and_deal(sim: ShoeSimulator, running_url: str) -> None:
    async def body(s: Session) -> None:
        info = s.client.info
        assert info is not None and info.model == "CT-SHOE-1" and info.version == 1
        await deal_decks(s)

    session(sim, body, client=ShoeClient(running_url, config=FAST), shuffle=False)


def test_through_a_real_pty_opened_by_pyserial() -> None:
    sim = new_sim()
    with start_pty(sim) as shoe:
        assert shoe.url.startswith("/dev/pts/")
        _serve_and_deal(sim, shoe.url)


def test_through_socket_url() -> None:
    sim = new_sim()
    with start_tcp(sim) as shoe:
        assert shoe.url.startswith("socket://127.0.0.1:")
        _serve_and_deal(sim, shoe.url)


def test_ten_decks_through_a_cable_garbling_one_percent_both_ways() -> None:
    sim = ShoeSimulator(seed=2026, timings=SimTimings.fast())
    sim.control.garble(0.01, direction="both", drop_share=0.5)  # half the hits drop a byte, half flip a bit
    cards: list[str | None] = []

    async def body(s: Session) -> None:
        cards.extend(await deal_decks(s, decks=10))
        sim.control.clean_line()

    # The in-memory cable has no baud rate: time out attempts as on a 1 Mbit/s line.
    config = replace(FAST, baudrate=1_000_000, turnaround=0.005)
    s = run_session_long(sim, body, config)
    assert len(cards) == 520
    for d in range(10):
        assert len(set(cards[d * 52:(d + 1) * 52])) == 52  # every card of each deck exactly once
    assert s.client.stats.garbled_frames > 50 and s.client.stats.retransmissions > 50


def run_session_long(sim: ShoeSimulator, body: Callable[[Session], Awaitable[object]],
                     config: ClientConfig) -> Session:
    """`session` with room for ten garbled decks (the default one-minute bound is for one deck)."""
    return session(sim, body, config=config, shuffle=False, settle_timeout=10, timeout=110)


def test_one_deck_through_a_garbling_pty() -> None:
    sim = new_sim(seed=3)
    with start_pty(sim) as shoe:
        sim.control.garble(0.01)

        async def body(s: Session) -> None:
            await deal_decks(s)
            sim.control.clean_line()

        session(sim, body, client=ShoeClient(shoe.url, config=FAST), shuffle=False)


def test_pty_vanishes_and_returns_under_the_same_name(tmp_path: Path) -> None:
    sim = new_sim()
    link = str(tmp_path / "ttyUSB-shoe")
    with start_pty(sim, link_path=link) as shoe:
        async def body(s: Session) -> None:
            await s.deal(3)
            sim.control.vanish()
            assert not Path(link).exists()
            back = later(0.4, sim.control.reappear)
            await s.deal(3)
            await back

        s = session(sim, body, client=ShoeClient(link, config=FAST))
        assert s.client.stats.reconnects >= 1
        assert shoe.tty_path.startswith("/dev/pts/")


def test_tcp_server_vanishes_and_returns() -> None:
    sim = new_sim()
    with start_tcp(sim) as shoe:
        async def body(s: Session) -> None:
            await s.deal()
            sim.control.vanish()
            back = later(0.3, sim.control.reappear)
            await s.deal()
            await back

        session(sim, body, client=ShoeClient(shoe.url, config=FAST))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.ser2net
@pytest.mark.filterwarnings("ignore:set(Daemon|Name)\\(\\) is deprecated:DeprecationWarning")  # inside pyserial
@pytest.mark.skipif(shutil.which("ser2net") is None, reason="ser2net is not installed (.ci/run installs it)")
def test_through_ser2net_rfc2217(tmp_path: Path) -> None:
    sim = new_sim()
    with start_pty(sim) as shoe:
        port = _free_port()
        config = tmp_path / "ser2net.yaml"
        config.write_text(
            "%YAML 1.1\n---\n"
            "connection: &shoe\n"
            f"    accepter: telnet(rfc2217),tcp,127.0.0.1,{port}\n"
            "    enable: on\n"
            "    options:\n"
            "      kickolduser: true\n"
            f"    connector: serialdev,{shoe.tty_path},115200n81,local\n", encoding="utf-8")
        proc = subprocess.Popen(["ser2net", "-n", "-d", "-c", str(config), "-P", str(tmp_path / "ser2net.pid")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        pytest.fail(f"ser2net did not start: {proc.stderr.read() if proc.stderr else b''!r}")
                    time.sleep(0.05)
            # A pty has no modem lines; ign_set_control tells pyserial not to wait for DTR/RTS answers.
            _serve_and_deal(sim, f"rfc2217://127.0.0.1:{port}?ign_set_control")
        finally:
            proc.terminate()
            try:
                proc.communicate(timeout=5)  # waits, and closes the pipe
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate(timeout=5)


def test_through_spy_url_which_logs_the_traffic(tmp_path: Path) -> None:
    sim = new_sim()
    log = tmp_path / "spy.txt"
    with start_pty(sim) as shoe:
        _serve_and_deal(sim, f"spy://{shoe.url}?file={log}")
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "TX" in text and "RX" in text  # pyserial's hexdump of both directions
