"""TEST FAKE of verifiers/v1/utils/generic.py @ a60a606: ``concrete_type`` finds the concrete type
argument bound to ``bound`` through a class's ``__orig_bases__`` (``Taskset[MyTask, MyConfig]``), most
derived first. This is how the loader finds a taskset's config type and the env server its task and data
types: from the generic parameters, not from instances."""

from __future__ import annotations

from typing import Optional, get_args, get_origin


def concrete_type(cls: type, bound: type, *, origin: Optional[type] = None) -> Optional[type]:
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            if origin is not None and get_origin(base) is not origin:
                continue
            for arg in get_args(base):
                if isinstance(arg, type) and issubclass(arg, bound):
                    return arg
    return None
