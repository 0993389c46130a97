"""`cardtable bench`'s report: the machine, the date and the commit, then one table per area with our
figure, the reference systems' and the goal side by side."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from bench._report import BenchRow, to_markdown
from table_controller.cli import bench as bench_cli
from table_controller.cli import main

ROWS = [
    BenchRow(area="engine", metric="hands/s", system="pokerkit", value=900.0, unit="hands/s", note="their note"),
    BenchRow(area="engine", metric="hands/s", system="cardtable", value=8100.0, unit="hands/s"),
    BenchRow(area="engine", metric="speed-up", system="goal (issue 3)", value=10.0, unit="x"),
    BenchRow(area="engine", metric="speed-up", system="cardtable", value=9.0, unit="x", note="best of 3"),
    BenchRow(area="vision", metric="wrong", system="cardtable", value=0.25, unit="%"),
    BenchRow(area="vision", metric="wrong", system="goal", value=0.5, unit="% (at most)"),
    BenchRow(area="vision", metric="real photos", system="cardtable", value=float("nan"), unit="",
             note="data set absent"),
]


def _table(text: str, area: str) -> list[list[str]]:
    lines = text.split(f"## {area}\n\n", 1)[1].splitlines()
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_one_table_per_area_with_ours_first_and_the_goal_last() -> None:
    text = to_markdown(ROWS)
    assert text.count("## ") == 2
    engine = _table(text, "engine")
    assert engine[0] == ["metric", "unit", "**cardtable**", "pokerkit", "goal (issue 3)"]
    assert engine[2] == ["hands/s", "hands/s", "8,100", "900", ""]
    assert engine[3] == ["speed-up", "x", "9.00", "", "10.00"]
    assert "- hands/s, pokerkit: their note" in text and "- speed-up, cardtable: best of 3" in text


def test_a_goal_in_another_unit_says_so_and_a_missing_figure_is_n_a() -> None:
    vision = _table(to_markdown(ROWS), "vision")
    assert vision[2] == ["wrong", "%", "0.25", "0.5 % (at most)"]
    assert vision[3] == ["real photos", "", "n/a", ""]


def test_the_command_writes_the_report_with_machine_date_and_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    stand_in = types.ModuleType("bench.stand_in")
    stand_in.run = lambda quick: [row for row in ROWS if row.area == "engine" and quick]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench.stand_in", stand_in)
    monkeypatch.setattr(bench_cli, "BENCH_MODULES", ("bench.stand_in",))
    out = tmp_path / "benchmarks.md"
    assert main(["bench", "--quick", "--out", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    assert written == capsys.readouterr().out
    header = written.split("## engine", 1)[0]
    assert header.startswith("# Benchmarks\n")
    for field in ("- Machine: ", "- Date: ", "- Commit: "):
        assert field in header
    assert "cardtable bench --quick --out" in header and "cores" in header
    assert _table(written, "engine")[2][2] == "8,100"


def test_a_failing_benchmark_is_a_row_and_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def broken(quick: bool) -> list[BenchRow]:
        raise RuntimeError("no camera")

    stand_in = types.ModuleType("bench.stand_in")
    stand_in.run = broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench.stand_in", stand_in)
    monkeypatch.setattr(bench_cli, "BENCH_MODULES", ("bench.stand_in",))
    assert main(["bench", "--quick"]) == 1
    assert "RuntimeError: no camera" in capsys.readouterr().out


def test_an_unwritable_out_file_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    stand_in = types.ModuleType("bench.stand_in")
    stand_in.run = lambda quick: ROWS[:2]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench.stand_in", stand_in)
    monkeypatch.setattr(bench_cli, "BENCH_MODULES", ("bench.stand_in",))
    assert main(["bench", "--quick", "--out", str(tmp_path / "missing" / "b.md")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "cannot write" in err  # refused before any benchmark ran


def test_a_photograph_s_name_of_an_unlabelled_card_is_wrong_and_counted_apart(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from bench.vision import _rows, held_out_photos
    from vision.pipeline import Detection

    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((64, 64, 3), 200, np.uint8))
    (tmp_path / "labels.csv").write_text(
        "filename,width,height,card,xmin,ymin,xmax,ymax,box_kind,suspect,group\n"
        "a.jpg,64,64,Qs,4,4,12,14,index,0,g\n", encoding="utf-8")

    def at(card: str, x: float) -> Detection:
        return Detection(card=card, face="up", confidence=0.99,
                         corners=((x, 0.0), (x + 20, 0.0), (x + 20, 30.0), (x, 30.0)))

    class Seen:  # the labelled queen named over its index, and a card the labels skip
        def identify(self, image: object) -> list[Detection]:
            return [at("Qs", 0.0), at("2c", 40.0)]

    score = held_out_photos(Seen(), tmp_path, ("g",))  # type: ignore[arg-type]
    assert (score.right, score.wrong, score.unlabelled, score.unknown, score.missed) == (1, 1, 1, 0, 0)
    assert "1 of the wrong name a card not labelled in its photograph" in _rows("photos", score)[0].note


def test_a_card_labelled_with_the_wrong_suit_is_scored_as_the_card_it_is(tmp_path: Path) -> None:
    """A photograph in the errata: the three of hearts its labels call a spade, named a heart, is right."""
    import cv2
    import numpy as np

    from bench.vision import held_out_photos
    from vision.pipeline import Detection
    from vision.trainset import label_errata

    (name, labelled), actual = next((k, v) for k, v in label_errata().items() if k[1] == "3s")
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / name), np.full((64, 64, 3), 200, np.uint8))
    (tmp_path / "labels.csv").write_text(
        "filename,width,height,card,xmin,ymin,xmax,ymax,box_kind,suspect,group\n"
        f"{name},64,64,{labelled},4,4,12,14,index,0,g\n{name},64,64,{labelled},44,44,52,54,index,0,g\n",
        encoding="utf-8")

    class Reads:  # names the card over both its index boxes
        def __init__(self, card: str) -> None:
            self.card = card

        def identify(self, image: object) -> list[Detection]:
            return [Detection(card=self.card, face="up", confidence=0.99,
                              corners=((0.0, 0.0), (60.0, 0.0), (60.0, 60.0), (0.0, 60.0)))]

    score = held_out_photos(Reads(actual), tmp_path, ("g",))  # type: ignore[arg-type]
    assert (score.right, score.wrong, score.unlabelled) == (1, 0, 0)
    score = held_out_photos(Reads(labelled), tmp_path, ("g",))  # type: ignore[arg-type]
    assert (score.right, score.wrong) == (0, 2)  # the label's card: wrong at the boxes, and a card not labelled


def test_fans_are_rendered_on_the_surface_asked_for() -> None:
    import numpy as np

    from bench.vision import fanned
    from hardware_sim.camera import procedural_faces
    from vision.pipeline import Detection

    class Lightness:  # names nothing; keeps each frame's mean grey level
        def __init__(self) -> None:
            self.means: list[float] = []

        def identify(self, image: np.ndarray) -> list[Detection]:
            self.means.append(float(image.mean()))
            return []

    faces = procedural_faces(0)
    on_felt_or_wood, on_desk = Lightness(), Lightness()
    fanned(on_felt_or_wood, faces, range(2))  # type: ignore[arg-type]
    score, _ = fanned(on_desk, faces, range(2), "desk")  # type: ignore[arg-type]
    assert min(on_desk.means) > max(on_felt_or_wood.means) + 50  # a light desk, not felt or wood
    assert score.right == 0 and score.missed > 0


def test_a_card_under_a_neighbour_named_right_is_wrong_and_counted_apart(tmp_path: Path) -> None:
    """A fanned card not named whose index lies under its neighbour's outline (the neighbour named right at its own
    index) counts as wrong, and apart as covered; a card whose index a misnamed detection holds does not."""
    import cv2
    import numpy as np

    from bench.vision import _rows, held_out_photos
    from vision.pipeline import Detection

    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((64, 64, 3), 200, np.uint8))
    (tmp_path / "labels.csv").write_text(
        "filename,width,height,card,xmin,ymin,xmax,ymax,box_kind,suspect,group\n"
        "a.jpg,64,64,Qs,4,4,12,14,index,0,g\n"
        "a.jpg,64,64,7h,14,4,18,14,index,0,g\n"
        "a.jpg,64,64,9d,44,4,52,14,index,0,g\n", encoding="utf-8")

    def at(card: str, x: float) -> Detection:
        return Detection(card=card, face="up", confidence=0.99,
                         corners=((x, 0.0), (x + 20, 0.0), (x + 20, 30.0), (x, 30.0)))

    class Fan:  # the queen's outline over the seven's index; the nine misnamed as the eight
        def identify(self, image: object) -> list[Detection]:
            return [at("Qs", 0.0), at("8d", 40.0)]

    score = held_out_photos(Fan(), tmp_path, ("g",))  # type: ignore[arg-type]
    assert (score.right, score.wrong, score.covered, score.unlabelled) == (1, 3, 1, 1)
    assert "1 under a neighbour named right" in score.line()
    assert "1 of the wrong are cards not named whose index lies under a neighbour" in _rows("photos", score)[0].note


def test_bench_only_an_unknown_area_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """It ran nothing, printed an empty report and exited 0."""
    assert main(["bench", "--quick", "--only", "evaluatr"]) == 2
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line == "cardtable: error: --only evaluatr is not a benchmark area: evaluator, engine, serial, vision, stack"
    assert captured.out == ""


def test_bench_out_a_directory_is_refused_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--quick", "--only", "nothing-here", "--out", str(tmp_path)]) == 2
    assert main(["bench", "--quick", "--only", "serial", "--out", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == f"cardtable: error: cannot write {tmp_path}: it is a directory"
    assert "bench: running" not in captured.err
