"""TEST FAKE of verifiers/v1/configs/task.py @ a60a606: ``TaskConfig``, the run-time task knobs
(``--env.taskset.task.*``), a pydantic_config ``BaseConfig`` (extra keys forbidden). Upstream's plugged
``stops`` / ``metrics`` / ``rewards`` / ``judges`` are accepted as empty collections; plugging functions by
config is not reproduced (``Task.hooks`` here returns the decorated methods only).
"""

from __future__ import annotations

from typing import Any, Dict, List

from .._model import BaseModel, Field


class BaseConfig(BaseModel):
    """pydantic_config.BaseConfig: ``extra="forbid"``, and the string "None" reads as None."""

    __extra__ = "forbid"

    def __init__(self, **data: Any) -> None:
        super().__init__(**{k: (None if v == "None" else v) for k, v in data.items()})


class TaskConfig(BaseConfig):
    judges: List[Any] = Field(default_factory=list)
    stops: Dict[str, Any] = Field(default_factory=dict)
    metrics: Dict[str, Any] = Field(default_factory=dict)
    rewards: Dict[str, Any] = Field(default_factory=dict)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        if self.judges or self.stops or self.metrics or self.rewards:
            raise NotImplementedError("fake verifiers: config-plugged judges / stops / metrics / rewards")
