"""minedit as a reward function of a verifiers ``Rubric`` (the environments PRIME-RL trains on).

::

    import verifiers as vf
    from minedit_client.verifiers import minedit_reward_func
    rubric = vf.Rubric(funcs=[minedit_reward_func()], weights=[1.0])
    env = vf.SingleTurnEnv(dataset=dataset, rubric=rubric)  # rows: prompt, answer = task id

verifiers calls each reward function of a rubric once per rollout with the arguments its signature names,
among ``prompt``, ``completion``, ``answer``, ``state``, ``info`` and ``task``, and awaits it when it is a
coroutine function. :func:`minedit_reward_func` returns ``async (completion, answer=None, info=None,
state=None, **kwargs) -> float``:

- the task id is the dataset's ``answer`` or ``info["task_id"]`` (both may be given; they must agree);
- ``completion`` is a string or a list of chat messages (the last assistant message is scored);
- the full result goes into ``state["minedit"]`` (reward, verdict, components, tests), where other rubric
  functions and saved rollouts can read it; :func:`minedit_metric_funcs` gives zero-weight metrics
  (``minedit_passed``, ``minedit_excess``, ``minedit_infra_error``) that read it back without a second call.

Infrastructure errors: a rubric function must return a float, and one rollout is scored alone, so an
INFRA_ERROR rollout scores ``infra_error_score`` (default 0.0) and ``minedit_infra_error`` is 1.0 for it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Callable, Dict, List, Optional

from ._adapt import AsyncClients, completion_text, task_id_of
from .client import AsyncMineditClient, settings_from_env
from .types import RewardOverride, Rollout

STATE_KEY = "minedit"


def minedit_reward_func(
    target: Optional[str] = None,
    *,
    token: Optional[str] = None,
    timeout: Optional[float] = None,
    infra_error_score: float = 0.0,
    reward_override: Optional[RewardOverride] = None,
    name: str = "minedit_reward",
    client: Optional[Callable[[], AsyncMineditClient]] = None,
    **client_settings: Any,
) -> Callable[..., Any]:
    """The rubric reward function (see the module doc). Client settings default to the ``MINEDIT_*``
    environment (:func:`minedit_client.client.settings_from_env`)."""
    settings = settings_from_env(target=target, token=token, timeout=timeout, **client_settings)
    clients = AsyncClients(client if client is not None else (lambda: AsyncMineditClient(**settings)))

    async def reward(
        completion: Any = None, answer: Any = None, info: Any = None, state: Any = None, **kwargs: Any
    ) -> float:
        task_id = task_id_of(
            answer, info.get("task_id") if isinstance(info, dict) else None, "answer", 'info["task_id"]'
        )
        [result] = await clients.get().score_batch(
            [Rollout(id="0", completion=completion_text(completion), task_id=task_id)],
            reward_override=reward_override,
        )
        score = result.reward if result.reward is not None else infra_error_score
        if isinstance(state, dict):
            record = asdict(result)
            record["score"] = score
            state[STATE_KEY] = record
        return float(score)

    reward.__name__ = name
    reward.__qualname__ = name
    return reward


def _from_state(state: Any) -> Dict[str, Any]:
    if not isinstance(state, dict) or STATE_KEY not in state:
        raise RuntimeError(
            "minedit metric: no minedit result in state; list minedit_reward_func before the metrics in the rubric"
        )
    return state[STATE_KEY]


def minedit_metric_funcs() -> List[Callable[..., float]]:
    """Metrics to add with weight 0 after :func:`minedit_reward_func` (verifiers logs every rubric function):
    ``minedit_passed`` (1.0 / 0.0), ``minedit_excess`` (excess edit distance; 0.0 when not computed) and
    ``minedit_infra_error`` (1.0 / 0.0)."""

    def minedit_passed(state: Any = None, **_: Any) -> float:
        return 1.0 if _from_state(state)["verdict"] == "PASSED" else 0.0

    def minedit_excess(state: Any = None, **_: Any) -> float:
        components = _from_state(state)["components"]
        return float(components["excess"]) if components else 0.0

    def minedit_infra_error(state: Any = None, **_: Any) -> float:
        return 1.0 if _from_state(state)["verdict"] == "INFRA_ERROR" else 0.0

    return [minedit_passed, minedit_excess, minedit_infra_error]


def minedit_rubric(**settings: Any) -> Any:
    """A ``verifiers.Rubric`` with the minedit reward (weight 1) and its metrics (weight 0). Needs the
    ``verifiers`` package; ``settings`` go to :func:`minedit_reward_func`."""
    import verifiers as vf  # imported here: the rest of minedit_client does not need verifiers

    metrics = minedit_metric_funcs()
    return vf.Rubric(funcs=[minedit_reward_func(**settings), *metrics], weights=[1.0] + [0.0] * len(metrics))
