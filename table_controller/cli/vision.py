"""`cardtable vision`: identify cards in images, learn a deck, watch a camera."""

from __future__ import annotations

from typing import Any

from table_controller.cli._common import Parser, add_json_flag, set_handler, unavailable


def register(sub: Any) -> None:
    vision = sub.add_parser("vision", help="identify cards in images, calibrate a deck, watch a camera")
    vsub = vision.add_subparsers(dest="vision_command", metavar="ACTION", parser_class=Parser)
    identify = vsub.add_parser("identify", help="find and read the cards in images")
    identify.add_argument("images", nargs="+", metavar="IMAGE", help="image files")
    identify.add_argument("--profile", metavar="FILE", help="deck profile from calibrate-deck (default: built-in)")
    add_json_flag(identify)
    set_handler(identify, unavailable("cardtable vision identify"))
    cal = vsub.add_parser("calibrate-deck", help="build a deck profile from one image of each card")
    cal.add_argument("--out", required=True, metavar="PROFILE", help="profile file to write")
    cal.add_argument("images", nargs="+", metavar="IMAGE", help="one face-up card per image, named like Qs.jpg")
    set_handler(cal, unavailable("cardtable vision calibrate-deck"))
    watch = vsub.add_parser("watch", help="live card events from a camera source")
    watch.add_argument("source", metavar="SOURCE", help="device index, video file, stream URL or 'sim'")
    set_handler(watch, unavailable("cardtable vision watch"))
