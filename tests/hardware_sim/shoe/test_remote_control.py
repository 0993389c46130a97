"""The simulator's fault control over a socket (`hardware_sim.shoe.remote`, `cardtable sim shoe --control`)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware_bridge.driver import ShoeClient
from firmware_bridge.errors import DeviceFaultError
from hardware_sim.shoe import ShoeSimulator, SimTimings, start_pty
from hardware_sim.shoe.remote import CALLS, RemoteControl, RemoteControlError, answer, serve_control

DOC = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"


def _sim() -> ShoeSimulator:
    return ShoeSimulator(seed=5, timings=SimTimings.fast())


@pytest.mark.parametrize(("line", "code"), [
    (b"not json\n", "bad_request"),
    (b'{"args": {}}\n', "bad_request"),
    (b'{"call": 3}\n', "bad_request"),
    (b'{"call": "jam_next", "args": [1]}\n', "bad_request"),
    (b'{"call": "deck_order"}\n', "unknown_call"),
    (b'{"call": "jam_next", "args": {"recover": true}}\n', "bad_args"),
    (b'{"call": "garble", "args": {"rate": 0.1, "direction": "sideways"}}\n', "bad_args"),
    (b'{"call": "drop_frames", "args": {"count": 2, "direction": "both"}}\n', "bad_args"),
    (b"[" * 60_000 + b"]" * 60_000 + b"\n", "bad_request"),  # was a RecursionError: the handler died
    (b'{"call": "flood", "args": {"pairs": 2147483648}}\n', "bad_args"),  # was a thread that never answered
    (b'{"call": "junk_burst", "args": {"length": 100000000000000000000}}\n', "bad_args"),
])
def test_bad_requests_get_a_typed_answer_and_change_nothing(line: bytes, code: str) -> None:
    sim = _sim()
    def snapshot() -> tuple[object, ...]:
        return sim.control.cards_in_shoe(), sim.control.state(), repr(vars(sim.device.plans)), repr(sim.line.faults)

    before = snapshot()
    reply = answer(sim.control, {}, line)
    assert reply["ok"] is False and reply["error"]["code"] == code
    assert snapshot() == before


def test_no_call_reveals_the_order_of_the_cards_in_the_shoe() -> None:
    sim = _sim()
    sim.process(1.0)
    undealt = [sim.device.shoe[k].face for k in range(len(sim.device.shoe))]
    for name in ("state", "door_open", "cards_in_shoe", "cards_out"):
        result = answer(sim.control, {}, json.dumps({"call": name}).encode())["result"]
        assert not (isinstance(result, list) and len(result) > 1 and result == undealt)
    assert not {"load_deck", "shoe", "deck", "cards_in_order"} & set(CALLS)


def test_faults_over_the_socket_reach_the_device_a_client_drives() -> None:
    sim = _sim()
    control = serve_control(sim)
    remote = RemoteControl(control.url)
    try:
        with start_pty(sim) as shoe:
            async def body() -> list[str | None]:
                async with ShoeClient(shoe.url) as client:
                    await client.shuffle()
                    cards = [(await client.deal_one()).card for _ in range(2)]
                    remote.call("jam_next", recovers=False)
                    with pytest.raises(DeviceFaultError, match="JAM"):
                        await client.deal_one()
                    assert remote.call("state") == "FAULT"
                    return cards

            cards = asyncio.run(body())
        assert remote.call("cards_out") == cards
        assert remote.call("cards_in_shoe") == 50
        remote.call("open_door")
        assert remote.call("door_open") is True
        with pytest.raises(RemoteControlError) as err:
            remote.call("no_such_fault")
        assert err.value.code == "unknown_call"
    finally:
        remote.close()
        control.stop()
    with pytest.raises(RemoteControlError) as gone:
        RemoteControl(control.url, timeout=1).call("state")
    assert gone.value.code == "unreachable"


def test_the_docs_exchange_is_what_the_server_answers() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Simulator control"):text.index("### Command line")]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None
    lines = block.group(1).splitlines()
    sim = _sim()
    for _ in range(100):  # booted and self-tested
        sim.process(0.05)
    for ask, want in zip(lines[::2], lines[1::2], strict=True):
        assert ask.startswith("> ") and want.startswith("< ")
        got = answer(sim.control, {}, ask[2:].encode())
        expected = json.loads(want[2:])
        if expected["ok"]:
            assert got == expected
        else:
            assert got["error"]["code"] == expected["error"]["code"]


def test_cardtable_sim_shoe_with_control(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "sim", "shoe", "--pty", "--fast",
                             "--seed", "3", "--control", "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        tty = proc.stdout.readline().strip()
        second = proc.stdout.readline().strip()
        assert tty.startswith("/dev/pts/") and second.startswith("control tcp://127.0.0.1:")
        remote = RemoteControl(second.split()[1])
        deadline = time.monotonic() + 10
        while remote.call("state") != "IDLE" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert remote.call("state") == "IDLE" and remote.call("cards_in_shoe") == 52
        remote.close()
        with socket.create_connection(("127.0.0.1", int(second.rsplit(":", 1)[1]))) as raw:
            raw.sendall(b"x" * (70 * 1024) + b"\n")  # an endless line is refused, not buffered for ever
            assert b'"bad_request"' in raw.makefile("rb").readline()
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # waits, and closes the pipes


def test_bad_control_port_is_one_line_exit_2() -> None:
    done = subprocess.run([sys.executable, "-m", "table_controller.cli", "sim", "shoe", "--pty", "--control",
                           "70000"], check=False, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--control 70000 is not a TCP port" in done.stderr
