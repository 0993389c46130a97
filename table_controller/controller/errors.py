"""Errors of the table controller, split by who is at fault.

:class:`TableRequestError` and its subclasses are the caller's fault (a bad request, an act that is not
legal now): the API answers 4xx with the message, and nothing at the table changes. :class:`DeviceError`
is a device's fault (shoe, camera): the hand pauses and the dealer is prompted. :class:`JournalEntryError` is
the journal's content: an entry recovery cannot read (unknown kind or version, malformed), so it stops. Each
carries a stable ``code``, a one-line ``message`` and, where a rule book decides, the ``rule`` it applied.
"""

from __future__ import annotations

__all__ = [
    "DeviceError",
    "JournalEntryError",
    "NotAllowedError",
    "NotFoundError",
    "TableError",
    "TableRequestError",
    "UnauthorizedError",
]


class TableError(Exception):
    http_status = 500
    exit_code = 1

    def __init__(self, message: str, *, code: str = "table_error", rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.rule = rule


class TableRequestError(TableError):
    """The request is malformed or names something impossible (a seat out of range, a bad card code)."""

    http_status = 422
    exit_code = 2

    def __init__(self, message: str, *, code: str = "bad_request", rule: str | None = None) -> None:
        super().__init__(message, code=code, rule=rule)


class NotAllowedError(TableRequestError):
    """Well-formed, but not allowed now (not the player's turn, a hand in progress, an illegal amount)."""

    http_status = 409

    def __init__(self, message: str, *, code: str = "not_allowed", rule: str | None = None) -> None:
        super().__init__(message, code=code, rule=rule)


class NotFoundError(TableRequestError):
    http_status = 404

    def __init__(self, message: str, *, code: str = "not_found", rule: str | None = None) -> None:
        super().__init__(message, code=code, rule=rule)


class UnauthorizedError(TableRequestError):
    http_status = 403

    def __init__(self, message: str, *, code: str = "forbidden", rule: str | None = None) -> None:
        super().__init__(message, code=code, rule=rule)


class DeviceError(TableError):
    """A device failed (shoe jam, door open, link down, camera lost): not the caller's fault."""

    http_status = 503

    def __init__(self, message: str, *, code: str = "device_fault", rule: str | None = None) -> None:
        super().__init__(message, code=code, rule=rule)


class JournalEntryError(TableError):
    """A journal entry the controller cannot replay (unknown kind or version, malformed): recovery refuses it."""

    exit_code = 2

    def __init__(self, message: str, *, code: str = "bad_entry", rule: str | None = None) -> None:
        super().__init__(message, code=code, rule=rule)
