"""TEST FAKE of verifiers/v1/trace.py @ a60a606: ``Trace`` and the records on it, reduced to what task
code and the trainer read. As upstream:

- ``nodes`` is the message graph (here linear); ``assistant_messages`` are the SAMPLED assistant nodes'
  messages, ``last_reply`` the last one's ``(content or "").strip()``, ``num_turns`` the sampled nodes;
- ``rewards: dict[str, Reward | None]`` (``None`` = scoring did not run), ``reward`` = sum of
  ``score * weight`` over the non-None ones; ``metrics: dict[str, float | None]``; ``info`` is scratch
  space that is serialized with the trace (so it must hold JSON data);
- ``record_metric(name, value)`` stores ``float(value)``; ``record_reward(name, value, weight)`` stores
  ``Reward(score=float(value), weight=float(weight))`` (so ``None`` raises ``TypeError``);
- ``record_error(error)`` appends an ``Error(type, message, traceback)``, sets ``ok = False`` and stops
  the trace with ``"error"``; ``has_error`` is ``not ok``;
- ``agent.trainable`` (PRIME-RL skips untrainable traces) and per-node ``mask`` (sampled tokens).
"""

from __future__ import annotations

import traceback
import uuid
from typing import Any, Dict, List, Mapping, Optional

from ._model import BaseModel, Field
from .task import TaskData
from .types import AssistantMessage, Message


class Error(BaseModel):
    type: str
    message: str
    status_code: Optional[int] = None
    traceback: Optional[str] = None


class Reward(BaseModel):
    score: float
    weight: float = 1.0

    @property
    def value(self) -> float:
        return self.score * self.weight


class TraceTask(BaseModel):
    type: str
    data: TaskData
    key: Optional[str] = None
    hash: Optional[str] = None


class AgentInfo(BaseModel):
    name: str = "agent"
    trainable: bool = True


class MessageNode(BaseModel):
    message: Any
    parent: Optional[int] = None
    sampled: bool = False
    mask: List[bool] = Field(default_factory=list)


class Trace(BaseModel):
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    task: TraceTask
    agent: AgentInfo = Field(default_factory=AgentInfo)
    nodes: List[MessageNode] = Field(default_factory=list)
    rewards: Dict[str, Optional[Reward]] = Field(default_factory=dict)
    metrics: Dict[str, Optional[float]] = Field(default_factory=dict)
    info: Dict[str, Any] = Field(default_factory=dict)
    is_completed: bool = False
    ok: bool = False
    stop_condition: Optional[str] = None
    errors: List[Error] = Field(default_factory=list)

    @property
    def reward(self) -> float:
        return sum(r.value for r in self.rewards.values() if r is not None)

    @property
    def has_error(self) -> bool:
        return not self.ok

    @property
    def num_turns(self) -> int:
        return sum(1 for n in self.nodes if n.sampled)

    @property
    def assistant_messages(self) -> List[AssistantMessage]:
        return [n.message for n in self.nodes if n.sampled and isinstance(n.message, AssistantMessage)]

    @property
    def last_reply(self) -> str:
        msgs = self.assistant_messages
        return (msgs[-1].content or "").strip() if msgs else ""

    @property
    def last_error(self) -> Optional[Error]:
        return self.errors[-1] if self.errors else None

    def append(self, message: Message, sampled: bool) -> None:
        """Graph building (upstream: ``graph.prepare_turn(...).commit(response)``), linear here."""
        parent = len(self.nodes) - 1 if self.nodes else None
        tokens = max(1, len(str(getattr(message, "content", "") or "")) // 4)
        self.nodes.append(MessageNode(message=message, parent=parent, sampled=sampled, mask=[sampled] * tokens))

    def record_metric(self, name: str, value: float) -> None:
        self.metrics[name] = float(value)

    def record_metrics(self, values: Mapping[str, float]) -> None:
        for name, value in values.items():
            self.record_metric(name, value)

    def record_reward(self, name: str, value: float, weight: float = 1.0) -> None:
        self.rewards[name] = Reward(score=float(value), weight=float(weight))

    def stop(self, condition: str) -> None:
        self.is_completed = True
        if self.stop_condition is None:
            self.stop_condition = condition

    def record_error(self, error: BaseException) -> None:
        self.errors.append(
            Error(
                type=type(error).__name__,
                message=str(error),
                traceback="".join(traceback.format_exception(error)),
            )
        )
        self.ok = False
        self.stop("error")
