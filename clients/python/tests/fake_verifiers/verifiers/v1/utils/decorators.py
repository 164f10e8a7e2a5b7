"""TEST FAKE of verifiers/v1/utils/decorators.py @ a60a606 (v0.2.0 6c64ce6: verifiers/v1/decorators.py).

As upstream:

- ``@reward(weight=1.0, priority=0)``, ``@metric(priority=0)``, ``@stop(priority=0)`` only tag the function
  (``reward=True``, ``reward_priority``, ``_vf_weight``), with or without arguments;
- ``discover_decorated(obj, attr)`` scans the class MRO for tagged functions, binds them through
  ``getattr`` (an undecorated override hides a decorated base method) and sorts them by descending
  priority, then name;
- ``invoke(fn, available)`` passes the parameters the signature names (``task``, ``trace``, ``runtime``),
  plus, when ``available`` has type keys, those matched by annotation; ``invoke_all`` runs handlers with
  ``asyncio.gather``;
- ``seed`` marks every expected score ``None`` before scoring, ``unseed`` drops a still-unscored seed.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Callable, Dict, Iterable, List, get_origin, get_type_hints


def discover_decorated(obj: object, attr: str) -> List[Callable[..., Any]]:
    names = {
        name
        for klass in type(obj).__mro__
        for name, fn in vars(klass).items()
        if callable(fn) and hasattr(fn, attr)
    }
    methods = [method for name in names if hasattr(method := getattr(obj, name), attr)]
    priority_attr = f"{attr}_priority"
    methods.sort(key=lambda m: (-getattr(m, priority_attr, 0), m.__name__))
    return methods


def invoke(fn: Callable[..., Any], available: Dict[Any, Any]) -> Any:
    params = inspect.signature(fn).parameters
    kwargs = {name: available[name] for name in params if name in available}
    if any(isinstance(key, type) for key in available):
        hints = get_type_hints(fn)
        for name in params:
            annotation = get_origin(hints.get(name)) or hints.get(name)
            if name not in kwargs and annotation in available:
                kwargs[name] = available[annotation]
    return fn(**kwargs)


async def invoke_all(fns: List[Callable[..., Any]], available: Dict[str, Any]) -> List[Any]:
    return await asyncio.gather(*(invoke(fn, available) for fn in fns))


def seed(scores: Dict[str, Any], names: Iterable[str]) -> None:
    for name in names:
        scores[name] = None


def unseed(scores: Dict[str, Any], name: str) -> None:
    if scores.get(name) is None:
        scores.pop(name, None)


def mark(attr: str, **extra: Any) -> Callable[[Any], Any]:
    def decorator(f: Any) -> Any:
        setattr(f, attr, True)
        for key, value in extra.items():
            setattr(f, key, value)
        return f

    return decorator


def stop(func: Any = None, priority: int = 0) -> Any:
    decorator = mark("stop", stop_priority=priority)
    return decorator if func is None else decorator(func)


def metric(func: Any = None, priority: int = 0) -> Any:
    decorator = mark("metric", metric_priority=priority)
    return decorator if func is None else decorator(func)


def reward(func: Any = None, weight: float = 1.0, priority: int = 0) -> Any:
    decorator = mark("reward", reward_priority=priority, _vf_weight=weight)
    return decorator if func is None else decorator(func)
