from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.images
from vision.calibration import TableCalibration, Zone
from vision.cards import ALL_CARDS, card_from_file_name, is_card
from vision.deck import DeckProfile
from vision.errors import VisionInputError
from vision.images import load_image
from vision.pipeline import Detection, Recognizer


def test_deck_has_52_distinct_codes() -> None:
    assert len(set(ALL_CARDS)) == 52 and all(is_card(c) for c in ALL_CARDS)


@pytest.mark.parametrize(("name", "code"), [("Qs.jpg", "Qs"), ("Th_2.png", "Th"), ("10d-front.png", "Td"),
                                            ("dir/2c.PNG", "2c"), ("as.jpg", "As")])
def test_card_code_from_file_name(name: str, code: str) -> None:
    assert card_from_file_name(name) == code


@pytest.mark.parametrize("name", ["queen.png", "Xs.jpg", "Qx.jpg", "Qsx.jpg", "1s.png"])
def test_bad_file_names_are_rejected(name: str) -> None:
    with pytest.raises(VisionInputError):
        card_from_file_name(name)


@pytest.mark.parametrize("content", [b"", b"not an image at all", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40,
                                     b"\xff\xd8\xff\xe0" + bytes(range(256)) * 3])
def test_garbled_files_are_typed_errors(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.jpg"
    path.write_bytes(content)
    with pytest.raises(VisionInputError):
        load_image(path)


def test_truncated_jpeg_is_an_error_or_an_image(tmp_path: Path) -> None:
    ok, buf = cv2.imencode(".jpg", np.full((200, 300, 3), 90, np.uint8))
    assert ok
    path = tmp_path / "cut.jpg"
    path.write_bytes(buf.tobytes()[: len(buf) // 3])
    try:
        img = load_image(path)
    except VisionInputError:
        return
    assert img.shape == (200, 300, 3)
    Recognizer().identify(img)


def _declaring(kind: str, width: int, height: int) -> bytes:
    """A small image file whose header declares `width` x `height` (as a decompression bomb's does)."""
    ok, buf = cv2.imencode(kind, np.full((40, 60, 3), 90, np.uint8))
    assert ok
    data = bytearray(buf.tobytes())
    if kind == ".png":
        data[16:24] = width.to_bytes(4, "big") + height.to_bytes(4, "big")
    else:
        sof = data.index(b"\xff\xc0")
        data[sof + 5:sof + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    return bytes(data)


@pytest.mark.parametrize("kind", [".png", ".jpg"])
def test_an_image_declaring_too_many_pixels_is_refused_before_decoding(tmp_path: Path, kind: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / f"bomb{kind}"
    path.write_bytes(_declaring(kind, 9000, 9000))

    def no_decoding(*args: object) -> None:
        raise AssertionError("decoded")

    monkeypatch.setattr(cv2, "imdecode", no_decoding)
    with pytest.raises(VisionInputError, match=r"too large \(9000x9000\)"):
        load_image(path)


def test_a_declared_size_within_bounds_decodes_as_before(tmp_path: Path) -> None:
    for kind in (".png", ".jpg"):
        path = tmp_path / f"small{kind}"
        path.write_bytes(_declaring(kind, 60, 40))
        assert load_image(path).shape == (40, 60, 3)


def test_huge_and_endless_inputs_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vision.images, "MAX_IMAGE_BYTES", 1000)
    monkeypatch.setattr(vision.images, "MAX_JSON_BYTES", 1000)
    big = tmp_path / "big.png"
    big.write_bytes(_declaring(".png", 60, 40) + b"\0" * 2000)
    with pytest.raises(VisionInputError, match=r"big\.png: image file larger than 1000 bytes"):
        load_image(big)
    profile = tmp_path / "profile.json"
    profile.write_text('{"name": "' + "x" * 2000 + '"}')
    with pytest.raises(VisionInputError, match=r"profile\.json: profile file larger than 1000 bytes"):
        DeckProfile.load(profile)
    if Path("/dev/zero").exists():  # a device never ends: it is read no further than the bound
        with pytest.raises(VisionInputError, match="larger than 1000 bytes"):
            load_image("/dev/zero")
        with pytest.raises(VisionInputError, match="larger than 1000 bytes"):
            TableCalibration.load("/dev/zero")


def test_deeply_nested_json_is_a_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(VisionInputError, match=r"deep\.json: profile file nested too deeply"):
        DeckProfile.load(path)
    with pytest.raises(VisionInputError, match=r"deep\.json: calibration file nested too deeply"):
        TableCalibration.load(path)


def test_missing_and_directory_inputs(tmp_path: Path) -> None:
    with pytest.raises(VisionInputError):
        load_image(tmp_path / "nope.png")
    with pytest.raises(VisionInputError):
        load_image(tmp_path)


@pytest.mark.parametrize("frame", [np.zeros((10, 10, 3), np.uint8), np.zeros((100, 100, 3), np.float32),
                                   np.zeros((100, 100, 5), np.uint8), "frame"])
def test_malformed_frames_are_typed_errors(frame: object) -> None:
    with pytest.raises(VisionInputError):
        Recognizer().identify(frame)


def test_blank_and_noise_frames_have_no_named_cards() -> None:
    rec = Recognizer()
    assert rec.identify(np.zeros((720, 1280, 3), np.uint8)) == []
    noise = np.random.default_rng(5).integers(0, 256, (360, 640, 3), dtype=np.uint8)
    assert all(d.card is None for d in rec.identify(noise))


def test_detection_refuses_a_named_back() -> None:
    with pytest.raises(ValueError, match="face-down"):
        Detection(card="As", face="down", confidence=0.9, corners=((0, 0), (1, 0), (1, 1), (0, 1)))


def test_table_calibration_round_trip(tmp_path: Path) -> None:
    zones = (Zone(name="seat 1", kind="seat", seat=1, polygon=((0, 0), (100, 0), (100, 50), (0, 50))),
             Zone(name="pot", kind="pot", polygon=((0, 60), (100, 60), (100, 120), (0, 120))))
    cal = TableCalibration.from_points([(10, 10), (410, 10), (410, 250), (10, 250)],
                                       [(0, 0), (200, 0), (200, 120), (0, 120)], zones, (640, 360))
    assert cal.to_table(210, 130) == pytest.approx((100, 60), abs=1e-6)
    zone = cal.zone_at(60, 40)
    assert zone is not None and zone.seat == 1
    assert cal.zone_at(600, 300) is None
    path = tmp_path / "table.json"
    cal.save(path)
    assert TableCalibration.load(path) == cal


@pytest.mark.parametrize("text", ["{", "[]", '{"format": "cardtable-table-calibration", "version": 1}',
                                  '{"format": "cardtable-table-calibration", "version": 1, "image_size": [1, 1], '
                                  '"homography": [[0,0,0],[0,0,0],[0,0,0]], "zones": []}'])
def test_broken_calibration_files(tmp_path: Path, text: str) -> None:
    path = tmp_path / "table.json"
    path.write_text(text)
    with pytest.raises(VisionInputError):
        TableCalibration.load(path)


def _with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an EXIF block (big-endian TIFF, one IFD entry) giving its orientation, as a phone writes it."""
    tiff = b"MM\x00*" + struct.pack(">IH", 8, 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + b"\0" * 4
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def test_a_phone_photo_is_turned_as_its_exif_says(tmp_path: Path) -> None:
    """A phone's portrait photo stored sideways with EXIF orientation 6 (turn 90 degrees clockwise) is read upright,
    so the corners reported are where a viewer shows the cards; the same photo without the tag is read as stored."""
    stored = np.zeros((60, 100, 3), np.uint8)
    stored[:, :20] = 255  # a white band along the stored image's left edge
    ok, buf = cv2.imencode(".jpg", stored)
    assert ok
    plain, turned = tmp_path / "plain.jpg", tmp_path / "turned.jpg"
    plain.write_bytes(buf.tobytes())
    turned.write_bytes(_with_orientation(buf.tobytes(), 6))
    assert load_image(plain).shape == (60, 100, 3)
    upright = load_image(turned)
    assert upright.shape == (100, 60, 3)
    assert upright[:20].mean() > 200 and upright[30:].mean() < 30  # the band is now along the top
