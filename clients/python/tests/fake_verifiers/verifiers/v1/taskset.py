"""TEST FAKE of verifiers/v1/taskset.py @ a60a606: ``Taskset[TaskT, TasksetConfigT]`` (an ABC): built
with its config, ``load()`` is the abstract hook yielding tasks (any iterable), ``__iter__`` applies the
config's ``system_prompt`` override file, ``task_type()`` reads the task class off the generic
parameters. (v0.2.0 6c64ce6: not an ABC, ``load() -> list``, no ``system_prompt``; a taskset returning a
list from ``load`` serves both.)"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, Iterable, Iterator, TypeVar

from .configs.taskset import TasksetConfig
from .task import Task, TaskT
from .utils.generic import concrete_type

TasksetConfigT = TypeVar("TasksetConfigT", bound=TasksetConfig)


class Taskset(ABC, Generic[TaskT, TasksetConfigT]):
    INFINITE: bool = False

    def __init__(self, config: TasksetConfigT) -> None:
        self.config = config
        override = config.system_prompt
        self.system_prompt = override.read_text() if override is not None else None

    @abstractmethod
    def load(self) -> Iterable[TaskT]:
        """Build and yield the taskset's tasks."""

    def __iter__(self) -> Iterator[TaskT]:
        prompt = self.system_prompt
        for task in self.load():
            yield task.with_system_prompt(prompt) if prompt is not None else task

    @classmethod
    def task_type(cls) -> type:
        return concrete_type(cls, Task, origin=Taskset) or Task
