"""minedit as AReaL's reward (AReaL v1.0.4, commit 37d6c640; the call path is unchanged at HEAD 4aef98d8;
contract-tested in ``tests/test_contract_areal.py``)::

    trainer.train(workflow="minedit_client.areal.MineditRLVRWorkflow",
                  workflow_kwargs=dict(gconfig=config.gconfig, tokenizer=config.tokenizer_path))

**How AReaL runs it.** ``PPOTrainer.train`` resolves the workflow path on each rollout worker
(``RemoteInfEngine._resolve_workflow``: import, then ``cls(**workflow_kwargs)``) and, for
``gconfig.n_samples`` = n > 1, wraps it in ``GroupedRolloutWorkflow``, which runs n ``arun_episode(engine,
data)`` of the same prompt concurrently (one completion each) and concatenates the ones that did not return
``None``. The workflow executor runs up to ``rollout.max_concurrent_rollouts`` such groups at once on one
event loop; ``None`` (or an exception) from a group rejects it.

:class:`MineditRLVRWorkflow` is AReaL's ``RLVRWorkflow`` (same keyword arguments but ``reward_fn``; the
prompt is ``data["messages"]``, else ``data["prompt"]``, the chat messages of ``minedit export --kind grpo
--format hf``) whose reward is awaited from minedit instead of run by ``AsyncRewardWrapper`` in a process
pool: no 15 s limit, and the episodes in flight share ``ScoreBatch`` calls (a
:class:`~minedit_client.CoalescingScorer` per process). The module imports without AReaL; the class is made
on first access (it subclasses ``areal.workflow.rlvr.RLVRWorkflow``, so AReaL must be installed where it
runs).

**The task of a sample** comes from the dataset row (every column reaches the reward): ``task_id`` and/or
``extra_info["task_id"]`` (they must agree), or an inline task (:class:`~minedit_client.Task`'s fields) in
``task``.

**INFRA_ERROR / INVALID_TASK** (the sandbox broke, or an inline task's gold fails its own tests; a call that
failed transiently -- UNAVAILABLE after the client's retries, DEADLINE_EXCEEDED -- counts the same).
Returning ``None`` for the sample would drop it from its group, and AReaL's group reward normalization
(``reward_norm.mean_level: group``, the GRPO default) cuts the batch into fixed slices of
``reward_norm.group_size`` rows: a group one row short shifts every later group of the batch and leaves a
tail normalized by std 0. So the sample stays, with its loss mask zeroed (no gradient) and as reward the
mean of the scored samples of its group (the other episodes of the same prompt in flight): the group mean
is unchanged and its own normalized reward is 0. When no sample of the group was scored, every one returns
``None`` and AReaL rejects the whole group (still aligned). Every sample logs ``minedit_passed``,
``minedit_infra_error``, ``minedit_invalid_task`` and ``minedit_call_failed`` (1/0) to AReaL's
``rollout`` / ``eval-rollout`` stats; AReaL's own ``reward`` stat includes the masked samples' fill-in.
Any other failed call (unknown task id, bad token, ...) raises :class:`~minedit_client.MineditError`: AReaL
logs it and rejects the group.

:func:`reward_fn` is the plain ``reward_fn(prompt, completions, prompt_ids, completion_ids, **data)`` for
the stock ``RLVRWorkflow`` (``reward_fn="minedit_client.areal.reward_fn"``, and for minedit's hf export
``data_extract_prompt_fn="minedit_client.areal.prompt_messages"``). AReaL runs it in a process pool
(``AsyncRewardWrapper``: (cpu count / devices) / 2 processes) and waits 15 s for it -- queueing for a free
process included -- then retries, and after four timeouts uses 0: better than a failure (-0.2), and
unmarked. So its minedit deadline is at most 12 s (``MINEDIT_TIMEOUT`` only lowers it): a slow call scores
-0.2 instead, as does an INFRA_ERROR (it cannot be masked there; a warning is logged). With many
concurrent rollouts the pool's queue alone can pass 15 s: use the workflow.

**Settings.** ``MINEDIT_TARGET`` (default ``127.0.0.1:50051``), ``MINEDIT_TOKEN``, ``MINEDIT_ROOT_CERTS``,
``MINEDIT_TIMEOUT``, ``MINEDIT_COALESCE_MS``, ``MINEDIT_COALESCE_MAX`` in the rollout workers' environment,
or the workflow keyword arguments ``minedit_target``, ``minedit_token``, ``minedit_timeout``,
``coalesce_ms``, ``coalesce_max`` and ``infra_error_score`` (-0.2; used only when a call failed for a
sample whose group has no scored sample), which win over it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import threading
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Tuple

# The workflow calls coalescing_scorer by this module's name for it: test_contract_areal swaps in a faulty one.
from ._adapt import SyncClients, coalescing_scorer, one_task, transient
from .types import MineditError, Rollout, RolloutResult

logger = logging.getLogger("minedit_client.areal")

DEFAULT_INFRA_ERROR_SCORE = -0.2
#: How long ``AsyncRewardWrapper`` waits for one ``reward_fn`` call (areal/api/reward_api.py), and the
#: most :func:`reward_fn` lets its minedit call take, leaving room for the process pool's own overhead.
AREAL_REWARD_TIMEOUT_S = 15.0
REWARD_FN_DEADLINE_S = 12.0
#: The stats every sample logs (1.0 / 0.0).
STAT_KEYS = ("minedit_passed", "minedit_infra_error", "minedit_invalid_task", "minedit_call_failed")


def task_fields(data: Mapping) -> Dict[str, Any]:
    """``{"task_id": ...}`` or ``{"task": ...}`` for a dataset row (see the module doc)."""
    extra = data.get("extra_info")
    task = data.get("task")
    task_id, inline = one_task(
        task if isinstance(task, Mapping) else None,
        ("task_id", data.get("task_id")),
        ('extra_info["task_id"]', extra.get("task_id") if isinstance(extra, Mapping) else None),
    )
    return {"task": inline} if inline is not None else {"task_id": task_id}


def _named(fields: Mapping) -> str:
    return str(fields.get("task_id") or "an inline task")


# ---- the plain reward_fn of the stock RLVRWorkflow -----------------------------------------------------

# One blocking client per pool process: AReaL's pool runs one reward_fn at a time in each process, so
# there is nothing to coalesce there.
_pool_clients = SyncClients()


def _reward_fn_deadline() -> float:
    configured = os.environ.get("MINEDIT_TIMEOUT")
    return min(float(configured), REWARD_FN_DEADLINE_S) if configured else REWARD_FN_DEADLINE_S


def reward_fn(prompt: Any, completions: str, prompt_ids: Any, completion_ids: Any, /, **data: Any) -> float:
    """AReaL's ``reward_fn`` signature, for the stock ``RLVRWorkflow``: the minedit reward of one
    completion; -0.2 for an INFRA_ERROR / INVALID_TASK sample and for a call that failed transiently or took
    longer than :data:`REWARD_FN_DEADLINE_S` (see the module doc). The first four are positional-only:
    RLVRWorkflow passes the row's columns as keywords, and minedit's hf export has a ``prompt`` column."""
    fields = task_fields(data)
    try:
        [result] = _pool_clients.get().score_batch(
            [Rollout(id="0", completion=str(completions), **fields)], timeout=_reward_fn_deadline()
        )
    except MineditError as error:
        if not transient(error):
            raise
        logger.warning("minedit: scoring a sample of %s failed (%s); it scores %s", _named(fields), error,
                       DEFAULT_INFRA_ERROR_SCORE)
        return DEFAULT_INFRA_ERROR_SCORE
    if result.reward is None:
        logger.warning("minedit: %s for %s (%s); it scores %s", result.verdict, _named(fields), result.detail,
                       DEFAULT_INFRA_ERROR_SCORE)
        return DEFAULT_INFRA_ERROR_SCORE
    return result.reward


# ---- the episodes of one group: who was scored, who is still running -----------------------------------


class _Round:
    """The episodes of one prompt in flight on one event loop: ``GroupedRolloutWorkflow`` passes the same
    ``data`` object to its n episodes. ``done`` is set when every episode that joined has finished, so a
    masked episode can wait for its siblings' rewards without knowing n."""

    def __init__(self, key: Tuple[int, int]) -> None:
        self.key = key
        self.started = 0
        self.finished = 0
        self.rewards: List[float] = []
        self.done = asyncio.Event()

    def mean(self) -> Optional[float]:
        return sum(self.rewards) / len(self.rewards) if self.rewards else None


class _Episode:
    def __init__(self, round_: _Round) -> None:
        self.round = round_
        self.finished = False
        self.masked = False  # keep it, loss mask zeroed, reward = its group's mean
        self.reject = False  # return None (no sample of its group was scored)


_rounds: Dict[Tuple[int, int], _Round] = {}
_rounds_lock = threading.Lock()  # workflow executors of several threads may share this module
_episode: "contextvars.ContextVar[Optional[_Episode]]" = contextvars.ContextVar("minedit_episode", default=None)


def _join(data: Any) -> _Episode:
    # The key holds no reference to data: a round lives only while an episode holding data runs.
    key = (id(asyncio.get_running_loop()), id(data))
    with _rounds_lock:
        round_ = _rounds.get(key)
        if round_ is None:
            round_ = _rounds[key] = _Round(key)
        round_.started += 1
    return _Episode(round_)


def _finish(episode: _Episode, reward: Optional[float]) -> None:
    """Marks the episode finished (once), with its reward when it was scored."""
    if episode.finished:
        return
    episode.finished = True
    round_ = episode.round
    with _rounds_lock:
        round_.finished += 1
        if reward is not None:
            round_.rewards.append(reward)
        complete = round_.finished == round_.started
        if complete and _rounds.get(round_.key) is round_:
            del _rounds[round_.key]
    if complete:
        round_.done.set()


# ---- the workflow ------------------------------------------------------------------------------------------


def prompt_messages(data: Mapping) -> Any:
    """The prompt of a row: ``messages`` (AReaL's datasets), else ``prompt`` (minedit's hf export)."""
    return data["messages"] if "messages" in data else data["prompt"]


def _log_stats(result: Optional[RolloutResult]) -> None:
    from areal import workflow_context
    from areal.utils import stats_tracker

    flags = (
        result is not None and result.passed,
        result is not None and result.infra_error,
        result is not None and result.invalid_task,
        result is None,
    )
    stats_tracker.get(workflow_context.stat_scope()).scalar(
        **{key: 1.0 if flag else 0.0 for key, flag in zip(STAT_KEYS, flags)}
    )


class _MineditWorkflow:
    """What :class:`MineditRLVRWorkflow` adds to AReaL's ``RLVRWorkflow`` (see the module doc)."""

    def __init__(
        self,
        gconfig: Any,
        tokenizer: Any,
        enable_thinking: bool = False,
        get_input_ids_fn: Any = None,
        data_extract_prompt_fn: Any = prompt_messages,
        *,
        minedit_target: Optional[str] = None,
        minedit_token: Optional[str] = None,
        minedit_timeout: Optional[float] = None,
        coalesce_ms: Optional[float] = None,
        coalesce_max: Optional[int] = None,
        infra_error_score: float = DEFAULT_INFRA_ERROR_SCORE,
    ) -> None:
        more = {} if get_input_ids_fn is None else {"get_input_ids_fn": get_input_ids_fn}
        # RLVRWorkflow wraps reward_fn in AsyncRewardWrapper (a process pool, started on first use only);
        # async_reward_fn is replaced below, so the pool is never used.
        super().__init__(  # type: ignore[call-arg]
            reward_fn=reward_fn,
            gconfig=gconfig,
            tokenizer=tokenizer,
            enable_thinking=enable_thinking,
            data_extract_prompt_fn=data_extract_prompt_fn,
            **more,
        )
        self.minedit_settings = (minedit_target, minedit_token, minedit_timeout, coalesce_ms, coalesce_max)
        self.infra_error_score = float(infra_error_score)
        self.async_reward_fn = self.minedit_reward

    async def minedit_reward(self, prompt: Any, completions: str, prompt_ids: Any, completion_ids: Any, /,
                             **data: Any) -> float:
        """``RLVRWorkflow``'s awaited reward: the minedit reward, or for a masked sample its group's mean
        once every sibling episode has finished (see the module doc)."""
        fields = task_fields(data)
        future = asyncio.wrap_future(
            coalescing_scorer(*self.minedit_settings).submit(Rollout(id="0", completion=str(completions), **fields))
        )
        result: Optional[RolloutResult] = None
        try:
            result = await future
        except MineditError as error:
            if not transient(error):
                raise
            logger.warning("minedit: scoring a sample of %s failed (%s); it counts as INFRA_ERROR", _named(fields),
                           error)
        _log_stats(result)
        reward = None if result is None else result.reward
        episode = _episode.get()
        if episode is None:  # called outside arun_episode: no group to take a mean from
            return reward if reward is not None else self.infra_error_score
        _finish(episode, reward)
        if reward is not None:
            return reward
        await episode.round.done.wait()
        mean = episode.round.mean()
        if mean is None:
            episode.reject = True
            return self.infra_error_score
        episode.masked = True
        return mean

    async def arun_episode(self, engine: Any, data: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        episode = _join(data)
        token = _episode.set(episode)
        try:
            traj = await super().arun_episode(engine, data)  # type: ignore[misc]
        finally:
            _episode.reset(token)
            _finish(episode, None)  # an episode that failed before its reward still counts as finished
        if episode.reject:
            return None
        if episode.masked and traj is not None:
            traj["loss_mask"] = traj["loss_mask"] * 0
        return traj


_made: Dict[str, type] = {}
_made_lock = threading.Lock()


def _workflow_class() -> type:
    """``MineditRLVRWorkflow``: made once, on first access, since its base class comes from AReaL."""
    with _made_lock:
        if "MineditRLVRWorkflow" not in _made:
            try:
                from areal.workflow.rlvr import RLVRWorkflow
            except ImportError as error:
                raise ImportError(
                    f"minedit_client.areal.MineditRLVRWorkflow subclasses AReaL's RLVRWorkflow: install AReaL "
                    f"where the rollout workers run ({error})"
                ) from error
            _made["MineditRLVRWorkflow"] = type(
                "MineditRLVRWorkflow",
                (_MineditWorkflow, RLVRWorkflow),
                {"__module__": __name__, "__qualname__": "MineditRLVRWorkflow", "__doc__": _MineditWorkflow.__doc__},
            )
        return _made["MineditRLVRWorkflow"]


def __getattr__(name: str) -> Any:
    # PEP 562: AReaL's import_from_string does getattr(module, "MineditRLVRWorkflow"), which lands here.
    if name == "MineditRLVRWorkflow":
        return _workflow_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
