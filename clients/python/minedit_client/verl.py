"""minedit as a verl custom reward function (verl 0.6.x to 0.9.x; contract-tested against the calling code
of v0.6.1, v0.7.1, v0.8.0 and v0.9.0 in ``tests/test_contract_verl.py``).

**Which function for which verl.** verl loads ``custom_reward_function.path`` / ``.name`` and looks at the
object it finds (``inspect.iscoroutinefunction``): an ``async def`` is awaited, anything else is called in a
thread pool (reward loop) or directly (0.6.x legacy managers).

================================  =================================================  ==========================
verl                              reward manager                                     function (``.name``)
================================  =================================================  ==========================
0.7.x, 0.8.x, 0.9.x (reward loop) ``reward.reward_manager.name=naive`` (default),    :func:`compute_score`
                                  ``dapo``, ``gdpo``, ``rate_limited``               (``async``)
0.7.x - 0.9.x                     ``remote`` (asserts the function is not async)     :func:`compute_score_sync`
0.6.x, ``rollout.mode=sync``      ``reward_model.reward_manager=batch``              :func:`compute_score_batch`
0.6.x, ``rollout.mode=sync``      ``reward_model.reward_manager=prime``              :func:`compute_score_prime`
0.6.x, ``rollout.mode=sync``      ``naive`` (default) / ``dapo``                     :func:`compute_score_sync`
0.6.x, ``rollout.mode=async``     reward loop ``naive`` / ``dapo``                   :func:`compute_score`
================================  =================================================  ==========================

From 0.7.1 the keys are ``reward.custom_reward_function.path=pkg://minedit_client.verl`` (or a file path)
and ``.name=compute_score``; 0.6.x takes ``custom_reward_function.path=<file>`` only (point it at
``examples/verl/minedit_reward.py``). On 0.9 the legacy top-level keys are accepted and silently IGNORED.

**How verl calls them.**

- :func:`compute_score` / :func:`compute_score_sync`: once per sample, as keywords ``data_source``,
  ``solution_str`` (the response, decoded with ``skip_special_tokens=True``), ``ground_truth``,
  ``extra_info`` (the dataset's dict, which verl mutates and may share between the samples of a prompt:
  it is only read here), sometimes ``reward_router_address`` / ``reward_model_tokenizer`` (ignored), plus
  ``reward_kwargs``. In the reward loop every sample of a step is in flight at once on each of
  ``reward.num_workers`` (8) worker processes, and arrives on its own; all the calls of one process go
  through ONE :class:`~minedit_client.CoalescingScorer`, which sends what arrives within
  ``MINEDIT_COALESCE_MS`` (20 ms) as one ``ScoreBatch`` (at most ``MINEDIT_COALESCE_MAX``, 512, rollouts).
  The ``async`` form has every sample of the worker in flight; the sync form only as many as verl's thread
  pool has threads (``min(32, cpus + 4)``), so its batches are smaller. With ``rate_limited`` raise
  ``+reward.max_concurrent`` (default 1: one sample at a time, one RPC each).
- :func:`compute_score_batch`: once per batch with numpy object arrays ``data_sources``,
  ``solution_strs``, ``ground_truths``, ``extra_infos``; returns one dict per sample.
- :func:`compute_score_prime`: ``(data_source, solution_str, ground_truth, extra_info)`` POSITIONALLY, in a
  ``ProcessPoolExecutor`` of 64 processes (each makes its own client: one RPC per sample); returns a
  ``float``, since prime does ``float(result[0])`` on anything else, which fails for a dict and zeroes the
  whole batch.

The task id is ``ground_truth`` -- the GRPO export writes ``reward_model: {style: "rule", ground_truth:
<task_id>}`` -- or ``extra_info["task_id"]``; when both are present they must agree.

**Result.** A dict with the same keys, all floats, for every sample (verl puts ALL of them, ``score``
included, into ``reward_extra_info``; validation logs each as ``val-aux/<data_source>/<key>/...``, and a key
missing from one sample breaks verl): ``score``, ``passed``, ``infra_error`` (1.0 / 0.0), ``invalid_task``
(1.0 for INVALID_TASK: an inline task whose gold fails its own tests; handled like INFRA_ERROR below),
``call_failed`` (1.0 when the server could not be reached; then ``infra_error`` is 1.0 too), ``excess``,
``d_model``, ``d_gold`` (0.0 when not computed, e.g. NO_CODE) and ``tests_passed`` / ``tests_total``.

**INFRA_ERROR** (the sandbox broke, not the candidate; also a call that failed transiently: UNAVAILABLE after
the client's retries, DEADLINE_EXCEEDED). verl has no way to mask one sample's reward, and a per-sample
function sees one sample, never its group. ``on_infra_error=``:

- ``"score"`` (default): ``score`` is ``infra_error_score`` (default -0.2, the server's default failure
  reward) and ``infra_error`` is 1.0. Not 0.0: in a group whose other samples failed (-0.2), a 0.0 would be
  the best reward of the group and get a POSITIVE advantage, teaching the model whatever the sandbox broke
  on. At the failure reward it is never better than a failure. If the server's failure reward is not -0.2,
  set ``infra_error_score`` to it.
- ``"raise"``: raises :class:`InfraError`. What verl then does depends on the line and the trainer mode
  (read at v0.9.0 483b8a00: ``verl/trainer/ppo/v1/agent_loop_tq.py`` ``_run_prompt``,
  ``verl/trainer/ppo/v1/replay_buffer.py`` ``ReplayBuffer`` / ``ReplayBufferAsync._terminal_eviction_reasons``,
  ``verl/experimental/agent_loop/agent_loop.py``, ``reward_manager/limited.py``):

  * 0.9, V1 trainer (``trainer.use_v1=true``, the default) with ``trainer.v1.trainer_mode=sync`` (the
    default): the session writes no trajectory; its prompt group is marked ``failure`` but stays
    sampleable, so the group trains on its other n-1 samples: ONE SAMPLE IS MASKED.
  * 0.9, V1 with ``trainer_mode=colocate_async`` or ``separate_async``: ``ReplayBufferAsync`` evicts every
    failed group: all n samples of that prompt are dropped (the scored ones too) and a fresh prompt is
    generated in its place: THE GROUP IS DROPPED AND REPLACED.
  * 0.9 with ``trainer.use_v1=false``, 0.7.x, 0.8.x, 0.6.x: the exception leaves the agent loop's
    ``asyncio.gather``: TRAINING STOPS.
  * the ``rate_limited`` manager (any line): caught, reward 0.0 plus an ``error`` key that the other
    samples lack (verl's key collection then fails), and 0.0 outranks a failure: never combine the two.

  The least harmful choice per mode: V1 ``sync``: ``"raise"`` (a true mask). V1 async: ``"raise"`` too --
  no sample is trained on a reward the sandbox made up; the price is regenerating one prompt's group per
  INFRA_ERROR sample (rare: the server has already retried it on a fresh sandbox; an INVALID_TASK inline
  task fails every time, and dropping its groups is exactly right). Everything else: ``"score"``.

**Deadline.** Every call has one: ``minedit_timeout`` / ``MINEDIT_TIMEOUT``, by default
:data:`~minedit_client.client.DEFAULT_TIMEOUT_S` (240 s), below verl's ``reward.timeout`` (300 s, read by
``rate_limited``), so a stalled server is answered by minedit -- the failure reward with ``infra_error`` and
``call_failed`` set, the same keys as every other sample -- before verl's own timeout substitutes 0.0 with
other keys. If you lower ``reward.timeout``, lower ``minedit_timeout`` below it.

:func:`compute_score_batch` sees whole GRPO groups, so an INFRA_ERROR sample scores the mean of the scored
samples of its task in the batch (zero advantage: masked); ``infra_error_score`` when none was scored.
:func:`compute_score_prime` always scores ``infra_error_score`` (prime turns any raise into 0.0).

Any other failed call (unknown task id, bad token, ...) raises :class:`~minedit_client.MineditError`.

**Settings.** ``MINEDIT_TARGET`` (default ``127.0.0.1:50051``), ``MINEDIT_TOKEN``, ``MINEDIT_ROOT_CERTS``,
``MINEDIT_TIMEOUT`` (default 240 s, see Deadline), ``MINEDIT_COALESCE_MS``, ``MINEDIT_COALESCE_MAX`` in the
environment of the processes that compute rewards (Ray passes the driver's environment on a local cluster
only), or the keyword arguments
``minedit_target=``, ``minedit_token=``, ``minedit_timeout=``, ``coalesce_ms=``, ``coalesce_max=``,
``infra_error_score=``, ``on_infra_error=`` through ``+reward.custom_reward_function.reward_kwargs.<name>=``
(0.7.1+) or ``+custom_reward_function.reward_kwargs.<name>=`` (0.6.x).
"""

from __future__ import annotations

import asyncio
import logging
import math
from concurrent.futures import Future
from typing import Any, Dict, List, Optional, Sequence

from ._adapt import coalescing_scorer, masked_rewards, task_id_of, transient
from .types import MineditError, Rollout, RolloutResult

logger = logging.getLogger("minedit_client.verl")

#: The score of an INFRA_ERROR sample unless ``infra_error_score`` says otherwise: the server's default
#: failure reward, so that a sandbox fault never outranks a failed repair.
DEFAULT_INFRA_ERROR_SCORE = -0.2

#: The keys of every result dict, in order.
RESULT_KEYS = (
    "score",
    "passed",
    "infra_error",
    "invalid_task",
    "call_failed",
    "excess",
    "d_model",
    "d_gold",
    "tests_passed",
    "tests_total",
)

_ON_INFRA_ERROR = ("score", "raise")


class InfraError(RuntimeError):
    """Raised for an INFRA_ERROR or INVALID_TASK sample (or a transiently failed call) with
    ``on_infra_error="raise"``: verl 0.9's V1 trainer then leaves out that trajectory (``sync`` mode) or
    replaces its whole prompt group (async modes); older lines stop (see the module doc)."""

    def __init__(self, message: str, result: Optional[RolloutResult] = None) -> None:
        super().__init__(message)
        self.result = result


# ---- mapping a result to verl's dict --------------------------------------------------------------------


def _task_id(ground_truth: Any, extra_info: Any) -> str:
    if isinstance(ground_truth, dict):  # a ground_truth written as {"task_id": ...}
        ground_truth = ground_truth.get("task_id")
    from_extra = extra_info.get("task_id") if isinstance(extra_info, dict) else None
    return task_id_of(("ground_truth", ground_truth), ('extra_info["task_id"]', from_extra))


def _number(value: Any) -> float:
    number = float(value)
    return number if math.isfinite(number) else 0.0


def _as_dict(result: Optional[RolloutResult], score: float) -> Dict[str, float]:
    """verl's dict for one sample; ``result`` is None when the call failed transiently."""
    if result is None:
        return {**dict.fromkeys(RESULT_KEYS, 0.0), "score": float(score), "infra_error": 1.0, "call_failed": 1.0}
    c = result.components
    return {
        "score": float(score),
        "passed": 1.0 if result.passed else 0.0,
        "infra_error": 1.0 if result.infra_error else 0.0,
        "invalid_task": 1.0 if result.invalid_task else 0.0,
        "call_failed": 0.0,
        "excess": _number(c.excess) if c else 0.0,
        "d_model": _number(c.d_model) if c else 0.0,
        "d_gold": _number(c.d_gold) if c else 0.0,
        "tests_passed": float(result.tests_passed),
        "tests_total": float(result.tests_total),
    }


def _check_mode(on_infra_error: str) -> None:
    if on_infra_error not in _ON_INFRA_ERROR:
        raise ValueError(f"on_infra_error must be one of {_ON_INFRA_ERROR}, not {on_infra_error!r}")


def _finish(
    task_id: str,
    result: Optional[RolloutResult],
    error: Optional[BaseException],
    infra_error_score: float,
    on_infra_error: str,
) -> Dict[str, float]:
    """The dict of one per-sample call, from its result or its call's error."""
    if error is not None:
        if not transient(error):
            raise error
        logger.warning("minedit: scoring a sample of %s failed (%s); it counts as INFRA_ERROR", task_id, error)
        if on_infra_error == "raise":
            raise InfraError(f"minedit: scoring a sample of {task_id} failed: {error}") from error
        return _as_dict(None, infra_error_score)
    assert result is not None
    if result.reward is None:
        if on_infra_error == "raise":
            raise InfraError(f"minedit: {result.verdict} for {task_id}: {result.detail}", result)
        return _as_dict(result, infra_error_score)
    return _as_dict(result, result.reward)


def _consume(future: "asyncio.Future[RolloutResult]") -> None:
    # The result of a call whose caller was cancelled is dropped without a "never retrieved" warning.
    if not future.cancelled():
        future.exception()


# ---- the reward functions ------------------------------------------------------------------------------


async def compute_score(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Any = None,
    *,
    minedit_target: Optional[str] = None,
    minedit_token: Optional[str] = None,
    minedit_timeout: Optional[float] = None,
    coalesce_ms: Optional[float] = None,
    coalesce_max: Optional[int] = None,
    infra_error_score: float = DEFAULT_INFRA_ERROR_SCORE,
    on_infra_error: str = "score",
    **_: Any,
) -> Dict[str, float]:
    """Scores one sample for verl's reward loop (0.7+; 0.6.x with ``rollout.mode=async``), which awaits it;
    concurrent calls of a process share ``ScoreBatch`` calls. See the module doc."""
    _check_mode(on_infra_error)
    task_id = _task_id(ground_truth, extra_info)
    scorer = coalescing_scorer(minedit_target, minedit_token, minedit_timeout, coalesce_ms, coalesce_max)
    waiting = asyncio.wrap_future(scorer.submit(Rollout(id="0", completion=str(solution_str), task_id=task_id)))
    waiting.add_done_callback(_consume)
    result, error = None, None
    try:
        # shield: a caller that is cancelled (rate_limited's timeout is asyncio.wait_for) must not cancel
        # the coalescer's future, which belongs to a batch shared with other callers.
        result = await asyncio.shield(waiting)
    except Exception as caught:  # noqa: BLE001 - sorted out in _finish
        error = caught
    return _finish(task_id, result, error, float(infra_error_score), on_infra_error)


def compute_score_sync(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Any = None,
    *,
    minedit_target: Optional[str] = None,
    minedit_token: Optional[str] = None,
    minedit_timeout: Optional[float] = None,
    coalesce_ms: Optional[float] = None,
    coalesce_max: Optional[int] = None,
    infra_error_score: float = DEFAULT_INFRA_ERROR_SCORE,
    on_infra_error: str = "score",
    **_: Any,
) -> Dict[str, float]:
    """:func:`compute_score` as a plain function, for managers that call it from threads (the reward loop
    runs a sync function in a thread pool; ``remote``) or directly (0.6.x legacy naive / dapo). Blocks its
    thread; concurrent threads share ``ScoreBatch`` calls."""
    _check_mode(on_infra_error)
    task_id = _task_id(ground_truth, extra_info)
    scorer = coalescing_scorer(minedit_target, minedit_token, minedit_timeout, coalesce_ms, coalesce_max)
    result, error = None, None
    try:
        result = scorer.score(Rollout(id="0", completion=str(solution_str), task_id=task_id))
    except Exception as caught:  # noqa: BLE001 - sorted out in _finish
        error = caught
    return _finish(task_id, result, error, float(infra_error_score), on_infra_error)


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Optional[Sequence[Any]] = None,
    *,
    minedit_target: Optional[str] = None,
    minedit_token: Optional[str] = None,
    minedit_timeout: Optional[float] = None,
    coalesce_ms: Optional[float] = None,
    coalesce_max: Optional[int] = None,
    infra_error_score: float = DEFAULT_INFRA_ERROR_SCORE,
    **_: Any,
) -> List[Dict[str, float]]:
    """Scores a verl 0.6.x batch (``reward_model.reward_manager=batch``); one dict per sample, in order.
    INFRA_ERROR samples get the mean of their task's scored samples (see the module doc)."""
    solutions = list(solution_strs)
    truths = list(ground_truths)
    extras = list(extra_infos) if extra_infos is not None else [None] * len(solutions)
    if not len(solutions) == len(truths) == len(extras):
        raise ValueError(
            f"minedit: {len(solutions)} solution_strs, {len(truths)} ground_truths, "
            f"{len(extras)} extra_infos: lengths must match"
        )
    task_ids = [_task_id(g, e) for g, e in zip(truths, extras)]
    scorer = coalescing_scorer(minedit_target, minedit_token, minedit_timeout, coalesce_ms, coalesce_max)
    # The coalescer cuts a large batch (validation sends the whole set) into MINEDIT_COALESCE_MAX pieces.
    futures: List["Future[RolloutResult]"] = [
        scorer.submit(Rollout(id=str(i), completion=str(s), task_id=t, group_id=t))
        for i, (s, t) in enumerate(zip(solutions, task_ids))
    ]
    results: List[Optional[RolloutResult]] = []
    for task_id, future in zip(task_ids, futures):
        try:
            results.append(future.result())
        except MineditError as error:
            if not transient(error):
                raise
            logger.warning("minedit: scoring a sample of %s failed (%s); it counts as INFRA_ERROR", task_id, error)
            results.append(None)
    scored = [r for r in results if r is not None]
    groups = [t for r, t in zip(results, task_ids) if r is not None]
    rewards = iter(masked_rewards(scored, groups, float(infra_error_score))[0])
    return [_as_dict(r, next(rewards)) if r is not None else _as_dict(None, float(infra_error_score)) for r in results]


def compute_score_prime(
    data_source: Any,
    solution_str: str,
    ground_truth: Any,
    extra_info: Any = None,
    *,
    minedit_target: Optional[str] = None,
    minedit_token: Optional[str] = None,
    minedit_timeout: Optional[float] = None,
    coalesce_ms: Optional[float] = None,
    coalesce_max: Optional[int] = None,
    infra_error_score: float = DEFAULT_INFRA_ERROR_SCORE,
    **_: Any,
) -> float:
    """The score alone, for verl 0.6.x ``reward_model.reward_manager=prime`` (positional arguments, one
    process of its pool per sample). INFRA_ERROR scores ``infra_error_score``; it never raises for one."""
    return compute_score_sync(
        data_source,
        solution_str,
        ground_truth,
        extra_info,
        minedit_target=minedit_target,
        minedit_token=minedit_token,
        minedit_timeout=minedit_timeout,
        coalesce_ms=coalesce_ms,
        coalesce_max=coalesce_max,
        infra_error_score=infra_error_score,
    )["score"]
