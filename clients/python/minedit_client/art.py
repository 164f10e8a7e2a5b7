"""minedit as the reward of an OpenPipe ART rollout (``openpipe-art``; read against ART's source at main
779559f = 0.3.11, and the later ``src/art/gather.py`` / ``src/art/preprocessing/tokenize.py`` of the 0.5 line:
the calling contract below is the same in both).

**How ART calls it.** ART does not call a reward function: the user writes an async ``rollout`` that
returns an ``art.Trajectory(messages_and_choices=..., reward=...)``, and trains on
``await art.gather_trajectory_groups(art.TrajectoryGroup(rollout(...) for _ in range(n)) for ...)``. Every
rollout of every group runs at once on ONE event loop (``asyncio.gather`` over the groups,
``asyncio.as_completed`` inside a group), so the rollouts of a step await :func:`score` together: one
per-process :class:`~minedit_client.coalesce.CoalescingScorer` gathers them into few ``ScoreBatch`` calls.
The user's lines, at the end of their rollout (the task is a task id, or an inline
:class:`~minedit_client.Task` / dict)::

    import minedit_client.art
    return await minedit_client.art.score_trajectory(trajectory, row["task_id"])

:func:`score_trajectory` scores the trajectory's last assistant reply (an OpenAI ``Choice`` or an
assistant message dict), sets ``trajectory.reward``, adds minedit's metrics to ``trajectory.metrics``
(:func:`metrics`; ART averages each key over the trajectories that have it, and logs it) and the verdict to
``trajectory.metadata["minedit_verdict"]``. :func:`score` is the same for any completion and returns the
reward: ``trajectory.reward = await minedit_client.art.score(task, text, trajectory=trajectory)``.

**INFRA_ERROR and INVALID_TASK raise** :class:`MaskedError` (so does a call that failed transiently:
UNAVAILABLE after the client's retries, DEADLINE_EXCEEDED). ART catches ANY exception of a rollout
(``except BaseException`` in ``TrajectoryGroup``'s gathering coroutine), drops that trajectory from its
group and records it in ``group.exceptions``; advantages are then computed over the group's remaining
trajectories (``reward - mean``, scaled by their std), so the sample is masked exactly, not scored. That
needs ``max_exceptions=`` on ``gather_trajectory_groups`` (a count, or a fraction of all rollouts when below
1): with ART's default of 0 the FIRST exception propagates out of ``gather_trajectory_groups`` and stops the
step. A group left with one trajectory, or with equal rewards, gets (numerically) zero advantages and
teaches nothing; a group whose every sample was masked is empty and skipped. Any other failed call
(unknown task id, bad token) raises :class:`~minedit_client.MineditError`, which ART drops the same way
until ``max_exceptions`` is exceeded -- then the step stops, as a misconfigured run should.
``art.retry(exceptions=(minedit_client.art.MaskedError,))`` on the rollout re-runs it instead.

**Settings.** ``MINEDIT_TARGET`` (default ``127.0.0.1:50051``), ``MINEDIT_TOKEN``, ``MINEDIT_ROOT_CERTS``,
``MINEDIT_TIMEOUT``, ``MINEDIT_COALESCE_MS`` (default 20), ``MINEDIT_COALESCE_MAX`` (default 512) in the
environment, or the keyword arguments ``target=``, ``token=``, ``timeout=``, ``coalesce_ms=``,
``coalesce_max=`` of :func:`score` / :func:`score_trajectory`.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from . import _adapt
from ._adapt import _field, completion_text, transient
from .coalesce import CoalescingScorer
from .types import MineditError, Rollout, RolloutResult, Task

_HINT = "ART drops this trajectory when art.gather_trajectory_groups(..., max_exceptions=...) allows it"


class MaskedError(RuntimeError):
    """A rollout minedit could not score: ``verdict`` is ``"INFRA_ERROR"`` (the sandbox broke, or the call
    failed transiently: then ``result`` is None and ``__cause__`` the call's error) or ``"INVALID_TASK"``
    (an inline task whose gold fails its own tests). Raised so that ART drops the trajectory."""

    def __init__(self, message: str, verdict: str, result: Optional[RolloutResult] = None) -> None:
        super().__init__(message)
        self.verdict = verdict
        self.result = result


# ---- one CoalescingScorer per process and settings ---------------------------------------------------


def coalescing_scorer(
    target: Optional[str] = None,
    token: Optional[str] = None,
    timeout: Optional[float] = None,
    coalesce_ms: Optional[float] = None,
    coalesce_max: Optional[int] = None,
) -> CoalescingScorer:
    """The :class:`~minedit_client.CoalescingScorer` :func:`score` uses for these settings (one per
    process; it starts afresh after ``fork``); its ``stats`` count the ``ScoreBatch`` calls sent."""
    return _adapt.coalescing_scorer(target, token, timeout, coalesce_ms, coalesce_max)


# ---- reading ART's objects ----------------------------------------------------------------------------


def _rollout(task: Any, completion: Any) -> Rollout:
    text = completion_text(_choice_message(completion))
    if isinstance(task, str):
        return Rollout(id="0", completion=text, task_id=task, group_id=task)
    if isinstance(task, (Task, Mapping)):
        return Rollout(id="0", completion=text, task=task)
    raise TypeError(f"task must be a task id (str) or an inline task (Task or dict), not {type(task).__name__}")


def _choice_message(item: Any) -> Any:
    # An OpenAI Choice (what ART trains on) holds the reply in .message; anything else is read as it is.
    if not isinstance(item, (str, Mapping)) and hasattr(item, "message") and hasattr(item, "finish_reason"):
        return item.message
    return item


def last_reply(trajectory: Any) -> Any:
    """The last assistant reply of an ``art.Trajectory``: its last ``Choice`` (the model's sampled turn) or
    assistant message in ``messages_and_choices``."""
    for item in reversed(list(trajectory.messages_and_choices)):
        message = _choice_message(item)
        if message is not item or _field(item, "role") == "assistant":
            return message
    raise ValueError("the trajectory has no assistant reply to score")


def metrics(result: RolloutResult) -> Dict[str, float]:
    """minedit's numbers for ``trajectory.metrics``: ``minedit_passed`` (1.0 / 0.0), ``minedit_tests_passed``
    and ``minedit_tests_total``, and, only when the server computed them (not for NO_CODE / UNPARSABLE),
    ``minedit_excess``, ``minedit_d_model`` and ``minedit_d_gold`` -- ART averages each metric over the
    trajectories that have it, so a missing distance does not pull the mean to 0."""
    values = {
        "minedit_passed": 1.0 if result.passed else 0.0,
        "minedit_tests_passed": float(result.tests_passed),
        "minedit_tests_total": float(result.tests_total),
    }
    if result.components is not None:
        values["minedit_excess"] = float(result.components.excess)
        values["minedit_d_model"] = float(result.components.d_model)
        values["minedit_d_gold"] = float(result.components.d_gold)
    return values


# ---- the helpers the rollout awaits --------------------------------------------------------------------


async def score(
    task: Any,
    completion: Any,
    *,
    trajectory: Any = None,
    target: Optional[str] = None,
    token: Optional[str] = None,
    timeout: Optional[float] = None,
    coalesce_ms: Optional[float] = None,
    coalesce_max: Optional[int] = None,
) -> float:
    """The minedit reward of ``completion`` (a string, a message or messages, or an OpenAI ``Choice``) for
    ``task`` (a task id, or an inline :class:`~minedit_client.Task` / dict). Concurrent calls of a process
    share ``ScoreBatch`` calls. With ``trajectory``, its ``metrics`` and ``metadata`` get minedit's numbers
    and verdict. Raises :class:`MaskedError` for INFRA_ERROR / INVALID_TASK (see the module doc)."""
    rollout = _rollout(task, completion)
    name = rollout.task_id or "an inline task"
    scorer = coalescing_scorer(target, token, timeout, coalesce_ms, coalesce_max)
    try:
        result = await scorer.score_async(rollout)
    except MineditError as error:
        if not transient(error):
            raise
        raise MaskedError(f"minedit: scoring {name} failed ({error}); {_HINT}", "INFRA_ERROR") from error
    if trajectory is not None:
        trajectory.metrics.update(metrics(result))
        trajectory.metadata["minedit_verdict"] = result.verdict
    if result.reward is None:
        raise MaskedError(f"minedit {result.verdict} for {name}: {result.detail}; {_HINT}", result.verdict, result)
    return float(result.reward)


async def score_trajectory(trajectory: Any, task: Any, **settings: Any) -> Any:
    """Scores the trajectory's last assistant reply (:func:`last_reply`) for ``task``, sets
    ``trajectory.reward`` and its metrics (:func:`score`), and returns the trajectory. ``settings`` are
    :func:`score`'s keyword arguments."""
    trajectory.reward = await score(task, last_reply(trajectory), trajectory=trajectory, **settings)
    return trajectory
