"""TEST FAKE of verifiers/envs/environment.py @ v0.1.12 (commit 1979705), with the model replaced by a
scripted one. As upstream:

- ``Environment(dataset=..., eval_dataset=..., rubric=..., parser=..., env_id=, env_args=, **kwargs)``:
  one of the datasets is required; rows need a ``prompt`` column here (upstream can build it from
  ``question``);
- ``init_state(input)``: ``State(input=deepcopy(input))`` with ``task`` defaulting to the env id or
  ``"default"``, ``info`` given as a JSON string decoded, the prompt's dict messages turned into message
  objects (>= 0.1.11, ``normalize_messages``), then the rollout fields: ``completion`` None,
  ``trajectory`` [], ``reward`` / ``metrics`` / ``error`` None;
- ``run_group(group_inputs, client, model, sampling_args, max_retries=0)``: every rollout of the group,
  then ``rubric.score_group(states)``, the whole attempt wrapped in ``maybe_retry`` (a state holding an
  ``InfraError`` re-runs the group), then one output per state whose ``error`` is set when
  ``state["error"]`` was (``state_to_output`` / ``error_data``) — what PRIME-RL v0.5's scheduler
  reschedules on and the legacy bridge of verifiers >= 0.2 turns into a failed trace.

``client`` is the scripted model: ``async (prompt_messages) -> str``. The reply becomes the completion in
the shape of the release being mirrored: ``[AssistantMessage(content=text)]`` (>= 0.1.11) or
``[{"role": "assistant", "content": text}]`` (0.1.10; ``MESSAGES = "dict"``).
"""

from __future__ import annotations

import asyncio
import json
from copy import deepcopy
from typing import Any, Awaitable, Callable, Dict, List, Optional

from ..parsers.parser import Parser
from ..rubrics.rubric import Rubric
from ..types import AssistantMessage, State, SystemMessage, ToolMessage, UserMessage
from ..utils.async_utils import maybe_retry

#: Which release's completion shape rollouts produce: "pydantic" (>= 0.1.11) or "dict" (<= 0.1.10).
MESSAGES = "pydantic"

ScriptedModel = Callable[[List[Any]], Awaitable[str]]


class Environment:
    def __init__(
        self,
        dataset: Any = None,
        eval_dataset: Any = None,
        system_prompt: Optional[str] = None,
        parser: Optional[Parser] = None,
        rubric: Optional[Rubric] = None,
        env_id: Optional[str] = None,
        env_args: Optional[dict] = None,
        **kwargs: Any,
    ) -> None:
        if dataset is None and eval_dataset is None:
            raise ValueError("Either dataset or eval_dataset must be provided")
        for ds in (dataset, eval_dataset):
            if ds is not None and "prompt" not in ds.column_names:
                raise ValueError("fake verifiers: datasets need a prompt column")
        self.dataset = dataset
        self.eval_dataset = eval_dataset
        self.system_prompt = system_prompt
        self.parser = parser or Parser()
        self.rubric = rubric or Rubric()
        self.env_id = env_id or ""
        self.env_args = env_args or {}
        for key, value in kwargs.items():
            setattr(self, key, value)

    def get_dataset(self) -> Any:
        return self.dataset

    def init_state(self, input: Dict[str, Any]) -> State:
        state_input = deepcopy(input)
        if "info" in state_input and isinstance(state_input["info"], str):
            state_input["info"] = json.loads(state_input["info"])
        if "task" not in state_input:
            state_input["task"] = self.env_id or "default"
        state = State(input=state_input)
        if MESSAGES == "pydantic" and isinstance(state["prompt"], list):
            state["prompt"] = [_message(m) if isinstance(m, dict) else m for m in state["prompt"]]
        state["is_completed"] = False
        state["trajectory"] = []
        state["completion"] = None
        state["reward"] = None
        state["metrics"] = None
        state["error"] = None
        return state

    async def rollout(
        self, input: Dict[str, Any], client: ScriptedModel, model: str = "", sampling_args: Any = None
    ) -> State:
        state = self.init_state(input)
        text = await client(state["prompt"])
        reply = {"role": "assistant", "content": text} if MESSAGES == "dict" else AssistantMessage(content=text)
        state["trajectory"].append({"prompt": state["prompt"], "completion": [reply]})
        state["completion"] = [reply]
        state["is_completed"] = True
        return state

    async def run_group(
        self,
        group_inputs: List[Dict[str, Any]],
        client: ScriptedModel,
        model: str = "",
        sampling_args: Any = None,
        max_retries: int = 0,
    ) -> List[Dict[str, Any]]:
        async def run_group_attempt() -> List[State]:
            states = await asyncio.gather(*(self.rollout(i, client, model, sampling_args) for i in group_inputs))
            await self.rubric.score_group(list(states))
            return list(states)

        states = await maybe_retry(run_group_attempt, max_retries=max_retries)()
        return [state_to_output(state) for state in states]


def _message(raw: Dict[str, Any]) -> Any:
    cls = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage, "tool": ToolMessage}
    return cls[raw["role"]](**raw)


def state_to_output(state: State) -> Dict[str, Any]:
    """verifiers/utils/save_utils.py ``state_to_output``: the saved record; ``error`` from ``error_data``."""
    error = state.get("error")
    return {
        "example_id": state.get("example_id"),
        "prompt": state["prompt"],
        "completion": state["completion"],
        "answer": state.get("answer", ""),
        "reward": state["reward"],
        "metrics": state["metrics"],
        "error": None if error is None else {"error": type(error).__name__, "message": str(error),
                                             "error_chain_repr": repr(error)},
        "state": state,
    }
