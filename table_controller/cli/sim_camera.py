"""`cardtable sim camera`: render simulated table-camera frames."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from table_controller.cli._common import EXIT_OK, CliError, add_json_flag, print_json, set_handler

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")
VIDEO_SUFFIXES = (".avi", ".mp4", ".mkv")
MAX_FRAMES = 100_000  # near three hours at 10 fps; more is a typo that fills the disk
MAX_FPS = 1000.0


def register(sub: Any) -> None:
    camera = sub.add_parser("camera", help="render simulated table-camera frames to a video or image files")
    camera.add_argument("--seed", type=int, metavar="S", help="seed the scene generator")
    camera.add_argument("--out", metavar="PATH", help="video file (.mp4/.avi/.mkv), one image file (.png/.jpg: one "
                        "frame) or a directory of PNG frames")
    camera.add_argument("--frames", type=int, metavar="N",
                        help="number of frames (default: 100; 1 for an image file)")
    camera.add_argument("--fps", type=float, default=10.0, metavar="F", help="frames per second (default: 10)")
    camera.add_argument("--calibration-out", metavar="FILE", help="also write the camera's table calibration JSON")
    add_json_flag(camera)
    set_handler(camera, _camera)


def _camera(args: argparse.Namespace) -> int:
    from hardware_sim.camera import SimCamera

    image = args.out is not None and Path(args.out).suffix.lower() in IMAGE_SUFFIXES
    if args.frames is None:
        args.frames = 1 if image else 100
    if args.frames < 1:
        raise CliError("--frames must be at least 1")
    if image and args.frames != 1:
        raise CliError(f"{args.out} is an image file: it holds one frame (use --frames 1, or a directory or a video "
                       f"for {args.frames})")
    if args.frames > MAX_FRAMES:
        raise CliError(f"--frames must be at most {MAX_FRAMES}, not {args.frames}")
    if not (math.isfinite(args.fps) and 0 < args.fps <= MAX_FPS):
        raise CliError(f"--fps must be more than 0 and at most {MAX_FPS:g}, not {args.fps!r}")
    if args.seed is not None and args.seed < 0:
        raise CliError(f"--seed must be 0 or more, not {args.seed}")
    if not args.out:
        raise CliError("--out is required: a .mp4/.avi file or a directory for PNG frames")
    folder = Path(args.out).absolute().parent
    if Path(args.out).suffix.lower() in IMAGE_SUFFIXES + VIDEO_SUFFIXES and not folder.is_dir():
        # OpenCV would say so in lines of its own on stderr before failing
        raise CliError(f"cannot write {args.out}: no folder {folder}")
    cam = SimCamera(seed=args.seed or 0, fps=args.fps)
    try:
        path = cam.write_video(args.out, args.frames)
        if args.calibration_out:
            cam.calibration().save(args.calibration_out)
    except OSError as exc:
        raise CliError(f"{args.out}: {exc}") from exc
    if args.json:
        print_json({"out": str(path), "frames": args.frames, "fps": args.fps, "seed": cam.seed})
    else:
        sys.stdout.write(f"wrote {args.frames} frame(s) to {path}\n")
    return EXIT_OK
