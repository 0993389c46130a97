"""`cardtable sim camera`: render simulated table-camera frames."""

from __future__ import annotations

from typing import Any

from table_controller.cli._common import set_handler, unavailable


def register(sub: Any) -> None:
    camera = sub.add_parser("camera", help="render simulated table-camera frames to a video or image files")
    camera.add_argument("--seed", type=int, metavar="S", help="seed the scene generator")
    camera.add_argument("--out", metavar="PATH", help="video file (.mp4/.avi) or directory of PNG frames")
    camera.add_argument("--frames", type=int, default=100, metavar="N", help="number of frames (default: 100)")
    set_handler(camera, unavailable("cardtable sim camera"))
