"""Hostile files for bad-input tests: given bytes, or a link to /dev/zero (a file that never ends)."""

from __future__ import annotations

from pathlib import Path

import pytest


def hostile_file(path: Path, content: bytes | None) -> Path:
    """``path`` holding ``content``, or, for None, linked to /dev/zero (the test is skipped where there is none)."""
    if content is None:
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero on this system")
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes(content)
    return path
