"""TEST FAKE of verifiers/v1/serve/server.py @ a60a606: the env-server worker. It never ``load()``s the
taskset: the trainer ships each task as ``task.data.model_dump(mode="json")`` (PRIME-RL
orchestrator/dispatcher.py @ 559b447) and ``_build_task`` validates it into the taskset's declared
``TaskData`` type (``task_type().data_type()``), then wraps it in the declared ``Task`` with the config's
``taskset.task`` subtree. A ``TaskData`` field with ``exclude=True`` is refused at start. Requests run
concurrently in one worker process and event loop.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from ..configs.taskset import TasksetConfig
from ..rollout import run_rollout
from ..task import Task
from ..trace import Trace
from ..utils.loaders import taskset_class


class EnvServer:
    def __init__(self, taskset_config: TasksetConfig, *, max_turns: Optional[int] = None,
                 scoring_timeout: Optional[float] = None) -> None:
        self.config = taskset_config
        self.task_cls = taskset_class(taskset_config.id).task_type()
        self.data_cls = self.task_cls.data_type()
        excluded = [name for name, field in self.data_cls._fields().items() if field.exclude]
        if excluded:
            raise ValueError(f"{self.data_cls.__name__} excludes {excluded} from serialization")
        self.max_turns = max_turns
        self.scoring_timeout = scoring_timeout

    def _build_task(self, task_data: Dict[str, Any]) -> Task:
        data = self.data_cls.model_validate(task_data)
        return self.task_cls(data, self.config.task)

    async def run(self, task_data: Dict[str, Any], replies: Sequence[str]) -> Trace:
        """One episode of one agent, the model scripted by ``replies``."""
        return await run_rollout(
            self._build_task(task_data), replies, max_turns=self.max_turns, scoring_timeout=self.scoring_timeout
        )
