"""The events: frozen, keyword-only, validated when built, and what a frozen dataclass gave (to_json, equality,
hashing, repr) over the constructor's keywords. tests/native/test_native_build.py runs this file on the native
build too, where the events are compiled classes."""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass
from typing import ClassVar

import pytest

from table_controller.engine import events
from table_controller.engine.acts import ActTaken
from table_controller.engine.events import BetMade, Called, CardsDealt, Checked, DrawServed, Event, Folded

KINDS = [cls for cls in vars(events).values() if isinstance(cls, type) and issubclass(cls, Event) and cls is not Event]


def test_every_kind_names_its_constructor_keywords_as_its_fields_and_has_a_kind_of_its_own() -> None:
    assert len(KINDS) == 22
    for cls in KINDS:
        params = inspect.signature(cls).parameters.values()
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), cls
        assert cls.fields == tuple(p.name for p in params), cls
    assert len({cls.kind for cls in KINDS}) == len(KINDS)


def test_an_event_is_built_by_keyword_only() -> None:
    with pytest.raises(TypeError):
        Checked(3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Checked(seat=3, amount=2)  # type: ignore[call-arg]


def test_a_negative_count_is_refused_naming_the_field_and_a_false_flag_is_not() -> None:
    with pytest.raises(ValueError, match=r"^Called\.amount must not be negative$"):
        Called(seat=2, amount=-1, all_in=False)
    with pytest.raises(ValueError, match=r"^CardsDealt\.cards_each must not be negative$"):
        CardsDealt(order=(1, 2), cards_each=-5)
    assert Called(seat=2, amount=0, all_in=False).all_in is False


def test_to_json_names_the_kind_then_the_fields_in_order_with_tuples_as_lists() -> None:
    bet = BetMade(seat=4, to=6, amount=4, all_in=False, opens=True)
    assert list(bet.to_json().items()) == [("event", "bet"), ("seat", 4), ("to", 6), ("amount", 4),
                                           ("all_in", False), ("opens", True), ("full", True)]
    drawn = DrawServed(seat=1, discards=("2c", "7d"), served=("As", "??"), held_out=False)
    assert drawn.to_json() == {"event": "draw", "seat": 1, "discards": ["2c", "7d"], "served": ["As", "??"],
                               "held_out": False}


def test_equality_hash_and_repr_follow_the_kind_and_the_fields() -> None:
    assert Checked(seat=3) == Checked(seat=3)
    assert hash(Checked(seat=3)) == hash(Checked(seat=3))
    assert Checked(seat=3) != Checked(seat=4)
    assert Checked(seat=3) != Folded(seat=3)  # the same fields, another kind
    assert Checked(seat=3) != {"event": "check", "seat": 3}
    assert len({Checked(seat=3), Checked(seat=3), Folded(seat=3)}) == 2
    assert repr(Called(seat=2, amount=4, all_in=True)) == "Called(seat=2, amount=4, all_in=True)"


def test_a_copy_is_the_event_itself() -> None:
    drawn = DrawServed(seat=1, discards=("2c",), served=("As",), held_out=True)
    assert copy.copy(drawn) is drawn
    assert copy.deepcopy([drawn])[0] is drawn


@dataclass(frozen=True, kw_only=True)
class Ruled(Event):
    """A kind declared as a frozen dataclass on the base, as the irregularity procedures declare theirs."""

    kind: ClassVar[str] = "ruled"
    by: str
    seat: int | None = None
    amount: int = 0


def test_a_kind_declared_as_a_dataclass_shares_the_base() -> None:
    ruled = Ruled(by="floor supervisor", seat=3)
    assert ruled.to_json() == {"event": "ruled", "by": "floor supervisor", "seat": 3, "amount": 0}
    assert ruled == Ruled(by="floor supervisor", seat=3)
    with pytest.raises(ValueError, match=r"^Ruled\.amount must not be negative$"):
        Ruled(by="floor", amount=-2)


def test_a_field_is_neither_written_nor_deleted_nor_added_after_the_constructor() -> None:
    """In both builds (the native build's compiled attributes refuse it, the interpreted one's Event.__setattr__)."""
    called = Called(seat=2, amount=4, all_in=False)
    with pytest.raises(AttributeError):
        called.amount = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del called.seat
    with pytest.raises(AttributeError):
        called.note = "late"  # type: ignore[attr-defined]
    assert called == Called(seat=2, amount=4, all_in=False)
    act = ActTaken(act="bet", seat=2, to=6)  # an act entered is an event of the same log
    with pytest.raises(AttributeError):
        act.to = 60  # type: ignore[misc]
    assert act.to_action() == {"act": "bet", "seat": 2, "to": 6}
