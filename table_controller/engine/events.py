"""Events: what happened in a hand, one frozen keyword-only class per kind, appended to the record.

Cards appear as two-character codes, "??" for a card the table has not identified. Events carry hole
cards (they are the auditor's record); the controller decides who may see them.

Each kind is a plain class on :class:`Frozen`, the base of the engine's frozen values (the legal-actions view is
one too): a keyword-only ``__init__`` sets its ``Final`` attributes, ``fields`` names them in the constructor's
order, and the base gives equality, hashing, ``repr`` and copies over those fields (what a frozen dataclass gave);
:class:`Event` adds ``to_json`` and the check every kind's constructor ends with (its counts, chips and seats are
not negative). Plain classes rather than dataclasses because the native build (bench/native.py) compiles them to C
classes whose constructor runs natively; a dataclass's generated ``__init__`` would stay interpreted, setting each
frozen field through ``object.__setattr__``, on every act of every hand. Frozen: mypy refuses a write to a
``Final`` attribute anywhere in the source, and both builds refuse a write to an event at run time (the native
build's compiled attributes themselves; the interpreted build's ``Event.__setattr__``, given to it below).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final, TypeVar

T = TypeVar("T")

try:  # a mark only mypyc reads (the native build is made where mypy, and so mypy_extensions, is installed)
    from mypy_extensions import mypyc_attr
except ImportError:  # a runtime-only install: nothing is compiled there, the mark has nothing to say
    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[T], T]:
        return lambda cls: cls


# The irregularity procedures declare a few events as frozen dataclasses on these bases: interpreted classes,
# which a compiled base must allow.
@mypyc_attr(allow_interpreted_subclasses=True)
class Frozen:
    """A frozen value built by keyword: equal, hashed and shown by its ``fields``; a copy is the value itself."""

    __slots__ = ()
    fields: ClassVar[tuple[str, ...]] = ()  # the constructor's keywords, in its order

    def _names(self) -> tuple[str, ...]:
        return self.fields or tuple(vars(self))  # a dataclass keeps its fields in __dict__

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._names())

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Frozen)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        body = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._names())
        return f"{type(self).__name__}({body})"

    def __copy__(self) -> Frozen:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Frozen:
        return self  # of ints, strs, bools, enums and tuples of them: nothing to copy


@mypyc_attr(allow_interpreted_subclasses=True)
class Event(Frozen):
    __slots__ = ()
    kind: ClassVar[str] = "event"

    def _validate(self) -> None:
        """Counts, chips and seats are never negative (a bool is not a count)."""
        for name in self._names():
            value = getattr(self, name)
            if type(value) is int and value < 0:
                raise ValueError(f"{type(self).__name__}.{name} must not be negative")

    def _counts(self, *values: int | None) -> None:
        """The constructor's check of its count, chip and seat arguments (in any order): none is negative.
        Each kind names its own counts, so building an event reads no attribute by name."""
        for value in values:
            if value is not None and value < 0:
                self._validate()  # finds the field by name, for the message
                raise ValueError(f"{type(self).__name__}: a count must not be negative")

    def __post_init__(self) -> None:  # a dataclass kind's constructor calls this
        self._validate()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind}
        for name in self._names():
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


def _set_once(self: Event, name: str, value: object) -> None:
    """Each field is set once, by the constructor: a second write, or a name not among ``fields``, is refused.
    (It runs for every field of every event built, so it does no more than that.)"""
    values = self.__dict__
    if name in values or name not in self.fields:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")
    values[name] = value


def _refuse_delete(self: Event, name: str) -> None:
    raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")


# An event is frozen at run time in the interpreted build too (the record is what happened). In the native build
# the kinds are compiled, and a compiled ``Final`` attribute refuses a write itself (mypyc also allows no
# ``__setattr__`` on a base that interpreted classes extend, and would send every compiled constructor's writes
# through one): the guard is for the interpreted class. The other frozen values (the legal view, a seat dealt in)
# are held to ``Final`` by mypy and by the native build; they are built on every act, where a guard on each write
# would cost the interpreted engine more than it protects.
if not hasattr(Event, "__mypyc_attrs__"):  # mypyc lists a compiled class's attributes there
    Event.__setattr__ = _set_once  # type: ignore[method-assign,assignment]
    Event.__delattr__ = _refuse_delete  # type: ignore[method-assign,assignment]


class ForcedBetPosted(Event):
    kind: ClassVar[str] = "forced"
    fields: ClassVar[tuple[str, ...]] = ("seat", "amount", "what", "all_in")

    def __init__(self, *, seat: int, amount: int, what: str, all_in: bool = False) -> None:
        self.seat: Final = seat
        self.amount: Final = amount
        self.what: Final = what  # ante, dealer_ante, blind, straddle, blind_open, block_ante, block_blind, block_raise
        self.all_in: Final = all_in
        self._counts(seat, amount)


class StraddleDeclined(Event):
    kind: ClassVar[str] = "straddle_declined"
    fields: ClassVar[tuple[str, ...]] = ("seat",)

    def __init__(self, *, seat: int) -> None:
        self.seat: Final = seat
        self._counts(seat)


class CardsDealt(Event):
    kind: ClassVar[str] = "dealt"
    fields: ClassVar[tuple[str, ...]] = ("order", "cards_each")

    def __init__(self, *, order: tuple[int, ...], cards_each: int) -> None:
        self.order: Final = order  # seats in the order served in one round, five rounds
        self.cards_each: Final = cards_each
        self._counts(cards_each)


class Checked(Event):
    kind: ClassVar[str] = "check"
    fields: ClassVar[tuple[str, ...]] = ("seat",)

    def __init__(self, *, seat: int) -> None:
        self.seat: Final = seat
        self._counts(seat)


class BetMade(Event):
    kind: ClassVar[str] = "bet"
    fields: ClassVar[tuple[str, ...]] = ("seat", "to", "amount", "all_in", "opens", "full")

    def __init__(self, *, seat: int, to: int, amount: int, all_in: bool, opens: bool, full: bool = True) -> None:
        self.seat: Final = seat
        self.to: Final = to
        self.amount: Final = amount
        self.all_in: Final = all_in
        self.opens: Final = opens
        self.full: Final = full  # False: an all-in for less than a full bet, which does not reopen the betting
        self._counts(seat, to, amount)


class Called(Event):
    kind: ClassVar[str] = "call"
    fields: ClassVar[tuple[str, ...]] = ("seat", "amount", "all_in")

    def __init__(self, *, seat: int, amount: int, all_in: bool) -> None:
        self.seat: Final = seat
        self.amount: Final = amount
        self.all_in: Final = all_in
        self._counts(seat, amount)


class Raised(Event):
    kind: ClassVar[str] = "raise"
    fields: ClassVar[tuple[str, ...]] = ("seat", "to", "amount", "all_in", "full")

    def __init__(self, *, seat: int, to: int, amount: int, all_in: bool, full: bool) -> None:
        self.seat: Final = seat
        self.to: Final = to
        self.amount: Final = amount
        self.all_in: Final = all_in
        self.full: Final = full  # False: an all-in short raise, which does not reopen the betting
        self._counts(seat, to, amount)


class Folded(Event):
    kind: ClassVar[str] = "fold"
    fields: ClassVar[tuple[str, ...]] = ("seat",)

    def __init__(self, *, seat: int) -> None:
        self.seat: Final = seat
        self._counts(seat)


class BetReturned(Event):
    kind: ClassVar[str] = "bet_returned"
    fields: ClassVar[tuple[str, ...]] = ("seat", "amount", "reason")

    def __init__(self, *, seat: int, amount: int, reason: str) -> None:
        self.seat: Final = seat
        self.amount: Final = amount
        self.reason: Final = reason
        self._counts(seat, amount)


class IntervalClosed(Event):
    kind: ClassVar[str] = "interval_closed"
    fields: ClassVar[tuple[str, ...]] = ("interval", "pot")

    def __init__(self, *, interval: str, pot: int) -> None:
        self.interval: Final = interval
        self.pot: Final = pot
        self._counts(pot)


class DrawAnnounced(Event):
    kind: ClassVar[str] = "announce"
    fields: ClassVar[tuple[str, ...]] = ("seat", "count")

    def __init__(self, *, seat: int, count: int) -> None:
        self.seat: Final = seat
        self.count: Final = count
        self._counts(seat, count)


class Burned(Event):
    kind: ClassVar[str] = "burn"
    fields: ClassVar[tuple[str, ...]] = ("card",)

    def __init__(self, *, card: str) -> None:
        self.card: Final = card


class DrawServed(Event):
    kind: ClassVar[str] = "draw"
    fields: ClassVar[tuple[str, ...]] = ("seat", "discards", "served", "held_out")

    def __init__(self, *, seat: int, discards: tuple[str, ...], served: tuple[str, ...], held_out: bool) -> None:
        self.seat: Final = seat
        self.discards: Final = discards
        self.served: Final = served
        self.held_out: Final = held_out  # the opener's discards kept apart under his chips
        self._counts(seat)


class Reshuffled(Event):
    kind: ClassVar[str] = "reshuffle"
    fields: ClassVar[tuple[str, ...]] = ("size", "for_seat")

    def __init__(self, *, size: int, for_seat: int) -> None:
        self.size: Final = size
        self.for_seat: Final = for_seat
        self._counts(size, for_seat)


class Shown(Event):
    kind: ClassVar[str] = "show"
    fields: ClassVar[tuple[str, ...]] = ("seat", "cards", "description")

    def __init__(self, *, seat: int, cards: tuple[str, ...], description: str) -> None:
        self.seat: Final = seat
        self.cards: Final = cards
        self.description: Final = description
        self._counts(seat)


class Mucked(Event):
    kind: ClassVar[str] = "muck"
    fields: ClassVar[tuple[str, ...]] = ("seat",)

    def __init__(self, *, seat: int) -> None:
        self.seat: Final = seat
        self._counts(seat)


class OpenersJudged(Event):
    kind: ClassVar[str] = "openers"
    fields: ClassVar[tuple[str, ...]] = ("seat", "proved", "cards", "rule")

    def __init__(self, *, seat: int, proved: bool, cards: tuple[str, ...], rule: str) -> None:
        self.seat: Final = seat
        self.proved: Final = proved
        self.cards: Final = cards
        self.rule: Final = rule
        self._counts(seat)


class PotAwarded(Event):
    kind: ClassVar[str] = "award"
    fields: ClassVar[tuple[str, ...]] = ("pot_index", "amount", "seats", "shares", "hand")

    def __init__(self, *, pot_index: int, amount: int, seats: tuple[int, ...], shares: tuple[int, ...],
                 hand: str) -> None:
        self.pot_index: Final = pot_index
        self.amount: Final = amount
        self.seats: Final = seats
        self.shares: Final = shares
        self.hand: Final = hand
        self._counts(pot_index, amount)


class PotCarried(Event):
    kind: ClassVar[str] = "carried"
    fields: ClassVar[tuple[str, ...]] = ("amount", "reason")

    def __init__(self, *, amount: int, reason: str) -> None:
        self.amount: Final = amount
        self.reason: Final = reason
        self._counts(amount)


class HandEnded(Event):
    kind: ClassVar[str] = "end"
    fields: ClassVar[tuple[str, ...]] = ("status", "carried_pot")

    def __init__(self, *, status: str, carried_pot: int) -> None:
        self.status: Final = status
        self.carried_pot: Final = carried_pot
        self._counts(carried_pot)


class CardsDelivered(Event):
    """The shoe delivered cards, in its order: ``first`` is the shoe position of the first ("??": not read)."""

    kind: ClassVar[str] = "delivered"
    fields: ClassVar[tuple[str, ...]] = ("first", "cards")

    def __init__(self, *, first: int, cards: tuple[str, ...]) -> None:
        self.first: Final = first
        self.cards: Final = cards
        self._counts(first)


class CardsForgotten(Event):
    """Which cards a seat holds is no longer known (the dealer saw only how many he threw): ``count`` of them."""

    kind: ClassVar[str] = "forgotten"
    fields: ClassVar[tuple[str, ...]] = ("seat", "count")

    def __init__(self, *, seat: int, count: int) -> None:
        self.seat: Final = seat
        self.count: Final = count
        self._counts(seat, count)


# What the shoe and the table tell a live hand, not acts of the game: the hand record carries the cards in its
# deck (as delivered, "??" where forgotten), so a hand's result lists the game's events without these.
TABLE_INPUTS: tuple[type[Event], ...] = (CardsDelivered, CardsForgotten)
