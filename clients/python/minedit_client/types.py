"""Plain data types of the minedit client: what you send (rollouts, inline tasks, reward overrides), what
you get back (one :class:`RolloutResult` per rollout) and the one error type (:class:`MineditError`).

They mirror ``proto/minedit/v1/reward.proto`` (its comments are the reference) without exposing protobuf
classes, so trainer code never imports generated stubs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

#: Every verdict the server sends. Everything but PASSED, INFRA_ERROR and INVALID_TASK earns the failure
#: reward; those two earn none (``reward`` is ``None``: mask the sample).
VERDICTS = (
    "PASSED",
    "FAILED_TESTS",
    "UNPARSABLE",
    "NO_CODE",
    "TIMEOUT",
    "MEMORY_LIMIT",
    "RUNTIME_ERROR",
    "COMPILE_ERROR",
    "INFRA_ERROR",
    "INVALID_TASK",
)


@dataclass(frozen=True)
class Task:
    """A repair task given inline, for tasks the server does not store (docs/reward.md: C, G and the tests).

    ``tests`` has the shape of a task file's ``tests`` field: ``{"style": "unittest", "code": ...}``,
    ``{"style": "assert", "code": ...}`` (needs ``entry_point``) or
    ``{"style": "stdio", "cases": [{"input": ..., "output": ...}], "float_tolerance": 1e-6}``.

    ``runtime`` names the libraries the tests run with (``"stdlib"``, ``"bigcodebench"``, ...); ``None``: the
    server picks it from the modules the programs and tests import. A task whose gold fails its own tests
    comes back as ``INVALID_TASK`` for every rollout (no reward).
    """

    corrupted: str
    gold: str
    tests: Mapping[str, Any]
    entry_point: str = ""
    runtime: Optional[str] = None


@dataclass(frozen=True)
class Rollout:
    """One completion to score. Give exactly one of ``task_id`` (a task in the server's store) and ``task``.

    ``completion`` is the raw model output (prose and markdown fences included): the server extracts the
    program itself. ``group_id`` is echoed in the result (e.g. the GRPO prompt group).
    """

    id: str
    completion: str
    task_id: Optional[str] = None
    task: Optional[Union[Task, Mapping[str, Any]]] = None
    group_id: str = ""


@dataclass(frozen=True)
class RewardOverride:
    """Per-request override of the server's reward configuration; ``None`` keeps the server's value.

    ``variant``: ``full``, ``correctness_only``, ``edit_only`` or ``edit_plus_cc``; ``scope``: ``program``
    or ``function_body``.
    """

    variant: Optional[str] = None
    lambda_exec: Optional[float] = None
    lambda_edit: Optional[float] = None
    lambda_cc: Optional[float] = None
    failure_reward: Optional[float] = None
    scope: Optional[str] = None


@dataclass(frozen=True)
class RewardComponents:
    """The distances behind a reward: d(M, C), d(G, C), excess e = d_model - d_gold, and the cognitive
    complexity the repair added (``None`` when the server did not compute it)."""

    d_model: float
    d_gold: float
    excess: float
    added_cc: Optional[float] = None


@dataclass(frozen=True)
class Timings:
    """Where one rollout's time went, in milliseconds."""

    queue_ms: float
    metrics_ms: float
    execution_ms: float
    total_ms: float


@dataclass(frozen=True)
class RolloutResult:
    """The outcome of one rollout.

    ``reward`` is ``None`` exactly when ``verdict`` is ``"INFRA_ERROR"`` (the sandbox broke) or
    ``"INVALID_TASK"`` (an inline task's gold fails its own tests): not the candidate's doing, so the sample
    must be masked rather than counted as a failure (:attr:`masked`). ``components`` is ``None``
    when the distances were not computed (NO_CODE, UNPARSABLE). ``detail`` is for humans (the failing
    test, the tail of stderr), not for parsing.
    """

    id: str
    reward: Optional[float]
    verdict: str
    components: Optional[RewardComponents]
    tests_passed: int
    tests_total: int
    detail: str
    cached: bool
    reward_version: str
    group_id: str
    timings: Timings

    @property
    def passed(self) -> bool:
        return self.verdict == "PASSED"

    @property
    def infra_error(self) -> bool:
        return self.verdict == "INFRA_ERROR"

    @property
    def invalid_task(self) -> bool:
        return self.verdict == "INVALID_TASK"

    @property
    def masked(self) -> bool:
        """No reward: INFRA_ERROR or INVALID_TASK."""
        return self.reward is None


class MineditError(Exception):
    """A call that failed as a whole (the rollouts' own failures are verdicts, never errors).

    ``code`` is the gRPC status code (``grpc.StatusCode``), ``details`` the server's message (e.g.
    ``rollouts[3].completion: required``), ``error_code`` the server's ``minedit-error-code`` trailer
    (``invalid_argument``, ``not_found``, ...) and ``field`` its ``minedit-field`` trailer, when sent.
    ``attempts`` counts the tries made, retries on UNAVAILABLE included.
    """

    def __init__(
        self,
        code: Any,
        details: str,
        *,
        error_code: Optional[str] = None,
        field: Optional[str] = None,
        attempts: int = 1,
    ) -> None:
        name = getattr(code, "name", str(code))
        super().__init__(f"{name}: {details}" + (f" (after {attempts} attempts)" if attempts > 1 else ""))
        self.code = code
        self.details = details
        self.error_code = error_code
        self.field = field
        self.attempts = attempts
