"""`cardtable vision calibrate-table` and `vision.calibration`: fit a table calibration from a mark sheet,
refuse wrong marks, and agree with the simulated camera's exact calibration."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from hardware_sim.camera import TableScene, render_with_truth
from table_controller.cli import main
from vision.calibration import MarkSheet, TableCalibration, fit_table
from vision.errors import VisionInputError

ROOT = Path(__file__).resolve().parents[2]
# Six marks spread over the felt, in table millimetres (the felt of the simulator is 800 x 450 mm).
TABLE_MARKS = [(40.0, 40.0), (760.0, 40.0), (760.0, 410.0), (40.0, 410.0), (400.0, 120.0), (250.0, 330.0)]


def _sheet_from_camera(seed: int = 3, *, jitter: float = 0.4) -> tuple[dict[str, Any], Any]:
    """A mark sheet as a technician would write it from the simulator's frame: pixel positions read to within
    `jitter` pixels of where the camera truly sees each mark."""
    frame = render_with_truth(TableScene.dealt({1: [("As", True)]}), seed)
    truth = frame.calibration
    rng = np.random.default_rng(seed)
    marks = []
    for k, (tx, ty) in enumerate(TABLE_MARKS):
        ix, iy = truth.to_image(tx, ty)
        dx, dy = rng.uniform(-jitter, jitter, 2)
        marks.append({"name": f"m{k + 1}", "image": [ix + dx, iy + dy], "table": [tx, ty]})
    zones = [{"name": z.name, "kind": z.kind, "seat": z.seat, "polygon": [list(p) for p in z.polygon]}
             for z in truth.zones]
    sheet = {"format": "cardtable-table-marks", "version": 1,
             "image_size": list(truth.image_size), "marks": marks, "zones": zones}
    return sheet, frame


def test_fit_matches_the_cameras_exact_calibration() -> None:
    sheet, frame = _sheet_from_camera()
    fit = fit_table(MarkSheet.from_json(sheet))
    truth = frame.calibration
    assert fit.checked and fit.worst.error_mm < 1.5
    for x, y in ((100, 100), (640, 360), (1200, 650)):
        got, want = fit.calibration.to_table(x, y), truth.to_table(x, y)
        assert abs(got[0] - want[0]) < 2.0 and abs(got[1] - want[1]) < 2.0
    for zone in truth.zones:  # every zone's centre, seen in the frame, falls in the same zone
        cx, cy = np.mean(zone.polygon, axis=0)
        found = fit.calibration.zone_at(*truth.to_image(float(cx), float(cy)))
        assert found is not None and found.name == zone.name


def test_a_misread_mark_is_refused_by_name() -> None:
    sheet, _ = _sheet_from_camera()
    sheet["marks"][4]["image"][0] += 40  # the technician read the wrong pixel for m5
    with pytest.raises(VisionInputError, match=r"^m5: .* mm from where the other marks put it"):
        fit_table(MarkSheet.from_json(sheet))
    # A looser limit accepts it, and the residual says how far off it is.
    fit = fit_table(MarkSheet.from_json(sheet), max_error_mm=1000)
    assert fit.worst.mark == "m5" and fit.worst.error_mm > 5


def test_four_marks_fit_exactly_and_say_they_are_unchecked() -> None:
    sheet, _ = _sheet_from_camera()
    sheet["marks"] = sheet["marks"][:4]
    fit = fit_table(MarkSheet.from_json(sheet))
    assert not fit.checked and fit.worst.error_mm < 1e-3


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s.update(format="other"), "not a cardtable-table-marks"),
    (lambda s: s.pop("marks"), "broken mark sheet: KeyError"),
    (lambda s: s["marks"][0].update(image=[1, "x"]), "broken mark sheet: ValueError"),
    (lambda s: s["marks"][0].update(image=[float("nan"), 3]), "not a finite point"),
    (lambda s: s["marks"][1].update(name="m1"), "mark names must be unique"),
    (lambda s: s.update(marks=s["marks"][:3]), "need at least 4 marks"),
    (lambda s: s["marks"][0].update(image=[5000, 10]), "outside the 1280x720 frame"),
    (lambda s: s.update(marks=[{"name": f"k{i}", "image": [100 + 50 * i, 100 + 20 * i],
                                "table": [10.0 * i, 4.0 * i]} for i in range(5)]), "lie on one line"),
    (lambda s: s["zones"][0].update(polygon=[[-900, 0], [0, 0], [0, 50]]), "falls outside the frame"),
    (lambda s: s["zones"][0].update(kind="bar"), "kind must be seat, pot or discard"),
    (lambda s: s.update(image_size=[0, 720]), "image_size must be two positive integers"),
])
def test_broken_sheets_get_a_typed_error(change: Any, message: str) -> None:
    sheet, _ = _sheet_from_camera()
    change(sheet)
    with pytest.raises(VisionInputError, match=re.escape(message)):
        fit_table(MarkSheet.from_json(sheet))


def test_cli_writes_a_calibration_that_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet, frame = _sheet_from_camera()
    sheet.pop("image_size")  # the frame gives it
    marks, image, out, view = tmp_path / "marks.json", tmp_path / "frame.png", tmp_path / "t.json", tmp_path / "v.png"
    marks.write_text(json.dumps(sheet))
    cv2.imwrite(str(image), frame.image)
    code = main(["vision", "calibrate-table", str(marks), "--out", str(out), "--image", str(image),
                 "--view", str(view), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["marks"] == 6 and report["checked"] and report["max_mm"] < 1.5
    assert set(report["residuals"]) == {f"m{k}" for k in range(1, 7)}
    cal = TableCalibration.load(out)
    assert cal.image_size == (1280, 720) and [z.name for z in cal.zones] == [z.name for z in frame.calibration.zones]
    drawn = cv2.imread(str(view))
    assert drawn is not None
    assert drawn.shape == frame.image.shape and not np.array_equal(drawn, frame.image)


def test_cli_refuses_a_bad_mark_in_one_line_and_writes_nothing(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    sheet, _ = _sheet_from_camera()
    sheet["marks"][2]["table"][1] += 60
    marks, out = tmp_path / "marks.json", tmp_path / "t.json"
    marks.write_text(json.dumps(sheet))
    code = main(["vision", "calibrate-table", str(marks), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert err.count("\n") == 1 and "m3:" in err


def test_cli_frame_size_must_match_the_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet, frame = _sheet_from_camera()
    marks, image = tmp_path / "marks.json", tmp_path / "small.png"
    marks.write_text(json.dumps(sheet))
    cv2.imwrite(str(image), cv2.resize(frame.image, (640, 360)))
    code = main(["vision", "calibrate-table", str(marks), "--out", str(tmp_path / "t.json"), "--image", str(image)])
    assert code == 2 and "the frame is 640x360 but the mark sheet says 1280x720" in capsys.readouterr().err


def test_docs_mark_sheet_example_fits_the_docs_calibration() -> None:
    text = (ROOT / "docs" / "vision.md").read_text()
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    calibration = next(TableCalibration.from_json(b) for b in blocks
                       if b.get("format") == "cardtable-table-calibration")
    sheet = next(MarkSheet.from_json(b) for b in blocks if b.get("format") == "cardtable-table-marks")
    fit = fit_table(sheet)
    assert fit.checked and fit.worst.error_mm < 0.5
    np.testing.assert_allclose(np.array(fit.calibration.homography), np.array(calibration.homography), atol=1e-3)
    assert fit.calibration.zones == calibration.zones


def test_a_calibration_file_reads_zones_as_a_mark_sheet_does(tmp_path: Path) -> None:
    """A table calibration's zones are read as a mark sheet's are: a point that is not two finite numbers is a
    typed error naming the fault, not a zone that contains nothing."""
    _, frame = _sheet_from_camera()
    data = frame.calibration.to_json()
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data))
    assert TableCalibration.load(path) == frame.calibration
    for bad in ([float("nan"), 3.0], [1.0, 2.0, 3.0]):
        data["zones"][0]["polygon"][0] = bad
        path.write_text(json.dumps(data))
        with pytest.raises(VisionInputError, match="broken table calibration: ValueError"):
            TableCalibration.load(path)
