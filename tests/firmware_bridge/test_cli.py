"""`cardtable sim shoe` and `cardtable shoe ...`: first line, JSON per card, exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from hardware_sim.shoe import PhysicalCard, standard_deck, start_tcp
from table_controller.cli import main
from tests.firmware_bridge._support import new_sim


def test_sim_shoe_pty_prints_the_path_first_and_serves(capsys: pytest.CaptureFixture[str]) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "sim", "shoe", "--pty", "--fast",
                             "--seed", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        assert path.startswith("/dev/pts/")
        assert main(["shoe", "shuffle", "--port", path]) == 0
        assert main(["shoe", "deal", "--count", "3", "--port", path, "--json"]) == 0
        out = capsys.readouterr().out.strip().splitlines()
        assert out[0] == "shuffled 52 cards"
        cards = [json.loads(line) for line in out[1:]]
        assert len(cards) == 3 and len({c["card"] for c in cards}) == 3
        assert [c["left"] for c in cards] == [51, 50, 49]
        assert main(["shoe", "status", "--port", path, "--json"]) == 0
        status = json.loads(capsys.readouterr().out)
        assert status["cards_in_shoe"] == 49 and status["state"] == "READY"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)  # waits, and closes the pipes
    assert proc.returncode == 0


def test_sim_shoe_tcp_prints_the_url_first() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "sim", "shoe", "--tcp", "0", "--fast"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("socket://127.0.0.1:") and not url.endswith(":0")
        assert main(["shoe", "status", "--port", url]) == 0
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)  # waits, and closes the pipes


def test_verify_exit_1_on_a_bad_deck(capsys: pytest.CaptureFixture[str]) -> None:
    sim = new_sim()
    deck = [*standard_deck()[1:], PhysicalCard(face=51)]
    sim.control.load_deck(deck)
    with start_tcp(sim) as shoe:
        assert main(["shoe", "verify", "--port", shoe.url, "--json"]) == 1
        result = json.loads(capsys.readouterr().out)
        assert result == {"ok": False, "count": 52, "unreadable": 0, "missing": ["2c"], "duplicate": ["As"],
                          "extra": []}
        assert main(["shoe", "verify", "--port", shoe.url]) == 1
        assert capsys.readouterr().out.startswith("deck FAILS")


def test_refusal_is_a_finding(capsys: pytest.CaptureFixture[str]) -> None:
    with start_tcp(new_sim()) as shoe:
        assert main(["shoe", "deal", "--port", shoe.url]) == 1  # not shuffled yet
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "NOT_SHUFFLED" in err[0]


@pytest.mark.parametrize("argv", [
    ["shoe", "status", "--port", "/dev/no-such-shoe"],
    ["shoe", "status", "--port", "socket://127.0.0.1:1"],
    ["shoe", "status", "--port", "nonsense://x"],
    ["shoe", "deal", "--count", "0", "--port", "loop://"],
    ["shoe", "status", "--port", "loop://", "--timeout", "0.3"],  # a loopback echoes: no shoe answers
], ids=["no device", "refused", "bad url", "bad count", "nobody answers"])
def test_bad_input_or_unreachable_port_exit_2_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cardtable: error:")


def test_json_error_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe", "status", "--port", "/dev/no-such-shoe", "--json"]) == 2
    obj = json.loads(capsys.readouterr().out)
    assert obj["error"]["code"] == "port"


@pytest.mark.parametrize("url", ["socket://127.0.0.1:99999", "socket://", "socket://127.0.0.1", "rfc2217://[::1",
                                 "socket://:8000", "socket://127.0.0.1:port"])
def test_a_network_url_without_host_and_port_is_named_plainly(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe", "status", "--port", url, "--timeout", "3"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    scheme = url.partition(":")[0]
    assert line == f"cardtable: error: cannot open {url}: expected {scheme}://HOST:PORT with a port from 1 to 65535"
