"""Reading the files vision is given: anything unreadable is a typed error, never a crash.

Images, JSON documents, and labels of photographs by whole-card box and rank (rank-only deck calibration, the
real-photo benchmark): a CSV file (`filename`, `class`, `xmin`, `ymin`, `xmax`, `ymax`; other columns ignored) or
Pascal VOC XML (one file per image, or a folder of them); a class is a rank word (`queen`) or as printed (`10`, `Q`).
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cards import RANK_WORDS, RANKS
from vision.errors import VisionInputError
from vision.rectify import Image

MAX_PIXELS = 40_000_000
MAX_IMAGE_BYTES = 200_000_000  # an image file larger than this holds no frame or photograph
MAX_JSON_BYTES = 16_000_000  # a profile, calibration or mark sheet is a few hundred kilobytes


def read_at_most(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of a file (or a device: it is read no further than `limit`), refused when there are more."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError as exc:
        raise VisionInputError(f"{path}: no such {what}") from exc
    except OSError as exc:  # a folder, no permission, a read error
        raise VisionInputError(f"{path}: cannot read ({type(exc).__name__})") from exc
    if len(data) > limit:
        raise VisionInputError(f"{path}: {what} larger than {limit} bytes")
    return data


def _declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) as a PNG's or a JPEG's header declares it: a small file can declare a huge image, which is
    refused before it is decoded. None for other formats (OpenCV bounds those)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    at = 2
    while data[:2] == b"\xff\xd8" and at + 9 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xFF:  # a fill byte before the marker
            at += 1
        elif 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            return int.from_bytes(data[at + 7:at + 9], "big"), int.from_bytes(data[at + 5:at + 7], "big")
        else:
            at += 2 + int.from_bytes(data[at + 2:at + 4], "big")
    return None


def load_image(path: str | Path, *, paper_background: bool = False) -> Image:
    """A BGR image from a file, a JPEG turned upright as its EXIF orientation says (the corners reported are where a
    viewer shows the cards). Transparent pixels become white paper when `paper_background` (face images with a
    transparent card body), else black."""
    raw = read_at_most(path, MAX_IMAGE_BYTES, "image file")
    if not raw:
        raise VisionInputError(f"{path}: empty file")
    size = _declared_size(raw)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise VisionInputError(f"{path}: image too large ({size[0]}x{size[1]})")
    data = np.frombuffer(raw, np.uint8)
    # other files are taken as stored, with their alpha channel
    flags = cv2.IMREAD_COLOR if data[:3].tobytes() == b"\xff\xd8\xff" else cv2.IMREAD_UNCHANGED
    try:
        img = cv2.imdecode(data, flags)
    except cv2.error as exc:
        raise VisionInputError(f"{path}: not a readable image") from exc
    if img is None or img.size == 0:
        raise VisionInputError(f"{path}: not a readable image (garbled or unsupported format)")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.dtype != np.uint8:
        img = cv2.convertScaleAbs(img, alpha=255.0 / max(float(img.max()), 1.0))
    if img.shape[2] == 4:
        alpha = img[:, :, 3:4].astype(np.float32) / 255.0
        back = 248.0 if paper_background else 0.0
        img = (img[:, :, :3].astype(np.float32) * alpha + back * (1 - alpha)).astype(np.uint8)
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise VisionInputError(f"{path}: image too large ({img.shape[1]}x{img.shape[0]})")
    if img.shape[0] < 32 or img.shape[1] < 32:
        raise VisionInputError(f"{path}: image too small ({img.shape[1]}x{img.shape[0]})")
    return np.ascontiguousarray(img, dtype=np.uint8)


def read_json_file(path: str | Path, what: str) -> Any:
    """The JSON document in `path`; a missing, unreadable, huge or too deeply nested file is the caller's
    `VisionInputError`."""
    raw = read_at_most(path, MAX_JSON_BYTES, what)
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # not UTF-8, not JSON, or an integer past Python's digit limit
        raise VisionInputError(f"{path}: unreadable {what} ({type(exc).__name__})") from exc
    except RecursionError:
        raise VisionInputError(f"{path}: {what} nested too deeply") from None


@dataclass(frozen=True, kw_only=True)
class LabelledCard:
    rank: str
    box: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax in image pixels


def rank_from_label(label: str) -> str:
    key = label.strip().lower()
    rank = RANK_WORDS.get(key, key.upper())
    if len(rank) != 1 or rank not in RANKS:
        raise VisionInputError(f"not a rank label: {label!r}")
    return rank


def read_labels(path: str | Path) -> dict[str, list[LabelledCard]]:
    """Labels by image file name (no folder): a CSV file, a VOC XML file or a folder of VOC XML files."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.xml"))
        if not files:
            raise VisionInputError(f"{path}: no VOC .xml label files in this folder")
        out: dict[str, list[LabelledCard]] = {}
        for f in files:
            for name, cards in _read_voc(f).items():
                out.setdefault(name, []).extend(cards)
        return out
    if not p.is_file():
        raise VisionInputError(f"{path}: no such label file")
    return _read_voc(p) if p.suffix.lower() == ".xml" else _read_csv(p)


def _box(values: Sequence[str], where: str) -> tuple[float, float, float, float]:
    try:
        x0, y0, x1, y1 = (float(v) for v in values)
    except (TypeError, ValueError) as exc:
        raise VisionInputError(f"{where}: box is not four numbers") from exc
    if not (x1 > x0 and y1 > y0):
        raise VisionInputError(f"{where}: empty box")
    return x0, y0, x1, y1


def _read_csv(path: Path) -> dict[str, list[LabelledCard]]:
    out: dict[str, list[LabelledCard]] = {}
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            need = {"filename", "class", "xmin", "ymin", "xmax", "ymax"}
            if reader.fieldnames is None or not need <= set(reader.fieldnames):
                raise VisionInputError(f"{path}: a label CSV needs the columns {', '.join(sorted(need))}")
            for line, row in enumerate(reader, start=2):
                rank = rank_from_label(row["class"] or "")
                box = _box([row["xmin"], row["ymin"], row["xmax"], row["ymax"]], f"{path}:{line}")
                out.setdefault(Path(row["filename"]).name, []).append(LabelledCard(rank=rank, box=box))
    except UnicodeDecodeError as exc:
        raise VisionInputError(f"{path}: not a text CSV file") from exc
    return out


def _read_voc(path: Path) -> dict[str, list[LabelledCard]]:
    # Python's expat refuses entity-expansion bombs; the files are small and local anyway.
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise VisionInputError(f"{path}: not a VOC XML label file ({exc})") from exc
    name = root.findtext("filename")
    if not name:
        raise VisionInputError(f"{path}: VOC label file without <filename>")
    cards = []
    for obj in root.iter("object"):
        box = obj.find("bndbox")
        if box is None:
            raise VisionInputError(f"{path}: <object> without <bndbox>")
        cards.append(LabelledCard(rank=rank_from_label(obj.findtext("name") or ""),
                                  box=_box([box.findtext(k) or "" for k in ("xmin", "ymin", "xmax", "ymax")],
                                           str(path))))
    return {Path(name).name: cards}
