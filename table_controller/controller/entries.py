"""The controller's journal entries: one frozen, validated class per kind.

How it works. Every input the controller acts on is first written to the journal as one of the classes
below (its ``KIND`` is the entry's kind on disk, :meth:`Entry.to_json` its payload). Replaying the journal
(:meth:`TableController.recover`) reads each stored entry back through :func:`parse_entry`, which builds the
class of its kind and validates it: an entry of a kind this controller does not know, of a version it does
not read, or whose payload does not fit its class is refused with :class:`JournalEntryError` naming the
entry. Nothing is skipped: a crash recovery that silently dropped an input would rebuild a different table.

Versions. The payloads written first carry no version: they are version 1. A class whose payload changes
raises its ``VERSION`` and writes it as ``"v"`` in the payload; it reads an older version through its
:meth:`Entry.upgrade` step, so journals already on disk are still read. The JSON of version 1 is exactly what
the controller wrote before these classes existed (optional fields left out when unset), so the hash chain of
an existing journal is read unchanged. ``hand.start`` is version 2: it carries the game the hand is dealt with
(version 1 did not; its hand's game is found as :meth:`HandStartEntry.upgrade` says).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    GetCoreSchemaHandler,
    GetPydanticSchema,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
)
from pydantic_core import core_schema

from table_controller.controller.errors import JournalEntryError
from table_controller.engine.config import GameConfig, config_to_json
from table_controller.engine.errors import ConfigError
from table_controller.engine.record import GameModel, config_from_model

__all__ = [
    "ENTRY_KINDS",
    "ActEntry",
    "AlertAckEntry",
    "AlertEntry",
    "CardEntry",
    "DealEntry",
    "DealtGame",
    "DeckCheckEntry",
    "DeviceFaultEntry",
    "Entry",
    "HaltEntry",
    "HandStartEntry",
    "PromptAnswerEntry",
    "RefusedEntry",
    "RequestAnswerEntry",
    "ReturnedEntry",
    "RulingEntry",
    "SeatBuyInEntry",
    "SeatRebuyEntry",
    "SeatSitEntry",
    "SeatStandEntry",
    "StartSeat",
    "VoidEntry",
    "parse_entry",
]


class Entry(BaseModel):
    """One controller input as journaled. Subclasses name their ``KIND``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    KIND: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    #: Fields written only when they differ from their default (the payload stays as it always was).
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset()

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        for name in self.OMIT_DEFAULT:
            if getattr(self, name) == type(self).model_fields[name].default:
                del data[name]
        if self.VERSION != 1:
            data["v"] = self.VERSION
        return data

    @classmethod
    def upgrade(cls, version: int, payload: dict[str, Any]) -> dict[str, Any] | None:
        """The payload of an older ``version`` of this kind as the current version reads it; None for a version
        this class does not read."""
        return None


class SeatSitEntry(Entry):
    KIND: ClassVar[str] = "seat.sit"
    seat: StrictInt
    name: StrictStr
    buy_in: StrictInt


class SeatBuyInEntry(Entry):
    KIND: ClassVar[str] = "seat.buy_in"
    seat: StrictInt
    amount: StrictInt


class SeatRebuyEntry(Entry):
    KIND: ClassVar[str] = "seat.rebuy"
    seat: StrictInt
    amount: StrictInt


class SeatStandEntry(Entry):
    KIND: ClassVar[str] = "seat.stand"
    seat: StrictInt


class StartSeat(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    seat: StrictInt
    name: StrictStr
    stack: StrictInt


def _dealt_game(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> GameConfig:
    """A journaled game (the JSON of a hand record's ``game``) as the engine's configuration; a game the engine
    cannot deal is refused like any malformed field."""
    if isinstance(value, GameConfig):
        return value
    model: GameModel = handler(value)
    try:
        return config_from_model(model)
    except ConfigError as exc:
        raise ValueError(f"this game cannot be dealt: {exc}") from None


def _dealt_game_schema(source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    return core_schema.no_info_wrap_validator_function(
        _dealt_game, handler(GameModel),
        serialization=core_schema.plain_serializer_function_ser_schema(config_to_json))


#: The game a hand was dealt with: the engine's own configuration, journaled as a hand record's ``game``.
DealtGame = Annotated[GameConfig, GetPydanticSchema(_dealt_game_schema)]


class HandStartEntry(Entry):
    """A hand begins: its seats and stacks, the button, what it carries from the last deal, and its game.

    The game is journaled with every hand (version 2) because a table may change its stakes or house rules
    between hands, or between sessions on the same journal: recovery replays each hand with its own game, so a
    change never re-prices a hand already dealt."""

    KIND: ClassVar[str] = "hand.start"
    VERSION: ClassVar[int] = 2
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"ante_for_all"})
    hand: StrictInt
    button: StrictInt
    seats: tuple[StartSeat, ...]
    carried_pot: StrictInt
    passed_deals: StrictInt
    # None only for an entry written before games were journaled (version 1): the replay finds its game.
    game: DealtGame | None
    ante_for_all: StrictInt | None = None  # 003 False openers 2 (house option): this seat antes for all

    @classmethod
    def upgrade(cls, version: int, payload: dict[str, Any]) -> dict[str, Any] | None:
        """Version 1 carried no game: the replay takes that hand's from its stored record, or else the game the
        journal's hand before it was dealt with, or else the settings' (``HandPlay._game_not_journaled``)."""
        if version != 1 or "game" in payload:
            return None
        return {**payload, "game": None}

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        if self.game is None:  # read from version 1: it writes what it was read from
            del data["game"], data["v"]
        return data


class DeckCheckEntry(Entry):
    KIND: ClassVar[str] = "deck.check"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"mark"})
    ok: StrictBool
    count: StrictInt
    missing: tuple[StrictStr, ...]
    duplicates: tuple[StrictStr, ...]
    text: StrictStr
    mark: StrictInt | None = None  # the shoe's event number for this check (a shoe that keeps a log)


class CardEntry(Entry):
    """One card the shoe delivered: for the dealer's act due (the burn, a card served in the draw) or for a report's
    remedy."""

    KIND: ClassVar[str] = "card"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"from_shoe_log"})
    kind: StrictStr
    code: StrictStr
    from_shoe_log: StrictBool = False  # taken from the shoe's log after a restart


class DealEntry(Entry):
    """The cards of the deal (five each), journaled together."""

    KIND: ClassVar[str] = "deal"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"from_shoe_log"})
    codes: tuple[StrictStr, ...]
    from_shoe_log: StrictBool = False


class ActEntry(Entry):
    """An act entered (or a reshuffle order): the engine's action JSON, validated by the engine."""

    KIND: ClassVar[str] = "act"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"forget", "at_ms"})
    action: dict[str, Any]
    # The cards the act waits for from the shoe before it is applied, in order: a report's remedy only (a draw is
    # applied at once and the dealer's burn and service then ask for theirs; a journal written before that lists
    # a draw's cards here, and its draw is applied when they have come, to the same hand).
    kinds: tuple[StrictStr, ...]
    forget: StrictInt | None = None  # a draw entered as a count: this seat's cards are forgotten
    at_ms: StrictInt | None = None  # when an irregularity was reported (its alert keeps that time)


class DeviceFaultEntry(Entry):
    KIND: ClassVar[str] = "device.fault"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"at_ms"})
    code: StrictStr
    message: StrictStr
    at_ms: StrictInt | None = None


class PromptAnswerEntry(Entry):
    KIND: ClassVar[str] = "prompt.answer"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"at_ms"})
    prompt: StrictStr
    choice: StrictStr
    at_ms: StrictInt | None = None


class RulingEntry(Entry):
    KIND: ClassVar[str] = "ruling"
    kind: StrictStr
    by: StrictStr
    reason: StrictStr
    seat: StrictInt | None = None
    amount: StrictInt | None = None
    at_ms: StrictInt


class AlertEntry(Entry):
    KIND: ClassVar[str] = "alert"
    kind: StrictStr
    message: StrictStr
    level: StrictStr
    seat: StrictInt | None
    at_ms: StrictInt


class AlertAckEntry(Entry):
    KIND: ClassVar[str] = "alert.ack"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"at_ms"})
    id: StrictStr
    at_ms: StrictInt | None = None


class HaltEntry(Entry):
    KIND: ClassVar[str] = "halt"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"at_ms"})
    reason: StrictStr
    at_ms: StrictInt | None = None


class VoidEntry(Entry):
    KIND: ClassVar[str] = "void"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"floor_reason"})
    reason: StrictStr
    by: StrictStr = "controller"
    floor_reason: StrictStr | None = None  # a floor ruling's own words, for the hand's record


class RefusedEntry(Entry):
    """A report or card-naming act refused (secrecy.py): what was asked, by whom, and what was answered."""

    KIND: ClassVar[str] = "refused"
    action: dict[str, Any]
    by: StrictStr
    code: StrictStr
    answered: StrictStr


class RequestAnswerEntry(Entry):
    """The answer to an idempotent request, so a retry after a restart gets the same answer."""

    KIND: ClassVar[str] = "request.answer"
    key: StrictStr
    fingerprint: StrictStr
    status: StrictInt
    body: StrictStr


class ReturnedEntry(Entry):
    """A card a scanning shoe read coming back (returns.py): from this hand's deck or the last one, and the
    seat whose discard it was, when the table knows."""

    KIND: ClassVar[str] = "shoe.returned"
    OMIT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"seat"})
    code: StrictStr
    deck: Literal["this", "last"]
    at_ms: StrictInt
    seat: StrictInt | None = None


ENTRY_KINDS: dict[str, type[Entry]] = {
    cls.KIND: cls
    for cls in (SeatSitEntry, SeatBuyInEntry, SeatRebuyEntry, SeatStandEntry, HandStartEntry, DeckCheckEntry,
                CardEntry, DealEntry, ActEntry, DeviceFaultEntry, PromptAnswerEntry, RulingEntry, AlertEntry,
                AlertAckEntry, HaltEntry, VoidEntry, RefusedEntry, RequestAnswerEntry, ReturnedEntry)
}


def parse_entry(kind: str, data: dict[str, Any], *, seq: int) -> Entry:
    """The stored entry ``seq`` of ``kind`` as its class; :class:`JournalEntryError` if it is not one."""
    cls = ENTRY_KINDS.get(kind)
    if cls is None:
        raise JournalEntryError(f"journal entry #{seq} is of kind {kind!r}, which this controller does not know: "
                                "refusing to recover past it", code="unknown_entry")
    payload = dict(data)
    version = payload.pop("v", 1)
    if version != cls.VERSION:
        upgraded = cls.upgrade(version, payload) if type(version) is int else None
        if upgraded is None:
            raise JournalEntryError(f"journal entry #{seq} ({kind}) is version {version!r}; this controller reads "
                                    f"version {cls.VERSION}", code="unknown_entry_version")
        payload = upgraded
    try:
        return cls.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "payload"
        raise JournalEntryError(f"journal entry #{seq} ({kind}) is malformed: {where}: {first['msg']}",
                                code="bad_entry") from None
