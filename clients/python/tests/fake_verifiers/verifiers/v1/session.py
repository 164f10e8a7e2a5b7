"""TEST FAKE of verifiers/v1/session.py @ a60a606: the checks run BEFORE EACH MODEL CALL.

- ``hook_boundary(handler, allow_trace=True)`` picks a ``@stop`` hook's boundary solely from its
  ANNOTATED parameters (``typing.get_type_hints``): exactly one ``Request`` / ``Response`` parameter, or
  (for stops) exactly one ``Trace`` one; anything else raises ``TypeError`` when the rollout is built. (An
  unannotated ``trace`` parameter is an error at HEAD; v0.2.0 6c64ce6 called ``await stop(trace)``.)
- ``refused()``: the framework limits first (``max_turns``: ``num_turns >= max_turns``), then each Trace
  stop via ``invoke(stop, {Trace: trace})``, awaited when awaitable; a non-bool result is a ``TaskError``;
  the first true one stops the trace with its ``__name__``.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, get_origin, get_type_hints

from .errors import TaskError
from .trace import Trace
from .utils.decorators import invoke


class Request:
    """Stand-in for the typed model request boundary (not used by tasks here)."""


class Response:
    """Stand-in for the typed model response boundary (not used by tasks here)."""


def hook_boundary(handler: Callable[..., Any], *, allow_trace: bool) -> type:
    hints = get_type_hints(handler)
    annotations = [
        get_origin(hints[name]) or hints[name] for name in inspect.signature(handler).parameters if name in hints
    ]
    boundaries = [kind for kind in annotations if kind in (Request, Response)]
    if len(boundaries) == 1 and annotations.count(Trace) <= 1:
        return boundaries[0]
    if not boundaries and allow_trace and annotations.count(Trace) == 1:
        return Trace
    expected = "Request, Response, or Trace" if allow_trace else "Request or Response"
    raise TypeError(f"{handler.__name__} must have exactly one {expected} parameter")


@dataclass(frozen=True)
class RolloutLimits:
    max_turns: Optional[int] = None

    def reached(self, trace: Trace) -> Optional[str]:
        if self.max_turns is not None and trace.num_turns >= self.max_turns:
            return "max_turns"
        return None


async def call_hook(handler: Callable[..., Any], available: dict) -> Any:
    result = invoke(handler, available)
    return await result if inspect.isawaitable(result) else result


async def refused(trace: Trace, limits: RolloutLimits, trace_stops: List[Callable[..., Any]]) -> Optional[str]:
    if (limit := limits.reached(trace)) is not None:
        trace.stop(limit)
        return limit
    for stop in trace_stops:
        result = await call_hook(stop, {Trace: trace})
        if not isinstance(result, bool):
            raise TaskError(f"@stop must return bool, got {type(result).__name__}")
        if result:
            trace.stop(stop.__name__)
            return stop.__name__
    return None
