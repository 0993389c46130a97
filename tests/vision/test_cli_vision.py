"""`cardtable vision ...` and `cardtable sim camera`: JSON lines, one-line errors, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from hardware_sim.camera import PlacedCard, RenderOptions, TableScene, render
from table_controller.cli import main
from vision.deck import DeckProfile


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
    assert faces == [("down", None), ("up", "7d")]
    assert all(len(c["corners"]) == 4 and 0 <= c["confidence"] <= 1 for c in first["cards"])
    assert second["image"] == str(bad) and "error" in second


def test_identify_garbled_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    assert main(["vision", "identify", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error:" in err[0]


def test_identify_with_broken_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = str(_scene_image(tmp_path))
    prof = tmp_path / "p.json"
    for content in (b"PK\x03\x04 broken", b'{"format": "cardtable-deck-profile", "version": 1}',
                    b'{"format": "cardtable-deck-profile", "version": 2, "name": "x", "model": "0", '
                    b'"prototypes": {"As": [1.0]}}',
                    b'{"format": "cardtable-deck-profile", "version": 3, "name": "x", "model": "0", '
                    b'"prototypes": {"As": [1.0]}, "floors": {"Kh": 0.5}}',
                    b'{"format": "cardtable-deck-profile", "version": 3, "name": "x", "model": "0", '
                    b'"prototypes": {"As": [1.0]}, "floors": {"As": 0.5}}',
                    b'{"format": "cardtable-deck-profile", "version": 4, "name": "x", "model": "0", '
                    b'"prototypes": {"As": [1.0], "Zz": [1.0]}}'):
        prof.write_bytes(content)
        assert main(["vision", "identify", image, "--profile", str(prof)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and ("p.json" in err[0] or "another model" in err[0]), err
    assert main(["vision", "identify", image, "--profile", str(tmp_path / "none.json")]) == 2
    assert "none.json: no such profile file" in capsys.readouterr().err
    prof.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["vision", "identify", image, "--profile", str(prof)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "p.json: profile file nested too deeply" in err[0], err


def _table_photo(path: Path, *cards: str, seed: int = 0) -> str:
    """A table camera's photo: the cards lying apart on the felt, small in a 960 x 540 frame."""
    placed = tuple(PlacedCard(card=c, x=300 + 200 * i, y=220, angle=15.0 + 30 * i) for i, c in enumerate(cards))
    cv2.imwrite(str(path), render(TableScene(cards=placed), seed, RenderOptions(width=960, height=540, glare=0.0)))
    return str(path)


def test_calibrate_deck_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [_table_photo(tmp_path / name, code, seed=i) for i, (name, code) in enumerate(
        (("As.png", "As"), ("10_of_diamonds.png", "Td"), ("7c.jpg", "7c"), ("queen_of_hearts.png", "Qh")))]
    out = tmp_path / "deck.json"
    assert main(["vision", "calibrate-deck", "--out", str(out), *paths, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cards"] == ["7c", "As", "Qh", "Td"]
    profile = DeckProfile.load(out)
    assert sorted(profile.keys) == ["7c", "As", "Qh", "Td"]
    table = _table_photo(tmp_path / "table.png", "Qh", "7c", seed=9)
    assert main(["vision", "identify", table, "--profile", str(out), "--json"]) == 0
    cards = sorted(c["card"] for c in json.loads(capsys.readouterr().out)["cards"] if c["card"])
    assert cards == ["7c", "Qh"]


def test_calibrate_deck_rejects_bad_photos(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.json"
    out.write_text("kept\n")
    felt = tmp_path / "As.png"
    cv2.imwrite(str(felt), render(TableScene(cards=()), 3, RenderOptions(width=960, height=540, glare=0.0)))
    two = _table_photo(tmp_path / "Kd.png", "Kd", "2s")
    unnamed = _table_photo(tmp_path / "card.png", "As")
    for photo, says in ((str(felt), "no card"), (two, "more than one card"), (unnamed, "card code")):
        assert main(["vision", "calibrate-deck", "--out", str(out), photo]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and says in err[0] and Path(photo).name in err[0], err
    assert out.read_text() == "kept\n"  # nothing written half-way, nothing overwritten
    assert main(["vision", "calibrate-deck", "--out", str(tmp_path / "no" / "such" / "dir.json"),
                 _table_photo(tmp_path / "9c.jpg", "9c")]) == 2
    assert "cannot write profile" in capsys.readouterr().err


def test_watch_sim_prints_events(capsys: pytest.CaptureFixture[str]) -> None:
    # The demo script exposes seat 5's last card at t = 3 s; start the camera just before.
    assert main(["vision", "watch", "sim:0", "--frames", "3", "--json"]) == 0
    capsys.readouterr()
    assert main(["vision", "watch", "no-such-file.mp4"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_watch_an_unreachable_stream_is_one_line(capfd: pytest.CaptureFixture[str]) -> None:
    # port 9 on this machine refuses the connection; FFmpeg's own log line would be a second line on stderr
    assert main(["vision", "watch", "http://127.0.0.1:9/table.mjpg", "--frames", "1"]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot open video source" in err[0], err


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


def test_identify_two_workers_keeps_the_images_order_and_errors(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    image = str(_scene_image(tmp_path))
    garbled = tmp_path / "garbled.jpg"
    garbled.write_bytes(b"\xff\xd8 not really a jpeg")
    assert main(["vision", "identify", image, str(garbled), image, "--json", "--workers", "2"]) == 2
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert [line["image"] for line in lines] == [image, str(garbled), image]
    assert "error" in lines[1] and lines[0]["cards"] == lines[2]["cards"]


def test_calibrate_deck_no_default_names_only_the_learnt_cards(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    paths = [_table_photo(tmp_path / f"{code}.png", code, seed=i) for i, code in enumerate(("As", "Td", "7c", "Qh"))]
    table = _table_photo(tmp_path / "table.png", "Qh", "Kd", "7c", seed=9)
    named = {}
    for flag in ([], ["--no-default"]):
        out = tmp_path / f"deck{len(flag)}.json"
        assert main(["vision", "calibrate-deck", "--out", str(out), *paths, *flag]) == 0
        assert DeckProfile.load(out).default is not bool(flag)
        capsys.readouterr()
        assert main(["vision", "identify", table, "--profile", str(out), "--json"]) == 0
        named[bool(flag)] = sorted(c["card"] for c in json.loads(capsys.readouterr().out)["cards"] if c["card"])
    assert named[False] == ["7c", "Kd", "Qh"]  # the built-in reader still names the card the profile lacks
    assert named[True] == ["7c", "Qh"]
