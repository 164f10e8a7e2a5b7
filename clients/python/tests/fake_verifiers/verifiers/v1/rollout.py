"""TEST FAKE of verifiers/v1/rollout.py @ a60a606 (``Rollout``: open, run, close), with the model and the
harness replaced by a scripted model: ``replies`` are what the model answers, one per call.

As upstream: the trace is minted with ``TraceTask(type, data, key, hash)``; the task's ``@stop`` hooks
are classified by ``hook_boundary`` when the rollout is built; before every model call ``refused()``
applies ``max_turns`` and the stops; the prompt (``system_prompt``, then ``prompt``) is the first, unsampled
nodes; each reply is a sampled ``AssistantMessage`` node. ``close()`` scores inside ``boundary(TaskError,
"scoring")`` under ``asyncio.wait_for(task.score(trace, runtime), timeout.scoring)``; any exception is
recorded onto the trace (``record_error``: ``ok`` False) instead of propagating — a bad rollout is data.
Finally ``ok = not failed``.
"""

from __future__ import annotations

import asyncio
from typing import Any, List, Optional, Sequence

from .errors import TaskError, boundary
from .session import RolloutLimits, hook_boundary, refused
from .task import Task
from .trace import Trace, TraceTask
from .types import AssistantMessage, SystemMessage, UserMessage


async def run_rollout(
    task: Task,
    replies: Sequence[str],
    *,
    max_turns: Optional[int] = None,
    scoring_timeout: Optional[float] = None,
    runtime: Any = None,
) -> Trace:
    trace = Trace(task=TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash))
    stops = [(hook_boundary(fn, allow_trace=True), fn) for fn in task.hooks("stop")]
    trace_stops = [fn for kind, fn in stops if kind is Trace]
    limits = RolloutLimits(max_turns=max_turns)
    failed = False
    try:
        data = task.data
        if data.system_prompt:
            trace.append(SystemMessage(content=data.system_prompt), sampled=False)
        if isinstance(data.prompt, str):
            trace.append(UserMessage(content=data.prompt), sampled=False)
        else:
            for message in data.prompt or []:
                trace.append(message, sampled=False)
        pending: List[str] = list(replies)
        while pending:
            if await refused(trace, limits, trace_stops) is not None:
                break
            trace.append(AssistantMessage(content=pending.pop(0)), sampled=True)
        async with boundary(TaskError, "scoring"):
            await asyncio.wait_for(task.score(trace, runtime), scoring_timeout)
    except Exception as error:  # noqa: BLE001 - upstream records every rollout failure onto the trace
        failed = True
        trace.record_error(error)
    trace.is_completed = True
    trace.ok = not failed
    return trace
