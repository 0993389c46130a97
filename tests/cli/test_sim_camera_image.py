"""`sim camera --out x.png` writes one image file (not a folder named x.png); `python -m bench.native --help`
prints its help instead of building."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from table_controller.cli import main


def test_sim_camera_writes_one_image_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.png"
    assert main(["sim", "camera", "--seed", "3", "--out", str(out)]) == 0
    assert out.is_file()
    image = cv2.imread(str(out))
    assert image is not None and image.shape[0] > 100 and image.shape[1] > 100
    assert "wrote 1 frame(s)" in capsys.readouterr().out
    assert main(["sim", "camera", "--frames", "5", "--out", str(tmp_path / "y.jpg")]) == 2
    err = capsys.readouterr().err
    assert "holds one frame" in err and err.count("\n") == 1
    assert not (tmp_path / "y.jpg").exists()


def test_bench_native_help_does_not_build(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "bench.native", "--help"], cwd=root, capture_output=True, text=True,
                          check=False,
                          timeout=60)
    assert done.returncode == 0 and "usage: python -m bench.native" in done.stdout
    assert done.stderr == ""


def test_bench_native_bad_flag_is_one_line_exit_2() -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "bench.native", "--bogus"], cwd=root, capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("python -m bench.native: error: unrecognized arguments: --bogus "
                           "(see 'python -m bench.native --help')\n")
