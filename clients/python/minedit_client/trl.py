"""minedit as a reward function of TRL's ``GRPOTrainer``.

::

    from minedit_client.trl import minedit_reward_func
    trainer = GRPOTrainer(model=..., train_dataset=dataset,  # rows: prompt + task_id
                          reward_funcs=[minedit_reward_func("127.0.0.1:50051")])

The returned function is ``async``: TRL runs async reward functions concurrently with the other reward
functions. TRL calls it with keyword arguments ``prompts``, ``completions`` and every dataset column (but
``prompt``) as a list per sample, plus, in recent versions, ``log_extra(column, values)`` and
``log_metric(name, value)``. It:

- reads the task id of each sample from the dataset column ``task_id`` (``task_id_column=`` to change it);
- scores a completion given as a string (standard format) or as a list of messages (conversational
  format: the last assistant message's content);
- sends the whole call as ONE ``ScoreBatch``;
- returns the reward per sample, and ``None`` for an ``INFRA_ERROR`` (the sandbox broke, not the model):
  TRL treats ``None`` as "not applicable" and leaves the sample out of that reward, so a broken sandbox
  never reads as a failed repair;
- when TRL passes ``log_metric`` / ``log_extra``, logs ``minedit/pass_rate``, ``minedit/excess_passed``
  (mean excess edit distance of passing samples), ``minedit/infra_errors`` and ``minedit/cached`` as
  plots, and the verdict and excess of every sample as completion-table columns.

TRL names the reward in its logs after the function's ``__name__`` (``rewards/<name>/mean``): ``name=``
sets it (default ``minedit``).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from ._adapt import AsyncClients, completion_text
from .client import AsyncMineditClient, settings_from_env
from .types import RewardOverride, Rollout, RolloutResult


def _log(results: Sequence[RolloutResult], log_metric: Any, log_extra: Any) -> None:
    if callable(log_metric) and results:
        passed = [r for r in results if r.passed]
        log_metric("minedit/pass_rate", len(passed) / len(results))
        excess = [r.components.excess for r in passed if r.components is not None]
        if excess:
            log_metric("minedit/excess_passed", sum(excess) / len(excess))
        log_metric("minedit/infra_errors", float(sum(r.infra_error for r in results)))
        log_metric("minedit/cached", sum(r.cached for r in results) / len(results))
    if callable(log_extra):
        log_extra("minedit_verdict", [r.verdict for r in results])
        log_extra("minedit_excess", [r.components.excess if r.components else None for r in results])


def minedit_reward_func(
    target: Optional[str] = None,
    *,
    task_id_column: str = "task_id",
    name: str = "minedit",
    token: Optional[str] = None,
    timeout: Optional[float] = None,
    reward_override: Optional[RewardOverride] = None,
    client: Optional[Callable[[], AsyncMineditClient]] = None,
    **client_settings: Any,
) -> Callable[..., Any]:
    """A TRL reward function ``async (prompts, completions, **kwargs) -> list[float | None]``.

    ``target``, ``token``, ``timeout`` and the other :class:`AsyncMineditClient` keyword arguments default
    to the ``MINEDIT_*`` environment (see :func:`minedit_client.client.settings_from_env`). ``client``: a
    factory of your own :class:`AsyncMineditClient` (called once per event loop) instead.
    """
    settings = settings_from_env(target=target, token=token, timeout=timeout, **client_settings)
    clients = AsyncClients(client if client is not None else (lambda: AsyncMineditClient(**settings)))

    async def reward(prompts: Any = None, completions: Any = None, **kwargs: Any) -> List[Optional[float]]:
        if completions is None:
            raise TypeError(f"{name}: TRL passes `completions`; got none")
        if task_id_column not in kwargs:
            columns = sorted(k for k in kwargs if k not in ("log_extra", "log_metric", "trainer_state"))
            raise KeyError(
                f"{name}: no dataset column {task_id_column!r} (the minedit task id of each prompt); "
                f"columns passed: {columns}. Set task_id_column= to the column that holds it."
            )
        task_ids = list(kwargs[task_id_column])
        if len(task_ids) != len(completions):
            raise ValueError(f"{name}: {len(completions)} completions but {len(task_ids)} task ids")
        rollouts = [
            Rollout(id=str(i), completion=completion_text(c), task_id=str(t), group_id=str(t))
            for i, (c, t) in enumerate(zip(completions, task_ids))
        ]
        results = await clients.get().score_batch(rollouts, reward_override=reward_override)
        _log(results, kwargs.get("log_metric"), kwargs.get("log_extra"))
        return [r.reward for r in results]

    reward.__name__ = name
    reward.__qualname__ = name
    return reward
