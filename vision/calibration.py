"""Table calibration: where the seat zones, the pot and the discard area are, and the homography from image pixels
to table millimetres, saved as JSON; made from a mark sheet by `fit_table`, which refuses a mark far from where the
others put it (docs/vision.md, "Table calibration").
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionInputError
from vision.images import read_json_file
from vision.rectify import holds

FORMAT = "cardtable-table-calibration"
VERSION = 1
MARKS_FORMAT = "cardtable-table-marks"
MARKS_VERSION = 1
# A card is 63 mm wide; a mark off by more than this would shift a zone edge by a noticeable share of a card.
DEFAULT_MAX_ERROR_MM = 5.0
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
        return holds(self.polygon, (x, y))


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


@dataclass(frozen=True, kw_only=True)
class Mark:
    name: str
    image: Point  # pixels in the calibration frame
    table: Point  # millimetres on the table


@dataclass(frozen=True, kw_only=True)
class MarkSheet:
    image_size: tuple[int, int] | None
    marks: tuple[Mark, ...]
    zones: tuple[Zone, ...]

    @classmethod
    def from_json(cls, data: Any) -> MarkSheet:
        if not isinstance(data, dict) or data.get("format") != MARKS_FORMAT or data.get("version") != MARKS_VERSION:
            raise VisionInputError(f"not a {MARKS_FORMAT} version {MARKS_VERSION} document")
        try:
            marks = tuple(
                Mark(name=str(m.get("name", f"mark {k + 1}")), image=point_of(m["image"]), table=point_of(m["table"]))
                for k, m in enumerate(data["marks"]))
            zones = tuple(Zone.from_json(z) for z in data["zones"])
            size = data.get("image_size")
            image_size = None if size is None else (int(size[0]), int(size[1]))
        except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
            raise VisionInputError(f"broken mark sheet: {type(exc).__name__}: {exc}") from exc
        if image_size is not None and min(image_size) <= 0:
            raise VisionInputError("broken mark sheet: image_size must be two positive integers")
        names = [m.name for m in marks]
        if len(set(names)) != len(names):
            raise VisionInputError("broken mark sheet: mark names must be unique")
        return cls(image_size=image_size, marks=marks, zones=zones)

    @classmethod
    def load(cls, path: str | Path) -> MarkSheet:
        return cls.from_json(read_json_file(path, "mark sheet"))


@dataclass(frozen=True, kw_only=True)
class Residual:
    mark: str
    error_mm: float


@dataclass(frozen=True, kw_only=True)
class TableFit:
    calibration: TableCalibration
    residuals: tuple[Residual, ...]
    checked: bool  # False with exactly four marks: an exact fit that cannot reveal a wrong mark

    @property
    def rms_mm(self) -> float:
        return float(np.sqrt(np.mean([r.error_mm ** 2 for r in self.residuals])))

    @property
    def worst(self) -> Residual:
        return max(self.residuals, key=lambda r: r.error_mm)

    def to_json(self) -> dict[str, Any]:
        return {"marks": len(self.residuals), "checked": self.checked, "rms_mm": round(self.rms_mm, 2),
                "max_mm": round(self.worst.error_mm, 2),
                "residuals": {r.mark: round(r.error_mm, 2) for r in self.residuals},
                "zones": [z.name for z in self.calibration.zones],
                "card_size_px": [round(v, 1) for v in self.calibration.card_size_px()]}


def fit_table(sheet: MarkSheet, *, image_size: tuple[int, int] | None = None,
              max_error_mm: float = DEFAULT_MAX_ERROR_MM) -> TableFit:
    """Fit and check the homography of `sheet`; `image_size` (from a frame) overrides or confirms the sheet's."""
    size = image_size or sheet.image_size
    if size is None:
        raise VisionInputError("the mark sheet has no image_size: give it, or the calibration frame")
    if image_size is not None and sheet.image_size is not None and image_size != sheet.image_size:
        raise VisionInputError(f"the frame is {image_size[0]}x{image_size[1]} but the mark sheet says "
                               f"{sheet.image_size[0]}x{sheet.image_size[1]}")
    if len(sheet.marks) > 16:
        raise VisionInputError(f"at most 16 marks (the sheet has {len(sheet.marks)}): six to ten are plenty")
    if len(sheet.marks) < 4:
        raise VisionInputError(f"need at least 4 marks (6 or more to check them), the sheet has {len(sheet.marks)}")
    for mark in sheet.marks:
        x, y = mark.image
        if not (0 <= x < size[0] and 0 <= y < size[1]):
            raise VisionInputError(
                f"{mark.name}: pixel position ({x:g}, {y:g}) is outside the {size[0]}x{size[1]} frame")
    if _collinear(np.array([m.table for m in sheet.marks])) or _collinear(np.array([m.image for m in sheet.marks])):
        raise VisionInputError("the marks lie on one line: spread them over the table")
    if len(sheet.marks) > 4:
        # each mark against the others' consensus: a least-squares fit a bad mark pulled can make a good one look worst
        consensus = _consensus(sheet.marks, max_error_mm)
        errors = {m.name: math.dist(project(consensus, m.image), m.table) for m in sheet.marks}
        bad = max(sheet.marks, key=lambda m: errors[m.name])
        if errors[bad.name] > max_error_mm:
            raise VisionInputError(
                f"{bad.name}: {errors[bad.name]:.1f} mm from where the other marks put it (limit "
                f"{max_error_mm:g} mm): check its pixel and table positions")
    calibration = TableCalibration.from_points([m.image for m in sheet.marks], [m.table for m in sheet.marks],
                                               sheet.zones, size)
    residuals = tuple(Residual(mark=m.name, error_mm=math.dist(calibration.to_table(*m.image), m.table))
                      for m in sheet.marks)
    for zone in sheet.zones:
        for tx, ty in zone.polygon:
            ix, iy = calibration.to_image(tx, ty)
            if not (0 <= ix <= size[0] and 0 <= iy <= size[1]):
                raise VisionInputError(f"zone {zone.name!r}: its corner ({tx:g}, {ty:g}) mm falls outside the frame")
    return TableFit(calibration=calibration, residuals=residuals, checked=len(sheet.marks) > 4)


def draw_fit(frame: npt.NDArray[np.uint8], fit: TableFit, sheet: MarkSheet) -> npt.NDArray[np.uint8]:
    """The calibration frame with the zones (as the fit maps them) and each mark with its residual."""
    from vision.tracking import annotate

    view = annotate(frame, [], fit.calibration)
    errors = {r.mark: r.error_mm for r in fit.residuals}
    for mark in sheet.marks:
        x, y = (round(v) for v in mark.image)
        cv2.drawMarker(view, (x, y), (255, 0, 255), cv2.MARKER_CROSS, 14, 2)
        cv2.putText(view, f"{mark.name} {errors[mark.name]:.1f}mm", (x + 6, y - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (255, 0, 255), 1, cv2.LINE_AA)
    return view


def _consensus(marks: Sequence[Mark], tolerance_mm: float) -> npt.NDArray[np.float64]:
    """The homography of the four marks that most other marks agree with (within `tolerance_mm`; ties: the smaller
    total disagreement), over every four marks: no luck in the verdict, and a sheet has a handful of marks."""
    image = np.array([m.image for m in marks], dtype=np.float32)
    table = np.array([m.table for m in marks], dtype=np.float64)
    fits: list[tuple[tuple[int, float], npt.NDArray[np.float64]]] = []  # (inliers, -their disagreement), homography
    for four in itertools.combinations(range(len(marks)), 4):
        idx = list(four)
        if _collinear(table[idx]) or _collinear(image[idx].astype(np.float64)):
            continue
        h = cv2.getPerspectiveTransform(image[idx], table[idx].astype(np.float32)).astype(np.float64)
        projected = cv2.perspectiveTransform(image.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)
        errors = np.hypot(*(projected - table).T)
        inliers = errors <= tolerance_mm
        fits.append(((int(inliers.sum()), -float(errors[inliers].sum())), h))
    if not fits:
        raise VisionInputError("no four marks span the table: spread them out")
    return max(fits, key=lambda fit: fit[0])[1]


def _collinear(points: npt.NDArray[np.float64]) -> bool:
    centred = points - points.mean(axis=0)
    singular = np.linalg.svd(centred, compute_uv=False)
    # Nearly collinear marks leave the fit free to tilt about their line: ask for a real spread.
    return bool(singular[-1] <= 0.05 * max(float(singular[0]), 1e-9))
