"""Role tokens that survive a restart: generated once, kept in the data folder, readable by the service user only.

A card room bookmarks its screens (the dealer's tablet, the floor's laptop, the broadcast PC) with their
tokens in the link; a token that changed at every start would break each bookmark. So a token the settings do
not set is generated once, written to ``DATA/tokens.json`` (mode 0600, created that way, never wider) and read
back at the next start. A token the settings set (config file, ``CARDTABLE_*_TOKEN``) always wins and is not
written. Deleting the file makes new tokens at the next start (to revoke a leaked one).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from table_controller.bounded import BoundedInputError, loads, read_bounded
from table_controller.service.roles import Role, RoleTokens
from table_controller.service.settings import ConfigError, TableSettings

__all__ = ["TOKENS_FILE", "load_tokens"]

TOKENS_FILE = "tokens.json"
ROLES = (Role.DEALER, Role.FLOOR, Role.BROADCAST)
PRIVATE = 0o600
MAX_TOKENS_BYTES = 64 * 1024  # three tokens of a few dozen characters


def _read(path: Path) -> dict[str, str]:
    if not path.exists() and not path.is_symlink():
        return {}
    what = f"token file {str(path)!r}"
    try:
        data = loads(read_bounded(path, max_bytes=MAX_TOKENS_BYTES, what=what), max_bytes=MAX_TOKENS_BYTES,
                     what=what)
    except BoundedInputError as exc:  # not JSON, not UTF-8, too large (/dev/zero), too deep, unreadable
        raise ConfigError(f"{exc}: delete it to make new tokens") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) and v for v in data.values()):
        raise ConfigError(f"token file {str(path)!r} must map roles to token strings: delete it to make new tokens")
    if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) & 0o077:
        path.chmod(PRIVATE)  # readable by others (copied in, restored from a backup): closed again
    return {str(k): str(v) for k, v in data.items()}


def _write(path: Path, tokens: dict[str, str]) -> None:
    """Write the file through a temporary one created 0600, then rename: never a moment readable by others,
    never half written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(tokens, f, indent=1, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def load_tokens(settings: TableSettings) -> RoleTokens:
    """The role tokens: the settings' where set, else those kept in the data folder, else new ones (kept)."""
    path = Path(settings.data) / TOKENS_FILE
    kept = _read(path)
    fresh = RoleTokens.from_settings(settings)  # generates any token the settings leave unset
    chosen: dict[str, str] = {}
    for role in ROLES:
        configured = getattr(settings, f"{role.value}_token")
        chosen[role.value] = configured or kept.get(role.value) or fresh.token_of(role) or ""
    to_keep = {r.value: chosen[r.value] for r in ROLES if not getattr(settings, f"{r.value}_token")}
    if to_keep and any(kept.get(k) != v for k, v in to_keep.items()):
        try:
            _write(path, {**kept, **to_keep})
        except OSError as exc:
            raise ConfigError(f"cannot keep the role tokens in {str(path)!r}: {exc.strerror or exc}") from exc
    return RoleTokens(dealer=chosen["dealer"], floor=chosen["floor"], broadcast=chosen["broadcast"])
