"""TEST FAKE of verifiers/v1/task.py @ a60a606: ``TaskData`` (the wire half: a frozen model; unknown keys
are dropped, so task-specific fields must be declared), ``WireTaskData`` (extra allowed), and ``Task``
(the behaviour half), generic in ``[DataT, StateT, ConfigT]``.

``Task.score(trace, runtime=None)`` as upstream: inside ``boundary(TaskError, "task <Name> scoring")``,
the ``@metric`` and ``@reward`` hooks (``discover_decorated``: priority, then name) that do not require a
``runtime`` when none is given; every expected name is seeded ``None`` first; the METRICS run first
(``invoke_all``: ``asyncio.gather``) and are recorded with ``record_metric`` (a Mapping result with
``record_metrics``), THEN the rewards, recorded with ``record_reward(name, value, fn._vf_weight)``, which
calls ``float(value)``: a ``None`` reward raises ``TypeError`` -> ``TaskError``; NaN is kept. An exception
from any hook leaves the unrecorded names ``None``.

Judges and config-plugged hooks are not reproduced (none are configured here).
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
from typing import Any, Callable, Dict, Generic, List, Mapping, Optional, TypeVar, Union

from ._model import BaseModel, Field
from .configs.task import TaskConfig
from .errors import TaskError, boundary
from .state import State
from .types import Messages, content_text
from .utils.decorators import discover_decorated, invoke_all, seed, unseed
from .utils.generic import concrete_type


def task_key(data: Mapping) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


class TaskResources(BaseModel):
    __frozen__ = True
    cpu: Optional[float] = None
    memory: Optional[float] = None
    gpu: Optional[str] = None
    disk: Optional[float] = None


class TaskTimeout(BaseModel):
    __frozen__ = True
    setup: Optional[float] = None
    agent: Optional[float] = None
    finalize: Optional[float] = None
    scoring: Optional[float] = None


class TaskData(BaseModel):
    __frozen__ = True

    idx: Optional[int] = None
    name: Optional[str] = None
    description: Optional[str] = None
    prompt: Union[str, Messages, None] = None
    system_prompt: Optional[str] = None
    image: Optional[str] = None
    workdir: Optional[str] = None
    network_allow: List[str] = Field(default_factory=lambda: ["*"])
    network_block: List[str] = Field(default_factory=list)
    timeout: TaskTimeout = TaskTimeout()
    resources: TaskResources = TaskResources()

    @property
    def prompt_text(self) -> str:
        if isinstance(self.prompt, str):
            return self.prompt
        texts = [content_text(message.content) for message in self.prompt or []]
        return "\n\n".join(text for text in texts if text)


class WireTaskData(TaskData):
    __extra__ = "allow"


DataT = TypeVar("DataT", bound=TaskData)
StateT = TypeVar("StateT", bound=State)
ConfigT = TypeVar("ConfigT", bound=TaskConfig)


def _requires_runtime(fn: Callable[..., Any]) -> bool:
    param = inspect.signature(fn).parameters.get("runtime")
    return param is not None and param.default is inspect.Parameter.empty


class Task(Generic[DataT, StateT, ConfigT]):
    NEEDS_CONTAINER = False

    def __init__(self, data: DataT, config: Optional[ConfigT] = None) -> None:
        self.data = data
        self.config = config if config is not None else self.config_type()()

    @property
    def hash(self) -> str:
        return task_key(self.data.model_dump(mode="json", exclude_none=True))

    @property
    def key(self) -> str:
        return self.hash

    def with_system_prompt(self, system_prompt: str) -> "Task":
        clone = copy.copy(self)
        clone.data = self.data.model_copy(update={"system_prompt": system_prompt})
        return clone

    async def setup(self, trace: Any, runtime: Any) -> None:
        return None

    async def finalize(self, trace: Any, runtime: Any) -> None:
        return None

    def hooks(self, attr: str) -> List[Callable[..., Any]]:
        return discover_decorated(self, attr)

    async def score(self, trace: Any, runtime: Any = None) -> None:
        available: Dict[str, Any] = {"task": self.data, "trace": trace}
        if runtime is not None:
            available["runtime"] = runtime
        async with boundary(TaskError, f"task {type(self).__name__} scoring"):
            metrics = self.hooks("metric")
            rewards = self.hooks("reward")
            if runtime is None:
                metrics = [fn for fn in metrics if not _requires_runtime(fn)]
                rewards = [fn for fn in rewards if not _requires_runtime(fn)]
            seed(trace.metrics, (fn.__name__ for fn in metrics))
            seed(trace.rewards, (fn.__name__ for fn in rewards))
            metric_results = await invoke_all(metrics, available)
            for fn, result in zip(metrics, metric_results):
                if isinstance(result, Mapping):
                    unseed(trace.metrics, fn.__name__)
                    trace.record_metrics(result)
                else:
                    trace.record_metric(fn.__name__, result)
            reward_results = await invoke_all(rewards, available)
            for fn, result in zip(rewards, reward_results):
                weight = getattr(fn, "_vf_weight", 1.0)
                if isinstance(result, Mapping):
                    unseed(trace.rewards, fn.__name__)
                    items = list(result.items())
                else:
                    items = [(fn.__name__, result)]
                for key, value in items:
                    trace.record_reward(key, value, weight)

    @classmethod
    def data_type(cls) -> type:
        return concrete_type(cls, TaskData) or TaskData

    @classmethod
    def config_type(cls) -> type:
        return concrete_type(cls, TaskConfig) or TaskConfig


TaskT = TypeVar("TaskT", bound=Task)
