"""A faster ``__init__`` for the engine's frozen dataclasses (events, the legal-action view).

Why: a frozen dataclass's generated ``__init__`` stores each field through ``object.__setattr__`` (to get past
the frozen ``__setattr__``), several times slower than a plain store. The engine builds one legal-action
view and one or two events per act, about thirty objects a hand, so that cost was a fifth of a hand's time.

:func:`install` replaces a class's ``__init__`` with one of the same keyword-only signature that writes the
fields straight into the instance ``__dict__``, and then validates exactly as before: with
``nonnegative_ints`` it raises the same ``ValueError`` as :meth:`Event.__post_init__
<table_controller.engine.events.Event.__post_init__>` (an ``int`` field below zero, first in field order),
otherwise it calls the class's own ``__post_init__`` if it has one. Everything else stays the dataclass's:
the fields, ``__eq__``, ``__repr__``, ``__hash__``, the frozen ``__setattr__``, :func:`dataclasses.replace`.

A class that this simple scheme does not cover (slots, ``init=False`` fields, default factories, an
``__init__`` of its own, ``InitVar`` pseudo-fields) keeps the dataclass's own ``__init__``.

:func:`builder` goes one step further for the engine's hottest events: a plain function taking the fields
positionally (in field order) that builds the instance with ``object.__new__`` and the same writes and the
same non-negative check. Why: calling a class runs ``type.__call__`` and then the ``__init__`` through the
slower keyword-argument path of CPython 3.11, which is half the cost of building a small event; a plain
function call is inlined by the interpreter. What is built, and what is refused, are the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["builder", "install", "is_native", "supported"]


def supported(cls: type) -> bool:
    """Whether :func:`install` can give this class a fast ``__init__`` (else it leaves the class alone)."""
    if not dataclasses.is_dataclass(cls) or "__slots__" in cls.__dict__ or is_native(cls):
        return False
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    if not (params.frozen and params.init):
        return False
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "__qualname__", "") != f"{cls.__qualname__}.__init__":
        return False  # not the dataclass-generated one for this class
    if "InitVar" in str(getattr(cls, "__annotations__", {})):
        return False
    for f in dataclasses.fields(cls):
        if not f.init or not f.kw_only or f.default_factory is not dataclasses.MISSING:
            return False
    return True


def install(cls: type, *, nonnegative_ints: bool = False) -> bool:
    """Give ``cls`` the fast ``__init__``; False (and nothing changed) when :func:`supported` says no."""
    if not supported(cls):
        return False
    fields = dataclasses.fields(cls)
    namespace: dict[str, Any] = {"ValueError": ValueError}
    params = _params(fields, namespace)
    lines = [f"def __init__(self, *, {', '.join(params)}):" if params else "def __init__(self):",
             "    d = self.__dict__"]
    lines += _writes(fields)
    if nonnegative_ints:
        lines += _nonnegative_checks(cls, fields)
    elif hasattr(cls, "__post_init__"):
        lines.append("    self.__post_init__()")
    exec("\n".join(lines), namespace)  # the same technique dataclasses uses to build __init__
    init = namespace["__init__"]
    init.__annotations__ = dict(getattr(cls.__dict__["__init__"], "__annotations__", {}))
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = _fast_doc(cls)
    init._nonnegative_ints = nonnegative_ints  # builder() offers the same checks only for these
    cls.__init__ = init  # type: ignore[misc]
    return True


def builder(cls: type[T]) -> Callable[..., T]:
    """A function ``make(field1, field2, ...)`` (positional, in field order, defaults as the class's) that builds
    ``cls`` exactly as ``cls(field1=..., ...)`` does with the fast ``__init__`` of :func:`install` and
    ``nonnegative_ints=True``: the same instance, the same ``ValueError`` for an int field below zero.

    Only for classes :func:`install` was given with ``nonnegative_ints`` (a ``ValueError`` otherwise)."""
    if is_native(cls):
        return cls  # compiled: its own __init__ is already a C function, with the checks of __post_init__
    init = cls.__dict__.get("__init__")
    if getattr(init, "__doc__", None) != _fast_doc(cls) or not getattr(init, "_nonnegative_ints", False):
        raise ValueError(f"{cls.__name__} has no fast __init__ with the non-negative check")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"ValueError": ValueError, "_new": object.__new__, "_cls": cls}
    params = _params(fields, namespace)
    lines = [f"def make({', '.join(params)}):", "    self = _new(_cls)", "    d = self.__dict__"]
    lines += _writes(fields) + _quick_nonnegative_checks(cls, fields)
    lines.append("    return self")
    exec("\n".join(lines), namespace)
    make: Callable[..., T] = namespace["make"]
    make.__qualname__ = make.__name__ = f"make_{cls.__name__}"
    make.__module__ = cls.__module__
    make.__doc__ = f"{cls.__name__}, fields positional in field order (see table_controller.engine.frozen_init)."
    return make


def _params(fields: tuple[dataclasses.Field[Any], ...], namespace: dict[str, Any]) -> list[str]:
    """The generated function's parameters, in field order; a default goes into `namespace` by name."""
    params = []
    for f in fields:
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    return params


def _writes(fields: tuple[dataclasses.Field[Any], ...]) -> list[str]:
    return [f"    d[{f.name!r}] = {f.name}" for f in fields]


def _nonnegative_checks(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> list[str]:
    return [f"    if type({f.name}) is int and {f.name} < 0:\n"
            f"        raise ValueError({cls.__name__ + '.' + f.name + ' must not be negative'!r})" for f in fields]


def _quick_nonnegative_checks(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> list[str]:
    """The checks of :func:`_nonnegative_checks`, refusing exactly the same values, in fewer steps for the fields
    declared ``int`` or ``bool`` (what the engine passes there): one chained ``x < 0`` comparison over all of them,
    which for ints and bools is false exactly when none is a negative int. Only when it is true (a negative int,
    or another type comparing below zero) or raises (a value of another type) do the exact per-field checks run,
    in field order. Fields declared otherwise are checked exactly every time (a negative int there is refused
    too)."""
    quick = [f for f in fields if f.type in ("int", "bool", int, bool)]
    if not quick:
        return _nonnegative_checks(cls, fields)
    test = " or ".join(f"{f.name} < 0" for f in quick)
    lines = ["    try:", f"        exact = True if {test} else False", "    except Exception:", "        exact = True",
             "    if exact:"]
    lines += ["    " + line for line in "\n".join(_nonnegative_checks(cls, fields)).split("\n")]
    others = tuple(f for f in fields if f not in quick)
    if others:
        lines += ["    else:"]
        lines += ["    " + line for line in "\n".join(_nonnegative_checks(cls, others)).split("\n")]
    return lines


def is_native(cls: type) -> bool:
    """Whether ``cls`` was compiled by mypyc (the native build of docs/benchmarks.md): its instances have no
    ``__dict__`` to write into, and its generated ``__init__`` is already as fast as this module's."""
    return hasattr(cls, "__mypyc_attrs__")


def _fast_doc(cls: type) -> str:
    return f"{cls.__name__} fields, keyword-only (fast path, see table_controller.engine.frozen_init)."
