"""TEST FAKE of verifiers/v1/configs/taskset.py @ a60a606: ``TasksetConfig`` (``--env.taskset.*``):
``id``, ``task`` (the ``TaskConfig`` subtree handed to every task), ``system_prompt`` (an override file)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .task import BaseConfig, TaskConfig


class TasksetConfig(BaseConfig):
    id: str = ""
    task: TaskConfig = TaskConfig()
    system_prompt: Optional[Path] = None

    @property
    def name(self) -> str:
        return self.id
