"""minedit as a reward function of TRL's ``GRPOTrainer`` (TRL >= 0.27; contract-tested against the calling
code of v0.27.0, v1.5.1, v1.6.0 and v1.9.0 in ``tests/test_contract_trl.py``)::

    from minedit_client.trl import minedit_reward_func
    trainer = GRPOTrainer(model=..., train_dataset=dataset,  # rows: prompt + task_id
                          reward_funcs=[minedit_reward_func("127.0.0.1:50051")])

**Versions.** The reward function is ``async``: TRL >= 0.27 detects it (``inspect.iscoroutinefunction``)
and awaits it on one persistent event loop in a background thread. TRL < 0.27 calls it like a plain
function and fails with ``'coroutine' object is not iterable``: use TRL >= 0.27.

**How TRL calls it.** On every process, once per generation batch, with that process's samples, as keywords:
``prompts``, ``completions`` (strings, or for conversational data a list of messages per sample: the last
assistant message is scored), ``completion_ids``, ``trainer_state``, since v1.0 ``log_metric`` and
``log_extra``, and every dataset column (but ``prompt``) as a list. The task id of each sample comes from
the column ``task_id`` (``task_id_column=`` to change it). The whole call is ONE ``ScoreBatch``.
``trl.experimental.async_grpo.AsyncGRPOTrainer`` (TRL >= 1.6) calls it once per prompt group, without
``trainer_state`` and the log hooks, in a spawned process: the function pickles (it is a
``functools.partial`` of a module-level coroutine function holding settings, never a connection; a
``client=`` factory of your own must pickle too).

**INFRA_ERROR** (the sandbox broke, not the model) -- ``infra_error=``:

- ``"none"`` (default): the reward is ``None``. TRL turns it into NaN. On TRL >= 1.6 a sample whose every
  reward is NaN is left out of its group's mean and std and gets advantage 0: it is masked. On TRL < 1.6,
  TRL's ``nansum`` makes it 0.0, which takes part in the group statistics and outranks a failed repair
  (-0.2): on TRL < 1.6 use ``"group_mean"``.
- ``"group_mean"``: the mean reward of the scored samples of the same task in this call, so the sample's
  group advantage is zero -- when the whole group is in this process's call, i.e. when
  ``per_device_train_batch_size`` is a multiple of ``num_generations`` (TRL's sampler lays a prompt's
  completions side by side and each process scores its slice). A group split over processes gives the
  sample the mean of its process's part, which can be above the group's mean: a POSITIVE advantage. Then
  use a number at the failure reward (``-0.2``) instead. ``None`` when no sample of that task was scored.
  The choice for TRL < 1.6, and whenever minedit is combined with other reward functions: TRL masks a
  sample only when EVERY reward function returns ``None``, otherwise minedit's ``None`` counts as 0 in the
  weighted sum.
- a number: that reward.

**Failed calls.** A call that fails as a whole because of a dataset or configuration bug (INVALID_ARGUMENT,
NOT_FOUND -- e.g. an unknown task id --, UNAUTHENTICATED, RESOURCE_EXHAUSTED, ...) raises
:class:`~minedit_client.MineditError`. A transient one (UNAVAILABLE after the client's retries,
DEADLINE_EXCEEDED) does not: every sample of the call is treated as an INFRA_ERROR (``None`` by default),
``minedit/call_failed`` is 1.0 and a warning is logged (logger ``minedit_client.trl``). Raising there would
stop this process while the others wait for it in TRL's next collective.

**Metrics** (``log_metric``, TRL >= 1.0). Every call logs exactly these five keys, never NaN: TRL gathers
each key across processes in sorted order, so processes that logged different keys would pair up the wrong
collectives (wrong metrics, then a hang). TRL averages each over processes, which have equal batch sizes:

- ``minedit/pass_rate``: PASSED samples / samples;
- ``minedit/infra_error_rate``: INFRA_ERROR samples / samples;
- ``minedit/invalid_task_rate``: INVALID_TASK samples / samples (inline tasks whose gold fails its own
  tests; masked like INFRA_ERROR);
- ``minedit/cached_rate``: samples the server answered from its cache / samples;
- ``minedit/passed_excess_per_sample``: sum of the excess edit distance of the PASSED samples / samples
  (a passing sample without distances counts 0). ``passed_excess_per_sample / pass_rate`` is the mean
  excess of the passing repairs over all processes; the metric itself stays defined when nothing passed;
- ``minedit/call_failed``: 1.0 when the scoring call failed transiently, else 0.0. A failed call's samples
  count as neither passed, infra errors nor cached.

**Completion table** (``log_extra``, TRL >= 1.0), one value per sample on every call: ``minedit_verdict``
(the verdict, or ``"CALL_FAILED"``) and ``minedit_excess`` (the excess edit distance, ``None`` when not
computed).

**Name.** TRL logs the reward as ``rewards/<name>/mean``. TRL < 1.9 (and ``AsyncGRPOTrainer`` < 1.9) reads
``__name__``, which ``name=`` sets (default ``minedit``); TRL >= 1.9 names a ``functools.partial`` after
the function it wraps, which is always ``minedit``. So on TRL >= 1.9 two minedit reward functions (say,
two reward overrides) would share one name, and their columns one completions-table column: give the second
its own module-level function, which TRL names after itself and which pickles::

    CC = minedit_reward_func(reward_override=RewardOverride(variant="edit_plus_cc"))

    async def minedit_cc(**kwargs):
        return await CC(**kwargs)
"""

from __future__ import annotations

import functools
import logging
import math
from typing import Any, Callable, List, Optional, Sequence, Union

from ._adapt import AsyncClients, completion_text, masked_rewards, transient
from .client import AsyncMineditClient, settings_from_env
from .types import MineditError, RewardOverride, Rollout, RolloutResult

logger = logging.getLogger(__name__)

#: The ``log_metric`` keys, all logged on every call.
METRIC_KEYS = (
    "minedit/pass_rate",
    "minedit/infra_error_rate",
    "minedit/invalid_task_rate",
    "minedit/cached_rate",
    "minedit/passed_excess_per_sample",
    "minedit/call_failed",
)
#: The ``log_extra`` columns, one value per sample on every call.
EXTRA_COLUMNS = ("minedit_verdict", "minedit_excess")

# TRL's own keyword arguments, which are not dataset columns.
_TRL_KWARGS = ("prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric", "environments")


class _Setup:
    """What one reward function needs, picklable: settings and a client factory, never a connection (a
    ``grpc.aio`` channel belongs to one event loop in one process; the clients are made on first use)."""

    def __init__(
        self,
        factory: Callable[[], AsyncMineditClient],
        task_id_column: str,
        name: str,
        reward_override: Optional[RewardOverride],
        infra_error: Union[str, float],
    ) -> None:
        self.factory = factory
        self.task_id_column = task_id_column
        self.name = name
        self.reward_override = reward_override
        self.infra_error = infra_error
        self._clients: Optional[AsyncClients] = None

    def client(self) -> AsyncMineditClient:
        if self._clients is None:
            self._clients = AsyncClients(self.factory)
        return self._clients.get()

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_clients": None}


def _rewards(results: Sequence[Optional[RolloutResult]], task_ids: Sequence[str], infra_error: Any) -> List[Any]:
    """The reward per sample. A ``None`` result (the call failed) counts as an INFRA_ERROR; for
    ``group_mean``, of a group with no scored sample."""
    if infra_error == "group_mean" and all(r is not None for r in results):
        filled, _ = masked_rewards(results, task_ids, fallback=math.nan)  # type: ignore[arg-type]
        return [None if math.isnan(x) else x for x in filled]
    fill = float(infra_error) if isinstance(infra_error, (int, float)) else None
    return [r.reward if r is not None and r.reward is not None else fill for r in results]


def _log(results: Sequence[Optional[RolloutResult]], failed: bool, log_metric: Any, log_extra: Any) -> None:
    if callable(log_metric):
        scored = [r for r in results if r is not None]

        def share(count: float) -> float:
            return count / len(results) if results else 0.0

        passed = [r for r in scored if r.passed]
        log_metric("minedit/pass_rate", share(len(passed)))
        log_metric("minedit/infra_error_rate", share(sum(r.infra_error for r in scored)))
        log_metric("minedit/invalid_task_rate", share(sum(r.invalid_task for r in scored)))
        log_metric("minedit/cached_rate", share(sum(r.cached for r in scored)))
        log_metric("minedit/passed_excess_per_sample", share(sum(r.components.excess for r in passed if r.components)))
        log_metric("minedit/call_failed", 1.0 if failed else 0.0)
    if callable(log_extra):
        log_extra("minedit_verdict", [r.verdict if r is not None else "CALL_FAILED" for r in results])
        log_extra("minedit_excess", [r.components.excess if r is not None and r.components else None for r in results])


async def _score(setup: _Setup, prompts: Any = None, completions: Any = None, **kwargs: Any) -> List[Any]:
    name = setup.name
    if completions is None:
        raise TypeError(
            f"{name}: called without `completions`; it is a TRL GRPOTrainer reward function (TRL >= 0.27), "
            "called as reward(prompts=..., completions=..., <dataset columns>=...)"
        )
    column = setup.task_id_column
    if column not in kwargs:
        columns = sorted(k for k in kwargs if k not in _TRL_KWARGS)
        raise KeyError(
            f"{name}: no dataset column {column!r} (the minedit task id of each prompt); "
            f"columns passed: {columns}. Set task_id_column= to the column that holds it."
        )
    task_ids = ["" if t is None else str(t) for t in kwargs[column]]  # the server rejects an empty id
    if len(task_ids) != len(completions):
        raise ValueError(f"{name}: {len(completions)} completions but {len(task_ids)} task ids")
    rollouts = [
        Rollout(id=str(i), completion=completion_text(c), task_id=t, group_id=t)
        for i, (c, t) in enumerate(zip(completions, task_ids))
    ]
    results: List[Optional[RolloutResult]]
    failed = False
    try:
        results = list(await setup.client().score_batch(rollouts, reward_override=setup.reward_override))
    except MineditError as error:
        if not transient(error):
            raise MineditError(
                error.code,
                f"{name}: scoring failed, and not transiently: check the {column!r} column against the server's "
                f"tasks and the client settings: {error.details}",
                error_code=error.error_code,
                field=error.field,
                attempts=error.attempts,
            ) from error
        logger.warning(
            "%s: scoring %d samples failed (%s); they count as INFRA_ERROR this step",
            name,
            len(rollouts),
            error,
        )
        results, failed = [None] * len(rollouts), True
    if len(results) != len(rollouts):
        raise RuntimeError(f"{name}: the server returned {len(results)} results for {len(rollouts)} rollouts")
    _log(results, failed, kwargs.get("log_metric"), kwargs.get("log_extra"))
    return _rewards(results, task_ids, setup.infra_error)


# TRL >= 1.9 logs a functools.partial under the name of the function it wraps.
_score.__name__ = "minedit"


class _RewardFunc(functools.partial):
    """A ``functools.partial`` that keeps its ``__name__`` through ``multiprocessing``'s pickler, which
    rebuilds a plain partial from its function and arguments only (``multiprocessing.reduction``) -- so a
    spawned ``AsyncGRPOTrainer`` child of TRL 1.6-1.8, which reads ``f.__name__``, would fail. Still a
    partial: ``inspect.iscoroutinefunction`` and TRL >= 1.9's ``get_callable_name`` look through it."""


def minedit_reward_func(
    target: Optional[str] = None,
    *,
    task_id_column: str = "task_id",
    name: str = "minedit",
    infra_error: Union[str, float] = "none",
    token: Optional[str] = None,
    timeout: Optional[float] = None,
    reward_override: Optional[RewardOverride] = None,
    client: Optional[Callable[[], AsyncMineditClient]] = None,
    **client_settings: Any,
) -> Callable[..., Any]:
    """A TRL reward function ``async (prompts, completions, **kwargs) -> list[float | None]`` (see the
    module documentation for the calling contract, ``infra_error``, failed calls and the metrics).

    ``target``, ``token``, ``timeout`` and the other :class:`AsyncMineditClient` keyword arguments default
    to the ``MINEDIT_*`` environment (see :func:`minedit_client.client.settings_from_env`), read here, once.
    Set ``timeout`` (seconds, a whole call): without it a stuck server stalls training instead of failing
    the call. ``client``: a factory of your own :class:`AsyncMineditClient` (called once per event loop)
    instead; it must pickle (a class or ``functools.partial``, not a lambda) for ``AsyncGRPOTrainer``.

    The result is a ``functools.partial`` (subclass) of a module-level coroutine function: TRL detects it
    as async, and it pickles, ``__name__`` included, with both ``pickle`` and ``multiprocessing``.
    """
    number = isinstance(infra_error, (int, float)) and not isinstance(infra_error, bool)
    if not (number or infra_error in ("none", "group_mean")):
        raise ValueError(f'infra_error must be "none", "group_mean" or a number, not {infra_error!r}')
    if client is None:
        client = functools.partial(
            AsyncMineditClient, **settings_from_env(target=target, token=token, timeout=timeout, **client_settings)
        )
    reward = _RewardFunc(_score, _Setup(client, task_id_column, name, reward_override, infra_error))
    reward.__name__ = name  # type: ignore[attr-defined]  # TRL < 1.9 names its logs after __name__
    return reward
