"""Roles and their tokens.

Four roles: ``public`` (no token), ``dealer``, ``floor`` and ``broadcast`` (a token each). The floor may do
everything the dealer does. Tokens come from the settings or are generated at start with
:func:`secrets.token_urlsafe` and printed once; they are compared in constant time. A client presents its
token as ``Authorization: Bearer TOKEN`` or, where a header cannot be set (a WebSocket from a browser, a
link on a touch screen), as ``?token=TOKEN``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from enum import StrEnum

from table_controller.service.settings import ConfigError, TableSettings, token_problems

__all__ = ["Role", "RoleTokens"]


class Role(StrEnum):
    PUBLIC = "public"
    DEALER = "dealer"
    FLOOR = "floor"
    BROADCAST = "broadcast"


# Which roles a token's holder may act as.
GRANTS: dict[Role, frozenset[Role]] = {
    Role.PUBLIC: frozenset({Role.PUBLIC}),
    Role.DEALER: frozenset({Role.PUBLIC, Role.DEALER}),
    Role.FLOOR: frozenset({Role.PUBLIC, Role.DEALER, Role.FLOOR}),
    Role.BROADCAST: frozenset({Role.PUBLIC, Role.BROADCAST}),
}


def _new_token() -> str:
    return secrets.token_urlsafe(18)


@dataclass(frozen=True, kw_only=True)
class RoleTokens:
    dealer: str
    floor: str
    broadcast: str

    def __post_init__(self) -> None:
        problems = token_problems({"dealer": self.dealer, "floor": self.floor, "broadcast": self.broadcast})
        if problems:
            raise ConfigError("; ".join(problems))

    @classmethod
    def from_settings(cls, settings: TableSettings) -> RoleTokens:
        return cls(
            dealer=settings.dealer_token or _new_token(),
            floor=settings.floor_token or _new_token(),
            broadcast=settings.broadcast_token or _new_token(),
        )

    def role_of(self, token: str | None) -> Role:
        """The role a token grants; no token, or an unknown one, is the public."""
        if not token:
            return Role.PUBLIC
        found = Role.PUBLIC
        for role, expected in ((Role.FLOOR, self.floor), (Role.DEALER, self.dealer), (Role.BROADCAST, self.broadcast)):
            if secrets.compare_digest(token.encode(), expected.encode()) and found is Role.PUBLIC:
                found = role
        return found

    def token_of(self, role: Role) -> str | None:
        return {Role.DEALER: self.dealer, Role.FLOOR: self.floor, Role.BROADCAST: self.broadcast}.get(role)

    @staticmethod
    def may(held: Role, needed: Role) -> bool:
        return needed in GRANTS[held]
