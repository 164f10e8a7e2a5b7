"""The v1 taskset (``verifiers.v1``, verifiers >= 0.2; PRIME-RL >= v0.8 ``[orchestrator.train.source.env.
taskset] id = "minedit-repair"``): one task per row of a GRPO export, one model reply, scored by the minedit
server.

How verifiers runs it: the trainer process loads the taskset (``load()``), ships each task's
``data.model_dump()`` to an env-server worker, which validates it back into :class:`MineditData` and
builds :class:`MineditTask` with the ``taskset.task`` config subtree (so everything scoring needs is on
:class:`MineditTaskConfig`, not on the taskset config). After the reply, ``Task.score`` runs the
``@vf.metric`` methods, then the ``@vf.reward`` ones (``asyncio.gather``); an exception in either becomes
a ``TaskError`` on the trace, which is then not ``ok``: PRIME-RL leaves such traces out of training. So
:meth:`MineditTask.minedit` raises on INFRA_ERROR (and a transport failure raises by itself) instead of
making up a number.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import List, Optional

import verifiers.v1 as vf

from minedit_client import CoalescingScorer, Rollout
from minedit_client.verifiers import shared_scorer

from .dataset import read_rows


class MineditInfraError(RuntimeError):
    """The server answered INFRA_ERROR: the sandbox broke, not the candidate. verifiers records it as the
    trace's ``TaskError``."""


class MineditData(vf.TaskData):
    """One GRPO prompt. ``task_id`` must be a declared field: the env server re-validates the wire data
    into this type and would drop an undeclared one."""

    task_id: str
    """The minedit task the server grades against (the export's ``task_id``)."""
    prompt_id: Optional[str] = None
    """The export's prompt id (sha256 of the prompt messages)."""


class MineditTaskConfig(vf.TaskConfig):
    """Scoring settings, under ``taskset.task``; ``None`` falls back to the ``MINEDIT_*`` environment. The
    bearer token is read from ``MINEDIT_TOKEN`` only (keep it out of config files)."""

    target: Optional[str] = None
    """host:port of ``minedit serve`` (``MINEDIT_TARGET``, default 127.0.0.1:50051)."""
    timeout: Optional[float] = None
    """Deadline of one ScoreBatch call in seconds, retries included (``MINEDIT_TIMEOUT``)."""
    coalesce_ms: Optional[float] = None
    """How long concurrent rollouts are gathered into one ScoreBatch (``MINEDIT_COALESCE_MS``, 20)."""
    coalesce_max: Optional[int] = None
    """The most rollouts in one ScoreBatch (``MINEDIT_COALESCE_MAX``, 512)."""


class MineditTask(vf.Task[MineditData, vf.State, MineditTaskConfig]):
    """Repair one program; the reply is scored once, by the server (it extracts the program itself)."""

    @property
    def key(self) -> str:
        # The task and prompt identify a row; `idx` (in the default content hash) is run-local.
        return f"{self.data.task_id}@{self.data.prompt_id}"

    def scorer(self) -> CoalescingScorer:
        """This process's shared scorer for these settings: the rollouts one env-server worker scores at
        once share ScoreBatch calls."""
        config = self.config
        return shared_scorer(
            config.target,
            timeout=config.timeout,
            window_s=None if config.coalesce_ms is None else config.coalesce_ms / 1000.0,
            max_rollouts=config.coalesce_max,
        )

    @vf.stop
    async def answered(self, trace: vf.Trace) -> bool:
        """One reply is the whole episode (set ``agent.max_turns = 1`` too)."""
        return trace.num_turns >= 1

    @vf.reward(weight=1.0)
    async def minedit(self, trace: vf.Trace) -> float:
        """The minedit reward: 0.1 - excess edit distance for a passing repair, the failure reward (-0.2)
        otherwise. Raises on INFRA_ERROR, so the trace is masked rather than scored."""
        rollout = Rollout(id=trace.id, completion=trace.last_reply, task_id=self.data.task_id)
        result = await self.scorer().score_async(rollout)
        trace.info["minedit"] = asdict(result)
        passed = result.verdict == "PASSED"
        trace.record_metrics(
            {
                "minedit_passed": 1.0 if passed else 0.0,
                "minedit_excess": float(result.components.excess) if result.components else 0.0,
                "minedit_infra_error": 1.0 if result.infra_error else 0.0,
            }
        )
        if result.reward is None:
            raise MineditInfraError(f"minedit INFRA_ERROR for task {self.data.task_id}: {result.detail}")
        return float(result.reward)


class MineditTasksetConfig(vf.TasksetConfig):
    """``[...env.taskset]``: which rows load, and the per-task scoring settings under ``task``."""

    dataset_path: str = ""
    """A minedit GRPO export: OUT, OUT/NAME, or one of its JSONL / Parquet files."""
    split: str = "train"
    """The split of an export directory to load."""
    task: MineditTaskConfig = MineditTaskConfig()


class MineditTaskset(vf.Taskset[MineditTask, MineditTasksetConfig]):
    """minedit-repair: one buggy program per task; the model answers once; a minedit server scores it."""

    def load(self) -> List[MineditTask]:
        tasks = []
        for idx, row in enumerate(read_rows(self.config.dataset_path, self.config.split)):
            system_prompt, prompt = row.system_and_prompt()
            data = MineditData(
                idx=idx, prompt=prompt, system_prompt=system_prompt, task_id=row.task_id, prompt_id=row.prompt_id
            )
            tasks.append(MineditTask(data, self.config.task))
        return tasks
