"""minedit as reward functions of a verifiers v0 ``Rubric`` (``load_environment`` environments: verifiers
0.1.x, PRIME-RL up to v0.8 — directly up to v0.6, through verifiers' legacy bridge in v0.7 / v0.8).

The installable environment ``clients/python/environments/minedit_repair`` (id ``minedit-repair``) builds
on this module; it also has the ``verifiers.v1`` taskset of verifiers >= 0.2 / PRIME-RL >= 0.8. By hand::

    import verifiers as vf
    from minedit_client.verifiers import minedit_rubric
    env = vf.SingleTurnEnv(dataset=dataset, rubric=minedit_rubric())  # rows: prompt, answer = task id

How verifiers calls a rubric function (verifiers/rubrics/rubric.py, v0.1.10 to v0.1.13): once per rollout,
with the names its signature asks for among ``prompt``, ``completion``, ``answer``, ``state``, ``task``,
``info`` and ``parser`` (all of them when it takes ``**kwargs``), as ``float(await maybe_await(func,
...))``; an exception or ``None`` becomes 0.0 with an error in the log. ``score_group`` runs the functions
in list order, each one for every rollout of the group at once (``asyncio.gather``); reward = sum of
score x weight, and every function's score is also a metric under its ``__name__``. A function whose
parameters are plural (``completions``, ``states``, ...) is a group function: these are not.

:func:`minedit_reward_func` returns ``async (completion, answer=None, info=None, state=None, **kwargs) ->
float``:

- the task id is the dataset's ``answer`` or ``info["task_id"]`` (both may be given; they must agree);
- ``completion`` is a string or a list of messages: dicts (verifiers <= 0.1.10) or objects with ``role``
  and ``content`` attributes (the pydantic ``AssistantMessage`` of verifiers >= 0.1.11, which is not a
  Mapping); the last assistant message is scored;
- concurrent calls in one process (the rollouts of a ``score_group``, the rollouts an env-server worker
  runs at once) go to the server together: one per-process :class:`~minedit_client.coalesce.
  CoalescingScorer` (:func:`shared_scorer`) gathers them into few ``ScoreBatch`` calls;
- the full result goes into ``state["minedit"]``; :func:`minedit_metric_funcs` gives zero-weight metrics
  (``minedit_passed``, ``minedit_excess``, ``minedit_infra_error``) that read it back without a second call.

Rollouts that could not be scored are marked, not silently given a number:

- ``INFRA_ERROR`` (the sandbox broke, not the candidate) and transport failures (the server unreachable
  after the client's retries, a deadline, a refused token) set ``state["error"]`` to verifiers'
  ``InfraError`` (a local ``MineditInfraError`` when verifiers is not importable) and log an error.
  verifiers' ``maybe_retry`` re-runs a group whose state holds an ``InfraError`` (``max_retries``;
  PRIME-RL's default is 3 in v0.6); PRIME-RL v0.5 reschedules a rollout whose output has an error, and
  the legacy bridge of v0.7 / v0.8 turns it into a failed trace that is left out of training;
- a bad sample (no task id, a task id the server does not know, a completion of an unreadable type) sets
  ``state["error"]`` to verifiers' base ``Error`` (not retried: it would fail again) and logs an error;
- either way the function still returns a number, since the rubric would turn an exception into a silent
  0.0: ``infra_error_score``, by default the failure reward (-0.2, or ``reward_override.failure_reward``).
  Not 0.0: minedit's reward is 0.1 - excess for a passing repair, so 0.0 is what a PASSING repair with
  excess 0.1 earns, and where the error is not masked (a trainer that ignores ``state["error"]``,
  ``vf-eval`` averages) an unscored rollout must never rank above a scored failure. ``minedit_infra_error``
  is 1.0 for INFRA_ERROR and transport failures.

**A reward for ANY ``verifiers.v1`` taskset** (``TaskConfig.rewards``, verifiers HEAD a60a606; added by
74959f5 after v0.3.0): :data:`minedit_taskset_reward` / :func:`taskset_reward`. verifiers imports a plugged
function by path (``pkg.module:function`` or ``path/to/file.py:function``; verifiers/v1/utils/loaders.py
``load_plugged_fn``), merges it with the task's ``@vf.reward`` methods (an entry named like one of them
replaces it; a ``fn``-less entry only re-weights it) and awaits it in ``Task.score`` with the arguments its
signature names: ``task`` is the task's DATA (``TaskData``), ``trace`` the trace. The reward sum is
``score x weight`` over the rewards. PRIME-RL TOML::

    [orchestrator.train.source.env.taskset.task.rewards]
    minedit = { fn = "minedit_client.verifiers:minedit_taskset_reward", weight = 1.0 }

The minedit task comes from the task data: ``task_id`` (a stored task) or ``minedit_task`` (an inline task:
a dict, or its JSON), each a declared field of the taskset's data or a key of its ``info`` dict (the env
server drops undeclared fields). Another field (e.g. ``answer``): :func:`taskset_reward` in a hooks file
(examples/verifiers/minedit_hooks.py). The completion is ``trace.last_reply``. The result goes to
``trace.info["minedit"]`` and the metrics ``minedit_passed``, ``minedit_excess``, ``minedit_infra_error``,
``minedit_invalid_task``. INFRA_ERROR and INVALID_TASK RAISE :class:`MineditUnscoredError`, as does any failed
call or a row without a task: ``Task.score`` runs inside ``boundary(TaskError, ...)``, so the trace gets a
``TaskError``, its ``rewards["minedit"]`` stays ``None``, ``ok`` is False, and PRIME-RL leaves it out of
training (a returned ``None`` would do the same through ``float(None)``, without saying why). Settings: the
``MINEDIT_*`` environment of the env-server workers, or :func:`taskset_reward`'s keyword arguments.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Mapping, MutableMapping
from dataclasses import asdict
from typing import Any, Callable, Dict, List, Optional, Tuple

import grpc

from ._adapt import completion_text, per_process_scorer, task_id_of
from .client import MineditClient, settings_from_env
from .coalesce import CoalescingScorer, coalescing_settings_from_env
from .types import MineditError, RewardOverride, Rollout, RolloutResult, Task

STATE_KEY = "minedit"

#: The server's default failure reward: what an unscored rollout gets unless told otherwise.
DEFAULT_FAILURE_REWARD = -0.2

logger = logging.getLogger(__name__)

#: Status codes that blame the sample rather than the infrastructure (the coalescer sends such a batch
#: again one rollout at a time, so only the bad rollout's caller gets them).
_SAMPLE_CODES = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)


class MineditInfraError(RuntimeError):
    """Put in ``state["error"]`` for an unscored rollout when verifiers' ``InfraError`` is not importable."""


class MineditSampleError(RuntimeError):
    """Put in ``state["error"]`` for a bad sample when verifiers' ``Error`` is not importable."""


def _state_error(infra: bool, message: str) -> Exception:
    # Looked up at each failure, not at import: verifiers is optional, and may be imported after us.
    try:
        errors = importlib.import_module("verifiers.errors")
        cls = getattr(errors, "InfraError" if infra else "Error")
    except (ImportError, AttributeError):
        cls = MineditInfraError if infra else MineditSampleError
    return cls(message)


# ---- one coalescing scorer per process and settings ---------------------------------------------------


class _OverridingClient(MineditClient):
    """A blocking client that sends ``reward_override`` with every batch (the coalescer sends none)."""

    def __init__(self, reward_override: RewardOverride, **settings: Any) -> None:
        super().__init__(**settings)
        self._override = reward_override

    def score_batch(self, rollouts, *, timeout=None, reward_override=None):  # type: ignore[override]
        override = self._override if reward_override is None else reward_override
        return super().score_batch(rollouts, timeout=timeout, reward_override=override)


def shared_scorer(
    target: Optional[str] = None,
    *,
    token: Optional[str] = None,
    timeout: Optional[float] = None,
    reward_override: Optional[RewardOverride] = None,
    window_s: Optional[float] = None,
    max_rollouts: Optional[int] = None,
    **client_settings: Any,
) -> CoalescingScorer:
    """The process's :class:`CoalescingScorer` for these settings, made on first use: every reward call
    with the same settings shares it, so concurrent rollouts share ``ScoreBatch`` calls. Client settings
    default to the ``MINEDIT_*`` environment (:func:`~minedit_client.client.settings_from_env`), the
    window and batch size to ``MINEDIT_COALESCE_MS`` / ``MINEDIT_COALESCE_MAX``
    (:func:`~minedit_client.coalesce.coalescing_settings_from_env`). The scorer restarts itself in a
    forked child (env-server workers, Ray)."""
    settings = settings_from_env(target=target, token=token, timeout=timeout, **client_settings)
    coalescing = coalescing_settings_from_env(window_s=window_s, max_rollouts=max_rollouts)
    key = (repr(sorted(settings.items())), repr(reward_override), repr(sorted(coalescing.items())))
    if reward_override is None:
        factory: Callable[[], MineditClient] = lambda: MineditClient(**settings)  # noqa: E731
    else:
        factory = lambda: _OverridingClient(reward_override, **settings)  # noqa: E731
    return per_process_scorer(key, lambda: CoalescingScorer(factory, **coalescing))


# ---- the rubric functions -------------------------------------------------------------------------------


def _info_task_id(info: Any) -> Any:
    return info.get("task_id") if isinstance(info, Mapping) else None


def _is_sample_error(error: BaseException) -> bool:
    if isinstance(error, MineditError):
        return error.code in _SAMPLE_CODES
    return isinstance(error, (ValueError, TypeError))


def minedit_reward_func(
    target: Optional[str] = None,
    *,
    token: Optional[str] = None,
    timeout: Optional[float] = None,
    infra_error_score: Optional[float] = None,
    reward_override: Optional[RewardOverride] = None,
    name: str = "minedit_reward",
    scorer: Optional[CoalescingScorer] = None,
    window_s: Optional[float] = None,
    max_rollouts: Optional[int] = None,
    **client_settings: Any,
) -> Callable[..., Any]:
    """The rubric reward function (see the module doc). ``scorer`` replaces the shared per-process
    :func:`shared_scorer` built from the other settings. ``infra_error_score`` is what an unscored rollout
    returns (default: ``reward_override.failure_reward`` if set, else -0.2)."""
    if infra_error_score is None:
        override_failure = reward_override.failure_reward if reward_override is not None else None
        infra_error_score = DEFAULT_FAILURE_REWARD if override_failure is None else override_failure
    unscored = float(infra_error_score)
    fixed = scorer

    def get_scorer() -> CoalescingScorer:
        if fixed is not None:
            return fixed
        return shared_scorer(
            target,
            token=token,
            timeout=timeout,
            reward_override=reward_override,
            window_s=window_s,
            max_rollouts=max_rollouts,
            **client_settings,
        )

    async def reward(
        completion: Any = None, answer: Any = None, info: Any = None, state: Any = None, **kwargs: Any
    ) -> float:
        task_id: Optional[str] = None
        try:
            task_id = task_id_of(("answer", answer), ('info["task_id"]', _info_task_id(info)))
            rollout = Rollout(id="0", completion=completion_text(completion), task_id=task_id)
            result = await get_scorer().score_async(rollout)
        except Exception as error:  # noqa: BLE001 - the rubric would turn it into a silent 0.0
            return _unscored(state, task_id, error, unscored)
        if result.masked:
            logger.error(
                "minedit: %s for task %s (%s); state['error'] is set, the rollout scores %s",
                result.verdict,
                task_id,
                result.detail,
                unscored,
            )
            _set_error(state, True, f"minedit {result.verdict} for task {task_id}: {result.detail}")
        score = unscored if result.reward is None else result.reward
        _record(state, result, score)
        return float(score)

    reward.__name__ = name
    reward.__qualname__ = name
    return reward


def _set_error(state: Any, infra: bool, message: str) -> None:
    # The first error of a rollout stays (e.g. the model call's): it says what went wrong first.
    if isinstance(state, MutableMapping) and state.get("error") is None:
        state["error"] = _state_error(infra, message)


def _record(state: Any, result: RolloutResult, score: float) -> None:
    if isinstance(state, MutableMapping):
        record = asdict(result)
        record["score"] = score
        record["error"] = None
        state[STATE_KEY] = record


def _unscored(state: Any, task_id: Optional[str], error: Exception, score: float) -> float:
    infra = not _is_sample_error(error)
    what = "could not reach the server" if infra else "bad sample"
    message = f"minedit: {what} for task {task_id}: {type(error).__name__}: {error}"
    logger.error("%s; state['error'] is set, the rollout scores %s", message, score)
    _set_error(state, infra, message)
    if isinstance(state, MutableMapping):
        state[STATE_KEY] = {
            "verdict": None,
            "reward": None,
            "components": None,
            "score": score,
            "error": message,
            "infra_error": infra,
        }
    return score


def _from_state(state: Any) -> Dict[str, Any]:
    if not isinstance(state, Mapping) or STATE_KEY not in state:
        raise RuntimeError(
            "minedit metric: no minedit result in state; list minedit_reward_func before the metrics in the rubric"
        )
    return state[STATE_KEY]


def minedit_metric_funcs() -> List[Callable[..., float]]:
    """Metrics to add with weight 0 after :func:`minedit_reward_func` (verifiers logs every rubric function):
    ``minedit_passed`` (1.0 / 0.0), ``minedit_excess`` (excess edit distance; 0.0 when not computed) and
    ``minedit_infra_error`` (1.0 for INFRA_ERROR and for a server that could not be reached, else 0.0)."""

    def minedit_passed(state: Any = None, **_: Any) -> float:
        return 1.0 if _from_state(state)["verdict"] == "PASSED" else 0.0

    def minedit_excess(state: Any = None, **_: Any) -> float:
        components = _from_state(state)["components"]
        return float(components["excess"]) if components else 0.0

    def minedit_infra_error(state: Any = None, **_: Any) -> float:
        record = _from_state(state)
        return 1.0 if record["verdict"] == "INFRA_ERROR" or record.get("infra_error") else 0.0

    return [minedit_passed, minedit_excess, minedit_infra_error]


def minedit_rubric(**settings: Any) -> Any:
    """A ``verifiers.Rubric`` with the minedit reward (weight 1) and its metrics (weight 0). Needs the
    ``verifiers`` package; ``settings`` go to :func:`minedit_reward_func`."""
    import verifiers as vf  # imported here: the rest of minedit_client does not need verifiers

    metrics = minedit_metric_funcs()
    return vf.Rubric(funcs=[minedit_reward_func(**settings), *metrics], weights=[1.0] + [0.0] * len(metrics))


# ---- a reward plugged into any verifiers.v1 taskset (TaskConfig.rewards) -------------------------------


class MineditUnscoredError(RuntimeError):
    """Raised by the taskset reward for a rollout minedit did not score (INFRA_ERROR, INVALID_TASK):
    verifiers records it as the trace's ``TaskError`` and the trace does not train. ``result`` is the
    server's :class:`RolloutResult`."""

    def __init__(self, message: str, result: RolloutResult) -> None:
        super().__init__(message)
        self.result = result


def _data_values(data: Any, name: str) -> Tuple[Any, Any]:
    """``name`` as a field of the task data (an attribute of a pydantic model, or a key) and as a key of its
    ``info`` dict."""
    own = data.get(name) if isinstance(data, Mapping) else getattr(data, name, None)
    info = data.get("info") if isinstance(data, Mapping) else getattr(data, "info", None)
    return own, (info.get(name) if isinstance(info, Mapping) else None)


def _inline_task(value: Any, name: str) -> Any:
    if isinstance(value, str):  # a dataset column often holds the task as JSON
        value = json.loads(value)
    if hasattr(value, "model_dump"):  # a pydantic field of the task data
        value = value.model_dump()
    if not isinstance(value, (Mapping, Task)):
        raise TypeError(f"{name} must be an inline minedit task (a dict or its JSON), not {type(value).__name__}")
    return value


def _task_of(data: Any, task_id_field: str, task_field: str) -> Tuple[Optional[str], Any]:
    """(task id, inline task) named by the task data; exactly one is set."""
    own_task, info_task = _data_values(data, task_field)
    own_id, info_id = _data_values(data, task_id_field)
    inline = own_task if own_task is not None else info_task
    has_id = any(v is not None and v != "" for v in (own_id, info_id))
    if inline is not None and has_id:
        raise ValueError(f"the task data names both a task id ({task_id_field}) and an inline task ({task_field})")
    if inline is not None:
        return None, _inline_task(inline, task_field)
    if not has_id:
        raise ValueError(
            f"no minedit task in the task data: set {task_id_field!r} (a task id) or {task_field!r} (an inline "
            "task), as a declared field of the taskset's data or a key of its info"
        )
    return task_id_of((task_id_field, own_id), (f'info["{task_id_field}"]', info_id)), None


def taskset_reward(
    *,
    task_id_field: str = "task_id",
    task_field: str = "minedit_task",
    target: Optional[str] = None,
    timeout: Optional[float] = None,
    reward_override: Optional[RewardOverride] = None,
    window_s: Optional[float] = None,
    max_rollouts: Optional[int] = None,
    **client_settings: Any,
) -> Callable[..., Any]:
    """An ``async (task, trace) -> float`` reward to plug into any ``verifiers.v1`` taskset (see the module
    doc): the minedit task is read from the task data's ``task_id_field`` (a task id) or ``task_field`` (an
    inline task), fields or keys of its ``info``. Concurrent rollouts of a worker share ``ScoreBatch`` calls
    (:func:`shared_scorer`, built from the other settings and the ``MINEDIT_*`` environment)."""

    async def minedit(task: Any, trace: Any) -> float:
        task_id, inline = _task_of(task, task_id_field, task_field)
        scorer = shared_scorer(
            target,
            timeout=timeout,
            reward_override=reward_override,
            window_s=window_s,
            max_rollouts=max_rollouts,
            **client_settings,
        )
        rollout = Rollout(id=str(trace.id), completion=trace.last_reply, task_id=task_id, task=inline)
        result = await scorer.score_async(rollout)
        trace.info[STATE_KEY] = asdict(result)
        trace.record_metrics(
            {
                "minedit_passed": 1.0 if result.passed else 0.0,
                "minedit_excess": float(result.components.excess) if result.components else 0.0,
                "minedit_infra_error": 1.0 if result.infra_error else 0.0,
                "minedit_invalid_task": 1.0 if result.invalid_task else 0.0,
            }
        )
        if result.reward is None:
            what = task_id or "an inline task"
            raise MineditUnscoredError(f"minedit {result.verdict} for {what}: {result.detail}", result)
        return float(result.reward)

    return minedit


#: :func:`taskset_reward` with its defaults, for ``fn = "minedit_client.verifiers:minedit_taskset_reward"``.
minedit_taskset_reward = taskset_reward()
