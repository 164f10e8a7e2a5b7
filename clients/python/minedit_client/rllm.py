"""minedit as an rLLM evaluator (rLLM 0.3.0-pre: tag ``v0.3.0-pre``, commit 09567646, the latest release
tag; contract-tested against its calling code in ``tests/test_contract_rllm.py``).

**Use.** rLLM's trainer takes an agent flow and an evaluator
(``rllm.experimental.unified_trainer.AgentTrainer(agent_flow=..., evaluator=MineditEvaluator(), ...)``);
``load_evaluator("minedit_client.rllm:MineditEvaluator")`` (rLLM's ``--evaluator`` flag, a dataset's
``[verifier] import_path``) builds one from the ``MINEDIT_*`` environment. Register the GRPO export's rows
as an rLLM dataset as they are (``examples/rllm/train_minedit.py``; each row keeps ``prompt`` and the task
id) and add ``rllm.compact_filtering.enable=true`` (and ``rllm.algorithm.use_rllm=true`` on the verl
backend) so that masked samples are dropped (below).

**How rLLM calls it** (``rllm/experimental/engine/agent_flow_engine.py``). For every rollout, after the
agent flow returns its ``Episode``: ``evaluator.evaluate(task, episode)``, sync, in the engine's
``ThreadPoolExecutor`` of ``rllm.workflow.n_parallel_tasks`` threads (256), with every rollout of the
step in flight. ``task`` is the dataset row as a dict (on the verl backend: the row rLLM stored as the
Parquet ``extra_info``); rLLM's ``Runner`` (``rllm eval``) passes ``task.metadata`` or the ``Task`` itself,
which is also read. The calls of a process share ONE :class:`~minedit_client.CoalescingScorer`: the
blocked threads' rollouts go out together as ``ScoreBatch`` calls. (``rllm eval``'s Runner calls
``evaluate`` on its event loop, one rollout at a time: one call each.) rLLM then sets the reward on
every trajectory still without one, ``episode.is_correct``, and merges ``metadata`` and the signals into
``episode.metrics`` (averaged into the step's ``batch/...`` metrics).

The completion is what rLLM's own evaluators read (``rllm/eval/reward_fns/_helpers.py``):
``episode.artifacts["answer"]``, else the last trajectory's ``output``, else its last step's ``output``.
A row names its task by id -- ``ground_truth`` or ``reward_model.ground_truth`` (the export), ``task_id``,
``extra_info.task_id`` (those given must agree) -- or inline: a ``task`` or ``extra_info.task`` holding
:class:`~minedit_client.Task` fields, as a dict or a JSON object string.

**Result.** ``EvalOutput(reward, is_correct=<PASSED>, signals=[accuracy], metadata={minedit/passed,
minedit/infra_error, minedit/invalid_task, minedit/call_failed, minedit/masked, minedit/tests_passed,
minedit/tests_total})``, all metadata values floats (rLLM averages them).

**INFRA_ERROR / INVALID_TASK** (the sandbox broke, or an inline task's gold fails its own tests; also a
call that failed transiently: UNAVAILABLE after the client's retries, DEADLINE_EXCEEDED).
``on_infra_error=``:

- ``"mask"`` (default): sets ``episode.termination_reason`` to ``TerminationReason.ERROR`` and returns
  ``infra_error_score`` (default -0.2, the server's failure reward) with ``is_correct=False`` and
  ``minedit/masked`` = 1.0. With ``rllm.compact_filtering.enable=true`` (its ``mask_error`` defaults to
  true) rLLM leaves ERROR episodes out of the trajectory groups: on the tinker backend the sample is not
  trained on; on the verl backend with ``rllm.algorithm.use_rllm=true`` its advantage is 0. Otherwise
  (compact filtering off, or verl's own advantages) it trains as a failure: never better than a failed
  repair, where 0.0 would top a group of failures and get a positive advantage.
- ``"raise"``: raises :class:`InfraError`. rLLM re-runs the whole rollout (agent flow included) up to
  ``rllm.workflow.retry_limit`` (3) times; then, with ``rllm.workflow.raise_on_error=false``, the episode
  has no trajectories and is dropped on every backend, but with the default ``true`` training STOPS.

Any other failed call (an unknown task id, a bad token) raises :class:`~minedit_client.MineditError`,
which rLLM treats like ``"raise"`` above (retries, then stops by default): a dataset or setup error.

**Settings.** ``MINEDIT_TARGET`` (default ``127.0.0.1:50051``), ``MINEDIT_TOKEN``, ``MINEDIT_ROOT_CERTS``,
``MINEDIT_TIMEOUT``, ``MINEDIT_COALESCE_MS``, ``MINEDIT_COALESCE_MAX`` in the environment of the process
that runs the engine (the trainer's Ray task on the verl backend: a local cluster inherits the launching
shell's environment), or the keyword arguments ``minedit_target=``, ``minedit_token=``,
``minedit_timeout=``, ``coalesce_ms=``, ``coalesce_max=``, ``infra_error_score=``, ``on_infra_error=``.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Optional, Tuple

from ._adapt import coalescing_scorer, inline_task, one_task, transient
from .coalesce import CoalescingScorer
from .types import MineditError, Rollout, RolloutResult

logger = logging.getLogger("minedit_client.rllm")

#: The reward of a masked sample unless ``infra_error_score`` says otherwise: the server's failure reward.
DEFAULT_INFRA_ERROR_SCORE = -0.2

_ON_INFRA_ERROR = ("mask", "raise")


class InfraError(RuntimeError):
    """Raised for a masked sample with ``on_infra_error="raise"``; ``result`` is None for a failed call."""

    def __init__(self, message: str, result: Optional[RolloutResult] = None) -> None:
        super().__init__(message)
        self.result = result


# ---- reading rLLM's task and episode --------------------------------------------------------------------


def task_row(task: Any) -> Mapping[str, Any]:
    """The dataset row of rLLM's ``task``: the dict itself, or a ``rllm.types.Task``'s ``metadata``."""
    if isinstance(task, Mapping):
        return task
    metadata = getattr(task, "metadata", None)
    if isinstance(metadata, Mapping):
        return metadata
    raise TypeError(f"minedit: cannot read a task of type {type(task).__name__}: expected a dict or an rllm Task")


def sample_task(row: Mapping[str, Any]) -> Tuple[Optional[str], Optional[Mapping[str, Any]]]:
    """``(task_id, None)`` or ``(None, inline_task)`` for one dataset row (see the module doc)."""
    info = row.get("extra_info")
    info = info if isinstance(info, Mapping) else {}
    reward_model = row.get("reward_model")
    ground_truth = row.get("ground_truth")
    if ground_truth in (None, "") and isinstance(reward_model, Mapping):
        ground_truth = reward_model.get("ground_truth")
    if isinstance(ground_truth, Mapping):  # a ground_truth written as {"task_id": ...}
        ground_truth = ground_truth.get("task_id")
    return one_task(
        inline_task(row.get("task"), complete=True) or inline_task(info.get("task"), complete=True),
        ("ground_truth", ground_truth),
        ("task_id", row.get("task_id")),
        ('extra_info["task_id"]', info.get("task_id")),
    )


def answer_text(episode: Any) -> str:
    """The completion of an episode, read as rLLM's ``extract_answer_text`` reads it."""
    artifacts = getattr(episode, "artifacts", None) or {}
    if "answer" in artifacts:
        return str(artifacts["answer"])
    trajectories = getattr(episode, "trajectories", None) or []
    if trajectories:
        trajectory = trajectories[-1]
        if getattr(trajectory, "output", None):
            return str(trajectory.output)
        steps = getattr(trajectory, "steps", None) or []
        if steps:
            return str(getattr(steps[-1], "output", None) or "")
    return ""


# ---- the evaluator ----------------------------------------------------------------------------------------


class MineditEvaluator:
    """rLLM's ``Evaluator`` protocol: ``evaluate(task, episode) -> EvalOutput`` (see the module doc).
    Constructible without arguments, as ``load_evaluator`` does."""

    def __init__(
        self,
        *,
        minedit_target: Optional[str] = None,
        minedit_token: Optional[str] = None,
        minedit_timeout: Optional[float] = None,
        coalesce_ms: Optional[float] = None,
        coalesce_max: Optional[int] = None,
        infra_error_score: float = DEFAULT_INFRA_ERROR_SCORE,
        on_infra_error: str = "mask",
    ) -> None:
        if on_infra_error not in _ON_INFRA_ERROR:
            raise ValueError(f"on_infra_error must be one of {_ON_INFRA_ERROR}, not {on_infra_error!r}")
        self.infra_error_score = float(infra_error_score)
        self.on_infra_error = on_infra_error
        self._settings = (minedit_target, minedit_token, minedit_timeout, coalesce_ms, coalesce_max)

    @property
    def scorer(self) -> CoalescingScorer:
        """The per-process scorer of this evaluator's settings (looked up per call: rLLM may pickle the
        evaluator into a Ray task, and a scorer holds threads)."""
        return coalescing_scorer(*self._settings)

    def evaluate(self, task: Any, episode: Any) -> Any:
        """Scores the episode's answer; blocks the calling thread (concurrent calls share batches)."""
        from rllm.eval.types import EvalOutput, Signal

        task_id, inline = sample_task(task_row(task))
        name = task_id or "an inline task"
        rollout = Rollout(id="0", completion=answer_text(episode), task_id=task_id, task=inline)
        result: Optional[RolloutResult] = None
        try:
            result = self.scorer.score(rollout)
        except MineditError as error:
            if not transient(error):
                raise
            logger.warning("minedit: scoring a sample of %s failed (%s); it is masked", name, error)
            if self.on_infra_error == "raise":
                raise InfraError(f"minedit: scoring a sample of {name} failed: {error}") from error
        masked = result is None or result.reward is None
        metadata = {
            "minedit/passed": 1.0 if result is not None and result.passed else 0.0,
            "minedit/infra_error": 1.0 if result is None or result.infra_error else 0.0,
            "minedit/invalid_task": 1.0 if result is not None and result.invalid_task else 0.0,
            "minedit/call_failed": 1.0 if result is None else 0.0,
            "minedit/masked": 1.0 if masked else 0.0,
            "minedit/tests_passed": 0.0 if result is None else float(result.tests_passed),
            "minedit/tests_total": 0.0 if result is None else float(result.tests_total),
        }
        if not masked:
            assert result is not None and result.reward is not None
            passed = 1.0 if result.passed else 0.0
            return EvalOutput(
                reward=float(result.reward),
                is_correct=result.passed,
                signals=[Signal(name="accuracy", value=passed)],
                metadata=metadata,
            )
        if result is not None:
            logger.debug("minedit: %s for %s (%s); the sample is masked", result.verdict, name, result.detail)
            if self.on_infra_error == "raise":
                raise InfraError(f"minedit: {result.verdict} for {name}: {result.detail}", result)
        _mark_error(episode)
        # No accuracy signal: a sample that was not scored must not count in rLLM's accuracy.
        return EvalOutput(reward=self.infra_error_score, is_correct=False, signals=[], metadata=metadata)


def _mark_error(episode: Any) -> None:
    """Gives the episode the ERROR termination reason, which ``rllm.compact_filtering`` leaves out of the
    trajectory groups (the engine keeps a reason the evaluator set)."""
    from rllm.workflows.workflow import TerminationReason

    episode.termination_reason = TerminationReason.ERROR

