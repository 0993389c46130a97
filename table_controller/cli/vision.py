"""`cardtable vision`: identify cards in images, learn a deck, watch a camera."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from table_controller.cli import vision_table
from table_controller.cli._common import EXIT_OK, EXIT_USAGE, CliError, Parser, add_json_flag, print_json, set_handler

if TYPE_CHECKING:
    from vision.pipeline import Detection, Recognizer


def register(sub: Any) -> None:
    vision = sub.add_parser("vision", help="identify cards in images, calibrate a deck, watch a camera")
    vsub = vision.add_subparsers(dest="vision_command", metavar="ACTION", parser_class=Parser)
    identify = vsub.add_parser("identify", help="find and read the cards in images")
    identify.add_argument("images", nargs="+", metavar="IMAGE", help="image files")
    identify.add_argument("--profile", metavar="FILE", help="deck profile from calibrate-deck (default: built-in)")
    identify.add_argument("--workers", type=int, choices=(1, 2), default=1,
                          help="images worked on at once, in threads (default: 1)")
    add_json_flag(identify)
    set_handler(identify, _identify)
    cal = vsub.add_parser("calibrate-deck", help="build a deck profile from one image of each card")
    cal.add_argument("--out", required=True, metavar="PROFILE", help="profile file to write")
    cal.add_argument("images", nargs="+", metavar="IMAGE", help="one face-up card per image, named like Qs.jpg")
    cal.add_argument("--name", default="calibrated", help="the deck's name, stored in the profile")
    cal.add_argument("--no-default", action="store_true",
                     help="name only the cards (or, with --labels, the ranks) learnt from these images; by default "
                          "the built-in reader still names the others")
    cal.add_argument("--labels", metavar="FILE",
                     help="rank-only calibration: the images are photographs labelled by card box and rank in "
                          "this CSV or Pascal VOC XML file (or folder of XML files); see docs/vision.md")
    add_json_flag(cal)
    set_handler(cal, _calibrate_deck)
    watch = vsub.add_parser("watch", help="live card events from a camera source")
    watch.add_argument("source", metavar="SOURCE", help="device index, video file, stream URL or 'sim'")
    watch.add_argument("--profile", metavar="FILE", help="deck profile (default: built-in)")
    watch.add_argument("--workers", type=int, choices=(1, 2), default=1,
                       help="2: the next frame is read while this one is tracked (default: 1)")
    watch.add_argument("--calibration", metavar="FILE", help="table calibration JSON (the simulator knows its own)")
    watch.add_argument("--frames", type=int, metavar="N", help="stop after N frames")
    watch.add_argument("--window", type=int, default=5, metavar="N", help="frames per vote (default: 5)")
    watch.add_argument("--votes", type=int, default=3, metavar="K", help="votes needed to decide (default: 3)")
    watch.add_argument("--save-view", metavar="PATH", help="write the last annotated frame to this image file")
    add_json_flag(watch)
    set_handler(watch, _watch)
    vision_table.register(vsub)


def _vision_error(exc: Exception) -> CliError:
    code = getattr(exc, "code", "vision")
    return CliError(str(getattr(exc, "message", exc)), exit_code=int(getattr(exc, "exit_code", EXIT_USAGE)),
                    code=str(code))


def _load_profile(path: str | None) -> Any:
    from vision.deck import DeckProfile
    from vision.errors import VisionError

    if path is None:
        return None
    try:
        return DeckProfile.load(path)
    except VisionError as exc:
        raise _vision_error(exc) from exc


def _recognizer(profile_path: str | None, workers: int) -> Recognizer:
    from vision.errors import VisionError
    from vision.pipeline import Recognizer

    try:
        return Recognizer(_load_profile(profile_path), workers=workers)
    except VisionError as exc:
        raise _vision_error(exc) from exc


def _identify(args: argparse.Namespace) -> int:
    with _recognizer(args.profile, args.workers) as recognizer:
        return _identify_each(args, recognizer)


def _identify_each(args: argparse.Namespace, recognizer: Recognizer) -> int:
    from vision.errors import VisionError
    from vision.images import load_image

    def seen(path: str) -> tuple[str, list[Detection] | VisionError, float]:
        try:
            image = load_image(path)
            start = time.perf_counter()
            detections = recognizer.identify(image)
            return path, detections, (time.perf_counter() - start) * 1000.0
        except VisionError as exc:
            return path, exc, 0.0

    status = EXIT_OK
    for path, detections, ms in recognizer.in_order(seen, args.images):
        if isinstance(detections, VisionError):
            exc = detections
            status = EXIT_USAGE
            if args.json:
                print_json({"image": path, "error": {"code": exc.code, "message": exc.message}})
            else:
                sys.stderr.write(f"cardtable: error: {exc.message}\n")
            continue
        if args.json:
            print_json({"image": path, "cards": [d.to_json() for d in detections], "ms": round(ms, 1)})
        else:
            names = [d.card or ("?" if d.face == "up" else "down") for d in detections]
            sys.stdout.write(f"{path}: {len(detections)} card(s): {' '.join(names) or '-'} ({ms:.1f} ms)\n")
    return status


def _write_profile(profile: Any, out: str) -> None:
    try:
        profile.save(out)
    except OSError as exc:
        raise CliError(f"{out}: cannot write profile ({exc.strerror})") from exc


def _calibrate_deck(args: argparse.Namespace) -> int:
    from vision.deck import calibrate_deck
    from vision.errors import VisionError

    if args.labels is not None:
        return _calibrate_ranks(args)
    try:
        profile = calibrate_deck(args.images, name=args.name, default=not args.no_default)
    except VisionError as exc:
        raise _vision_error(exc) from exc
    _write_profile(profile, args.out)
    cards = sorted(profile.keys)
    if args.json:
        print_json({"profile": args.out, "images": len(args.images), "rank_templates": len(cards),
                    "suit_templates": len(cards), "cards": cards})
    else:
        sys.stdout.write(f"wrote {args.out}: {len(args.images)} image(s), {len(cards)} card(s) learnt\n")
    return EXIT_OK


def _calibrate_ranks(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vision.deck import calibrate_ranks
    from vision.errors import VisionError
    from vision.images import read_labels

    try:
        labels = read_labels(args.labels)
        unlabelled = [p for p in args.images if Path(p).name not in labels]
        if unlabelled:
            raise CliError(f"{unlabelled[0]}: no labels for this image in {args.labels}")
        cal = calibrate_ranks({p: labels[Path(p).name] for p in args.images}, name=args.name,
                              default=not args.no_default)
    except VisionError as exc:
        raise _vision_error(exc) from exc
    _write_profile(cal.profile, args.out)
    if args.json:
        print_json({"profile": args.out, "images": len(args.images), "rank_templates": len(cal.profile.keys),
                    "suit_templates": 0, "glyphs": cal.crops, "kept": cal.crops, "cards": cal.cards,
                    "found": cal.found, "ranks_not_learnt": cal.missing})
    else:
        sys.stdout.write(f"wrote {args.out}: {len(args.images)} photo(s), {cal.found} of {cal.cards} labelled cards "
                         f"found, {cal.crops} index corners learnt\n")
        if cal.missing:
            sys.stdout.write(f"warning: no corner learnt for the ranks {cal.missing}: add photos of them\n")
    return EXIT_OK


def _watch(args: argparse.Namespace) -> int:
    import cv2

    from hardware_sim.camera import open_source
    from vision.calibration import TableCalibration
    from vision.errors import VisionError
    from vision.tracking import annotated_frames

    if args.window < 1 or not 1 <= args.votes <= args.window:
        raise CliError("need 1 <= --votes <= --window")
    try:
        calibration = TableCalibration.load(args.calibration) if args.calibration else None
        source = open_source(args.source, frames=args.frames)
    except VisionError as exc:
        raise _vision_error(exc) from exc
    recognizer = _recognizer(args.profile, args.workers)
    count = 0
    last = None
    try:
        for wf in annotated_frames(source, recognizer, calibration, window=args.window, votes=args.votes):
            count += 1
            last = wf.view
            for event in wf.events:
                payload = {"t": round(event.t, 3), "event": type(event).__name__, **{
                    k: v for k, v in vars(event).items() if k != "t"}}
                if args.json:
                    print_json(payload)
                else:
                    detail = " ".join(f"{k}={v}" for k, v in payload.items() if k not in ("t", "event"))
                    sys.stdout.write(f"{event.t:8.2f}s {type(event).__name__:12s} {detail}\n")
                    sys.stdout.flush()
            if args.frames is not None and count >= args.frames:
                break
    except VisionError as exc:
        raise _vision_error(exc) from exc
    finally:
        source.close()
        recognizer.close()
    if args.save_view and last is not None and not cv2.imwrite(args.save_view, last):
        raise CliError(f"{args.save_view}: cannot write image")
    if count == 0:
        raise CliError(f"{args.source}: the source gave no frames", exit_code=EXIT_USAGE, code="no-frames")
    return EXIT_OK
