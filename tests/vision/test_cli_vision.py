"""`cardtable vision ...` and `cardtable sim camera`: JSON lines, one-line errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from hardware_sim.camera import PlacedCard, RenderOptions, TableScene, procedural_faces, render
from table_controller.cli import main
from vision.profile import DeckProfile


def _scene_image(tmp_path: Path) -> Path:
    scene = TableScene(cards=(PlacedCard(card="7d", x=250, y=200, angle=20),
                              PlacedCard(card="Kc", x=500, y=250, angle=-30, face_up=False)))
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), render(scene, 11, RenderOptions(blur=0.3, noise=1.0, glare=0.0)))
    return path


def test_identify_json_one_line_per_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _scene_image(tmp_path)
    bad = tmp_path / "garbled.jpg"
    bad.write_bytes(b"\xff\xd8\xff garbage")
    code = main(["vision", "identify", str(good), str(bad), "--json"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 2 and len(lines) == 2
    first, second = (json.loads(x) for x in lines)
    assert first["image"] == str(good) and first["ms"] >= 0
    faces = sorted((c["face"], c["card"]) for c in first["cards"])
    assert faces in ([("down", None), ("up", "7d")], [("down", None), ("up", None)])
    assert all(len(c["corners"]) == 4 and 0 <= c["confidence"] <= 1 for c in first["cards"])
    assert second["image"] == str(bad) and "error" in second


def test_identify_garbled_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    assert main(["vision", "identify", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error:" in err[0]


def test_identify_with_broken_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prof = tmp_path / "p.npz"
    prof.write_bytes(b"PK\x03\x04 broken")
    assert main(["vision", "identify", str(_scene_image(tmp_path)), "--profile", str(prof)]) == 2
    assert "deck profile" in capsys.readouterr().err


def test_calibrate_deck_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    faces = procedural_faces(1)
    paths = []
    for code in ("As", "Td", "7c", "Qh"):
        p = tmp_path / f"{code}_1.png"
        cv2.imwrite(str(p), faces.face(code))
        paths.append(str(p))
    out = tmp_path / "deck.npz"
    assert main(["vision", "calibrate-deck", "--out", str(out), "--no-default", *paths]) == 0
    profile = DeckProfile.load(out)
    assert sorted(set(profile.ranks.labels)) == ["7", "A", "Q", "T"]
    assert sorted(set(profile.suits.labels)) == ["c", "d", "h", "s"]
    capsys.readouterr()


def test_calibrate_deck_rejects_unnamed_and_blank_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blank = tmp_path / "As.png"
    cv2.imwrite(str(blank), procedural_faces(0).face("As")[:, :, :] * 0 + 240)
    assert main(["vision", "calibrate-deck", "--out", str(tmp_path / "d.npz"), str(blank)]) == 2
    named = tmp_path / "card.png"
    cv2.imwrite(str(named), procedural_faces(0).face("As"))
    assert main(["vision", "calibrate-deck", "--out", str(tmp_path / "d.npz"), str(named)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 2


def test_watch_sim_prints_events(capsys: pytest.CaptureFixture[str]) -> None:
    # The demo script exposes seat 5's last card at t = 3 s; start the camera just before.
    assert main(["vision", "watch", "sim:0", "--frames", "3", "--json"]) == 0
    capsys.readouterr()
    assert main(["vision", "watch", "no-such-file.mp4"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_sim_camera_writes_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "frames"
    assert main(["sim", "camera", "--seed", "3", "--frames", "2", "--out", str(out), "--json"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["frame_00000.png", "frame_00001.png"]
    assert json.loads(capsys.readouterr().out)["frames"] == 2
    assert main(["sim", "camera", "--frames", "0", "--out", str(out)]) == 2


def test_identify_with_two_workers_gives_the_same_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = str(_scene_image(tmp_path))
    assert main(["vision", "identify", image, "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main(["vision", "identify", image, image, "--json", "--workers", "2"]) == 0
    both = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert [b["cards"] for b in both] == [alone["cards"], alone["cards"]]
    with pytest.raises(SystemExit) as usage:
        main(["vision", "identify", image, "--workers", "3"])
    assert usage.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_watch_sim_with_two_workers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "watch", "sim:0", "--frames", "3", "--json"]) == 0
    alone = capsys.readouterr().out
    assert main(["vision", "watch", "sim:0", "--frames", "3", "--json", "--workers", "2"]) == 0
    assert capsys.readouterr().out == alone
