"""The fast ``__init__`` of frozen_init builds exactly what the dataclass ``__init__`` builds, and refuses the same."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.engine import events, frozen_init
from table_controller.engine.hand import LegalActions, SeatSpec


def _nonnegative(self: Any) -> None:
    for name, value in self.__dict__.items():
        if type(value) is int and value < 0:
            raise ValueError(f"{type(self).__name__}.{name} must not be negative")


@dataclass(frozen=True, kw_only=True)
class Sample:
    seat: int
    cards: tuple[str, ...]
    all_in: bool = False
    note: str = "x"
    amount: int = 0

    def __post_init__(self) -> None:
        _nonnegative(self)


@dataclass(frozen=True, kw_only=True)
class FastSample:
    seat: int
    cards: tuple[str, ...]
    all_in: bool = False
    note: str = "x"
    amount: int = 0


@dataclass(frozen=True, kw_only=True)
class Checked:
    amount: int

    def __post_init__(self) -> None:
        if self.amount > 10:
            raise ValueError("too much")


@dataclass(frozen=True, kw_only=True)
class WithFactory:
    items: list[int] = field(default_factory=list)


@dataclass(kw_only=True)
class NotFrozen:
    a: int


@dataclass(frozen=True)
class Positional:
    a: int


assert frozen_init.install(FastSample, nonnegative_ints=True)
assert frozen_init.install(Checked)


def _build(cls: type, kwargs: dict[str, Any]) -> Any:
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as exc:
        return (type(exc), str(exc).replace(cls.__name__, "C"))


@settings(max_examples=200, deadline=None)
@given(kwargs=st.dictionaries(st.sampled_from(["seat", "cards", "all_in", "note", "amount", "other"]),
                              st.one_of(st.integers(-3, 3), st.booleans(), st.text(max_size=2),
                                        st.tuples(st.text(max_size=2))), max_size=6))
def test_the_fast_init_builds_and_refuses_exactly_as_the_dataclass_does(kwargs: dict[str, Any]) -> None:
    slow, fast = _build(Sample, kwargs), _build(FastSample, kwargs)
    if isinstance(slow, tuple):
        assert isinstance(fast, tuple)
        assert fast[0] is slow[0]
        if slow[0] is ValueError:  # the same field named, first in field order
            assert fast[1] == slow[1]
    else:
        assert dataclasses.asdict(fast) == dataclasses.asdict(slow)
        assert repr(fast).replace("FastSample", "Sample") == repr(slow)


def test_the_fast_init_keeps_signature_frozenness_equality_and_replace() -> None:
    assert str(inspect.signature(FastSample)) == str(inspect.signature(Sample))
    a = FastSample(seat=1, cards=("As",))
    assert a == FastSample(seat=1, cards=("As",)) and hash(a) == hash(FastSample(seat=1, cards=("As",)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.seat = 2  # type: ignore[misc]
    assert dataclasses.replace(a, seat=3).seat == 3
    with pytest.raises(ValueError, match=r"FastSample.seat must not be negative"):
        dataclasses.replace(a, seat=-1)


def test_a_class_own_post_init_still_runs() -> None:
    assert Checked(amount=3).amount == 3
    with pytest.raises(ValueError, match="too much"):
        Checked(amount=11)


def test_interpreted_classes_are_not_native() -> None:
    assert not frozen_init.is_native(WithFactory) and not frozen_init.is_native(Checked)


@pytest.mark.parametrize("cls", [WithFactory, NotFrozen, Positional])
def test_unsupported_classes_are_left_alone(cls: type) -> None:
    before = vars(cls)["__init__"]
    assert not frozen_init.install(cls)
    assert vars(cls)["__init__"] is before


def test_the_engine_classes_have_it() -> None:
    for cls in (*events.Event.__subclasses__(), LegalActions, SeatSpec):
        if cls.__module__ in ("table_controller.engine.events", "table_controller.engine.hand"):
            # A class the native build compiled (bench/native.py) keeps its own C __init__, and is left alone.
            assert frozen_init.is_native(cls) or "frozen_init" in (vars(cls)["__init__"].__doc__ or ""), cls
    with pytest.raises(ValueError, match=r"Called.amount must not be negative"):
        events.Called(seat=1, amount=-1, all_in=False)
    with pytest.raises(TypeError):
        events.Called(seat=1, amount=1)  # type: ignore[call-arg]
    assert events.Called(seat=1, amount=2, all_in=True).to_json() == {"event": "call", "seat": 1, "amount": 2,
                                                                      "all_in": True}


MAKE_FAST_SAMPLE = frozen_init.builder(FastSample)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.integers(-3, 3), st.booleans(), st.text(max_size=2),
                                 st.tuples(st.text(max_size=2))), min_size=2, max_size=5))
def test_the_builder_builds_and_refuses_exactly_as_the_class_does(values: list[Any]) -> None:
    names = [f.name for f in dataclasses.fields(FastSample)][: len(values)]
    by_class = _build(FastSample, dict(zip(names, values, strict=True)))
    try:
        by_builder: Any = MAKE_FAST_SAMPLE(*values)
    except ValueError as exc:
        by_builder = (ValueError, str(exc).replace("FastSample", "C"))
    if isinstance(by_class, tuple):
        assert by_builder == by_class
    else:
        assert type(by_builder) is FastSample
        assert by_builder == by_class and repr(by_builder) == repr(by_class)
        assert by_builder.__dict__ == by_class.__dict__  # the same fields in the same order (to_json relies on it)
        with pytest.raises(dataclasses.FrozenInstanceError):
            by_builder.seat = 2  # type: ignore[misc]


def test_the_builder_is_only_for_classes_with_the_non_negative_check() -> None:
    with pytest.raises(ValueError, match="no fast __init__"):
        frozen_init.builder(Checked)  # its own __post_init__ would be skipped
    with pytest.raises(ValueError, match="no fast __init__"):
        frozen_init.builder(Sample)
    make = frozen_init.builder(events.Called)
    assert make(3, 4, False) == events.Called(seat=3, amount=4, all_in=False)
    with pytest.raises(ValueError, match=r"Called.amount must not be negative"):
        make(1, -1, False)
