"""Contract tests of ``minedit_client.art`` against the code of OpenPipe ART that runs a rollout and uses
its trajectory, against the real server.

ART needs torch, vLLM and pydantic, so its code is not imported: what it does with the user's rollout is
reproduced below in plain Python, with ART's names, from OpenPipe/ART main 779559f (2025-06-14, pyproject
0.3.11; the snapshot here has no tags):

- src/art/trajectories.py ``TrajectoryGroup.__new__``: a group of rollout coroutines is awaited with
  ``asyncio.as_completed``; ``except BaseException`` appends the error to the group's ``exceptions``, counts
  it in the gather context, and re-raises when ``too_many_exceptions()``; the trajectory is not in the group;
- src/art/gather.py ``gather_trajectory_groups`` (``asyncio.gather`` over the groups: every rollout of the
  step runs at once on one loop), ``wrap_group_awaitable``, ``record_metrics`` and
  ``GatherContext.too_many_exceptions`` (``max_exceptions``: a count, or below 1 a fraction of all
  rollouts; default 0);
- src/art/local/tokenize.py ``tokenize_trajectory_groups``: advantage = (reward - group mean) / (group std
  + 1e-6) over the trajectories IN the group, an empty group skipped, a zero advantage not trained; and
  src/art/local/backend.py ``_train_model``: no tokenized result -> the step trains nothing.

The later 0.5 line keeps this path: src/art/gather.py @ 18bb2df (same ``wrap_group_awaitable`` /
``too_many_exceptions``, plus ``after_each``) and src/art/preprocessing/tokenize.py @ d2fa2a5 (advantage =
reward - mean, divided by std when ``scale_rewards``; zero advantages dropped when
``drop_zero_advantage_trajectories``, the default). The example rollout and training step
(examples/art/) are loaded as the user runs them (``python3 train.py``: the script's folder on sys.path),
with this reproduction as their ``art`` module and a scripted model behind ``model.openai_client()``.
"""

import asyncio
import contextlib
import contextvars
import importlib.util
import math
import os
import sys
import types
import unittest
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, INFRA_TASK_ID, INLINE_TASK, INVALID_INLINE_TASK, TARGET
from support import TASK_ID, TOKEN
from minedit_client import MineditError, Task
from minedit_client import art as minedit_art

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples", "art")
UNREACHABLE = "127.0.0.1:1"  # nothing listens on port 1
os.environ["MINEDIT_TARGET"] = TARGET
os.environ["MINEDIT_TOKEN"] = TOKEN


# ---- OpenAI's objects, as ART's trajectories hold them ----------------------------------------------------


@dataclass
class ChatCompletionMessage:
    content: Optional[str]
    role: str = "assistant"


@dataclass
class Choice:
    """openai.types.chat.chat_completion.Choice: what ART trains on (its ``logprobs`` are the tokens)."""

    message: ChatCompletionMessage
    finish_reason: str = "stop"
    index: int = 0
    logprobs: Any = None


# ---- src/art/trajectories.py @ 779559f ------------------------------------------------------------------


@dataclass
class Trajectory:
    """``art.Trajectory`` (a pydantic model upstream; ``reward: float`` is required, metrics are
    ``dict[str, float | int | bool]``, metadata ``dict[str, float | int | str | bool | None]``)."""

    messages_and_choices: list
    reward: float
    metrics: Dict[str, Any] = field(default_factory=dict)
    metadata: Dict[str, Any] = field(default_factory=dict)


class TrajectoryGroup:
    """``art.TrajectoryGroup``: built from finished trajectories (exceptions among them go to
    ``exceptions``), or from rollout awaitables, which makes it an awaitable that gathers them."""

    def __new__(cls, trajectories, *, metadata=None, exceptions=None):
        ts = list(trajectories)
        if any(hasattr(t, "__await__") for t in ts):
            return _CoroutineWithMetadata(_gather_group(ts, list(exceptions or []), metadata or {}), len(ts))
        group = super().__new__(cls)
        group.trajectories = [t for t in ts if isinstance(t, Trajectory)]
        group.exceptions = [e for e in ts if isinstance(e, BaseException)] + list(exceptions or [])
        group.metadata = dict(metadata or {})
        return group

    def __iter__(self):
        return iter(self.trajectories)

    def __len__(self) -> int:
        return len(self.trajectories)


async def _gather_group(ts, exceptions, metadata):
    context = get_gather_context()
    trajectories = []
    for future in asyncio.as_completed(ts):
        try:
            trajectory = await future
            trajectories.append(trajectory)
            record_metrics(context, trajectory)
            context.update_pbar(n=1)
        except BaseException as e:  # noqa: BLE001 - as upstream: every error of a rollout drops it
            exceptions.append(e)
            context.metric_sums["exceptions"] += 1
            context.update_pbar(n=0)
            if context.too_many_exceptions():
                raise
    return TrajectoryGroup(trajectories, exceptions=exceptions, metadata=metadata)


class _CoroutineWithMetadata:
    def __init__(self, coro, num_trajectories):
        self.coro = coro
        self._num_trajectories = num_trajectories

    def __await__(self):
        return self.coro.__await__()


# ---- src/art/gather.py @ 779559f (the progress bar reduced to what too_many_exceptions reads) --------------


class Pbar:
    def __init__(self, total: int) -> None:
        self.total, self.n, self.postfix = total, 0, {}

    def update(self, n: int) -> None:
        self.n += n

    def set_postfix(self, postfix: dict) -> None:
        self.postfix = postfix

    def close(self) -> None:
        pass


@dataclass
class GatherContext:
    pbar: Optional[Pbar] = None
    metric_sums: Counter = field(default_factory=Counter)
    metric_divisors: Counter = field(default_factory=Counter)
    max_exceptions: float = 0

    def update_pbar(self, n: int) -> None:
        if self.pbar is None:
            return
        self.pbar.update(n)
        self.pbar.set_postfix({m: s / max(1, self.metric_divisors[m]) for m, s in self.metric_sums.items()})

    def too_many_exceptions(self) -> bool:
        if (
            0 < self.max_exceptions < 1
            and self.pbar is not None
            and self.metric_sums["exceptions"] / self.pbar.total <= self.max_exceptions
        ) or self.metric_sums["exceptions"] <= self.max_exceptions:
            return False
        return True


gather_context_var = contextvars.ContextVar("gather_context", default=GatherContext())


def get_gather_context() -> GatherContext:
    return gather_context_var.get()


@contextlib.contextmanager
def set_gather_context(context: GatherContext):
    token = gather_context_var.set(context)
    try:
        yield
    finally:
        gather_context_var.reset(token)


def record_metrics(context: GatherContext, trajectory: Trajectory) -> None:
    context.metric_sums["reward"] += trajectory.reward
    context.metric_divisors["reward"] += 1
    context.metric_sums.update(trajectory.metrics)
    context.metric_divisors.update(trajectory.metrics.keys())


async def wrap_group_awaitable(awaitable):
    if hasattr(awaitable, "_num_trajectories"):
        return await awaitable
    context = get_gather_context()
    try:
        group = await awaitable
        for trajectory in group:
            record_metrics(context, trajectory)
        context.update_pbar(n=len(group))
        return group
    except BaseException:  # noqa: BLE001 - as upstream
        context.metric_sums["exceptions"] += 1
        context.update_pbar(n=0)
        if context.too_many_exceptions():
            raise


LAST_CONTEXT: List[GatherContext] = []


async def gather_trajectory_groups(groups, *, pbar_desc="gather", max_exceptions=0, max_metrics=None):
    groups = list(groups)
    context = GatherContext(max_exceptions=max_exceptions)
    LAST_CONTEXT[:] = [context]
    with set_gather_context(context):
        future = asyncio.gather(*[wrap_group_awaitable(g) for g in groups])
        context.pbar = Pbar(total=sum(getattr(g, "_num_trajectories", 1) for g in groups))
        result_groups = await future
    return [g for g in result_groups if g is not None]


# ---- src/art/local/tokenize.py + backend.py _train_model @ 779559f: what the step trains on ---------------


def trained(groups: List[TrajectoryGroup]) -> List[tuple]:
    """``tokenize_trajectory_groups`` reduced to its choices: (trajectory, advantage) for every trajectory
    that trains, in group order (upstream shuffles within a group)."""
    results = []
    for group in groups:
        if not group:
            continue
        mean = sum(t.reward for t in group) / len(group)
        std = math.sqrt(sum((t.reward - mean) ** 2 for t in group) / len(group))
        for trajectory in group:
            advantage = (trajectory.reward - mean) / (std + 1e-6)
            if advantage == 0:
                continue
            results.append((trajectory, advantage))
    return results


@dataclass
class TrainConfig:
    learning_rate: float = 5e-6
    beta: float = 0.0


def build_art_module() -> types.ModuleType:
    """The ``art`` module the examples import: the reproduction above under ART's public names."""
    art = types.ModuleType("art")
    art.Trajectory, art.TrajectoryGroup, art.TrainConfig = Trajectory, TrajectoryGroup, TrainConfig
    art.gather_trajectory_groups = gather_trajectory_groups
    art.Model = art.TrainableModel = ScriptedModel
    local = types.ModuleType("art.local")
    local.LocalBackend = object
    art.local = local
    return art


# ---- a model whose OpenAI client answers from a script ---------------------------------------------------


class ScriptedModel:
    """``model.openai_client().chat.completions.create(...)`` answers ``replies[last user message]``;
    ``model.train(groups, config)`` keeps what it was given."""

    def __init__(self, replies: Dict[str, str]) -> None:
        self.name = "scripted"
        self.replies = replies
        self.trained: List[tuple] = []
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self._create))

    def openai_client(self) -> "ScriptedModel":
        return self

    async def _create(self, *, model: str, messages: list, **_: Any) -> Any:
        await asyncio.sleep(0)  # the request leaves the loop, as a real one does
        user = [m["content"] for m in messages if m["role"] == "user"][-1]
        return types.SimpleNamespace(choices=[Choice(ChatCompletionMessage(self.replies[user]))])

    async def train(self, groups, config=None, _config=None) -> None:
        self.trained.append((groups, config))


def row(prompt: str, task: Any) -> dict:
    return {"prompt": [{"role": "system", "content": "Repair the program."}, {"role": "user", "content": prompt}],
            "task_id": task}


REPLIES = {"gold": GOLD, "corrupted": CORRUPTED, "infra": GOLD}
GOLD_ROW, CORRUPTED_ROW, INFRA_ROW = row("gold", TASK_ID), row("corrupted", TASK_ID), row("infra", INFRA_TASK_ID)


def load_examples():
    """examples/art/train.py as ``python3 train.py`` runs it (its folder first on sys.path, so ``from
    rollout import rollout`` finds the example rollout), with the reproduction as ``art``."""
    saved = {name: sys.modules.get(name) for name in ("art", "art.local", "rollout")}
    art = build_art_module()
    sys.modules.update({"art": art, "art.local": art.local})
    sys.path.insert(0, EXAMPLES)
    try:
        spec = importlib.util.spec_from_file_location("minedit_art_train", os.path.join(EXAMPLES, "train.py"))
        train = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(train)
        return train, sys.modules["rollout"]
    finally:
        sys.path.remove(EXAMPLES)
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


TRAIN, ROLLOUT = load_examples()


def gather(groups, max_exceptions=0):
    return asyncio.run(gather_trajectory_groups(groups, max_exceptions=max_exceptions))


def group_of(model, *rows):
    return TrajectoryGroup(ROLLOUT.rollout(model, r) for r in rows)


class RolloutTest(unittest.TestCase):
    """The example rollout inside ``gather_trajectory_groups``: rewards, metrics, and what trains."""

    def test_gold_and_corrupted_set_reward_metrics_and_verdict(self) -> None:
        model = ScriptedModel(REPLIES)
        [group] = gather([group_of(model, GOLD_ROW, CORRUPTED_ROW, GOLD_ROW, CORRUPTED_ROW)])
        self.assertEqual(sorted(t.reward for t in group), [-0.2, -0.2, 0.1, 0.1])
        self.assertEqual(group.exceptions, [])
        passed = next(t for t in group if t.reward == 0.1)
        self.assertEqual(passed.metadata, {"minedit_verdict": "PASSED"})
        self.assertEqual(passed.metrics["minedit_passed"], 1.0)
        self.assertEqual(passed.metrics["minedit_excess"], 0.0)
        self.assertGreater(passed.metrics["minedit_tests_total"], 0)
        failed = next(t for t in group if t.reward == -0.2)
        self.assertEqual(failed.metadata["minedit_verdict"], "FAILED_TESTS")
        self.assertEqual(failed.metrics["minedit_passed"], 0.0)
        self.assertIsInstance(passed.messages_and_choices[-1], Choice)  # the scored reply stays trainable
        context = LAST_CONTEXT[0]
        self.assertAlmostEqual(context.metric_sums["minedit_passed"] / context.metric_divisors["minedit_passed"], 0.5)
        advantages = sorted(round(a, 4) for _, a in trained([group]))
        self.assertEqual(advantages, [-1.0, -1.0, 1.0, 1.0])

    def test_infra_error_is_dropped_from_its_group_and_the_rest_train_as_without_it(self) -> None:
        model = ScriptedModel(REPLIES)
        [group] = gather([group_of(model, GOLD_ROW, CORRUPTED_ROW, INFRA_ROW)], max_exceptions=1)
        self.assertEqual(sorted(t.reward for t in group), [-0.2, 0.1])
        [error] = group.exceptions
        self.assertIsInstance(error, minedit_art.MaskedError)
        self.assertEqual(error.verdict, "INFRA_ERROR")
        self.assertIn("max_exceptions", str(error))
        self.assertIsNone(error.result.reward)
        self.assertEqual(LAST_CONTEXT[0].metric_sums["exceptions"], 1)
        [clean] = gather([group_of(model, GOLD_ROW, CORRUPTED_ROW)])
        self.assertEqual(sorted(round(a, 6) for _, a in trained([group])),
                         sorted(round(a, 6) for _, a in trained([clean])))

    def test_a_group_left_with_equal_rewards_or_nothing_trains_nothing(self) -> None:
        model = ScriptedModel(REPLIES)
        groups = gather(
            [group_of(model, GOLD_ROW, GOLD_ROW), group_of(model, GOLD_ROW, INFRA_ROW), group_of(model, INFRA_ROW)],
            max_exceptions=2,
        )
        self.assertEqual([len(g) for g in groups], [2, 1, 0])
        self.assertEqual(trained(groups), [])  # _train_model: "no suitable data", the step is skipped

    def test_art_default_max_exceptions_stops_the_step_at_the_first_masked_sample(self) -> None:
        model = ScriptedModel(REPLIES)
        with self.assertRaises(minedit_art.MaskedError) as caught:
            gather([group_of(model, GOLD_ROW, INFRA_ROW)])
        self.assertIn("max_exceptions", str(caught.exception))

    def test_many_concurrent_rollouts_share_few_score_batch_calls(self) -> None:
        scorer = minedit_art.coalescing_scorer()
        before = (scorer.stats.calls, scorer.stats.rollouts)
        model = ScriptedModel(REPLIES)
        groups = gather([group_of(model, *([GOLD_ROW, CORRUPTED_ROW] * 4)) for _ in range(4)])
        self.assertEqual([sorted(t.reward for t in g) for g in groups], [[-0.2] * 4 + [0.1] * 4] * 4)
        calls, rollouts = scorer.stats.calls - before[0], scorer.stats.rollouts - before[1]
        self.assertEqual(rollouts, 32)
        self.assertLessEqual(calls, 3, scorer.stats)
        print(f"ART gather: 32 rollouts in {calls} ScoreBatch call(s)")


class TrainStepTest(unittest.TestCase):
    """examples/art/train.py ``train_step``: groups of GROUP_SIZE, ``max_exceptions=0.05`` of all rollouts."""

    def test_the_example_drops_a_masked_group_within_its_budget_and_trains_the_rest(self) -> None:
        model = ScriptedModel(REPLIES)
        rows = [GOLD_ROW, CORRUPTED_ROW] * 9 + [GOLD_ROW, INFRA_ROW]  # 8 of 160 rollouts masked: 0.05
        groups = asyncio.run(TRAIN.train_step(model, rows))
        [(trained_groups, config)] = model.trained
        self.assertIs(trained_groups, groups)
        self.assertEqual(config.learning_rate, 1e-5)
        self.assertEqual([len(g) for g in groups], [TRAIN.GROUP_SIZE] * 19 + [0])
        self.assertEqual(len(groups[-1].exceptions), TRAIN.GROUP_SIZE)
        # Each group repeats one answer: equal rewards, so advantage ~0 (ART's float mean leaves a ~1e-17
        # residue, divided by the 1e-6 std guard: ~1e-11, and only a residue).
        self.assertLess(max(abs(a) for _, a in trained(groups)), 1e-9)

    def test_over_the_budget_the_step_stops(self) -> None:
        model = ScriptedModel(REPLIES)
        with self.assertRaises(minedit_art.MaskedError):
            asyncio.run(TRAIN.train_step(model, [GOLD_ROW] * 9 + [INFRA_ROW]))  # 8 of 80: 0.1
        self.assertEqual(model.trained, [])


class ScoreTest(unittest.TestCase):
    """:func:`minedit_client.art.score` on its own: both ways to name a task, and every failure."""

    def score(self, task, completion, **settings):
        return asyncio.run(minedit_art.score(task, completion, **settings))

    def test_inline_tasks_as_dict_and_task(self) -> None:
        self.assertEqual(self.score(INLINE_TASK, GOLD), 0.1)
        self.assertEqual(self.score(Task(**INLINE_TASK), [{"role": "assistant", "content": CORRUPTED}]), -0.2)
        trajectory = Trajectory([{"role": "user", "content": "fix"}, Choice(ChatCompletionMessage(GOLD))], 0.0)
        self.assertIs(asyncio.run(minedit_art.score_trajectory(trajectory, INLINE_TASK)), trajectory)
        self.assertEqual(trajectory.reward, 0.1)

    def test_broken_and_invalid_inline_tasks_are_masked(self) -> None:
        # The server checks an inline task's tests with its gold first: unusable tests are the task's fault.
        for task, verdict in ((BROKEN_INLINE_TASK, "INVALID_TASK"), (INVALID_INLINE_TASK, "INVALID_TASK")):
            trajectory = Trajectory([Choice(ChatCompletionMessage(GOLD))], 0.0)
            with self.assertRaises(minedit_art.MaskedError) as caught:
                asyncio.run(minedit_art.score_trajectory(trajectory, task))
            self.assertEqual((caught.exception.verdict, caught.exception.result.verdict), (verdict, verdict))
            self.assertEqual(trajectory.reward, 0.0)  # never set: ART drops the trajectory
            self.assertEqual(trajectory.metadata["minedit_verdict"], verdict)

    def test_unknown_task_raises_the_call_error(self) -> None:
        with self.assertRaises(MineditError) as caught:
            self.score("no/such/task", GOLD)
        self.assertNotIsInstance(caught.exception, minedit_art.MaskedError)
        self.assertEqual(caught.exception.code.name, "NOT_FOUND")

    def test_an_unreachable_server_is_masked_as_infra_error(self) -> None:
        with self.assertRaises(minedit_art.MaskedError) as caught:
            self.score(TASK_ID, GOLD, target=UNREACHABLE, timeout=2.0)
        self.assertEqual(caught.exception.verdict, "INFRA_ERROR")
        self.assertIsNone(caught.exception.result)
        self.assertIsInstance(caught.exception.__cause__, MineditError)

    def test_bad_arguments_are_refused_before_any_call(self) -> None:
        with self.assertRaises(TypeError):
            self.score(42, GOLD)
        with self.assertRaises(ValueError):
            minedit_art.last_reply(Trajectory([{"role": "user", "content": "fix"}], 0.0))
        self.assertEqual(minedit_art.last_reply(Trajectory([{"role": "assistant", "content": "x"}], 0.0))["content"],
                         "x")


if __name__ == "__main__":
    unittest.main()
