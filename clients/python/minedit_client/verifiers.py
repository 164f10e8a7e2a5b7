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
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Mapping, MutableMapping
from dataclasses import asdict
from typing import Any, Callable, Dict, List, Optional, Tuple

import grpc

from ._adapt import completion_text, task_id_of
from .client import MineditClient, settings_from_env
from .coalesce import CoalescingScorer, coalescing_settings_from_env
from .types import MineditError, RewardOverride, Rollout, RolloutResult

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


_scorers: Dict[Tuple[str, str, str], CoalescingScorer] = {}
_scorers_lock = threading.Lock()


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
    with _scorers_lock:
        scorer = _scorers.get(key)
        if scorer is None:
            if reward_override is None:
                factory: Callable[[], MineditClient] = lambda: MineditClient(**settings)  # noqa: E731
            else:
                factory = lambda: _OverridingClient(reward_override, **settings)  # noqa: E731
            scorer = CoalescingScorer(factory, **coalescing)
            _scorers[key] = scorer
        return scorer


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
            task_id = task_id_of(answer, _info_task_id(info), "answer", 'info["task_id"]')
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
