"""minedit as a verl custom reward function.

verl loads the reward function from a file by path (``custom_reward_function.path`` / ``.name``); point it
at this module's file, or at a two-line file that imports from it (``examples/verl/minedit_reward.py``):

- :func:`compute_score` — per sample, for verl's default (``naive``) reward manager and its reward loop:
  ``compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> dict``;
- :func:`compute_score_batch` — the whole batch in ONE ``ScoreBatch`` call, for
  ``reward_model.reward_manager=batch``: ``compute_score_batch(data_sources, solution_strs,
  ground_truths, extra_infos=None, **kwargs) -> list[dict]``. Much faster: the server runs the batch's
  tests in parallel and reuses repeated completions. Use this one for training.

The task id is ``ground_truth`` — the GRPO export writes ``reward_model: {style: "rule", ground_truth:
<task_id>}`` — or ``extra_info["task_id"]``; when both are present they must agree.

Each result is a dict with the same keys for every sample (verl collects every key except ``score`` into
``reward_extra_info`` lists and logs them): ``score``, ``passed``, ``infra_error`` (1.0 / 0.0),
``excess``, ``d_model``, ``d_gold`` (0.0 when not computed, e.g. NO_CODE) and ``tests_passed`` /
``tests_total``.

Infrastructure errors: verl writes ``score`` into a reward tensor, so it must be a number. In the batch
form an INFRA_ERROR sample scores the mean of the scored samples of the same task in the batch (its GRPO
advantage is then zero: it is effectively masked); a task with no scored sample, and every INFRA_ERROR in
the per-sample form (which sees one sample only), scores ``infra_error_score`` (default 0.0). In both
cases ``infra_error`` is 1.0, so the count shows in the logs.

Where the server is: ``MINEDIT_TARGET`` (default ``127.0.0.1:50051``), ``MINEDIT_TOKEN``,
``MINEDIT_ROOT_CERTS``, ``MINEDIT_TIMEOUT`` in the environment of the process that computes rewards, or
the keyword arguments ``minedit_target=``, ``minedit_token=``, ``minedit_timeout=`` and
``infra_error_score=`` through ``custom_reward_function.reward_kwargs``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ._adapt import SyncClients, masked_rewards, task_id_of
from .types import Rollout, RolloutResult

_clients: Dict[tuple, SyncClients] = {}


def _client(target: Optional[str], token: Optional[str], timeout: Optional[float]) -> Any:
    key = (target, token, timeout)
    if key not in _clients:
        _clients[key] = SyncClients(target=target, token=token, timeout=timeout)
    return _clients[key].get()


def _task_id(ground_truth: Any, extra_info: Any) -> str:
    if isinstance(ground_truth, dict):  # a ground_truth written as {"task_id": ...}
        ground_truth = ground_truth.get("task_id")
    from_extra = extra_info.get("task_id") if isinstance(extra_info, dict) else None
    return task_id_of(ground_truth, from_extra, "ground_truth", 'extra_info["task_id"]')


def _as_dict(result: RolloutResult, score: float, infra_error: bool) -> Dict[str, float]:
    c = result.components
    return {
        "score": float(score),
        "passed": 1.0 if result.passed else 0.0,
        "infra_error": 1.0 if infra_error else 0.0,
        "excess": c.excess if c else 0.0,
        "d_model": c.d_model if c else 0.0,
        "d_gold": c.d_gold if c else 0.0,
        "tests_passed": float(result.tests_passed),
        "tests_total": float(result.tests_total),
    }


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Any]] = None,
    *,
    minedit_target: Optional[str] = None,
    minedit_token: Optional[str] = None,
    minedit_timeout: Optional[float] = None,
    infra_error_score: float = 0.0,
    **_: Any,
) -> List[Dict[str, float]]:
    """Scores a verl batch in one call; one dict per sample, in order (see the module doc)."""
    extras = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    if not len(solution_strs) == len(ground_truths) == len(extras):
        raise ValueError(
            f"minedit: {len(solution_strs)} solution_strs, {len(ground_truths)} ground_truths, "
            f"{len(extras)} extra_infos: lengths must match"
        )
    task_ids = [_task_id(g, e) for g, e in zip(ground_truths, extras)]
    rollouts = [
        Rollout(id=str(i), completion=s, task_id=t, group_id=t) for i, (s, t) in enumerate(zip(solution_strs, task_ids))
    ]
    results = _client(minedit_target, minedit_token, minedit_timeout).score_batch(rollouts)
    scores, infra = masked_rewards(results, task_ids, infra_error_score)
    return [_as_dict(r, s, i) for r, s, i in zip(results, scores, infra)]


def compute_score(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Any = None,
    *,
    minedit_target: Optional[str] = None,
    minedit_token: Optional[str] = None,
    minedit_timeout: Optional[float] = None,
    infra_error_score: float = 0.0,
    **_: Any,
) -> Dict[str, float]:
    """Scores one verl sample (see the module doc); prefer :func:`compute_score_batch` for training."""
    task_id = _task_id(ground_truth, extra_info)
    [result] = _client(minedit_target, minedit_token, minedit_timeout).score_batch(
        [Rollout(id="0", completion=solution_str, task_id=task_id)]
    )
    score = result.reward if result.reward is not None else infra_error_score
    return _as_dict(result, score, result.infra_error)
