"""minedit as a ROLL reward worker (alibaba/ROLL v0.3.0, 7f9d4d3; contract-tested against its calling code
in ``tests/test_contract_roll.py``).

**The user's lines** (``examples/roll/rlvr_minedit.yaml``): one ``rewards:`` domain whose ``worker_cls`` is
``minedit_client.roll.MineditRewardWorker``, with ``model_args.model_name_or_path`` (its tokenizer decodes
the responses), ``world_size`` (CPU workers) and the server in ``system_envs``; the actor's
``data_args.messages: prompt`` and ``domain_interleave_probs: {minedit: 1.0}``. The data is a minedit GRPO
export (``--format hf``: ``prompt`` messages + ``task_id``) with a ``domain: minedit`` column added: ROLL
routes a row to a reward domain by its ``domain`` column, else by its ``tag`` column through
``tag_included`` (``update_dataset_domain``; a row with neither fails).

**How ROLL calls it.** ROLL imports ``worker_cls`` by its dotted name (``safe_import_class``), wraps it in
``ray.remote`` and, because :meth:`compute_rewards` is ``async``, starts each of the ``world_size`` workers
as an async Ray actor (``max_concurrency`` 1000; a sync worker would be limited to 1). With the default
``generate_opt_level: 1`` the rollout loop (``UserDefinedRolloutLoop``) calls ``compute_rewards`` once per
PROMPT as soon as its generations are done, on the next worker in round robin, with a ``DataProto`` of the
prompt's ``num_return_sequences_in_group`` samples: ``batch["responses"]`` (token ids, decoded here with
``skip_special_tokens=True``), ``non_tensor_batch`` with the row's columns (numpy object arrays). Many
prompts are in flight at once (``max_running_requests``): the calls of one worker share ``ScoreBatch``
calls through one :class:`~minedit_client.CoalescingScorer` (``MINEDIT_COALESCE_MS`` window).
``generate_opt_level: 0`` calls the cluster with the whole batch split over the workers
(``Dispatch.DP_MP_COMPUTE``): one ``ScoreBatch`` per worker. ``initialize`` (``Dispatch.ONE_TO_ALL``) is
called once.

It returns a ``DataProto`` with ROLL's reward keys, float16 like ROLL's own workers:
``response_level_rewards`` (the minedit reward), ``scores`` (1.0 for PASSED else 0.0: ROLL logs their
mean as ``scheduler/<domain>/score/mean`` and its difficulty mask reads them as pass rates),
``token_level_rewards`` (zeros; ROLL puts the response reward on the last token itself), and
``meta_info["metrics"]`` ``minedit/pass_rate``, ``minedit/infra_error_rate``, ``minedit/invalid_task_rate``,
``minedit/call_failed`` (logged as ``scheduler/<domain>/<key>/mean``).

The task of a sample: the ``task_id`` column, or ``ground_truth`` (ROLL's usual column; both may be set,
then they must agree), or an inline task in a ``task`` column (a dict, or a JSON object string: ``{"corrupted",
"gold", "tests", "entry_point", "runtime"}``), or in ``task_id`` / ``ground_truth`` as a JSON object string.

**INFRA_ERROR / INVALID_TASK.** ROLL has no per-sample mask a reward worker can set: its sample masks
(``get_sample_level_mask``) come from lengths and difficulty, ``response_filter`` keeps everything, the
query filter drops whole prompts by reward mean / std, and an exception aborts the training (the rollout
loop lets it through: "any other exceptions will be treat as sys.exit"). But a call holds a whole GRPO
group, so an unscored sample's reward is the mean reward of the scored samples of its task in the call:
with ``adv_estimator: grpo`` (group mean / std normalization, ``reward_norm``) its advantage is zero and
the others keep their order (with a batch-level estimator, e.g. ``reinforce`` without group norms, it is
an average sample of its group); its ``scores`` value is the group's pass rate, so the difficulty mask is
unchanged. An unscored sample with no scored sample of its task in the call -- always the case when
``is_num_return_sequences_expand`` is true (forced by ``async_pipeline``): each call then holds one
sample -- gets ``infra_error_score`` (-0.2, the server's failure reward: never above a failed repair).
Either way it counts in ``minedit/infra_error_rate`` (INFRA_ERROR) or ``minedit/invalid_task_rate``. A
transiently failed call (UNAVAILABLE after the client's retries, DEADLINE_EXCEEDED) makes its samples
unscored the same way (``minedit/call_failed``); any other failed call (unknown task id, bad token)
raises, and ROLL stops.

**Settings**: ``MINEDIT_TARGET``, ``MINEDIT_TOKEN``, ``MINEDIT_ROOT_CERTS``, ``MINEDIT_TIMEOUT``,
``MINEDIT_COALESCE_MS``, ``MINEDIT_COALESCE_MAX`` in the reward workers' environment: the domain's
``system_envs`` (ROLL ignores unknown config keys, so settings cannot go there). ``infra_error_score``
is a class attribute: subclass to change it.

Imports neither torch, ray nor roll at module level: ``MineditRewardWorker`` (a subclass of ROLL's
``Worker``) is made on first access; :class:`MineditRewards` is the framework-free part.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ._adapt import group_means, json_object, new_scorer, one_task, results_of, task_group, task_or_id
from .client import MineditClient, settings_from_env
from .coalesce import CoalescingScorer
from .types import Rollout, RolloutResult

logger = logging.getLogger(__name__)

#: The reward of an unscored sample with no scored sample of its task in the call: the server's default
#: failure reward, so that a sandbox fault never outranks a failed repair.
DEFAULT_INFRA_ERROR_SCORE = -0.2
#: The ``meta_info["metrics"]`` keys of every call.
METRIC_KEYS = ("minedit/pass_rate", "minedit/infra_error_rate", "minedit/invalid_task_rate", "minedit/call_failed")


# ---- the task of a sample ------------------------------------------------------------------------------


def _column(non_tensor_batch: Mapping[str, Any], name: str, size: int) -> List[Any]:
    values = non_tensor_batch.get(name)
    return [None] * size if values is None else list(values)


def sample_task(task_id: Any, ground_truth: Any, task: Any) -> Tuple[Optional[str], Optional[Mapping[str, Any]], str]:
    """``(task_id, inline_task, group)`` of one row from its ``task_id``, ``ground_truth`` and ``task``
    columns (see the module doc); exactly one of the first two is set. ``group`` is the task id, or
    ``inline:<hash>`` of an inline task."""
    named = []
    for value in (task_id, ground_truth):
        value, in_field = task_or_id(value)
        if in_field is not None:
            if task is not None and json_object(task) != in_field:
                raise ValueError("minedit: a row holds two different inline tasks")
            task = in_field
        named.append(value)
    inline = None if task is None else json_object(task)
    if task is not None and inline is None:
        raise ValueError("minedit: the task column must hold an inline task (a dict or a JSON object)")
    found, inline = one_task(inline, ("the task_id column", named[0]), ("the ground_truth column", named[1]))
    return found, inline, task_group(found, inline)


# ---- scoring a DataProto's samples ------------------------------------------------------------------------


@dataclass
class Scored:
    """What one ``compute_rewards`` call returns, as plain lists: per sample the reward and the score, and
    the call's metrics."""

    rewards: List[float]
    scores: List[float]
    metrics: Dict[str, float]
    results: List[Optional[RolloutResult]]


class MineditRewards:
    """The framework-free part of the worker: one :class:`~minedit_client.CoalescingScorer` for the process
    (from the ``MINEDIT_*`` environment unless ``scorer`` is given) and the mapping of a call's samples to
    rewards and scores."""

    def __init__(
        self, scorer: Optional[CoalescingScorer] = None, infra_error_score: float = DEFAULT_INFRA_ERROR_SCORE
    ) -> None:
        self.scorer = scorer or new_scorer(partial(MineditClient, **settings_from_env()))
        self.infra_error_score = float(infra_error_score)

    async def score(self, responses: Sequence[str], non_tensor_batch: Mapping[str, Any]) -> Scored:
        """Scores the decoded ``responses`` against the tasks named by the rows' columns."""
        size = len(responses)
        columns = [_column(non_tensor_batch, name, size) for name in ("task_id", "ground_truth", "task")]
        targets = [sample_task(*row) for row in zip(*columns)]
        futures: List["Future[RolloutResult]"] = [
            self.scorer.submit(Rollout(id=str(i), completion=str(text), task_id=task_id, task=task, group_id=group))
            for i, (text, (task_id, task, group)) in enumerate(zip(responses, targets))
        ]
        results = await results_of(futures)
        failed = any(r is None for r in results)
        groups = [group for _, _, group in targets]
        rewards = self._fill(results, groups, lambda r: r.reward, self.infra_error_score)
        scores = self._fill(results, groups, lambda r: 1.0 if r.passed else 0.0, 0.0)
        if failed:
            logger.warning("minedit: a scoring call failed; its samples count as INFRA_ERROR")

        def share(count: int) -> float:
            return count / size if size else 0.0

        metrics = {
            "minedit/pass_rate": share(sum(1 for r in results if r is not None and r.passed)),
            "minedit/infra_error_rate": share(sum(1 for r in results if r is None or r.infra_error)),
            "minedit/invalid_task_rate": share(sum(1 for r in results if r is not None and r.invalid_task)),
            "minedit/call_failed": 1.0 if failed else 0.0,
        }
        return Scored(rewards, scores, metrics, results)

    @staticmethod
    def _fill(
        results: Sequence[Optional[RolloutResult]],
        groups: Sequence[str],
        value: Callable[[RolloutResult], float],
        fallback: float,
    ) -> List[float]:
        """``value(result)`` per scored sample; an unscored one (masked, or its call failed) gets the mean of
        the scored samples of its group in the call (:func:`~minedit_client._adapt.group_means`), else
        ``fallback``."""
        scored = [float(value(r)) if r is not None and r.reward is not None else None for r in results]
        return group_means(scored, groups, fallback)


# ---- the ROLL worker, made on first access ----------------------------------------------------------------


def _worker_class() -> type:
    import torch
    from roll.distributed.executor.worker import Worker
    from roll.distributed.scheduler.decorator import Dispatch, register
    from roll.distributed.scheduler.protocol import DataProto
    from roll.models.model_providers import default_tokenizer_provider

    class MineditRewardWorker(Worker):
        """ROLL reward worker scoring with minedit (see :mod:`minedit_client.roll`)."""

        #: The reward of an unscored sample with no scored sample of its task in the call.
        infra_error_score = DEFAULT_INFRA_ERROR_SCORE

        def __init__(self, worker_config: Any) -> None:
            super().__init__(worker_config=worker_config)
            # As ROLL's own reward workers: every worker is a data-parallel rank of its own.
            self.rank_info.dp_rank = self.rank_info.rank
            self.rank_info.dp_size = self.rank_info.world_size
            self.tokenizer = default_tokenizer_provider(model_args=self.worker_config.model_args)
            self.minedit = MineditRewards(infra_error_score=self.infra_error_score)

        @register(dispatch_mode=Dispatch.ONE_TO_ALL)
        def initialize(self, pipeline_config: Any) -> None:
            self.pipeline_config = pipeline_config

        @register(dispatch_mode=Dispatch.DP_MP_COMPUTE, clear_cache=False)
        async def compute_rewards(self, data: Any) -> Any:
            responses = data.batch["responses"]
            texts = self.tokenizer.batch_decode(responses, skip_special_tokens=True)
            scored = await self.minedit.score(texts, data.non_tensor_batch)
            return DataProto.from_dict(
                tensors={
                    "token_level_rewards": torch.zeros_like(responses, dtype=torch.float16),
                    "response_level_rewards": torch.tensor(scored.rewards, dtype=torch.float16),
                    "scores": torch.tensor(scored.scores, dtype=torch.float16),
                },
                meta_info={"metrics": scored.metrics},
            )

    # Importable under this name, so Ray and pickle find the class by reference.
    MineditRewardWorker.__module__ = __name__
    MineditRewardWorker.__qualname__ = "MineditRewardWorker"
    return MineditRewardWorker


_worker: Optional[type] = None


def __getattr__(name: str) -> Any:
    # PEP 562: ROLL's safe_import_class does getattr(module, "MineditRewardWorker"); the class needs ROLL's
    # Worker and torch, which importing this module must not.
    global _worker
    if name == "MineditRewardWorker":
        if _worker is None:
            _worker = _worker_class()
        return _worker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
