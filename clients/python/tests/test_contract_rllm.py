"""Contract tests of minedit_client.rllm against rLLM's own calling code, against the real server.

rLLM (rllm-org/rllm, tag ``v0.3.0-pre``, commit 09567646bfeacfa022c64aa8f97135d7f1e3f824, its latest release
tag) needs torch, verl or tinker, so it is not installed. Instead:

- ``FAKE_RLLM`` below is upstream's code that an evaluator and the example meet, trimmed: ``rllm/eval/types.py``
  (``EvalOutput``, ``Signal``), ``rllm/workflows/workflow.py`` (``TerminationReason``), ``rllm/types.py``
  (``Task``, ``AgentConfig``, ``run_agent_flow``; ``Step``/``Trajectory``/``Episode`` are pydantic models
  upstream, dataclasses with the same fields here), ``rllm/eval/rollout_decorator.py`` (``@rllm.rollout``),
  ``rllm/eval/evaluator_loader.py`` (``load_evaluator`` by import path) and ``rllm/data/dataset.py``
  (``Dataset.load_data``, ``DatasetRegistry`` in memory); plus recording fakes of
  ``rllm.experimental.unified_trainer.AgentTrainer``, ``hydra``, ``omegaconf`` and ``openai`` (the model,
  answering from a table) for the example. They are written to a temporary directory put on ``sys.path``.
- The classes and functions below mirror, in plain Python, the code that calls an evaluator and uses its
  result: ``rllm/experimental/engine/agent_flow_engine.py`` ``AgentFlowEngine`` (the ``ThreadPoolExecutor``
  of ``rllm.workflow.n_parallel_tasks`` threads, ``execute_tasks``, ``process_task_with_retry``,
  ``_run_single``, ``_enrich_episode``: one training step per model call, the gateway's traces), the
  batch building of ``rllm/experimental/verl/verl_backend.py`` ``generate_episodes`` (tasks = the
  ``extra_info`` column, each row repeated ``rollout.n`` times) and ``rllm/trainer/tinker/tinker_backend.py``
  ``_build_interleave_batch``, ``rllm/data/dataset.py`` ``DatasetRegistry.apply_verl_postprocessing``,
  ``rllm/experimental/common/config.py`` ``CompactFilteringConfig``, ``rllm/experimental/common/transform.py``
  ``_build_trajectory_groups`` / ``_validate_and_propagate_rewards``, ``rllm/experimental/common/advantage.py``
  ``collect_reward_and_advantage_from_trajectory_groups`` with ``rl_algo.py``'s GRPO, and
  ``rllm/experimental/verl/transform.py`` ``update_dataproto_with_advantages`` (a trajectory outside the
  groups gets advantage 0), ``rllm/runner.py`` ``_adapt_legacy_evaluator`` (``rllm eval``).
  ``BASE_YAML_KEYS`` are the ``rllm.*`` config keys (``rllm/experimental/config/rllm/base.yaml``) the
  example's command sets, with their defaults.

Completions are scored by the REAL server (support.py). A sandbox fault in one sample of a group is made
real by contract_support's :class:`SandboxFaultClient`, which sends that sample against the stored task
whose tests cannot run, so the server answers INFRA_ERROR for it.
"""

import asyncio
import importlib.util
import json
import os
import pickle
import subprocess
import sys
import tempfile
import textwrap
import threading
import unittest
import uuid
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from contract_support import FAULT, grpo_step_batch, install_fault_scorer, oracle_groups, samples_of, verl_export_row
from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, INFRA_TASK_ID, INLINE_TASK, INVALID_INLINE_TASK, OTHER_TASK
from support import TARGET, TASK_ID, TOKEN
from minedit_client import MineditError
from minedit_client import rllm as minedit_rllm

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "rllm", "train_minedit.py")
COMMIT = "09567646bfeacfa022c64aa8f97135d7f1e3f824"
N = 8  # rllm.rollout.n

FAKE_RLLM = {
    "rllm/__init__.py": """
        import sys


        def __getattr__(name: str):
            if name in ("rollout",):
                from rllm.eval.rollout_decorator import rollout

                _mod = sys.modules[__name__]
                _mod.rollout = rollout
                return rollout
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    """,
    "rllm/eval/__init__.py": "",
    "rllm/eval/types.py": """
        from __future__ import annotations

        from dataclasses import dataclass, field


        @dataclass
        class Signal:
            name: str
            value: float
            metadata: dict = field(default_factory=dict)


        @dataclass
        class EvalOutput:
            reward: float
            is_correct: bool
            signals: list[Signal] = field(default_factory=list)
            metadata: dict = field(default_factory=dict)
    """,
    "rllm/workflows/__init__.py": "",
    "rllm/workflows/workflow.py": """
        from enum import Enum


        class TerminationReason(Enum):
            MAX_PROMPT_LENGTH_EXCEEDED = "max_prompt_length_exceeded"
            MAX_RESPONSE_LENGTH_EXCEEDED = "max_response_length_exceeded"
            ENV_DONE = "env_done"
            MAX_TURNS_EXCEEDED = "max_turns_exceeded"
            TIMEOUT = "timeout"
            UNKNOWN = "unknown"
            ERROR = "error"
    """,
    "rllm/types.py": """
        from __future__ import annotations

        import asyncio
        import inspect
        import uuid
        from dataclasses import dataclass, field
        from pathlib import Path
        from typing import Any


        @dataclass
        class Task:
            id: str
            instruction: Any
            metadata: dict = field(default_factory=dict)
            dataset_dir: Path = field(default_factory=Path)
            sub_dir: Path | None = None


        @dataclass
        class Step:
            id: str = field(default_factory=lambda: str(uuid.uuid4()))
            input: Any = None
            output: Any = None
            action: Any = None
            reward: float = 0.0
            done: bool = False
            metadata: dict | None = None
            advantage: Any = None  # rllm.agents.agent.Step (the training step) has it


        @dataclass
        class Trajectory:
            uid: str = field(default_factory=lambda: str(uuid.uuid4()))
            name: str = "agent"
            task: Any = None
            steps: list = field(default_factory=list)
            reward: float | None = None
            input: dict | None = None
            output: Any = None
            signals: dict = field(default_factory=dict)
            metadata: dict | None = None


        @dataclass
        class Episode:
            id: str = field(default_factory=lambda: str(uuid.uuid4()))
            task: Any = None
            termination_reason: Any = None
            is_correct: bool = False
            trajectories: list = field(default_factory=list)
            artifacts: dict = field(default_factory=dict)
            metrics: dict = field(default_factory=dict)
            metadata: dict = field(default_factory=dict)

            @property
            def task_id(self) -> str:
                return self.id.split(":")[0]

            @property
            def rollout_idx(self) -> str:
                return self.id.split(":")[1]


        @dataclass
        class AgentConfig:
            base_url: str
            model: str
            session_uid: str
            metadata: dict = field(default_factory=dict)
            is_validation: bool = False


        async def run_agent_flow(agent, task, config, executor=None):
            if hasattr(agent, "arun") and inspect.iscoroutinefunction(agent.arun):
                return await agent.arun(task, config)
            loop = asyncio.get_event_loop()
            return await loop.run_in_executor(executor, agent.run, task, config)
    """,
    "rllm/eval/rollout_decorator.py": """
        from __future__ import annotations

        import asyncio
        import inspect
        from functools import update_wrapper

        from rllm.types import Episode, Trajectory


        def _coerce_to_episode(result, task, traj_name):
            if isinstance(result, Episode):
                if result.task is None:
                    result.task = task.metadata
                return result
            if isinstance(result, str):
                traj = Trajectory(name=traj_name, steps=[])
                return Episode(task=task.metadata, trajectories=[traj], artifacts={"answer": result})
            raise AssertionError("the example returns a string")


        class AgentFlowFn:
            def __init__(self, fn, *, name="solver"):
                self._fn = fn
                self._name = name
                self._is_async = inspect.iscoroutinefunction(fn)
                update_wrapper(self, fn)

            def run(self, task, config):
                result = asyncio.run(self._fn(task, config)) if self._is_async else self._fn(task, config)
                return _coerce_to_episode(result, task, self._name)

            async def arun(self, task, config):
                if self._is_async:
                    result = await self._fn(task, config)
                else:
                    loop = asyncio.get_running_loop()
                    result = await loop.run_in_executor(None, self._fn, task, config)
                return _coerce_to_episode(result, task, self._name)


        def rollout(fn=None, *, name="solver", register=None):
            def _decorator(fn):
                return AgentFlowFn(fn, name=name)

            if fn is not None:
                return _decorator(fn)
            return _decorator
    """,
    "rllm/eval/evaluator_loader.py": """
        from __future__ import annotations

        import importlib


        def _validate_evaluator(obj, name):
            if not hasattr(obj, "evaluate") or not callable(obj.evaluate):
                raise TypeError(f"Evaluator '{name}' must have an .evaluate() method, got {type(obj).__name__}")


        def _load_and_instantiate(import_path, name):
            module_path, attr_name = import_path.rsplit(":", 1)
            module = importlib.import_module(module_path)
            obj = getattr(module, attr_name)
            if isinstance(obj, type):
                obj = obj()
            elif callable(obj) and not hasattr(obj, "evaluate"):
                raise AssertionError("bare functions are wrapped upstream; not exercised here")
            _validate_evaluator(obj, name)
            return obj


        def load_evaluator(name_or_path):
            # 1. user-registered names (~/.rllm/evaluators.json) are not used here; 2. an import path
            if ":" in name_or_path:
                return _load_and_instantiate(name_or_path, name_or_path)
            raise KeyError(f"Evaluator '{name_or_path}' not found.")
    """,
    "rllm/data/__init__.py": "",
    "rllm/data/dataset.py": """
        import json
        import os


        class Dataset:
            def __init__(self, data, name=None, split=None):
                self.data, self.name, self.split = data, name, split

            def __len__(self):
                return len(self.data)

            def __getitem__(self, idx):
                return self.data[idx]

            def get_data(self):
                return self.data

            @classmethod
            def load_data(cls, path):
                if not os.path.exists(path):
                    raise FileNotFoundError(f"Dataset file not found at {path}")
                if os.path.splitext(path)[1].lower() == ".jsonl":
                    with open(path, encoding="utf-8") as f:
                        return cls(data=[json.loads(line) for line in f])
                raise AssertionError("the test feeds JSONL (upstream reads .parquet with pandas)")


        class DatasetRegistry:
            REGISTERED = {}

            @classmethod
            def register_dataset(cls, name, data, split="default", source="", description="", category=""):
                data_list = data.get_data() if isinstance(data, Dataset) else list(data)
                cls.REGISTERED[(name, split)] = data_list
                return Dataset(data=data_list, name=name, split=split)

            @classmethod
            def apply_verl_postprocessing(cls, data):
                return [
                    {
                        "prompt": [{"role": "user", "content": "placeholder"}],
                        "reward_model": {"style": "rule", "ground_truth": None},
                        "extra_info": entry,
                    }
                    for entry in data
                ]
    """,
    "rllm/experimental/__init__.py": "",
    "rllm/experimental/unified_trainer.py": """
        TRAINERS = []
        TRAIN = []  # the test's stand-in for the training loop: called with the trainer


        class AgentTrainer:
            def __init__(self, config, workflow_class=None, train_dataset=None, val_dataset=None,
                         workflow_args=None, backend="verl", agent_flow=None, evaluator=None, store=None, **kwargs):
                has_agent_flow = agent_flow is not None and evaluator is not None
                assert has_agent_flow or workflow_class is not None
                self.config, self.backend = config, backend
                self.agent_flow, self.evaluator, self.train_dataset = agent_flow, evaluator, train_dataset
                TRAINERS.append(self)

            def train(self):
                TRAIN[0](self)
    """,
    "hydra/__init__.py": """
        def main(config_path=None, config_name=None, version_base=None):
            def decorator(fn):
                fn.hydra_args = (config_path, config_name, version_base)
                return fn

            return decorator
    """,
    "omegaconf/__init__.py": """
        class DictConfig(dict):
            def __getattr__(self, name):
                value = self[name]
                return DictConfig(value) if isinstance(value, dict) and not isinstance(value, DictConfig) else value
    """,
    "openai/__init__.py": """
        import threading
        from types import SimpleNamespace

        ANSWERS = {}  # user message -> the completion of each rollout index (the gateway session names it)
        CALLS = []
        _lock = threading.Lock()


        class _Completions:
            def __init__(self, client):
                self._client = client

            def create(self, model, messages, **kwargs):
                uid = self._client.base_url.rsplit("/sessions/", 1)[1].split("/")[0]
                with _lock:
                    CALLS.append((self._client.base_url, model, messages))
                content = ANSWERS[messages[-1]["content"]][int(uid.split(":")[1])]
                return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=content))])


        class OpenAI:
            def __init__(self, base_url=None, api_key=None):
                self.base_url, self.api_key = base_url, api_key
                self.chat = SimpleNamespace(completions=_Completions(self))
    """,
}

#: rllm/experimental/config/rllm/base.yaml at COMMIT: rllm.workflow.n_parallel_tasks (the engine's threads),
#: retry_limit, raise_on_error.
N_PARALLEL_TASKS, RETRY_LIMIT, RAISE_ON_ERROR = 256, 3, True

_fake_dir = None


def setUpModule():
    global _fake_dir
    _fake_dir = tempfile.TemporaryDirectory(prefix="fake-rllm-")
    for path, text in FAKE_RLLM.items():
        full = os.path.join(_fake_dir.name, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text).lstrip("\n"))
    sys.path.insert(0, _fake_dir.name)


def tearDownModule():
    sys.path.remove(_fake_dir.name)
    _fake_dir.cleanup()


# ---- the engine: rllm/experimental/engine/agent_flow_engine.py ---------------------------------------------


class AgentFlowEngine:
    """AgentFlowEngine at COMMIT, the gateway replaced by the trace each model call leaves (one per call)."""

    def __init__(self, agent_flow, evaluator, n_parallel_tasks=N_PARALLEL_TASKS, retry_limit=RETRY_LIMIT,
                 raise_on_error=RAISE_ON_ERROR):
        self.agent_flow, self.evaluator = agent_flow, evaluator
        self.n_parallel_tasks, self.retry_limit, self.raise_on_error = n_parallel_tasks, retry_limit, raise_on_error
        self.executor = ThreadPoolExecutor(max_workers=n_parallel_tasks)
        self._semaphore = asyncio.Semaphore(n_parallel_tasks)
        self.evaluate_threads = set()
        self.evaluate_calls = defaultdict(int)

    async def execute_tasks(self, tasks, task_ids=None):
        if task_ids is None:
            task_ids = [str(uuid.uuid4()) for _ in tasks]
        task_id_counter = defaultdict(int)
        results = [None] * len(tasks)
        futures = []
        for idx, (task, task_id) in enumerate(zip(tasks, task_ids, strict=True)):
            rollout_idx = task_id_counter[task_id]
            task_id_counter[task_id] += 1
            futures.append(self.process_task_with_retry(task, task_id, rollout_idx, idx))
        for future in asyncio.as_completed(futures):
            task_id, rollout_idx, idx, episode = await future
            results[idx] = episode
        return results

    async def process_task_with_retry(self, task, task_id, rollout_idx, result_idx):
        from rllm.types import Episode
        from rllm.workflows.workflow import TerminationReason

        async with self._semaphore:
            for retry_attempt in range(1, self.retry_limit + 1):
                uid = f"{task_id}:{rollout_idx}"
                try:
                    episode = await self._run_single(task, uid)
                    episode.id = uid
                    episode.task = task
                    return task_id, rollout_idx, result_idx, episode
                except Exception as e:
                    if retry_attempt < self.retry_limit:
                        continue
                    if self.raise_on_error:
                        raise
                    return (
                        task_id,
                        rollout_idx,
                        result_idx,
                        Episode(
                            id=uid,
                            task=task,
                            is_correct=False,
                            termination_reason=TerminationReason.ERROR,
                            metadata={"error": {"message": str(e)}},
                        ),
                    )
            raise RuntimeError(f"[{uid}] Exhausted all retries")

    def _evaluate(self, task, episode, uid):
        self.evaluate_threads.add(threading.current_thread().name)
        self.evaluate_calls[uid] += 1
        return self.evaluator.evaluate(task, episode)

    async def _run_single(self, task, uid):
        from rllm.types import AgentConfig, Task, run_agent_flow
        from rllm.workflows.workflow import TerminationReason

        loop = asyncio.get_event_loop()
        config = AgentConfig(base_url=f"http://gateway/sessions/{uid}/v1", model="policy", session_uid=uid)
        task_obj = Task(
            id=str(uid),
            instruction=str(task.get("question", task.get("instruction", ""))),
            metadata=task,
            dataset_dir=Path("."),
        )
        episode = await run_agent_flow(self.agent_flow, task_obj, config, executor=self.executor)
        eval_output = await loop.run_in_executor(self.executor, self._evaluate, task, episode, uid)
        for traj in episode.trajectories:
            if traj.reward is None:
                traj.reward = eval_output.reward
        episode.is_correct = eval_output.is_correct
        enriched = self._enrich_episode(episode, uid, task)
        enriched.metrics.update(eval_output.metadata)
        for signal in eval_output.signals:
            enriched.metrics[signal.name] = signal.value
        if enriched.termination_reason is None:
            enriched.termination_reason = TerminationReason.ENV_DONE
        return enriched

    def _enrich_episode(self, episode, uid, task):
        """One gateway trace per model call; a trajectory without agent steps absorbs them."""
        from rllm.types import Episode, Step, Trajectory

        enriched = []
        for traj in episode.trajectories:
            steps = traj.steps or [Step(output=episode.artifacts.get("answer"))]
            enriched.append(Trajectory(uid=traj.uid, name=traj.name, task=traj.task or task, steps=steps,
                                       reward=traj.reward, metadata=traj.metadata))
        return Episode(id=uid, task=task, is_correct=episode.is_correct, trajectories=enriched,
                       metrics=dict(episode.metrics), metadata=episode.metadata,
                       termination_reason=episode.termination_reason, artifacts=episode.artifacts)

    def shutdown(self):
        self.executor.shutdown(wait=True)


# ---- the batch: verl_backend.generate_episodes, tinker_backend._build_interleave_batch ---------------------


def verl_tasks(rows, n):
    """The verl backend: the registered rows became the ``extra_info`` of rLLM's verl Parquet
    (apply_verl_postprocessing); each row is repeated n times (DataProto.repeat interleaves) under one uuid."""
    from rllm.data.dataset import DatasetRegistry

    verl_rows = DatasetRegistry.apply_verl_postprocessing(rows)
    task_ids = [str(uuid.uuid4()) for _ in verl_rows]
    tasks = [json.loads(json.dumps(r["extra_info"])) for r in verl_rows for _ in range(n)]  # from Parquet: copies
    return tasks, [t for t in task_ids for _ in range(n)]


def tinker_tasks(rows, n):
    """_build_interleave_batch: each row with a fresh uid, repeated n times (the same dict n times)."""
    batch_with_uid = [{**row, "uid": str(uuid.uuid4())} for row in rows]
    tasks = [item for item in batch_with_uid for _ in range(n)]
    return tasks, [item["uid"] for item in tasks]


# ---- after the engine: transform.py, config.py, advantage.py, rl_algo.py, verl/transform.py -----------------


@dataclass
class CompactFilteringConfig:
    enable: bool = False
    mask_max_prompt_length_exceeded: bool = False
    mask_max_response_length_exceeded: bool = False
    mask_env_done: bool = False
    mask_max_turns_exceeded: bool = False
    mask_timeout: bool = False
    mask_unknown: bool = False
    mask_error: bool = False

    def should_mask(self, termination_reason):
        from rllm.workflows.workflow import TerminationReason as R

        if not self.enable:
            return False
        return (
            (self.mask_max_prompt_length_exceeded and termination_reason == R.MAX_PROMPT_LENGTH_EXCEEDED)
            or (self.mask_max_response_length_exceeded and termination_reason == R.MAX_RESPONSE_LENGTH_EXCEEDED)
            or (self.mask_env_done and termination_reason == R.ENV_DONE)
            or (self.mask_max_turns_exceeded and termination_reason == R.MAX_TURNS_EXCEEDED)
            or (self.mask_timeout and termination_reason == R.TIMEOUT)
            or (self.mask_unknown and termination_reason == R.UNKNOWN)
            or (self.mask_error and termination_reason == R.ERROR)
        )


#: rllm/experimental/config/rllm/base.yaml's compact_filtering section (its defaults) with
#: ``rllm.compact_filtering.enable=true``, as the example's command sets it.
CF_ON = CompactFilteringConfig(
    enable=True,
    mask_max_prompt_length_exceeded=True,
    mask_max_response_length_exceeded=True,
    mask_env_done=False,
    mask_max_turns_exceeded=True,
    mask_timeout=True,
    mask_unknown=False,
    mask_error=True,
)


@dataclass
class TrajectoryGroup:
    trajectories: list
    group_id: str
    metadata: list = field(default_factory=list)


def build_trajectory_groups(episodes, compact_filtering_config=None):
    """_build_trajectory_groups, then _validate_and_propagate_rewards (broadcast)."""
    from rllm.workflows.workflow import TerminationReason

    trajectories_by_name = defaultdict(list)
    for episode in episodes:
        termination_reason = episode.termination_reason or TerminationReason.UNKNOWN
        if compact_filtering_config and compact_filtering_config.should_mask(termination_reason):
            continue
        for trajectory in episode.trajectories:
            if len(trajectory.steps) == 0:
                continue
            trajectories_by_name[f"{episode.task_id}:{trajectory.name}"].append(trajectory)
    groups = [TrajectoryGroup(trajectories=t, group_id=name) for name, t in trajectories_by_name.items()]
    for group in groups:
        missing = sum(traj.reward is None for traj in group.trajectories)
        assert missing in (0, len(group.trajectories))
        for traj in group.trajectories:
            if traj.reward is None:
                traj.reward = traj.steps[-1].reward
    return groups


def grpo_advantages(groups):
    """collect_reward_and_advantage_from_trajectory_groups with calculate_grpo_advantages_per_group
    (np.std, norm_adv_by_std_in_grpo=true): every step of a grouped trajectory gets its advantage."""
    for group in groups:
        rewards = np.array([traj.reward for traj in group.trajectories])
        mean, std = (0.0, 1.0) if len(rewards) <= 1 else (np.mean(rewards), np.std(rewards))
        for traj, advantage in zip(group.trajectories, (rewards - mean) / (std + 1e-6)):
            for step in traj.steps:
                step.advantage = float(advantage)


def batch_advantages(episodes):
    """update_dataproto_with_advantages: the verl batch holds every episode's trajectories; one without a
    step advantage (outside the groups) gets 0.0."""
    out = {}
    for episode in episodes:
        for trajectory in episode.trajectories:
            if trajectory.steps:
                adv = next((s.advantage for s in trajectory.steps if s.advantage is not None), 0.0)
                out[trajectory.uid] = float(adv)
    return out


def adapt_legacy_evaluator(ev, task):
    """rllm/runner.py _adapt_legacy_evaluator + Runner.run's call: what ``rllm eval`` passes as ``task``."""
    import inspect

    first = list(inspect.signature(ev.evaluate).parameters.values())[0]
    annotation = first.annotation if first.annotation is not inspect.Parameter.empty else None
    is_dict = annotation is dict or (isinstance(annotation, str) and annotation.startswith("dict"))
    if is_dict or first.name in ("task_data", "task_info") or annotation is None:
        return task.metadata
    return task


# ---- helpers ----------------------------------------------------------------------------------------------


def fault_evaluator(coalesce_ms, **kwargs):
    """An evaluator whose scorer (a settings key of its own) goes through SandboxFaultClient."""
    install_fault_scorer(coalesce_ms)
    return minedit_rllm.MineditEvaluator(minedit_target=TARGET, minedit_token=TOKEN, coalesce_ms=coalesce_ms, **kwargs)


def export_row(task_id, index, task=None):
    """A row of minedit's verl GRPO export (verl_export_row); ``task`` (with task_id None) adds an inline
    task, as JSON, in a ``task`` column."""
    row = verl_export_row(task_id, index)
    if task is not None:
        row["task"] = json.dumps(task)
    return row


class AnswerFlow:
    """An agent flow (rLLM's AgentFlow protocol, sync ``run``) answering each rollout of a prompt with its
    own completion (the Task's id is the engine's uid, ``<task id>:<rollout index>``)."""

    def __init__(self, answers):
        self.answers = answers

    def run(self, task, config):
        from rllm.types import Episode, Trajectory

        answer = self.answers[task.metadata["prompt"][-1]["content"]][int(task.id.split(":")[1])]
        return Episode(task=task.metadata, trajectories=[Trajectory(name="solver")], artifacts={"answer": answer})


def run_engine(rows, completions, evaluator, backend="verl", **engine_kwargs):
    make = verl_tasks if backend == "verl" else tinker_tasks
    tasks, task_ids = make(rows, len(completions[0]))
    flow = AnswerFlow({r["prompt"][-1]["content"]: cs for r, cs in zip(rows, completions)})
    engine = AgentFlowEngine(flow, evaluator, **engine_kwargs)
    try:
        return asyncio.run(engine.execute_tasks(tasks, task_ids)), engine
    finally:
        engine.shutdown()


def rewards(episode):
    return [t.reward for t in episode.trajectories]


# ---- the tests --------------------------------------------------------------------------------------------


class LoadingTest(unittest.TestCase):
    def test_the_module_imports_without_rllm(self) -> None:
        code = "import sys, minedit_client.rllm as m; print('rllm' in sys.modules, m.MineditEvaluator.__name__)"
        env = {**os.environ, "PYTHONPATH": os.path.join(HERE, "..")}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split(), ["False", "MineditEvaluator"])

    def test_load_evaluator_by_import_path_and_rllm_eval(self) -> None:
        from rllm.eval.evaluator_loader import load_evaluator
        from rllm.types import Episode, Task, Trajectory

        evaluator = load_evaluator("minedit_client.rllm:MineditEvaluator")  # --evaluator, [verifier] import_path
        self.assertIsInstance(evaluator, minedit_rllm.MineditEvaluator)
        row = export_row(TASK_ID, 0)
        task = Task(id="0", instruction="", metadata=row)
        passed = adapt_legacy_evaluator(evaluator, task)
        self.assertIs(passed, task)  # rllm eval's Runner hands the Task itself (the annotation is not dict)
        for given in (passed, row):  # and training hands the row
            out = evaluator.evaluate(given, Episode(trajectories=[Trajectory()], artifacts={"answer": GOLD}))
            self.assertEqual((out.reward, out.is_correct), (0.1, True))
            self.assertEqual([(s.name, s.value) for s in out.signals], [("accuracy", 1.0)])
        with self.assertRaises(ValueError):
            minedit_rllm.MineditEvaluator(on_infra_error="drop")
        # The verl backend ships the evaluator to its TaskRunner Ray actor: it must pickle (no threads in it).
        copy = pickle.loads(pickle.dumps(evaluator))
        self.assertIs(copy.scorer, evaluator.scorer)

    def test_the_answer_is_read_where_rllm_evaluators_read_it(self) -> None:
        from rllm.types import Episode, Step, Trajectory

        evaluator = minedit_rllm.MineditEvaluator()
        row = export_row(TASK_ID, 0)
        episodes = [
            Episode(trajectories=[Trajectory(output=CORRUPTED)], artifacts={"answer": GOLD}),  # artifacts win
            Episode(trajectories=[Trajectory(output=CORRUPTED), Trajectory(output=GOLD)]),  # the last trajectory
            Episode(trajectories=[Trajectory(steps=[Step(output=CORRUPTED), Step(output=GOLD)])]),  # its last step
        ]
        self.assertEqual([evaluator.evaluate(row, e).reward for e in episodes], [0.1, 0.1, 0.1])
        self.assertEqual(evaluator.evaluate(row, Episode()).reward, -0.2)  # no answer: NO_CODE, a failure

    def test_rows_name_their_task(self) -> None:
        ok = [
            {"ground_truth": TASK_ID},
            {"task_id": TASK_ID},
            {"extra_info": {"task_id": TASK_ID}},
            {"reward_model": {"ground_truth": {"task_id": TASK_ID}}, "extra_info": {"task_id": TASK_ID}},
        ]
        for row in ok:
            self.assertEqual(minedit_rllm.sample_task(row), (TASK_ID, None))
        bad = [
            {},
            {"ground_truth": TASK_ID, "extra_info": {"task_id": OTHER_TASK["task_id"]}},
            {"task_id": TASK_ID, "task": BROKEN_INLINE_TASK},
        ]
        for row in bad:
            with self.subTest(row=row), self.assertRaises(ValueError):
                minedit_rllm.sample_task(row)
        with self.assertRaises(TypeError):
            minedit_rllm.task_row(["not", "a", "task"])


class TrainingStepTest(unittest.TestCase):
    """A GRPO step on the verl backend: 8 prompts x 8 rollouts through the engine's 256-thread pool."""

    def test_grpo_step(self) -> None:
        tasks, rows, completions = grpo_step_batch(export_row)
        scorer = minedit_rllm.coalescing_scorer()
        before = (scorer.stats.calls, scorer.stats.rollouts)
        episodes, engine = run_engine(rows, completions, minedit_rllm.MineditEvaluator())
        calls, rollouts = scorer.stats.calls - before[0], scorer.stats.rollouts - before[1]
        self.assertEqual(rollouts, 64)
        self.assertLessEqual(calls, 16, "64 rollouts evaluated on 256 threads must share ScoreBatch calls")
        self.assertGreater(len(engine.evaluate_threads), 1)
        for k, expected in enumerate(oracle_groups(tasks, completions)):
            self.assertEqual([rewards(e)[0] for e in episodes[k * N : (k + 1) * N]], [r.reward for r in expected])
            self.assertEqual([e.is_correct for e in episodes[k * N : (k + 1) * N]], [r.passed for r in expected])
        from rllm.workflows.workflow import TerminationReason

        infra = episodes[7 * N :]
        self.assertEqual([rewards(e)[0] for e in infra], [-0.2] * N)  # never 0.0
        self.assertTrue(all(e.termination_reason == TerminationReason.ERROR for e in infra))
        self.assertTrue(all(e.termination_reason == TerminationReason.ENV_DONE for e in episodes[: 7 * N]))
        self.assertEqual([e.metrics["minedit/masked"] for e in infra], [1.0] * N)
        self.assertNotIn("accuracy", infra[0].metrics)
        self.assertEqual(episodes[0].metrics["accuracy"], 1.0)

        # rllm.compact_filtering.enable=true (mask_error on): the ERROR episodes leave the groups: tinker
        # trains on the groups only; verl with use_rllm=true gives the rest of the batch advantage 0.
        groups = build_trajectory_groups(episodes, CF_ON)
        grouped = {t.uid for g in groups for t in g.trajectories}
        self.assertEqual(len(groups), 7)
        self.assertFalse(grouped & {t.uid for e in infra for t in e.trajectories})
        grpo_advantages(groups)
        advantages = batch_advantages(episodes)
        self.assertEqual([advantages[e.trajectories[0].uid] for e in infra], [0.0] * N)
        self.assertGreater(advantages[episodes[0].trajectories[0].uid], 0)
        self.assertLess(advantages[episodes[1].trajectories[0].uid], 0)
        # Compact filtering off (the default): the masked samples are a group of failures.
        self.assertEqual(len(build_trajectory_groups(episodes, CompactFilteringConfig())), 8)

    def test_a_sandbox_fault_in_a_group_leaves_the_group_on_tinker(self) -> None:
        evaluator = fault_evaluator(19.0)
        faulty = GOLD + "\n" + FAULT
        group = [GOLD, CORRUPTED, faulty, CORRUPTED, GOLD, "no code", CORRUPTED, GOLD]
        rows = [export_row(TASK_ID, 0), export_row(OTHER_TASK["task_id"], 1)]
        episodes, _ = run_engine(rows, [group, samples_of(OTHER_TASK)], evaluator, backend="tinker")
        self.assertEqual(rewards(episodes[2]), [-0.2])
        self.assertEqual(episodes[2].metrics["minedit/infra_error"], 1.0)
        [first, second] = build_trajectory_groups(episodes, CF_ON)
        self.assertEqual(len(first.trajectories), N - 1)  # the faulty sample is not trained on
        self.assertNotIn(episodes[2].trajectories[0].uid, {t.uid for t in first.trajectories})
        grpo_advantages([first, second])
        scored = [t.reward for t in first.trajectories]
        self.assertEqual(sorted(set(scored)), [-0.2, 0.1])
        # Without compact filtering it is one more failure in the group: below the passes, not above.
        unfiltered = build_trajectory_groups(episodes, CompactFilteringConfig())[0]
        self.assertEqual(len(unfiltered.trajectories), N)
        grpo_advantages([unfiltered])
        adv = {t.uid: t.steps[0].advantage for t in unfiltered.trajectories}
        self.assertAlmostEqual(adv[episodes[2].trajectories[0].uid], adv[episodes[1].trajectories[0].uid])
        self.assertLess(adv[episodes[2].trajectories[0].uid], 0)

    def test_inline_tasks(self) -> None:
        rows = [export_row(None, 0, task=INLINE_TASK), export_row(None, 1, task=INVALID_INLINE_TASK)]
        rows.append({"prompt": [{"role": "user", "content": "fix it"}], "extra_info": {"task": BROKEN_INLINE_TASK}})
        completions = [[GOLD, CORRUPTED], [GOLD, GOLD], [GOLD, GOLD]]
        episodes, _ = run_engine(rows, completions, minedit_rllm.MineditEvaluator(), backend="tinker")
        self.assertEqual([rewards(e)[0] for e in episodes], [0.1, -0.2, -0.2, -0.2, -0.2, -0.2])
        self.assertEqual([e.metrics["minedit/invalid_task"] for e in episodes], [0.0, 0.0, 1.0, 1.0, 1.0, 1.0])
        self.assertEqual(len(build_trajectory_groups(episodes, CF_ON)), 1)  # only the valid task trains

    def test_a_failed_call_is_masked(self) -> None:
        evaluator = minedit_rllm.MineditEvaluator(minedit_target="127.0.0.1:1", minedit_timeout=2)
        episodes, _ = run_engine([export_row(TASK_ID, 0)], [[GOLD, CORRUPTED]], evaluator)
        self.assertEqual([e.metrics["minedit/call_failed"] for e in episodes], [1.0, 1.0])
        self.assertEqual(build_trajectory_groups(episodes, CF_ON), [])


class FailureTest(unittest.TestCase):
    """What rLLM does with an exception from evaluate: the whole rollout again, retry_limit times, then stop
    (raise_on_error=true, the default) or an episode without trajectories (false)."""

    def test_raise_mode_retries_then_drops_or_stops(self) -> None:
        evaluator = minedit_rllm.MineditEvaluator(on_infra_error="raise")
        rows = [export_row(TASK_ID, 0), export_row(INFRA_TASK_ID, 1)]
        completions = [[GOLD, CORRUPTED], [GOLD, GOLD]]
        episodes, engine = run_engine(rows, completions, evaluator, retry_limit=3, raise_on_error=False)
        self.assertEqual(sorted(engine.evaluate_calls.values()), [1, 1, 3, 3])
        self.assertEqual([len(e.trajectories) for e in episodes], [1, 1, 0, 0])
        self.assertIn("INFRA_ERROR", episodes[2].metadata["error"]["message"])
        [group] = build_trajectory_groups(episodes)  # no compact filtering needed: nothing to group
        self.assertEqual(len(group.trajectories), 2)
        with self.assertRaises(minedit_rllm.InfraError):
            run_engine(rows, completions, evaluator, retry_limit=3)

    def test_an_unknown_task_id_stops_training(self) -> None:
        rows = [export_row(TASK_ID, 0), export_row("no/such-task", 1)]
        with self.assertRaises(MineditError) as caught:
            run_engine(rows, [[GOLD], [GOLD]], minedit_rllm.MineditEvaluator(), retry_limit=3)
        self.assertEqual(caught.exception.code.name, "NOT_FOUND")


class ExampleTest(unittest.TestCase):
    """examples/rllm/train_minedit.py loaded as a script, its main called with the unified config; the
    AgentTrainer it builds is run for one step on the tinker backend against the real server."""

    def test_the_example_trains_through_its_flow_and_the_evaluator(self) -> None:
        import openai
        from omegaconf import DictConfig
        from rllm.experimental import unified_trainer

        rows = [export_row(TASK_ID, 0), export_row(INFRA_TASK_ID, 1)]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "train.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
            spec = importlib.util.spec_from_file_location("train_minedit", EXAMPLE)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            self.assertEqual(module.main.hydra_args, ("pkg://rllm.experimental.config", "unified", None))
            answers = ([GOLD, CORRUPTED, GOLD, "no code"], [GOLD] * 4)
            openai.ANSWERS.update({r["prompt"][-1]["content"]: a for r, a in zip(rows, answers)})
            seen = {}

            def train(trainer):
                config = trainer.config
                n = config["rllm"]["rollout"]["n"]
                tasks, task_ids = tinker_tasks(trainer.train_dataset.get_data(), n)
                threads = config["rllm"]["workflow"]["n_parallel_tasks"]
                engine = AgentFlowEngine(trainer.agent_flow, trainer.evaluator, threads)
                try:
                    seen["episodes"] = asyncio.run(engine.execute_tasks(tasks, task_ids))
                finally:
                    engine.shutdown()
                cf = CompactFilteringConfig(**config["rllm"]["compact_filtering"])
                seen["groups"] = build_trajectory_groups(seen["episodes"], cf)

            unified_trainer.TRAIN[:] = [train]
            # The command line's overrides, on base.yaml's defaults.
            rllm_config = {
                "backend": "tinker",
                "rollout": {"n": 4},
                "workflow": {"n_parallel_tasks": N_PARALLEL_TASKS},
                "compact_filtering": {**vars(CF_ON)},
            }
            saved = os.environ.get("TRAIN_FILES")
            os.environ["TRAIN_FILES"] = path
            try:
                module.main(DictConfig({"rllm": rllm_config}))
            finally:
                if saved is None:
                    os.environ.pop("TRAIN_FILES")
                else:
                    os.environ["TRAIN_FILES"] = saved
        trainer = unified_trainer.TRAINERS[-1]
        self.assertEqual(trainer.backend, "tinker")
        self.assertIsInstance(trainer.evaluator, minedit_rllm.MineditEvaluator)
        self.assertEqual(trainer.train_dataset.name, "minedit")
        episodes = seen["episodes"]
        self.assertEqual([rewards(e)[0] for e in episodes], [0.1, -0.2, 0.1, -0.2] + [-0.2] * 4)
        self.assertEqual([len(g.trajectories) for g in seen["groups"]], [4])  # the INFRA prompt is dropped
        # The flow sent the export's messages to the gateway session of each rollout.
        calls = openai.CALLS[-8:]
        self.assertTrue(all(url.startswith("http://gateway/sessions/") for url, _, _ in calls))
        self.assertEqual([m["role"] for m in calls[0][2]], ["system", "user"])


if __name__ == "__main__":
    unittest.main()
