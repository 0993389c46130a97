"""Labels of photographs by whole-card box and rank (rank-only deck calibration, the real-photo benchmark).

A CSV file (`filename`, `class`, `xmin`, `ymin`, `xmax`, `ymax`; other columns ignored) or Pascal VOC XML (one
file per image, or a folder of them); a class is a rank word (`queen`) or a rank as printed (`10`, `Q`).
"""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vision.cards import RANK_WORDS, RANKS
from vision.errors import VisionInputError


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
