"""minedit as slime's custom reward model (slime v0.3.1, commit a6272da0; the reward path is unchanged at
HEAD 624b824a; contract-tested in ``tests/test_contract_slime.py``)::

    --custom-rm-path minedit_client.slime.reward --group-rm
    --prompt-data grpo.jsonl --input-key input --label-key label --apply-chat-template

**How slime calls it.** slime imports ``--custom-rm-path`` as ``module.function``
(``slime.utils.misc.load_function``) and awaits it in the rollout manager's one background event loop,
where all groups of a rollout step run concurrently (``slime/rollout/rm_hub/__init__.py``):

- without ``--group-rm``: ``await reward(args, sample)`` once per sample, as soon as the sample is generated
  (``async_rm``); it returns one reward;
- with ``--group-rm``: ``await reward(args, samples)`` once per GRPO group, after the whole group is
  generated (``batched_async_rm``); it returns one reward per sample, in order. A custom generate function
  that returns several samples gets the same list call, even without ``--group-rm``.

The calls in flight share ``ScoreBatch`` calls (a :class:`~minedit_client.CoalescingScorer` per process).
The reward becomes ``sample.reward``; slime normalizes it within each group (GRPO: minus the group mean,
divided by the group std) in ``RolloutManager._post_process_rewards``.

**The task of a sample** comes from the dataset row: ``sample.label`` is ``row[--label-key]`` and
``sample.metadata`` is ``row[--metadata-key]`` (default ``metadata``). A task id is the label (a string,
as ``minedit export --kind grpo --format openrlhf`` writes it: ``--input-key input --label-key label``),
``label["task_id"]`` or ``metadata["task_id"]`` (e.g. ``--metadata-key extra_info`` on a verl export);
when two are given they must agree. An inline task (:class:`~minedit_client.Task`'s fields: corrupted,
gold, tests, entry_point, runtime) is a label object with ``corrupted``, a label string holding such a JSON
object, or ``metadata["task"]``.

**INFRA_ERROR / INVALID_TASK** (the sandbox broke, or an inline task's gold fails its own tests: not the
model's doing; a call that failed transiently -- UNAVAILABLE after the client's retries, DEADLINE_EXCEEDED
-- counts the same). The sample gets ``sample.remove_sample = True``: slime then zeroes its loss mask
(``_convert_samples_to_train_data``), so it adds nothing to the policy loss. But a removed sample still
takes part in its group's reward normalization (slime says so in ``--rollout-sample-filter-path``'s help),
so its reward matters too:

- with ``--group-rm`` (recommended): the mean reward of the scored samples of its group. The group mean is
  unchanged, so the other samples' advantages are as if it were absent (their std is taken over one more
  sample at zero distance); its own normalized reward is 0. A group with no scored sample gets
  ``infra_error_score`` everywhere: zero std, every advantage 0, every sample removed.
- per sample (no ``--group-rm``; the function never sees the group): ``infra_error_score`` (default -0.2,
  the server's failure reward), so it counts like one more failed repair in its group's mean. Never 0.0:
  in a group of failures a 0.0 would be the best reward. Use ``--group-rm`` to avoid even that; but slime's
  evaluation (``eval_rollout``) refuses ``--group-rm``, so runs with ``--eval-prompt-data`` stay per sample.

Any other failed call (unknown task id, bad token, ...) raises :class:`~minedit_client.MineditError`,
which stops the rollout, as slime's own ``remote_rm`` does after its retries.

**Result.** A float; with ``--reward-key K`` a dict: ``{K: reward, "verdict": ..., "passed": 0/1,
"masked": 0/1, "call_failed": 0/1}`` (and ``--eval-reward-key``'s key too, if different), so that
``--log-reward-category verdict`` logs the share of each verdict (``error_cat/INFRA_ERROR``, ...).

**Settings.** ``MINEDIT_TARGET`` (default ``127.0.0.1:50051``), ``MINEDIT_TOKEN``, ``MINEDIT_ROOT_CERTS``,
``MINEDIT_TIMEOUT``, ``MINEDIT_COALESCE_MS``, ``MINEDIT_COALESCE_MAX`` in the environment of slime's
rollout manager (a Ray actor: Ray passes the driver's environment on a local cluster only), or attributes of
``args`` set by slime's ``--custom-config-path`` YAML (``minedit_target``, ``minedit_token``,
``minedit_timeout``, ``minedit_coalesce_ms``, ``minedit_coalesce_max``, ``minedit_infra_error_score``), which
win over the environment.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _adapt
from ._adapt import group_means, inline_task, one_task, transient
from .coalesce import CoalescingScorer
from .types import Rollout, RolloutResult

logger = logging.getLogger("minedit_client.slime")

#: The reward of a masked sample when no scored sample of its group is known: the server's default
#: failure reward, so that a sandbox fault never outranks a failed repair.
DEFAULT_INFRA_ERROR_SCORE = -0.2

#: The keys a dict reward (``--reward-key``) carries besides the reward itself.
EXTRA_KEYS = ("verdict", "passed", "masked", "call_failed")

Reward = Union[float, Dict[str, Any]]


# ---- one CoalescingScorer per process and settings ---------------------------------------------------


def coalescing_scorer(args: Any) -> CoalescingScorer:
    """The :class:`~minedit_client.CoalescingScorer` that :func:`reward` scores through for the settings
    in ``args`` (one per process and settings); its ``stats`` count the ``ScoreBatch`` calls sent."""
    target, token, timeout, coalesce_ms, coalesce_max = (
        getattr(args, f"minedit_{name}", None) for name in ("target", "token", "timeout", "coalesce_ms", "coalesce_max")
    )
    # A number, whatever type the --custom-config-path YAML gave.
    timeout = None if timeout is None else float(timeout)
    return _adapt.coalescing_scorer(target, token, timeout, coalesce_ms, coalesce_max)


def _infra_error_score(args: Any) -> float:
    value = getattr(args, "minedit_infra_error_score", None)
    return DEFAULT_INFRA_ERROR_SCORE if value is None else float(value)


# ---- the task of a sample --------------------------------------------------------------------------------


def task_fields(sample: Any) -> Dict[str, Any]:
    """``{"task_id": ...}`` or ``{"task": ...}`` for a slime ``Sample``, from its label and metadata (see
    the module doc)."""
    label = sample.label
    metadata = sample.metadata if isinstance(sample.metadata, Mapping) else {}
    label_task = inline_task(label)
    meta_task = inline_task(metadata.get("task"))
    if label_task is not None and meta_task is not None:
        raise ValueError("minedit: give a sample ONE task: an inline task in sample.label or in its metadata")
    label_id = None if label_task is not None else label.get("task_id") if isinstance(label, Mapping) else label
    task_id, task = one_task(
        label_task if label_task is not None else meta_task,
        ("sample.label", label_id),
        ('sample.metadata["task_id"]', metadata.get("task_id")),
    )
    return {"task": task} if task is not None else {"task_id": task_id}


# ---- scoring -----------------------------------------------------------------------------------------------


async def _score(scorer: CoalescingScorer, rollouts: Sequence[Rollout]) -> List[Optional[RolloutResult]]:
    """The results of concurrent rollouts; ``None`` for one whose call failed transiently. Any other
    failure is raised."""
    futures = [asyncio.wrap_future(scorer.submit(r)) for r in rollouts]
    outcomes = await asyncio.gather(*futures, return_exceptions=True)
    results: List[Optional[RolloutResult]] = []
    for rollout, outcome in zip(rollouts, outcomes):
        if isinstance(outcome, BaseException):
            if not transient(outcome):
                raise outcome
            logger.warning("minedit: scoring %s failed (%s); it counts as INFRA_ERROR",
                           rollout.task_id or "an inline task", outcome)
            results.append(None)
        else:
            results.append(outcome)
    return results


def _reward(args: Any, value: float, result: Optional[RolloutResult]) -> Reward:
    """What slime stores in ``sample.reward``: the number, or with ``--reward-key`` a dict."""
    keys = {k for k in (getattr(args, "reward_key", None), getattr(args, "eval_reward_key", None)) if k}
    if not keys:
        return float(value)
    if keys & set(EXTRA_KEYS):
        raise ValueError(f"minedit: --reward-key must not be one of {EXTRA_KEYS}")
    extra = {
        "verdict": result.verdict if result is not None else "CALL_FAILED",
        "passed": 1.0 if result is not None and result.passed else 0.0,
        "masked": 1.0 if result is None or result.masked else 0.0,
        "call_failed": 1.0 if result is None else 0.0,
    }
    return {**{k: float(value) for k in keys}, **extra}


async def reward(args: Any, sample: Any, **_: Any) -> Union[Reward, List[Reward]]:
    """slime's ``--custom-rm-path`` function: the reward of one ``Sample``, or of each sample of a list
    (``--group-rm``: one GRPO group). Masked samples get ``remove_sample = True``. See the module doc."""
    samples = list(sample) if isinstance(sample, list) else [sample]
    rollouts = [Rollout(id=str(i), completion=str(s.response), **task_fields(s)) for i, s in enumerate(samples)]
    results = await _score(coalescing_scorer(args), rollouts)
    scored = [None if result is None else result.reward for result in results]
    # slime's group of a sample is its group_index; masked samples take the mean of their group's scores.
    values = group_means(scored, [s.group_index for s in samples], _infra_error_score(args))
    for s, reward in zip(samples, scored):
        if reward is None:
            s.remove_sample = True
    rewards = [_reward(args, value, result) for value, result in zip(values, results)]
    return rewards if isinstance(sample, list) else rewards[0]
