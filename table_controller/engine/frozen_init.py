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
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["install", "supported"]


def supported(cls: type) -> bool:
    """Whether :func:`install` can give this class a fast ``__init__`` (else it leaves the class alone)."""
    if not dataclasses.is_dataclass(cls) or "__slots__" in cls.__dict__:
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
    names = [f.name for f in fields]
    namespace: dict[str, Any] = {"ValueError": ValueError}
    params = []
    for f in fields:
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    lines = [f"def __init__(self, *, {', '.join(params)}):" if params else "def __init__(self):",
             "    d = self.__dict__"]
    lines += [f"    d[{name!r}] = {name}" for name in names]
    if nonnegative_ints:
        title = cls.__name__
        lines += [f"    if type({name}) is int and {name} < 0:\n"
                  f"        raise ValueError({title + '.' + name + ' must not be negative'!r})" for name in names]
    elif hasattr(cls, "__post_init__"):
        lines.append("    self.__post_init__()")
    exec("\n".join(lines), namespace)  # the same technique dataclasses uses to build __init__
    init = namespace["__init__"]
    init.__annotations__ = dict(getattr(cls.__dict__["__init__"], "__annotations__", {}))
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = f"{cls.__name__} fields, keyword-only (fast path, see table_controller.engine.frozen_init)."
    cls.__init__ = init  # type: ignore[misc]
    return True
