"""`cardtable vision calibrate-table`: fit, check and save a table calibration from a mark sheet."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from table_controller.cli._common import EXIT_OK, CliError, add_json_flag, print_json, set_handler


def register(vsub: Any) -> None:
    cal = vsub.add_parser("calibrate-table", help="make a table calibration (seat zones, homography) from a mark sheet")
    cal.add_argument("marks", metavar="MARKS", help="mark sheet JSON (docs/vision.md, 'Table calibration')")
    cal.add_argument("--out", required=True, metavar="FILE", help="table calibration JSON to write")
    cal.add_argument("--image", metavar="FRAME", help="the calibration frame: gives the image size and is checked "
                     "against the sheet's")
    cal.add_argument("--view", metavar="PATH", help="write the frame with zones and marks drawn (needs --image)")
    cal.add_argument("--max-error", type=float, default=None, metavar="MM",
                     help="refuse a mark further than this from the fit (default: 5 mm)")
    add_json_flag(cal)
    set_handler(cal, _calibrate_table)


def _calibrate_table(args: argparse.Namespace) -> int:
    import cv2

    from vision.calibration import DEFAULT_MAX_ERROR_MM, MarkSheet, draw_fit, fit_table
    from vision.errors import VisionError
    from vision.images import load_image

    if args.view and not args.image:
        raise CliError("--view needs --image (the frame to draw on)")
    max_error = DEFAULT_MAX_ERROR_MM if args.max_error is None else args.max_error
    if not max_error > 0:
        raise CliError("--max-error must be a positive number of millimetres")
    try:
        sheet = MarkSheet.load(args.marks)
        frame = load_image(args.image) if args.image else None
        size = None if frame is None else (int(frame.shape[1]), int(frame.shape[0]))
        fit = fit_table(sheet, image_size=size, max_error_mm=max_error)
    except VisionError as exc:
        raise CliError(exc.message, exit_code=exc.exit_code, code=exc.code) from exc
    try:
        fit.calibration.save(args.out)
    except OSError as exc:
        raise CliError(f"{args.out}: cannot write calibration ({exc.strerror})") from exc
    if frame is not None and args.view and not cv2.imwrite(args.view, draw_fit(frame, fit, sheet)):
        raise CliError(f"{args.view}: cannot write image")
    if args.json:
        print_json({"calibration": args.out, **fit.to_json()})
    else:
        note = "" if fit.checked else " (4 marks fit exactly: add marks to check them)"
        sys.stdout.write(f"wrote {args.out}: {len(fit.residuals)} marks, rms {fit.rms_mm:.2f} mm, worst "
                         f"{fit.worst.mark} {fit.worst.error_mm:.2f} mm{note}; zones: "
                         f"{', '.join(z.name for z in fit.calibration.zones) or '-'}\n")
    return EXIT_OK
