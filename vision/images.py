"""Reading the files vision is given (images, JSON documents): anything unreadable is a typed error, never a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import VisionInputError
from vision.rectify import Image

MAX_PIXELS = 40_000_000


def load_image(path: str | Path, *, paper_background: bool = False) -> Image:
    """A BGR image from a file, a JPEG turned upright as its EXIF orientation says (the corners reported are where a
    viewer shows the cards). Transparent pixels become white paper when `paper_background` (face images with a
    transparent card body), else black."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except FileNotFoundError as exc:
        raise VisionInputError(f"{path}: no such file") from exc
    except OSError as exc:  # a folder, no permission, a read error
        raise VisionInputError(f"{path}: cannot read ({type(exc).__name__})") from exc
    if data.size == 0:
        raise VisionInputError(f"{path}: empty file")
    # other files are taken as stored, with their alpha channel
    flags = cv2.IMREAD_COLOR if data[:3].tobytes() == b"\xff\xd8\xff" else cv2.IMREAD_UNCHANGED
    try:
        img = cv2.imdecode(data, flags)
    except cv2.error as exc:
        raise VisionInputError(f"{path}: not a readable image") from exc
    if img is None or img.size == 0:
        raise VisionInputError(f"{path}: not a readable image (garbled or unsupported format)")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.dtype != np.uint8:
        img = cv2.convertScaleAbs(img, alpha=255.0 / max(float(img.max()), 1.0))
    if img.shape[2] == 4:
        alpha = img[:, :, 3:4].astype(np.float32) / 255.0
        back = 248.0 if paper_background else 0.0
        img = (img[:, :, :3].astype(np.float32) * alpha + back * (1 - alpha)).astype(np.uint8)
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise VisionInputError(f"{path}: image too large ({img.shape[1]}x{img.shape[0]})")
    if img.shape[0] < 32 or img.shape[1] < 32:
        raise VisionInputError(f"{path}: image too small ({img.shape[1]}x{img.shape[0]})")
    return np.ascontiguousarray(img, dtype=np.uint8)


def read_json_file(path: str | Path, what: str) -> Any:
    """The JSON document in `path`; a missing or unreadable file is the caller's `VisionInputError`."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise VisionInputError(f"{path}: no such {what}") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VisionInputError(f"{path}: unreadable {what} ({type(exc).__name__})") from exc
