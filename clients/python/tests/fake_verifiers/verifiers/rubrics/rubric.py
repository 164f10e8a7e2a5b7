"""TEST FAKE of verifiers/rubrics/rubric.py @ v0.1.12 (commit 1979705; the call path is unchanged from
v0.1.10 ccef044 to v0.1.13.dev8 980a9ea). As upstream:

- ``Rubric(funcs, weights, parser)``: weights default to 1.0 each; the parser is registered as the
  ``parser`` class object;
- a function whose parameters include a plural name (``states``, ``prompts``, ``completions``,
  ``answers``, ``tasks``, ``infos``) is a GROUP function, called once with the lists;
- an individual function is called with ``prompt=state["prompt"], completion=state["completion"],
  answer=state.get("answer", ""), state=state, task=state["task"], info=state.get("info", {})`` plus the
  class objects — all of them if it takes ``**kwargs``, else the names its signature lists — as
  ``float(await maybe_await(func, **args))``; ANY exception (a ``None`` result included, via ``float``)
  is logged and scores 0.0; NaN passes;
- ``score_rollout(state)``: the individual functions in list order, one after the other;
- ``score_group(states)``: the functions in list order, each one over all states at once
  (``asyncio.gather``); reward = sum of score x weight, metrics = ``{func.__name__: score}`` for every
  function (weight-0 ones are metrics only), advantage = reward - group mean.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any, Callable, Dict, List, Optional

from ..parsers.parser import Parser
from ..utils.async_utils import maybe_await

GROUP_INDICATORS = {"states", "prompts", "completions", "answers", "tasks", "infos"}


class Rubric:
    def __init__(
        self,
        funcs: Optional[List[Callable[..., Any]]] = None,
        weights: Optional[List[float]] = None,
        parser: Optional[Parser] = None,
    ) -> None:
        self.logger = logging.getLogger(f"{__name__}.{type(self).__name__}")
        self.funcs = funcs or []
        self.weights = weights or []
        if not self.weights:
            self.weights = [1.0] * len(self.funcs)
        elif len(self.weights) != len(self.funcs):
            raise ValueError(
                f"Number of weights ({len(self.weights)}) must match number of functions ({len(self.funcs)})"
            )
        self.parser = parser or Parser()
        self.class_objects: Dict[str, Any] = {"parser": self.parser}

    def add_reward_func(self, func: Callable[..., Any], weight: float = 1.0) -> None:
        self.funcs.append(func)
        self.weights.append(weight)

    def add_metric(self, func: Callable[..., Any], weight: float = 0.0) -> None:
        self.funcs.append(func)
        self.weights.append(weight)

    def _is_group_func(self, func: Callable[..., Any]) -> bool:
        sig = inspect.signature(func)
        return bool(set(sig.parameters) & GROUP_INDICATORS) or sig.return_annotation is list

    async def _call_individual_reward_func(self, func: Callable[..., Any], state: Dict[str, Any]) -> float:
        sig = inspect.signature(func)
        merged = dict(
            prompt=state["prompt"],
            completion=state["completion"],
            answer=state.get("answer", ""),
            state=state,
            task=state["task"],
            info=state.get("info", {}),
        )
        merged.update(self.class_objects)
        if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
            merged = {k: v for k, v in merged.items() if k in sig.parameters}
        try:
            return float(await maybe_await(func, **merged))
        except Exception as e:
            self.logger.error(f"Error calling reward function {func.__name__}: {e}")
            return 0.0

    async def score_rollout(self, state: Dict[str, Any]) -> None:
        funcs = [f for f in self.funcs if not self._is_group_func(f)]
        weights = [w for f, w in zip(self.funcs, self.weights) if not self._is_group_func(f)]
        scores = [await self._call_individual_reward_func(func, state) for func in funcs]
        state["reward"] = sum(s * w for s, w in zip(scores, weights))
        state["metrics"] = {func.__name__: s for func, s in zip(funcs, scores)}

    async def score_group(self, states: List[Dict[str, Any]]) -> None:
        if not states:
            return
        rewards = [0.0] * len(states)
        metrics: Dict[str, List[float]] = {}
        for func, weight in zip(self.funcs, self.weights):
            if self._is_group_func(func):
                raise NotImplementedError("fake verifiers: group reward functions")
            scores = await asyncio.gather(*(self._call_individual_reward_func(func, s) for s in states))
            metrics[func.__name__] = list(scores)
            for i, score in enumerate(scores):
                rewards[i] += score * weight
        mean = sum(rewards) / len(states)
        for i, state in enumerate(states):
            state["reward"] = rewards[i]
            state["advantage"] = rewards[i] - mean
            state["metrics"] = {name: values[i] for name, values in metrics.items()}
