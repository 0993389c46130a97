"""docs/protocol.md's examples are true: every frame decodes and re-encodes to the same bytes, the check
value is right, and the Python example runs."""

from __future__ import annotations

import re
from pathlib import Path

from firmware_bridge.crc import crc32
from firmware_bridge.frames import Frame, decode_frame, frame_bytes
from firmware_bridge.messages import CardDealt, Command, CommandBody, ReplyBody, Result

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_example_frames_decode_and_reencode() -> None:
    frames = []
    for block in _blocks("frame"):
        wire = bytes.fromhex(block)
        frame = decode_frame(wire[1:-1])
        assert frame_bytes(frame) == wire
        frames.append(frame)
    assert len(frames) == 4
    command, reply, event, ack = frames
    assert command.body == CommandBody(command=Command.DEAL_ONE) and command.corr == 42 and command.ack == 5
    assert isinstance(reply.body, ReplyBody) and reply.body.result is Result.IN_PROGRESS and reply.corr == 42
    assert isinstance(event.body, CardDealt) and event.body.code == "Qs" and event.body.left == 47
    assert event.seq == 6 and event.body.cmd == 42 and ack.ack == 6
    assert all(f.session == 0x1234ABCD for f in frames)
    assert isinstance(command, Frame)


def test_documented_check_value() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "`0xCBF43926`" in text and crc32(b"123456789") == 0xCBF43926


def test_python_example_runs() -> None:
    (example,) = _blocks("python")
    exec(compile(example, str(DOC), "exec"), {"__name__": "protocol_doc_example"})
