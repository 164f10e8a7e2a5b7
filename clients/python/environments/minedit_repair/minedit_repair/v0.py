"""The v0 environment: ``load_environment`` for ``verifiers.load_environment("minedit-repair", **args)``
(verifiers 0.1.x; PRIME-RL v0.5 ``[[orchestrator.env]]``, v0.6 / v0.7 ``[[orchestrator.train.env]]``, v0.8
``[orchestrator.train.source.legacy]``). verifiers and ``datasets`` are imported when it is called, so the
package imports without them.
"""

from __future__ import annotations

from typing import Any, Optional

from minedit_client.types import RewardOverride
from minedit_client.verifiers import minedit_rubric

from .dataset import read_rows


def load_environment(
    dataset_path: Optional[str] = None,
    split: str = "train",
    target: Optional[str] = None,
    timeout: Optional[float] = None,
    infra_error_score: Optional[float] = None,
    reward_override: Optional[dict] = None,
    **client_settings: Any,
) -> Any:
    """A ``vf.SingleTurnEnv`` over the ``split`` rows of the GRPO export at ``dataset_path`` (see
    :mod:`minedit_repair.dataset`), scored by :func:`minedit_client.verifiers.minedit_rubric`.

    Rows become ``prompt`` (chat messages), ``answer`` and ``info["task_id"]`` (the task id). ``target``
    and ``timeout`` default to ``MINEDIT_TARGET`` / ``MINEDIT_TIMEOUT``; the token is read from
    ``MINEDIT_TOKEN`` (keep it out of config files). ``infra_error_score``: what an unscored rollout
    (INFRA_ERROR, server unreachable) returns beside ``state["error"]``; default: the failure reward.
    ``reward_override``: ``RewardOverride`` fields as a table (``{failure_reward = -0.5}`` in TOML).
    """
    import verifiers as vf
    from datasets import Dataset  # verifiers' own dependency

    rows = [
        {"prompt": row.messages(), "answer": row.task_id, "info": {"task_id": row.task_id}}
        for row in read_rows(dataset_path, split)
    ]
    rubric = minedit_rubric(
        target=target,
        timeout=timeout,
        infra_error_score=infra_error_score,
        reward_override=RewardOverride(**reward_override) if reward_override else None,
        **client_settings,
    )
    return vf.SingleTurnEnv(dataset=Dataset.from_list(rows), rubric=rubric)
