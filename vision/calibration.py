"""Table calibration: where the seat zones, the pot and the discard area are, and the homography
from image pixels to table millimetres. Saved as JSON (see docs/vision.md, "Table calibration")."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from vision.errors import VisionInputError
from vision.images import read_json_file

FORMAT = "cardtable-table-calibration"
VERSION = 1
ZoneKind = Literal["seat", "pot", "discard"]
Point = tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class Zone:
    name: str
    kind: ZoneKind
    polygon: tuple[Point, ...]  # table millimetres
    seat: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("seat", "pot", "discard"):
            raise VisionInputError(f"zone {self.name!r}: kind must be seat, pot or discard")
        if (self.kind == "seat") != (self.seat is not None):
            raise VisionInputError(f"zone {self.name!r}: a seat zone, and only a seat zone, has a seat number")
        if len(self.polygon) < 3:
            raise VisionInputError(f"zone {self.name!r}: polygon needs at least 3 points")

    @classmethod
    def from_json(cls, z: Any) -> Zone:
        return cls(name=str(z["name"]), kind=z["kind"], seat=None if z.get("seat") is None else int(z["seat"]),
                   polygon=tuple(point_of(p) for p in z["polygon"]))

    def contains(self, x: float, y: float) -> bool:
        poly = np.array(self.polygon, dtype=np.float32).reshape(-1, 1, 2)
        return float(cv2.pointPolygonTest(poly, (float(x), float(y)), False)) >= 0


@dataclass(frozen=True, kw_only=True)
class TableCalibration:
    image_size: tuple[int, int]  # (width, height) of the camera frames it was made for
    homography: tuple[tuple[float, ...], ...]  # 3 x 3, image pixels -> table millimetres
    zones: tuple[Zone, ...]

    def __post_init__(self) -> None:
        h = np.array(self.homography, dtype=np.float64)
        if h.shape != (3, 3) or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
            raise VisionInputError("homography must be an invertible 3 x 3 matrix")
        names = [z.name for z in self.zones]
        if len(set(names)) != len(names):
            raise VisionInputError("zone names must be unique")

    @classmethod
    def from_points(cls, image_points: Sequence[Point], table_points: Sequence[Point], zones: Sequence[Zone],
                    image_size: tuple[int, int]) -> TableCalibration:
        """Calibrate from 4 or more marks seen at `image_points` whose table positions are `table_points`."""
        if len(image_points) != len(table_points) or len(image_points) < 4:
            raise VisionInputError("need the same number (at least 4) of image and table points")
        m, _ = cv2.findHomography(np.array(image_points, np.float64), np.array(table_points, np.float64), 0)
        if m is None:
            raise VisionInputError("the points do not define a homography (are three of them on one line?)")
        homography = tuple(tuple(float(v) for v in row) for row in m / m[2, 2])
        return cls(image_size=image_size, homography=homography, zones=tuple(zones))

    def to_table(self, x: float, y: float) -> Point:
        return project(self.homography, (x, y))

    def to_image(self, x: float, y: float) -> Point:
        return project(np.linalg.inv(np.array(self.homography, dtype=np.float64)), (x, y))

    def zone_at(self, x: float, y: float) -> Zone | None:
        """The zone under image point (x, y), if any."""
        tx, ty = self.to_table(x, y)
        return next((zone for zone in self.zones if zone.contains(tx, ty)), None)

    def card_size_px(self) -> tuple[float, float]:
        """(short, long) side in pixels of a poker card (63 x 88 mm) lying at the middle of the zones (or image)."""
        if self.zones:
            pts = np.array([p for z in self.zones for p in z.polygon], dtype=np.float64)
            cx, cy = (pts.min(axis=0) + pts.max(axis=0)) / 2
        else:
            cx, cy = self.to_table(self.image_size[0] / 2, self.image_size[1] / 2)
        w, h = 63.0, 88.0
        corners = [self.to_image(cx + dx, cy + dy) for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2))]
        a, b = math.dist(corners[0], corners[1]), math.dist(corners[1], corners[2])
        return min(a, b), max(a, b)

    def seat_zones(self) -> list[Zone]:
        return [z for z in self.zones if z.kind == "seat"]

    def to_json(self) -> dict[str, Any]:
        zones = [{"name": z.name, "kind": z.kind, "seat": z.seat, "polygon": [list(p) for p in z.polygon]}
                 for z in self.zones]
        return {"format": FORMAT, "version": VERSION, "image_size": list(self.image_size),
                "homography": [list(r) for r in self.homography], "zones": zones}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any) -> TableCalibration:
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
            raise VisionInputError(f"not a {FORMAT} version {VERSION} document")
        try:
            zones = tuple(Zone.from_json(z) for z in data["zones"])
            w, h = data["image_size"]
            hom = tuple(tuple(float(v) for v in row) for row in data["homography"])
            return cls(image_size=(int(w), int(h)), homography=hom, zones=zones)
        except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
            raise VisionInputError(f"broken table calibration: {type(exc).__name__}: {exc}") from exc

    @classmethod
    def load(cls, path: str | Path) -> TableCalibration:
        return cls.from_json(read_json_file(path, "calibration file"))


def project(h: Any, point: Point) -> Point:
    """`point` mapped by the 3 x 3 homography `h`."""
    v = np.asarray(h, dtype=np.float64) @ np.array([point[0], point[1], 1.0])
    return float(v[0] / v[2]), float(v[1] / v[2])


def point_of(value: Any) -> Point:
    """An (x, y) pair of finite numbers from a JSON document; anything else is a ValueError."""
    x, y = value
    point = (float(x), float(y))
    if not all(np.isfinite(point)):
        raise ValueError(f"not a finite point: {value!r}")
    return point
