"""The engine's errors, split by who is at fault.

- :class:`IllegalActionError`: the table (a player, the dealer, a record) asked for something the rules forbid.
  It carries a stable ``code`` and the ``rule`` (book and paragraph) that forbids it, for the dealer console.
- :class:`ConfigError`: a game, seat list or deck that cannot be played.
- :class:`InvariantError`: the engine broke its own bookkeeping (a chip or a card lost). Always a bug.
"""

from __future__ import annotations


class EngineError(Exception):
    """Root of every error the rules engine raises."""

    exit_code = 2


class ConfigError(EngineError):
    """A game configuration, seat list or deck that cannot be played (bad input: exit code 2)."""

    exit_code = 2


class IllegalActionError(EngineError):
    """An act the rules forbid in the current state (a finding: exit code 1)."""

    exit_code = 1

    def __init__(self, code: str, message: str, *, rule: str = "") -> None:
        text = f"{message} ({rule})" if rule else message
        super().__init__(text)
        self.code = code
        self.rule = rule
        self.message = text


class InvariantError(EngineError):
    """Chips or cards not conserved, or a transition outside the table: a bug in the engine."""

    exit_code = 70
