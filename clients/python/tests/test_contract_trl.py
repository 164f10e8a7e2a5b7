"""Contract tests of ``minedit_client.trl`` against the code of TRL that calls a reward function.

TRL needs torch, so its code is not imported: what it does with a reward function is reproduced below in
plain Python from its source (huggingface/trl, the file and commit named in each class's docstring), with
TRL's names and shapes -- how it builds the keyword arguments from the dataset rows, detects and runs an
async function on its persistent daemon event loop, turns ``None`` into NaN, gathers the processes' rows,
computes the group advantages (``sum_then_normalize``, ``scale_rewards="group"``, the defaults), names the
reward, and flushes ``log_metric`` / ``log_extra`` one collective per key. TRL computes in float32 tensors,
these reproductions in Python floats. Several processes ("ranks") of one step are simulated in one
interpreter, one :class:`TrainerProcess` each, calling the reward function on their local slices.

The completions are scored by the REAL server (see support.py). A per-sample sandbox fault -- one sample of
a group whose sandbox breaks -- is made real with :class:`SandboxFaultClient`, which sends that sample
against the stored task whose tests cannot run, so the server answers INFRA_ERROR for it.
"""

import asyncio
import dataclasses
import functools
import inspect
import math
import multiprocessing
import pickle
import queue
import statistics
import threading
import types
import unittest
from collections import defaultdict
from typing import Any, Callable, Dict, List, Optional, Sequence

from support import CORRUPTED, GOLD, GOLD_PLUS, INFRA_TASK_ID, SLEEPER, TARGET, TASK, TASK_ID, TASKS, TOKEN, fence
from minedit_client import AsyncMineditClient, MineditError, RetryPolicy, RewardOverride
from minedit_client.trl import EXTRA_COLUMNS, METRIC_KEYS, minedit_reward_func

G = 4  # num_generations; per_device_train_batch_size = G, so each rank holds exactly one prompt group
OTHER_TASK = next(t for t in TASKS if t["task_id"] != TASK_ID)
DEAD_TARGET = "127.0.0.1:1"  # nothing listens: UNAVAILABLE after the client's retries
NAN = math.nan


# --- the TRL lines ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TrlLine:
    """What differs between TRL releases in how a reward function is called and its output used."""

    tag: str
    commit: str
    #: how ``GRPOTrainer.__init__`` / ``_calculate_rewards`` tell an async reward function
    is_async: Callable[[Any], bool]
    #: ``log_metric`` / ``log_extra`` keyword arguments (since v1.0.0)
    log_hooks: bool
    #: rows whose every reward is NaN leave the group baseline and get advantage 0 (since v1.6.0)
    masks_unscorable: bool
    #: ``reward_func_names`` from ``get_callable_name``, which unwraps ``functools.partial`` (since v1.9.0)
    unwraps_partial: bool


V1_9 = TrlLine("v1.9.0", "35def3ee", inspect.iscoroutinefunction, True, True, True)
V1_6 = TrlLine("v1.6.0", "0dac4405", inspect.iscoroutinefunction, True, True, False)
V1_5 = TrlLine("v1.5.1", "32efb4b0", inspect.iscoroutinefunction, True, False, False)
# v0.27-v0.29 test with asyncio.iscoroutinefunction (deprecated since Python 3.14).
V0_27 = TrlLine("v0.27.0", "17acd61f", asyncio.iscoroutinefunction, False, False, False)


def get_callable_name(func: Any) -> str:
    """trl/trainer/utils.py ``get_callable_name`` (v1.9.0)."""
    while isinstance(func, functools.partial):
        func = func.func
    return getattr(func, "__name__", type(func).__name__)


def reward_func_name(line: TrlLine, func: Any) -> str:
    """``GRPOTrainer.__init__``: ``self.reward_func_names`` for a callable reward function."""
    return get_callable_name(func) if line.unwraps_partial else func.__name__


def start_event_loop_in_daemon(name: str):
    """trl/trainer/utils.py ``start_event_loop_in_daemon``: a new loop running forever in a daemon thread."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run_loop() -> None:
        asyncio.set_event_loop(loop)
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run_loop, name=name, daemon=True)
    thread.start()
    return thread, loop, ready


def shutdown_event_loop_in_daemon(thread: threading.Thread, loop: asyncio.AbstractEventLoop) -> None:
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.close()


def nanmean(values: Sequence[float]) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else NAN


def nanstd(values: Sequence[float]) -> float:
    """trl/trainer/utils.py ``nanstd``: the standard deviation of the non-NaN values, Bessel-corrected;
    NaN for fewer than two."""
    kept = [v for v in values if not math.isnan(v)]
    if len(kept) < 2:
        return NAN
    mean = sum(kept) / len(kept)
    return math.sqrt(sum((v - mean) ** 2 for v in kept) / len(kept) * len(kept) / (len(kept) - 1))


def to_column(output: Any, n: int) -> List[float]:
    """``[r if r is not None else torch.nan for r in output]`` then ``rewards_per_func[:, i] =
    torch.tensor(output, dtype=torch.float32)``: one real number per sample or TRL fails."""
    column = [NAN if r is None else r for r in output]  # TypeError for a coroutine: TRL < 0.27 on async
    if len(column) != n:
        raise RuntimeError(f"shape mismatch: {len(column)} rewards for {n} samples")
    return [float(v) for v in column]


def group_advantages(line: TrlLine, rewards_per_func: List[List[float]], weights: Sequence[float]):
    """``_generate_and_score_completions`` after ``_calculate_rewards``: the summed reward and the advantage
    of every row of the gathered batch (multi_objective_aggregation="sum_then_normalize",
    scale_rewards="group")."""
    rewards = [sum(w * x for w, x in zip(weights, row) if not math.isnan(x)) for row in rewards_per_func]  # nansum
    if line.masks_unscorable:
        unscorable = [all(math.isnan(x) for x in row) for row in rewards_per_func]
        rewards = [NAN if u else r for r, u in zip(rewards, unscorable)]
    advantages = []
    for start in range(0, len(rewards), G):
        group = rewards[start : start + G]
        if line.masks_unscorable:  # torch.nanmean, nanstd
            mean, std = nanmean(group), nanstd(group)
        else:  # .mean(), .std() (unbiased): nansum left no NaN
            mean, std = sum(group) / len(group), statistics.stdev(group)
        advantages += [(r - mean) / (std + 1e-4) for r in group]
    if line.masks_unscorable:
        advantages = [0.0 if math.isnan(a) else a for a in advantages]  # torch.nan_to_num(advantages, nan=0.0)
    return rewards, advantages


def _ignore_grpc_wakeups(loop: asyncio.AbstractEventLoop, context: Dict[str, Any]) -> None:
    # Several simulated processes share this interpreter, so grpc.aio's one poller socket wakes every
    # process's loop and all but one find it empty (grpc/grpc#25364): a harmless BlockingIOError that a
    # real TRL process, with one such loop, does not see. Anything else is reported as usual.
    if not isinstance(context.get("exception"), BlockingIOError):
        loop.default_exception_handler(context)


class TrainerProcess:
    """One process of a ``GRPOTrainer``: its reward functions and their names, the persistent daemon loop
    (started in ``__init__`` when any reward function is async), the ``_log_metric`` /
    ``_log_completion_extra`` buffers and ``_calculate_rewards``."""

    def __init__(self, line: TrlLine, reward_funcs: Sequence[Any]) -> None:
        self.line = line
        self.reward_funcs = list(reward_funcs)
        self.reward_func_names = [reward_func_name(line, f) for f in self.reward_funcs]
        self.state = types.SimpleNamespace(global_step=0, epoch=0.0)  # a transformers TrainerState stand-in
        self.pending_metrics: Dict[str, List[float]] = defaultdict(list)
        self.pending_extra: Dict[str, List[Any]] = defaultdict(list)
        self.loop = None
        if any(line.is_async(f) for f in self.reward_funcs):
            self.thread, self.loop, ready = start_event_loop_in_daemon("GRPOTrainer-AsyncLoop")
            ready.wait()
            self.loop.set_exception_handler(_ignore_grpc_wakeups)

    def close(self) -> None:
        if self.loop is not None:
            # (not TRL: the test closes its channels, then stops the loop as TRL's atexit hook does)
            asyncio.run_coroutine_threadsafe(SandboxFaultClient.close_in_loop(), self.loop).result(timeout=30)
            shutdown_event_loop_in_daemon(self.thread, self.loop)

    def log_metric(self, name: str, value: float) -> None:
        self.pending_metrics[name].append(value)

    def log_extra(self, column: str, values: list) -> None:
        self.pending_extra[column].extend(values)

    def calculate_rewards(self, inputs, prompts, completions, completion_ids_list) -> List[List[float]]:
        """The local ``rewards_per_func`` (one row per sample, one column per reward function)."""
        keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
        reward_kwargs = {key: [example[key] for example in inputs] for key in keys}
        reward_kwargs["trainer_state"] = self.state
        if self.line.log_hooks:
            reward_kwargs["log_extra"] = self.log_extra
            reward_kwargs["log_metric"] = self.log_metric
        columns: List[Optional[List[float]]] = [None] * len(self.reward_funcs)
        async_funcs_info = []
        for i, reward_func in enumerate(self.reward_funcs):
            if self.line.is_async(reward_func):
                async_funcs_info.append((i, reward_func))
            else:  # sync functions run first, one after the other
                output = reward_func(
                    prompts=prompts, completions=completions, completion_ids=completion_ids_list, **reward_kwargs
                )
                columns[i] = to_column(output, len(prompts))
        if async_funcs_info:

            async def invoke(index, func):
                output = await func(
                    prompts=prompts, completions=completions, completion_ids=completion_ids_list, **reward_kwargs
                )
                return index, [r if r is not None else NAN for r in output]

            async def run_async_funcs():
                return await asyncio.gather(*[invoke(i, f) for i, f in async_funcs_info])

            for index, output in asyncio.run_coroutine_threadsafe(run_async_funcs(), self.loop).result():
                columns[index] = to_column(output, len(prompts))
        return [list(row) for row in zip(*columns)]  # type: ignore[arg-type]


class CollectiveMismatch(AssertionError):
    """What real TRL would do instead: pair the wrong metrics across processes, then hang."""


def flush(processes: Sequence[TrainerProcess]):
    """The end of ``_generate_and_score_completions``: every process walks ``sorted(pending)`` and makes ONE
    collective per key (``gather_object`` per extra column, ``accelerator.gather`` per metric); the k-th
    collective of every process pairs up. Returns the cross-process metrics (mean of the local means) and
    the gathered extra columns."""

    def pair(orders: List[List[str]], what: str) -> List[str]:
        for k in range(max(len(o) for o in orders)):
            names = [o[k] if k < len(o) else None for o in orders]
            if len(set(names)) > 1:
                raise CollectiveMismatch(f"{what} collective #{k} pairs {names} across processes")
        return orders[0]

    extra = {}
    for column in pair([sorted(p.pending_extra) for p in processes], "gather_object"):
        extra[column] = [v for p in processes for v in p.pending_extra[column]]
    metrics = {}
    for name in pair([sorted(p.pending_metrics) for p in processes], "gather"):
        local = [sum(p.pending_metrics[name]) / len(p.pending_metrics[name]) for p in processes]
        metrics[name] = sum(local) / len(local)
    for p in processes:
        p.pending_extra.clear()
        p.pending_metrics.clear()
    return metrics, extra


def generation_batch(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """``RepeatSampler``: each dataset row G times in a row."""
    return [dict(row) for row in rows for _ in range(G)]


def row(task_id: str, conversational: bool) -> Dict[str, Any]:
    text = "Fix the bug with the smallest change:\n" + TASK["corrupted"]
    prompt = [{"role": "user", "content": text}] if conversational else text
    return {"prompt": prompt, "task_id": task_id, "difficulty": "demo"}


def completion(text: str, conversational: bool) -> Any:
    return [{"role": "assistant", "content": text}] if conversational else text


@dataclasses.dataclass
class Step:
    rewards_per_func: List[List[float]]  # gathered, all processes
    rewards: List[float]
    advantages: List[float]
    metrics: Dict[str, float]
    extra: Dict[str, List[Any]]


def run_step(processes: Sequence[TrainerProcess], local_batches, conversational: bool = True) -> Step:
    """One generation batch: each process calls the reward functions on its local slice, then TRL gathers
    the rows (in process order), computes the advantages and flushes the logs."""
    gathered: List[List[float]] = []
    for process, texts in zip(processes, local_batches):
        task_id, completions_text = texts
        # A process's slice: its part of the G repeats (all G, or fewer when a group spans processes).
        inputs = generation_batch([row(task_id, conversational)])[: len(completions_text)]
        prompts = [x["prompt"] for x in inputs]
        completions = [completion(t, conversational) for t in completions_text]
        completion_ids = [[ord(c) % 997 for c in t[:8]] for t in completions_text]
        gathered += process.calculate_rewards(inputs, prompts, completions, completion_ids)
    weights = [1.0] * len(processes[0].reward_funcs)
    rewards, advantages = group_advantages(processes[0].line, gathered, weights)
    metrics, extra = flush(processes)
    return Step(gathered, rewards, advantages, metrics, extra)


class SandboxFaultClient(AsyncMineditClient):
    """A real client whose rollouts with the given ids meet a broken sandbox: they are sent against the
    task whose tests cannot run, so the server really answers INFRA_ERROR for them and only them."""

    def __init__(self, *args: Any, faulty: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.faulty = set(faulty)
        self.thread = threading.current_thread().name
        # The adapter makes its client in the loop that uses it; the test closes it there (close_in_loop).
        SandboxFaultClient._open.setdefault(asyncio.get_running_loop(), []).append(self)

    _open: Dict[asyncio.AbstractEventLoop, List["SandboxFaultClient"]] = {}

    @classmethod
    async def close_in_loop(cls) -> None:
        """Closes the clients made in the running loop (channels left open print errors at exit)."""
        await asyncio.gather(*(c.close() for c in cls._open.pop(asyncio.get_running_loop(), [])))

    async def score_batch(self, rollouts, **kwargs):  # type: ignore[override]
        rollouts = [dataclasses.replace(r, task_id=INFRA_TASK_ID) if r.id in self.faulty else r for r in rollouts]
        return await super().score_batch(rollouts, **kwargs)


def reward(faulty: Sequence[str] = (), target: str = TARGET, **options: Any):
    """``minedit_reward_func`` on the test server; the client picklable (a partial of a module-level class)."""
    retry = RetryPolicy(max_attempts=2, initial_backoff_s=0.01)
    factory = functools.partial(SandboxFaultClient, target, token=TOKEN, timeout=60, retry=retry, faulty=faulty)
    return minedit_reward_func(client=factory, **options)


#: The documented way to run a second minedit reward under its own name on TRL >= 1.9.
CC = reward(reward_override=RewardOverride(variant="edit_plus_cc"))


async def minedit_cc(**kwargs: Any) -> List[Optional[float]]:
    return await CC(**kwargs)


# --- the per-line contracts --------------------------------------------------------------------------------


class _LineContract:
    """Tests every TRL line shares; each subclass names its line."""

    LINE: TrlLine
    CONVERSATIONAL: bool  # the dataset's format: chat messages, or strings

    def process(self, *reward_funcs: Any) -> TrainerProcess:
        process = TrainerProcess(self.LINE, reward_funcs)
        self.addCleanup(process.close)  # type: ignore[attr-defined]
        return process

    def test_detected_as_async_and_the_logged_name(self) -> None:
        default, named = minedit_reward_func(TARGET), minedit_reward_func(TARGET, name="edit_reward")
        self.assertTrue(self.LINE.is_async(default))
        self.assertEqual(reward_func_name(self.LINE, default), "minedit")
        # TRL >= 1.9 names a functools.partial after the function it wraps; before, after its __name__.
        self.assertEqual(reward_func_name(self.LINE, named), "minedit" if self.LINE.unwraps_partial else "edit_reward")
        self.assertIsNotNone(self.process(default).loop, "an async reward function starts TRL's daemon loop")

    def test_sandbox_fault_in_a_group(self) -> None:
        """One sample of a group meets a broken sandbox (INFRA_ERROR): with the default infra_error="none"
        it is masked on TRL >= 1.6 and scores 0.0 before; with "group_mean" its advantage is 0 on every line."""
        batch = [(TASK_ID, [GOLD, CORRUPTED, GOLD, CORRUPTED])]
        default = run_step([self.process(reward(faulty={"2"}))], batch, self.CONVERSATIONAL)
        self.assertEqual(default.rewards_per_func[0:2] + default.rewards_per_func[3:], [[0.1], [-0.2], [-0.2]])
        self.assertTrue(math.isnan(default.rewards_per_func[2][0]), "None -> NaN")
        scored = [0.1, -0.2, -0.2]
        if self.LINE.masks_unscorable:
            self.assertTrue(math.isnan(default.rewards[2]))
            self.assertEqual(default.advantages[2], 0.0)
            # the others are normalized over the scored samples only
            mean, std = statistics.mean(scored), statistics.stdev(scored)
            expected = [(r - mean) / (std + 1e-4) for r in scored]
            for got, want in zip(default.advantages[0:2] + default.advantages[3:], expected):
                self.assertAlmostEqual(got, want, places=9)
        else:
            # nansum: the broken sample scores 0.0 and outranks the failed repairs (-0.2): the reason for group_mean
            self.assertEqual(default.rewards[2], 0.0)
            self.assertGreater(default.advantages[2], 0.0)
            self.assertGreater(default.advantages[2], default.advantages[1])

        masked = run_step([self.process(reward(faulty={"2"}, infra_error="group_mean"))], batch, self.CONVERSATIONAL)
        self.assertAlmostEqual(masked.rewards_per_func[2][0], statistics.mean(scored), places=12)
        self.assertAlmostEqual(masked.advantages[2], 0.0, places=9)
        self.assertGreater(masked.advantages[0], 0.0)
        self.assertLess(masked.advantages[1], 0.0)

    def test_group_mean_needs_whole_groups_per_process(self) -> None:
        """per_device_train_batch_size < num_generations: TRL's sampler repeats each prompt G times in a row
        and every process scores its own slice, so a group is split over two processes. "group_mean" sees
        only its process's part: the INFRA_ERROR sample takes the mean of the part (here one passing
        repair), not of the group, and gets a POSITIVE advantage -- documented in minedit_client.trl. A
        number at the failure reward never outranks a failed repair; on TRL >= 1.6 the default None masks."""
        halves = [(TASK_ID, [GOLD, GOLD]), (TASK_ID, [CORRUPTED, CORRUPTED])]
        split = run_step(
            [self.process(reward(faulty={"1"}, infra_error="group_mean")), self.process(reward())],
            halves,
            self.CONVERSATIONAL,
        )
        self.assertEqual([r[0] for r in split.rewards_per_func], [0.1, 0.1, -0.2, -0.2])
        self.assertGreater(split.advantages[1], 0.0)
        floor = run_step(
            [self.process(reward(faulty={"1"}, infra_error=-0.2)), self.process(reward())],
            halves,
            self.CONVERSATIONAL,
        )
        self.assertLessEqual(floor.advantages[1], floor.advantages[2])  # no better than a failed repair
        if self.LINE.masks_unscorable:
            masked = run_step([self.process(reward(faulty={"1"})), self.process(reward())], halves, self.CONVERSATIONAL)
            self.assertEqual(masked.advantages[1], 0.0)

    def test_transient_failure_on_one_rank(self) -> None:
        """Rank 1 cannot reach the server (UNAVAILABLE after the client's retries): it returns None for its
        samples and the step goes on -- no exception on one rank while the other waits in a collective."""
        ranks = [self.process(reward()), self.process(reward(target=DEAD_TARGET))]
        with self.assertLogs("minedit_client.trl", "WARNING") as logs:
            step = run_step(
                ranks, [(TASK_ID, [GOLD, CORRUPTED] * 2), (OTHER_TASK["task_id"], [GOLD] * G)], self.CONVERSATIONAL
            )
        self.assertIn("UNAVAILABLE", logs.output[0])
        self.assertEqual([r[0] for r in step.rewards_per_func[:G]], [0.1, -0.2] * 2)
        self.assertTrue(all(math.isnan(r[0]) for r in step.rewards_per_func[G:]))
        if self.LINE.masks_unscorable:
            self.assertEqual(step.advantages[G:], [0.0] * G)
        else:
            self.assertEqual(step.rewards[G:], [0.0] * G)  # a whole group at 0.0: advantage 0 as well
            self.assertEqual(step.advantages[G:], [0.0] * G)
        if self.LINE.log_hooks:
            self.assertEqual(set(step.metrics), set(METRIC_KEYS))
            self.assertEqual(step.metrics["minedit/call_failed"], 0.5)
            self.assertEqual(step.extra["minedit_verdict"][G:], ["CALL_FAILED"] * G)


class TrlV19Test(_LineContract, unittest.TestCase):
    """Mirrors trl/trainer/grpo_trainer.py at v1.9.0 (35def3ee): ``__init__`` (``reward_func_names`` from
    ``get_callable_name``, ``_has_async_funcs`` and ``start_event_loop_in_daemon``), ``_log_metric``,
    ``_log_completion_extra``, ``_calculate_rewards`` and ``_generate_and_score_completions`` (the
    unscorable mask, advantages, the sorted per-key flush, the completions table of ``log``); and
    trl/trainer/utils.py ``get_callable_name``, ``nanstd``, ``start_event_loop_in_daemon`` at 35def3ee."""

    LINE = V1_9
    CONVERSATIONAL = True

    def test_a_second_minedit_reward_under_its_own_name(self) -> None:
        process = self.process(reward(), minedit_cc)
        self.assertEqual(process.reward_func_names, ["minedit", "minedit_cc"])
        self.assertIs(pickle.loads(pickle.dumps(minedit_cc)), minedit_cc)
        step = run_step([process], [(TASK_ID, [GOLD, CORRUPTED, GOLD_PLUS, CORRUPTED])])
        self.assertEqual([r[1] for r in step.rewards_per_func][:2], [0.1, -0.2])

    def test_kwargs_from_dataset_rows_sync_first_then_async_on_the_daemon_loop(self) -> None:
        seen: List[Dict[str, Any]] = []

        def format_reward(prompts, completions, **kwargs):  # a sync reward function beside minedit's
            seen.append({"prompts": prompts, "completions": completions, **kwargs, "order": len(created)})
            return [1.0 if "```" in c[0]["content"] else 0.0 for c in completions]

        created: List[SandboxFaultClient] = []

        def factory():
            client = SandboxFaultClient(TARGET, token=TOKEN, timeout=60)
            created.append(client)
            return client

        process = self.process(format_reward, minedit_reward_func(client=factory))
        self.assertEqual(process.reward_func_names, ["format_reward", "minedit"])
        for _ in range(2):  # two steps on the same loop: one client
            run_step([process], [(TASK_ID, [GOLD, CORRUPTED, GOLD, CORRUPTED])])
        kwargs = seen[0]
        self.assertEqual(kwargs["order"], 0, "the sync function ran before the async one made its client")
        self.assertEqual(kwargs["task_id"], [TASK_ID] * G)  # dataset columns, repeated per generation
        self.assertEqual(kwargs["difficulty"], ["demo"] * G)
        self.assertNotIn("prompt", kwargs)
        self.assertEqual(len(kwargs["completion_ids"]), G)
        self.assertTrue(all(isinstance(i, int) for ids in kwargs["completion_ids"] for i in ids))
        self.assertIs(kwargs["trainer_state"], process.state)
        self.assertTrue(callable(kwargs["log_metric"]) and callable(kwargs["log_extra"]))
        self.assertEqual(len(created), 1)
        self.assertEqual(created[0].thread, "GRPOTrainer-AsyncLoop")

    def test_two_ranks_log_the_same_metric_keys(self) -> None:
        """Rank 0 has passing repairs, rank 1 none: both log the same keys, so the per-key flush pairs up,
        and no value is NaN. passed_excess_per_sample / pass_rate is the mean excess of the passing repairs
        over both ranks."""
        ranks = [self.process(reward(faulty={"2"})), self.process(reward())]
        corrupted_b = fence(OTHER_TASK["corrupted"])
        batches = [(TASK_ID, [GOLD, GOLD_PLUS, GOLD, CORRUPTED]), (OTHER_TASK["task_id"], [corrupted_b] * G)]
        step = run_step(ranks, batches)
        self.assertEqual(set(step.metrics), set(METRIC_KEYS))
        self.assertFalse(any(math.isnan(v) for v in step.metrics.values()), step.metrics)
        verdicts = ["PASSED", "PASSED", "INFRA_ERROR", "FAILED_TESTS"] + ["FAILED_TESTS"] * G
        self.assertEqual(step.extra["minedit_verdict"], verdicts)
        self.assertEqual(step.metrics["minedit/pass_rate"], (2 / 4 + 0) / 2)
        self.assertEqual(step.metrics["minedit/infra_error_rate"], (1 / 4 + 0) / 2)
        self.assertEqual(step.metrics["minedit/call_failed"], 0.0)
        self.assertTrue(0.0 <= step.metrics["minedit/cached_rate"] <= 1.0)
        excess = [e for e, v in zip(step.extra["minedit_excess"], step.extra["minedit_verdict"]) if v == "PASSED"]
        self.assertGreater(excess[1], 0.0)
        self.assertAlmostEqual(step.rewards_per_func[1][0], 0.1 - excess[1], places=12)
        ratio = step.metrics["minedit/passed_excess_per_sample"] / step.metrics["minedit/pass_rate"]
        self.assertAlmostEqual(ratio, statistics.mean(excess), places=12)
        # The completions table of `log`: pd.DataFrame of equal-length columns of strings and numbers.
        table = {"minedit": [r[0] for r in step.rewards_per_func], **step.extra, "advantage": step.advantages}
        self.assertEqual(set(step.extra), set(EXTRA_COLUMNS))
        self.assertEqual({len(v) for v in table.values()}, {2 * G})
        self.assertTrue(all(isinstance(v, str) for v in step.extra["minedit_verdict"]))
        self.assertTrue(all(v is None or isinstance(v, float) for v in step.extra["minedit_excess"]))

    def test_a_whole_group_of_sandbox_faults_is_masked(self) -> None:
        ranks = [self.process(reward()), self.process(reward())]
        step = run_step(ranks, [(TASK_ID, [GOLD, CORRUPTED] * 2), (INFRA_TASK_ID, [GOLD] * G)])
        self.assertTrue(all(math.isnan(r) for r in step.rewards[G:]))
        self.assertEqual(step.advantages[G:], [0.0] * G)
        self.assertAlmostEqual(nanmean(step.rewards), -0.05, places=12)  # TRL's logged `reward`
        self.assertEqual(step.metrics["minedit/infra_error_rate"], (0 + 1) / 2)

    def test_deadline_exceeded_is_transient(self) -> None:
        factory = functools.partial(SandboxFaultClient, TARGET, token=TOKEN, timeout=1.0)
        process = self.process(minedit_reward_func(client=factory))
        with self.assertLogs("minedit_client.trl", "WARNING") as logs:
            step = run_step([process], [(TASK_ID, [SLEEPER] * G)])
        self.assertIn("DEADLINE_EXCEEDED", logs.output[0])
        self.assertEqual(step.advantages, [0.0] * G)
        self.assertEqual(step.metrics["minedit/call_failed"], 1.0)

    def test_dataset_errors_raise(self) -> None:
        process = self.process(reward())
        with self.assertRaises(MineditError) as unknown:
            run_step([process], [("no/such-task", [GOLD] * G)])
        self.assertIn("NOT_FOUND", str(unknown.exception))
        self.assertIn("'task_id' column", str(unknown.exception))
        with self.assertRaises(MineditError) as empty:
            run_step([process], [("", [GOLD] * G)])
        self.assertIn("INVALID_ARGUMENT", str(empty.exception))
        with self.assertRaises(KeyError):
            asyncio.run(minedit_reward_func(TARGET)(prompts=["p"], completions=["c"], problem=[TASK_ID]))
        with self.assertRaises(TypeError):
            asyncio.run(minedit_reward_func(TARGET)(prompts=["p"], task_id=[TASK_ID]))

    def test_beside_another_reward_function_none_counts_as_zero(self) -> None:
        """A row is masked only when EVERY reward function returns None: beside another function, minedit's
        None is 0 in the weighted sum even on TRL >= 1.6, and infra_error="group_mean" is the fix."""

        def format_reward(completions, **kwargs):
            return [0.0 for _ in completions]

        batch = [(TASK_ID, [GOLD, CORRUPTED, GOLD, CORRUPTED])]
        none = run_step([self.process(format_reward, reward(faulty={"2"}))], batch)
        self.assertEqual(none.rewards[2], 0.0)
        self.assertGreater(none.advantages[2], none.advantages[1])
        group_mean = run_step([self.process(format_reward, reward(faulty={"2"}, infra_error="group_mean"))], batch)
        self.assertAlmostEqual(group_mean.advantages[2], 0.0, places=9)


class TrlV16Test(_LineContract, unittest.TestCase):
    """Mirrors trl/trainer/grpo_trainer.py ``_calculate_rewards`` and ``_generate_and_score_completions`` at
    v1.6.0 (0dac4405), the first release that masks unscorable rows (every reward NaN: out of the group
    mean / std, advantage 0); ``reward_func_names`` from ``__name__``."""

    LINE = V1_6
    CONVERSATIONAL = True


class TrlV15Test(_LineContract, unittest.TestCase):
    """Mirrors trl/trainer/grpo_trainer.py ``_calculate_rewards`` and ``_generate_and_score_completions`` at
    v1.5.1 (32efb4b0), the v1.0-v1.5 line: log hooks, None -> NaN, but ``nansum`` then plain mean / std, so
    an all-None row scores 0.0 and takes part in the group baseline."""

    LINE = V1_5
    CONVERSATIONAL = False

    def test_a_number_for_infra_errors(self) -> None:
        step = run_step([self.process(reward(faulty={"2"}, infra_error=-0.05))], [(TASK_ID, [GOLD, CORRUPTED] * 2)])
        self.assertEqual([r[0] for r in step.rewards_per_func], [0.1, -0.2, -0.05, -0.2])


class TrlV027Test(_LineContract, unittest.TestCase):
    """Mirrors trl/trainer/grpo_trainer.py ``__init__`` and ``_calculate_rewards`` at v0.27.0 (17acd61f), the
    first release with async reward functions (``asyncio.iscoroutinefunction``, the daemon loop
    ``async_reward_loop``), without log hooks; and, for the floor, the sync-only ``_calculate_rewards`` of
    v0.26.2 (8c26b7d0)."""

    LINE = V0_27
    CONVERSATIONAL = False


# --- AsyncGRPOTrainer ----------------------------------------------------------------------------------


async def score_group(reward_funcs, group: Dict[str, Any]):
    """``_AsyncRolloutLoop._score_group``: every reward function once per prompt group, WITHOUT
    trainer_state and the log hooks; None -> NaN; all-NaN rows are unscored, advantage 0; the others are
    normalized over the scored rows (population std, + 1e-8)."""
    kwargs = dict(
        completions=group["completions"],
        prompts=group["prompts"],
        completion_ids=group["completion_ids"],
        **group["reward_kwargs"],
    )
    outputs = await asyncio.gather(
        *[f(**kwargs) if inspect.iscoroutinefunction(f) else asyncio.to_thread(f, **kwargs) for f in reward_funcs]
    )
    all_rewards = [[NAN if r is None else r for r in out] for out in outputs]
    rewards = [sum(x for x in col if not math.isnan(x)) for col in zip(*all_rewards)]
    rewards = [NAN if all(math.isnan(x) for x in col) else r for r, col in zip(rewards, zip(*all_rewards))]
    scored = [r for r in rewards if not math.isnan(r)]
    mean = statistics.fmean(scored)
    std = statistics.pstdev(scored)
    advantages = [0.0 if math.isnan(r) else (r - mean) / (std + 1e-8) for r in rewards]
    return rewards, advantages


def rollout_child(loop_kwargs: Dict[str, Any], out: Any) -> None:
    """The spawned child of ``AsyncRolloutWorker``: names the reward functions and scores one group."""
    # Popped, not read: the Process object keeps its arguments until the interpreter finalizes, and a
    # grpc.aio channel destroyed that late prints an error.
    funcs = loop_kwargs.pop("reward_funcs")
    prompt = [{"role": "user", "content": "Fix the bug"}]
    texts = [GOLD, CORRUPTED, GOLD, CORRUPTED]
    group = {
        "prompts": [prompt] * G,
        "completions": [[{"role": "assistant", "content": t}] for t in texts],
        "completion_ids": [[1, 2, 3]] * G,
        "reward_kwargs": {key: [value] * G for key, value in {"task_id": TASK_ID, "difficulty": "demo"}.items()},
    }

    async def rollout_loop():
        try:
            return await score_group(funcs, group)
        finally:  # close the channels before the child exits
            await SandboxFaultClient.close_in_loop()

    rewards, advantages = asyncio.run(rollout_loop())
    out.put({"names": [get_callable_name(f) for f in funcs], "dunder": [f.__name__ for f in funcs],
             "rewards": rewards, "advantages": advantages})


class AsyncGrpoV19Test(unittest.TestCase):
    """Mirrors trl/experimental/async_grpo/async_rollout_worker.py at v1.9.0 (35def3ee):
    ``AsyncRolloutWorker.start`` (``pickle.dumps`` of the loop kwargs, a ``spawn`` child process),
    ``_AsyncRolloutLoop.__init__`` (``reward_func_names`` from ``get_callable_name``; v1.6.0 0dac4405 used
    ``__name__``) and ``_AsyncRolloutLoop._score_group``."""

    def test_pickles_into_a_spawned_child_and_scores_a_group(self) -> None:
        func = reward(faulty={"2"}, name="edit_reward")
        loop_kwargs = {"reward_funcs": [func]}
        pickle.dumps(loop_kwargs)  # what start() checks first
        self.assertTrue(inspect.iscoroutinefunction(pickle.loads(pickle.dumps(func))))
        ctx = multiprocessing.get_context("spawn")
        out = ctx.Queue()
        child = ctx.Process(target=rollout_child, args=(loop_kwargs, out), daemon=True)
        child.start()
        try:
            result = None
            while result is None:  # like start(), poll the child's liveness instead of waiting blind
                try:
                    result = out.get(timeout=1.0)
                except queue.Empty:
                    self.assertTrue(child.is_alive(), f"the child exited with {child.exitcode} (its stderr is above)")
        finally:
            child.join(timeout=30)
        self.assertEqual(child.exitcode, 0)
        self.assertEqual(result["names"], ["minedit"])  # v1.9
        self.assertEqual(result["dunder"], ["edit_reward"])  # v1.6-v1.8 (__name__ survives pickling)
        self.assertEqual(result["rewards"][0:2] + result["rewards"][3:], [0.1, -0.2, -0.2])
        self.assertTrue(math.isnan(result["rewards"][2]))
        self.assertEqual(result["advantages"][2], 0.0)

    def test_called_without_trainer_state_and_log_hooks(self) -> None:
        group = {
            "prompts": ["p"] * G,
            "completions": [GOLD, CORRUPTED, GOLD, CORRUPTED],
            "completion_ids": [[1]] * G,
            "reward_kwargs": {"task_id": [TASK_ID] * G, "prompt": ["p"] * G},  # v1.6.0 also passed prompt=
        }

        async def rollout_loop():
            try:
                return await score_group([reward()], group)
            finally:
                await SandboxFaultClient.close_in_loop()

        rewards, advantages = asyncio.run(rollout_loop())
        self.assertEqual(rewards, [0.1, -0.2, 0.1, -0.2])
        self.assertAlmostEqual(advantages[0], 1.0, places=6)


if __name__ == "__main__":
    unittest.main()
