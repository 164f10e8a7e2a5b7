"""Contract tests of minedit_client.verl against verl's own calling code, against the real server.

verl and torch cannot be installed here, so each class reproduces, in plain Python (numpy arrays for
tensors), what one verl version's reward manager does with a custom reward function: how it is loaded, how
it is called (keywords or positions, per sample or per batch, awaited, in a thread pool or in a process
pool), and what is done with the result. Each class docstring names the upstream file and commit it
mirrors; the YAML fixtures in fixtures/verl/ are verl's flattened trainer configs at those commits, against
which the example command lines are checked. Setup: Debian's python3-numpy (verl hands numpy object
arrays) and python3-yaml (the fixtures); scripts/ensure-system.sh installs them.

Over ~500 lines because it mirrors five managers of two verl lines; splitting it would scatter the mirrors
of one verl call path over several files.
"""

import asyncio
import importlib
import importlib.util
import inspect
import math
import multiprocessing
import os
import pickle
import random
import re
import socket
import sys
import unittest
from concurrent.futures import ProcessPoolExecutor
from functools import partial

import numpy as np
import yaml

from contract_support import script_argv
from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, INFRA_TASK_ID, TARGET, TASK_ID, TASKS, TOKEN, fence
from minedit_client import MineditClient, Rollout, _adapt, settings_from_env
from minedit_client import verl as minedit_verl

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples", "verl")
FIXTURES = os.path.join(HERE, "fixtures", "verl")
REWARD_FILE = os.path.join(EXAMPLES, "minedit_reward.py")
KEYS = set(minedit_verl.RESULT_KEYS)
# What verl users pass: the server through reward kwargs (they reach every Ray worker).
REWARD_KWARGS = {"minedit_target": TARGET, "minedit_token": TOKEN}


# ---- verl's data in plain Python: DataProto rows, a tokenizer with special tokens -----------------------


class Tokenizer:
    """A word-piece stand-in for a Hugging Face tokenizer; ids 0 and 1 are the special ``<pad>`` and
    ``<|im_end|>``, which ``skip_special_tokens=True`` drops."""

    SPECIAL = (0, 1)

    def __init__(self) -> None:
        self.vocab = ["<pad>", "<|im_end|>"]
        self.ids = {}

    def encode(self, text):
        ids = []
        for piece in re.findall(r"\s+|\S+", text):
            if piece not in self.ids:
                self.ids[piece] = len(self.vocab)
                self.vocab.append(piece)
            ids.append(self.ids[piece])
        return ids

    def decode(self, ids, skip_special_tokens=False):
        return "".join(self.vocab[i] for i in ids if not (skip_special_tokens and i in self.SPECIAL))

    def batch_decode(self, rows, skip_special_tokens=False):
        return [self.decode(row, skip_special_tokens=skip_special_tokens) for row in rows]


class DataProto:
    """verl.protocol.DataProto's shape: ``batch`` (tensors, here numpy arrays with a leading batch axis)
    and ``non_tensor_batch`` (numpy object arrays); ``data[i]`` is one item, ``data[i:j]`` a DataProto."""

    def __init__(self, batch, non_tensor_batch):
        self.batch, self.non_tensor_batch = batch, non_tensor_batch

    def __len__(self):
        return len(self.batch["responses"])

    def __getitem__(self, item):
        if isinstance(item, int):
            return DataProto(
                {k: v[item] for k, v in self.batch.items()}, {k: v[item] for k, v in self.non_tensor_batch.items()}
            )
        return self.select(range(len(self))[item])

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def select(self, indices):
        indices = list(indices)
        return DataProto(
            {k: v[indices] for k, v in self.batch.items()}, {k: v[indices] for k, v in self.non_tensor_batch.items()}
        )


def make_batch(tokenizer, prompts, prompt_length=24, response_length=None):
    """The batch verl builds for GRPO: ``prompts`` is ``[(task_id, [completion] * n)]``; the n samples of
    a prompt share ONE extra_info dict (``np.repeat`` of an object array, as ``batch.repeat`` does), the
    responses end with ``<|im_end|>`` and are right-padded, the prompts left-padded."""
    rows = []
    for index, (task_id, completions) in enumerate(prompts):
        extra_info = {"split": "train", "index": index, "task_id": task_id}
        reward_model = {"style": "rule", "ground_truth": task_id}
        prompt_ids = tokenizer.encode(f"Repair task {task_id} with the smallest change.")[-prompt_length:]
        for completion in completions:
            rows.append((prompt_ids, tokenizer.encode(completion) + [1], reward_model, extra_info))
    width = response_length or max(len(r[1]) for r in rows)
    prompts_arr = np.zeros((len(rows), prompt_length), dtype=np.int64)
    responses = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros((len(rows), prompt_length + width), dtype=np.int64)
    for i, (p, r, _, _) in enumerate(rows):
        prompts_arr[i, prompt_length - len(p) :] = p
        responses[i, : len(r)] = r
        mask[i, prompt_length - len(p) : prompt_length] = 1
        mask[i, prompt_length : prompt_length + len(r)] = 1

    def objects(values):
        array = np.empty(len(values), dtype=object)
        array[:] = values
        return array

    return DataProto(
        {"prompts": prompts_arr, "responses": responses, "attention_mask": mask},
        {
            "data_source": objects(["minedit"] * len(rows)),
            "reward_model": objects([r[2] for r in rows]),
            "extra_info": objects([r[3] for r in rows]),
        },
    )


def completions_for(task):
    """Eight samples of one prompt: passing repairs near and far from the gold one, a failing one, prose
    without code, a program that does not parse."""
    gold = "Here is the repair:\n" + fence(task["gold"])
    farther = fence(task["gold"] + "\n_minedit_unused = [1, 2, 3]\n")
    failing, unparsable = fence(task["corrupted"]), fence("def broken(:\n    pass\n")
    return [gold, failing, farther, "I could not find the bug.", gold, failing, unparsable, farther]


def step_prompts(count):
    """``count`` GRPO prompts over seven demo tasks and the INFRA_ERROR task."""
    tasks = [{"task_id": t["task_id"], "gold": t["gold"], "corrupted": t["corrupted"]} for t in TASKS[:7]]
    tasks.append({**BROKEN_INLINE_TASK, "task_id": INFRA_TASK_ID})  # the same programs as the stored task
    return [(tasks[k % len(tasks)]["task_id"], completions_for(tasks[k % len(tasks)])) for k in range(count)]


_alone = {}


def scored_alone(completion, task_id):
    """The documented dict of one sample, from its own single-rollout ScoreBatch (the oracle)."""
    key = (completion, task_id)
    if key not in _alone:
        client = MineditClient(TARGET, token=TOKEN, timeout=120)
        try:
            [r] = client.score_batch([Rollout(id="alone", completion=completion, task_id=task_id)])
        finally:
            client.close()
        c = r.components
        _alone[key] = {
            "score": r.reward if r.reward is not None else -0.2,
            "passed": 1.0 if r.verdict == "PASSED" else 0.0,
            "infra_error": 1.0 if r.verdict == "INFRA_ERROR" else 0.0,
            "invalid_task": 1.0 if r.verdict == "INVALID_TASK" else 0.0,
            "call_failed": 0.0,
            "excess": c.excess if c else 0.0,
            "d_model": c.d_model if c else 0.0,
            "d_gold": c.d_gold if c else 0.0,
            "tests_passed": float(r.tests_passed),
            "tests_total": float(r.tests_total),
        }
    return _alone[key]


def assert_verl_dicts(test, dicts):
    """What verl needs of the dicts of one step: a number under "score", the same keys everywhere
    (agent_loop.py collects ``list(infos[0].keys())`` from every sample), all finite numbers."""
    keys = list(dicts[0].keys())
    for d in dicts:
        test.assertEqual(set(d), KEYS)
        test.assertTrue(all(isinstance(v, float) and math.isfinite(v) for v in d.values()), d)
    columns = {key: np.array([info[key] for info in dicts]) for key in keys}
    test.assertTrue(all(c.dtype == np.float64 for c in columns.values()))


# ---- verl >= 0.7.1: loading (verl/utils/import_utils.py, verl/trainer/ppo/reward.py) ---------------------


def load_module_v09(module_path):
    """load_module: ``pkg://a.b`` is imported as a package; a file path (or ``file://``) runs in a fresh
    module named custom_module_<hash> that is NOT put in sys.modules."""
    if module_path.startswith("pkg://"):
        return importlib.import_module(module_path[len("pkg://") :].replace("/", "."))
    if module_path.startswith("file://"):
        module_path = module_path[len("file://") :]
    if not os.path.exists(module_path):
        raise FileNotFoundError(f"Custom module file not found: {module_path=}")
    spec = importlib.util.spec_from_file_location(f"custom_module_{hash(os.path.abspath(module_path))}", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_extern_object_v09(module_path, object_name):
    module = load_module_v09(module_path)
    if not hasattr(module, object_name):
        raise AttributeError(f"Object not found in module: {object_name=}, {module_path=}.")
    return getattr(module, object_name)


def call_with_kwargs(raw_fn, extra_kwargs, *args, **kwargs):
    """reward.py _call_with_kwargs (same at v0.6.1): the config's reward_kwargs win over call-time kwargs."""
    return raw_fn(*args, **{**kwargs, **extra_kwargs})


async def call_with_kwargs_async(raw_fn, extra_kwargs, *args, **kwargs):
    return await raw_fn(*args, **{**kwargs, **extra_kwargs})


def get_custom_reward_fn_v09(config):
    """reward.py get_custom_reward_fn: the wrapper is a coroutine function exactly when the loaded
    object is one (``inspect.iscoroutinefunction``)."""
    fn_config = config["reward"].get("custom_reward_function") or {}
    if not fn_config.get("path"):
        return None
    raw_fn = load_extern_object_v09(fn_config["path"], fn_config["name"])
    reward_kwargs = dict(fn_config.get("reward_kwargs", {}))
    if not inspect.iscoroutinefunction(raw_fn):
        return partial(call_with_kwargs, raw_fn, reward_kwargs)
    return partial(call_with_kwargs_async, raw_fn, reward_kwargs)


def reward_config(name, path="pkg://minedit_client.verl", **reward):
    return {
        "reward": {
            "num_workers": 8,
            "custom_reward_function": {"path": path, "name": name, "reward_kwargs": dict(REWARD_KWARGS)},
            "reward_manager": {"source": "register", "name": "naive"},
            **reward,
        }
    }


# ---- verl >= 0.7.1: the reward loop's managers (verl/experimental/reward_loop/) --------------------------


class NaiveRewardManagerV09:
    """reward_manager/naive.py NaiveRewardManager at v0.9.0 (the call is the same at v0.7.1 and v0.8.0)."""

    def __init__(self, config, tokenizer, compute_score, reward_router_address=None, reward_model_tokenizer=None):
        self.config, self.tokenizer, self.compute_score = config, tokenizer, compute_score
        self.loop = asyncio.get_event_loop()  # RewardManagerBase: verl.utils.ray_utils.get_event_loop()
        self.is_async_reward_score = inspect.iscoroutinefunction(self.compute_score)
        self.reward_router_address = reward_router_address
        self.reward_model_tokenizer = reward_model_tokenizer

    async def run_single(self, data):
        data = data[-1:]
        item = data[0]
        response_ids = item.batch["responses"]
        valid_response_length = item.batch["attention_mask"][-response_ids.shape[-1] :].sum()
        valid_response_ids = response_ids[:valid_response_length]
        data_source = item.non_tensor_batch["data_source"]
        ground_truth = item.non_tensor_batch["reward_model"]["ground_truth"]
        extra_info = item.non_tensor_batch.get("extra_info", {})
        tool_extra_fields = item.non_tensor_batch.get("tool_extra_fields", None)
        if tool_extra_fields is not None:
            extra_info.update(tool_extra_fields.items())
        extra_info["num_turns"] = item.non_tensor_batch.get("__num_turns__", None)
        extra_info["rollout_reward_scores"] = item.non_tensor_batch.get("reward_scores", {})
        response_str = await self.loop.run_in_executor(
            None, lambda: self.tokenizer.decode(valid_response_ids, skip_special_tokens=True)
        )
        extra = (
            {"reward_router_address": self.reward_router_address, "reward_model_tokenizer": self.reward_model_tokenizer}
            if self.reward_router_address is not None
            else {}
        )
        call = dict(data_source=data_source, solution_str=response_str, ground_truth=ground_truth)
        call.update(extra_info=extra_info, **extra)
        if self.is_async_reward_score:
            result = await self.compute_score(**call)
        else:
            result = await self.loop.run_in_executor(None, lambda: self.compute_score(**call))
        reward_extra_info = {}
        if isinstance(result, dict):
            score = result["score"]
            for key, value in result.items():
                reward_extra_info[key] = value
        else:
            score = result
            reward_extra_info["acc"] = score
        return {"reward_score": score, "reward_extra_info": reward_extra_info}


class RateLimitedRewardManagerV09(NaiveRewardManagerV09):
    """reward_manager/limited.py RateLimitedRewardManager.run_single at v0.9.0: a semaphore of
    ``reward.max_concurrent`` (default 1) and ``asyncio.wait_for(..., reward.timeout)`` (default 300 s);
    a timeout scores 0.0 with the extras ``timeout``/``acc``, any exception 0.0 with ``error``/``acc``. No
    num_turns / rollout_reward_scores in extra_info. (verl's limiters are class-wide; per instance here.)"""

    def __init__(self, config, tokenizer, compute_score):
        super().__init__(config, tokenizer, compute_score)
        self.semaphore = asyncio.Semaphore(config["reward"].get("max_concurrent", 1))
        self.timeout = config["reward"].get("timeout", 300.0)

    async def run_single(self, data):
        item = data[-1:][0]
        response_ids = item.batch["responses"]
        valid = response_ids[: item.batch["attention_mask"][-response_ids.shape[-1] :].sum()]
        extra_info = item.non_tensor_batch.get("extra_info", {})
        response_str = await self.loop.run_in_executor(
            None, lambda: self.tokenizer.decode(valid, skip_special_tokens=True)
        )
        call = dict(
            data_source=item.non_tensor_batch["data_source"],
            solution_str=response_str,
            ground_truth=item.non_tensor_batch["reward_model"]["ground_truth"],
            extra_info=extra_info,
        )

        async def compute():
            if self.is_async_reward_score:
                return await self.compute_score(**call)
            return await self.loop.run_in_executor(None, lambda: self.compute_score(**call))

        reward_extra_info = {}
        async with self.semaphore:
            try:
                result = await asyncio.wait_for(compute(), timeout=self.timeout)
                score = result["score"] if isinstance(result, dict) else result
                reward_extra_info.update(result if isinstance(result, dict) else {"acc": score})
            except asyncio.TimeoutError:
                score = 0.0
                reward_extra_info.update(timeout=True, acc=0.0)
            except Exception as e:
                score = 0.0
                reward_extra_info.update(error=str(e), acc=0.0)
        return {"reward_score": score, "reward_extra_info": reward_extra_info}


def reward_loop_worker(config, tokenizer, chunk, out):
    """One RewardLoopWorker actor (reward_loop.py at v0.9.0), in its own process as Ray runs it: loads the
    reward function through the config (_init_reward_fn -> load_reward_manager -> get_custom_reward_fn),
    then scores its samples concurrently on its event loop, one run_single each (compute_score_batch's
    asyncio.gather; the streaming path sends the same calls one .remote() at a time)."""

    async def main():
        manager = NaiveRewardManagerV09(config, tokenizer, get_custom_reward_fn_v09(config))
        outputs = await asyncio.gather(*(manager.run_single(chunk[i : i + 1]) for i in range(len(chunk))))
        return manager.is_async_reward_score, outputs

    is_async, outputs = asyncio.run(main())
    stats = minedit_verl.coalescing_scorer(**REWARD_KWARGS).stats
    out.put((os.getpid(), is_async, outputs, list(chunk.non_tensor_batch["extra_info"]), stats.calls, stats.rollouts))


def run_reward_loop(test, fn_name, workers=8, per_worker=64):
    """A step of ``workers`` x ``per_worker`` samples: GRPO groups of 8, each sample sent to a random
    worker (agent_loop.py: ``random.choice(self.reward_loop_worker_handles)``), every worker a process."""
    tokenizer = Tokenizer()
    data = make_batch(tokenizer, step_prompts(workers * per_worker // 8))
    order = list(range(len(data)))
    random.Random(7).shuffle(order)
    chunks = [sorted(order[w * per_worker : (w + 1) * per_worker]) for w in range(workers)]
    context = multiprocessing.get_context("spawn")  # a Ray actor is a fresh interpreter, not a fork
    out = context.Queue()
    config = reward_config(fn_name)
    processes = [
        context.Process(target=reward_loop_worker, args=(config, tokenizer, data.select(c), out)) for c in chunks
    ]
    for p in processes:
        p.start()
    try:
        reports = [out.get(timeout=300) for _ in processes]
    finally:
        for p in processes:
            p.join(timeout=60)
    test.assertEqual(len({r[0] for r in reports}), workers)
    results, calls = [], 0
    for _, is_async, outputs, extra_infos, worker_calls, rollouts in reports:
        test.assertEqual(is_async, fn_name == "compute_score")
        test.assertEqual(rollouts, per_worker)
        calls += worker_calls
        for output, extra_info in zip(outputs, extra_infos):
            test.assertEqual(output["reward_score"], output["reward_extra_info"]["score"])
            # verl's own fields were added to the shared dict; ours were left alone.
            test.assertEqual(extra_info["rollout_reward_scores"], {})
            test.assertIn("num_turns", extra_info)
            results.append((extra_info["task_id"], output["reward_extra_info"]))
    return data, reports, results, calls


class ReplayBufferV09:
    """What happens to one prompt group after its sessions settle, at v0.9.0 483b8a00:
    verl/trainer/ppo/v1/agent_loop_tq.py ``_run_prompt`` (gather(return_exceptions=True); a session that
    raised puts no trajectory in TransferQueue; the prompt's status is ``failure`` when any session raised,
    else ``finished``) and verl/trainer/ppo/v1/replay_buffer.py: ``ReplayBuffer._terminal_eviction_reasons``
    (sync: failed groups are evicted only with ``sync_refill_failed_groups`` AND when none of their
    trajectories materialized), ``ReplayBufferAsync._terminal_eviction_reasons`` (async modes: every failed
    group is evicted), ``_sampleable_terminal_keys`` and ``_evict_terminal_groups`` (evicted groups are
    cleared and refilled with exactly as many fresh prompts)."""

    def __init__(self, trainer_mode, sync_refill_failed_groups=False):
        self.trainer_mode = trainer_mode
        self.sync_refill_failed_groups = sync_refill_failed_groups
        self.finished_keys, self.failure_keys = set(), set()
        self.partitions = {}  # "{uid}_{session_id}_{index}" -> reward of the trajectory
        self.refilled = 0

    def settle_prompt(self, uid, session_outcomes):
        for session_id, outcome in enumerate(session_outcomes):
            if not isinstance(outcome, BaseException):
                self.partitions[f"{uid}_{session_id}_0"] = outcome["reward_score"]
        failed = any(isinstance(o, BaseException) for o in session_outcomes)
        (self.failure_keys if failed else self.finished_keys).add(uid)

    def _failed_uids(self):
        if self.trainer_mode != "sync":
            return set(self.failure_keys)  # ReplayBufferAsync
        if not self.sync_refill_failed_groups:
            return set()
        materializable_uids = {key.split("_")[0] for key in self.partitions}
        return self.failure_keys - materializable_uids

    def sampleable(self):
        evicted = self._failed_uids()
        self.refilled += len(evicted)
        keep = (self.finished_keys | self.failure_keys) - evicted
        trained = {}
        for key, reward in sorted(self.partitions.items()):
            uid = key.split("_")[0]
            if uid in keep:
                trained.setdefault(uid, []).append(reward)
        return trained


class V090NaiveRewardLoopTest(unittest.TestCase):
    """Mirrors verl/experimental/reward_loop/reward_manager/naive.py NaiveRewardManager.run_single and
    verl/experimental/reward_loop/reward_loop.py RewardLoopWorker (8 workers) at v0.9.0 483b8a00 (the
    same call at v0.7.1 bec9ef74 and v0.8.0 7aed6b23), the key collection of
    verl/experimental/agent_loop/agent_loop.py, and the V1 session settling of
    verl/trainer/ppo/v1/agent_loop_tq.py _run_prompt at v0.9.0."""

    def check_step(self, fn_name):
        data, reports, results, calls = run_reward_loop(self, fn_name)
        dicts = [d for _, d in results]
        assert_verl_dicts(self, dicts)
        # Every sample equals its own single-rollout score: the coalescing changes nothing.
        expected = []
        for task_id, completions in step_prompts(len(data) // 8):
            expected.extend(scored_alone(c, task_id) for c in completions)
        got = sorted((tuple(sorted(d.items())) for d in dicts))
        want = sorted((tuple(sorted(d.items())) for d in expected))
        self.assertEqual(got, want)
        self.assertIn(-0.2, [d["score"] for d in dicts if d["infra_error"] == 1.0])
        return len(dicts), calls

    def test_async_compute_score_eight_workers_share_few_batches(self) -> None:
        samples, calls = self.check_step("compute_score")
        print(f"verl 0.9 naive, async compute_score: {samples} samples in {calls} ScoreBatch calls (8 workers)")
        self.assertLessEqual(calls, samples // 8)

    def test_sync_compute_score_in_the_loops_thread_pool(self) -> None:
        samples, calls = self.check_step("compute_score_sync")
        print(f"verl 0.9 naive, compute_score_sync in run_in_executor: {samples} samples in {calls} ScoreBatch calls")
        self.assertLess(calls, samples // 2)

    def run_sessions(self, ground_truths, **reward_kwargs):
        """One prompt's n sessions as the V1 agent loop settles them: gather(return_exceptions=True);
        a session that raised writes no trajectory, the others do."""
        tokenizer = Tokenizer()
        data = make_batch(tokenizer, [(g, [GOLD]) for g in ground_truths])
        config = reward_config("compute_score")
        config["reward"]["custom_reward_function"]["reward_kwargs"].update(reward_kwargs)

        async def main():
            manager = NaiveRewardManagerV09(config, tokenizer, get_custom_reward_fn_v09(config))
            tasks = [asyncio.create_task(manager.run_single(data[i : i + 1])) for i in range(len(data))]
            return await asyncio.gather(*tasks, return_exceptions=True)

        return asyncio.run(main())

    def test_infra_error_scores_the_failure_reward_by_default(self) -> None:
        outcomes = self.run_sessions([TASK_ID, INFRA_TASK_ID])
        self.assertEqual([o["reward_score"] for o in outcomes], [0.1, -0.2])
        self.assertEqual([o["reward_extra_info"]["infra_error"] for o in outcomes], [0.0, 1.0])
        custom = self.run_sessions([INFRA_TASK_ID], infra_error_score=-0.5)
        self.assertEqual(custom[0]["reward_score"], -0.5)

    def test_raise_on_v1_sync_masks_that_sample_and_on_v1_async_replaces_the_group(self) -> None:
        # Two prompts of n=3 sessions: one whose sessions all score, one with an INFRA_ERROR session.
        clean = self.run_sessions([TASK_ID, TASK_ID, TASK_ID], on_infra_error="raise")
        broken = self.run_sessions([TASK_ID, INFRA_TASK_ID, TASK_ID], on_infra_error="raise")
        self.assertIsInstance(broken[1], minedit_verl.InfraError)
        groups = {"clean": clean, "broken": broken}
        for mode, expected in (
            ("sync", {"clean": [0.1] * 3, "broken": [0.1, 0.1]}),
            ("colocate_async", {"clean": [0.1] * 3}),
            ("separate_async", {"clean": [0.1] * 3}),
        ):
            for refill in (False, True):
                with self.subTest(mode=mode, sync_refill_failed_groups=refill):
                    buffer = ReplayBufferV09(mode, sync_refill_failed_groups=refill)
                    for uid, outcomes in groups.items():
                        buffer.settle_prompt(uid, outcomes)
                    trained = buffer.sampleable()
                    self.assertEqual(trained, expected)
                    # The sample that raised is never trained on, with any reward: no made-up signal.
                    self.assertEqual(sum(len(v) for v in trained.values()), sum(len(v) for v in expected.values()))
                    # Async modes refill exactly the groups they evicted with fresh prompts.
                    self.assertEqual(buffer.refilled, 0 if mode == "sync" else 1)

    def test_the_legacy_agent_loop_stops_on_a_raise(self) -> None:
        """verl/experimental/agent_loop/agent_loop.py at v0.9.0 (trainer.use_v1=false; the same in 0.7.1 and
        0.8.0): ``await asyncio.gather(*tasks)`` without return_exceptions."""
        tokenizer = Tokenizer()
        data = make_batch(tokenizer, [(g, [GOLD]) for g in (TASK_ID, INFRA_TASK_ID)])
        config = reward_config("compute_score")
        config["reward"]["custom_reward_function"]["reward_kwargs"]["on_infra_error"] = "raise"

        async def main():
            manager = NaiveRewardManagerV09(config, tokenizer, get_custom_reward_fn_v09(config))
            return await asyncio.gather(*(manager.run_single(data[i : i + 1]) for i in range(len(data))))

        with self.assertRaises(minedit_verl.InfraError):
            asyncio.run(main())

    def test_an_unreachable_server_counts_as_infra_error(self) -> None:
        with self.assertLogs("minedit_client.verl", "WARNING") as logs:
            outcomes = self.run_sessions([TASK_ID] * 4, minedit_target="127.0.0.1:9", minedit_timeout=3)
        self.assertIn("counts as INFRA_ERROR", logs.output[0])
        assert_verl_dicts(self, [o["reward_extra_info"] for o in outcomes])
        self.assertEqual({(o["reward_score"], o["reward_extra_info"]["call_failed"]) for o in outcomes}, {(-0.2, 1.0)})

    def test_extra_kwargs_of_a_reward_router_are_absorbed(self) -> None:
        tokenizer = Tokenizer()
        data = make_batch(tokenizer, [(TASK_ID, [GOLD, CORRUPTED])])
        config = reward_config("compute_score")

        async def main():
            manager = NaiveRewardManagerV09(
                config,
                tokenizer,
                get_custom_reward_fn_v09(config),
                reward_router_address="127.0.0.1:1",
                reward_model_tokenizer=object(),
            )
            return await asyncio.gather(*(manager.run_single(data[i : i + 1]) for i in range(2)))

        self.assertEqual([o["reward_score"] for o in asyncio.run(main())], [0.1, -0.2])


class V090RewardFunctionLoaderTest(unittest.TestCase):
    """Mirrors verl/utils/import_utils.py load_module / load_extern_object and verl/trainer/ppo/reward.py
    get_custom_reward_fn at v0.9.0 483b8a00 (identical at v0.7.1 bec9ef74 and v0.8.0 7aed6b23)."""

    def test_pkg_path_and_name(self) -> None:
        fn = load_extern_object_v09("pkg://minedit_client.verl", "compute_score")
        self.assertIs(fn, minedit_verl.compute_score)
        self.assertTrue(inspect.iscoroutinefunction(fn))
        self.assertTrue(inspect.iscoroutinefunction(get_custom_reward_fn_v09(reward_config("compute_score"))))
        self.assertFalse(inspect.iscoroutinefunction(get_custom_reward_fn_v09(reward_config("compute_score_sync"))))

    def test_file_path_and_file_url(self) -> None:
        before = set(sys.modules)
        for path in (REWARD_FILE, "file://" + REWARD_FILE):
            for name in ("compute_score", "compute_score_sync", "compute_score_batch", "compute_score_prime"):
                fn = load_extern_object_v09(path, name)
                self.assertIs(fn, getattr(minedit_verl, name))
                self.assertEqual(inspect.iscoroutinefunction(fn), name == "compute_score")
        self.assertFalse([m for m in set(sys.modules) - before if m.startswith("custom_module")])
        with self.assertRaises(AttributeError):
            load_extern_object_v09("pkg://minedit_client.verl", "no_such_function")

    def test_remote_manager_takes_the_sync_function_pickled(self) -> None:
        # reward_manager/remote.py RemoteRewardManager: asserts the wrapper is not a coroutine function,
        # then ships it pickled into RewardComputeWorker actors (a fresh process each), which call it
        # with keywords one sample at a time.
        self.assertTrue(inspect.iscoroutinefunction(get_custom_reward_fn_v09(reward_config("compute_score"))))
        wrapped = get_custom_reward_fn_v09(reward_config("compute_score_sync"))
        self.assertFalse(inspect.iscoroutinefunction(wrapped))
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as actor:
            call = actor.submit(wrapped, data_source="minedit", solution_str=GOLD, ground_truth=TASK_ID, extra_info={})
            result = call.result(timeout=120)
        self.assertEqual(result, scored_alone(GOLD, TASK_ID))


class V090RateLimitedRewardManagerTest(unittest.TestCase):
    """Mirrors verl/experimental/reward_loop/reward_manager/limited.py RateLimitedRewardManager.run_single
    at v0.9.0 483b8a00 (semaphore of reward.max_concurrent, asyncio.wait_for with reward.timeout)."""

    def test_samples_within_max_concurrent_share_batches(self) -> None:
        tokenizer = Tokenizer()
        data = make_batch(tokenizer, step_prompts(8))
        config = reward_config("compute_score", max_concurrent=64, timeout=300.0)
        scorer = minedit_verl.coalescing_scorer(**REWARD_KWARGS)
        before = scorer.stats.calls

        async def main():
            manager = RateLimitedRewardManagerV09(config, tokenizer, get_custom_reward_fn_v09(config))
            return await asyncio.gather(*(manager.run_single(data[i : i + 1]) for i in range(len(data))))

        outputs = asyncio.run(main())
        assert_verl_dicts(self, [o["reward_extra_info"] for o in outputs])
        expected = [scored_alone(c, t) for t, cs in step_prompts(8) for c in cs]
        self.assertEqual([o["reward_extra_info"] for o in outputs], expected)
        self.assertLessEqual(scorer.stats.calls - before, 4)

    def test_a_timed_out_caller_does_not_stall_its_batch(self) -> None:
        # Two managers on one loop share the process's coalescer; the first one's timeout cancels its
        # calls while they wait in the same 300 ms window as the second one's.
        tokenizer = Tokenizer()
        data = make_batch(tokenizer, [(TASK_ID, [GOLD] * 4 + [CORRUPTED] * 4)])
        slow = reward_config("compute_score", max_concurrent=64, timeout=0.05)
        patient = reward_config("compute_score", max_concurrent=64, timeout=300.0)
        for config in (slow, patient):
            config["reward"]["custom_reward_function"]["reward_kwargs"]["coalesce_ms"] = 300

        async def main():
            a = RateLimitedRewardManagerV09(slow, tokenizer, get_custom_reward_fn_v09(slow))
            b = RateLimitedRewardManagerV09(patient, tokenizer, get_custom_reward_fn_v09(patient))
            calls = [m.run_single(data[i : i + 1]) for i in range(len(data)) for m in (a, b)]
            return await asyncio.wait_for(asyncio.gather(*calls), timeout=60)

        outputs = asyncio.run(main())
        timed_out, scored = outputs[0::2], outputs[1::2]
        self.assertTrue(all(o["reward_extra_info"].get("timeout") for o in timed_out))
        self.assertEqual([o["reward_score"] for o in scored], [0.1] * 4 + [-0.2] * 4)

    def test_a_stalled_server_is_answered_by_minedit_before_verls_timeout_with_the_same_keys(self) -> None:
        # A server that accepts connections and never answers: the gRPC call waits for its deadline.
        tokenizer = Tokenizer()
        data = make_batch(tokenizer, [(TASK_ID, [GOLD] * 3)])
        with socket.socket() as stalled:
            stalled.bind(("127.0.0.1", 0))
            stalled.listen(16)
            config = reward_config("compute_score", max_concurrent=64, timeout=4.0)
            kwargs = config["reward"]["custom_reward_function"]["reward_kwargs"]
            kwargs.update(minedit_target=f"127.0.0.1:{stalled.getsockname()[1]}", minedit_timeout=1.0)

            async def main():
                manager = RateLimitedRewardManagerV09(config, tokenizer, get_custom_reward_fn_v09(config))
                return await asyncio.gather(*(manager.run_single(data[i : i + 1]) for i in range(len(data))))

            with self.assertLogs("minedit_client.verl", "WARNING"):
                outputs = asyncio.run(main())
        infos = [o["reward_extra_info"] for o in outputs]
        # minedit answered (no "timeout"/"acc" of verl's substitute): the failure reward, flagged.
        self.assertEqual([o["reward_score"] for o in outputs], [-0.2] * 3)
        self.assertTrue(all(set(info) == KEYS for info in infos), infos)
        self.assertEqual({(i["infra_error"], i["call_failed"]) for i in infos}, {(1.0, 1.0)})
        # ...so verl's key collection over the step works (a sample scored normally has the same keys).
        normal = reward_config("compute_score", max_concurrent=64, timeout=300.0)
        scored = asyncio.run(run_rate_limited(normal, tokenizer, data))
        collected = collect_reward_extra_info_v09(infos + [scored["reward_extra_info"]])
        self.assertEqual(list(collected["call_failed"]), [1.0, 1.0, 1.0, 0.0])

    def test_verls_own_timeout_would_break_the_key_set_so_the_default_deadline_is_shorter(self) -> None:
        # What verl substitutes when minedit does not answer in time, and why that must not happen.
        tokenizer = Tokenizer()
        data = make_batch(tokenizer, [(TASK_ID, [GOLD])])
        config = reward_config("compute_score", max_concurrent=1, timeout=0.0)
        substitute = asyncio.run(run_rate_limited(config, tokenizer, data))
        self.assertEqual(substitute["reward_score"], 0.0)
        with self.assertRaises(KeyError):
            collect_reward_extra_info_v09([dict.fromkeys(KEYS, 0.0), substitute["reward_extra_info"]])
        self.assertLess(settings_from_env()["timeout"], 300.0)  # verl's reward.timeout default
        client = _adapt._new_client(None, None, None)  # the client minedit_verl.coalescing_scorer sends with
        try:
            self.assertLess(client.default_timeout, 300.0)
        finally:
            client.close()  # no open channel may survive into the forked process pools of later tests


async def run_rate_limited(config, tokenizer, data):
    """The first sample of ``data`` through a RateLimitedRewardManagerV09 made in the running loop."""
    return await RateLimitedRewardManagerV09(config, tokenizer, get_custom_reward_fn_v09(config)).run_single(data[0:1])


def collect_reward_extra_info_v09(infos):
    """verl/experimental/agent_loop/agent_loop.py at v0.9.0 483b8a00 (_postprocess): the keys of the FIRST
    sample's reward_extra_info, then ``info[key]`` of every sample (a missing key raises KeyError)."""
    keys = list(infos[0].keys())
    return {key: np.array([info[key] for info in infos]) for key in keys}


# ---- verl 0.6.x: legacy managers in the sync rollout mode (verl/workers/reward_manager/) ---------------


def get_custom_reward_fn_v061(config):
    """verl/trainer/ppo/reward.py get_custom_reward_fn at v0.6.1: a FILE path only, loaded once per
    process as sys.modules["custom_module"] (the first load wins)."""
    fn_config = config.get("custom_reward_function") or {}
    file_path = fn_config.get("path")
    if not file_path:
        return None
    module = sys.modules.get("custom_module", None)
    if module is None:
        if not os.path.exists(file_path):
            raise FileNotFoundError(f"Reward function file '{file_path}' not found.")
        spec = importlib.util.spec_from_file_location("custom_module", file_path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["custom_module"] = module
        spec.loader.exec_module(module)
    if not hasattr(module, fn_config["name"]):
        raise AttributeError(f"Reward function '{fn_config['name']}' not found in '{module.__file__}'.")
    raw_fn = getattr(module, fn_config["name"])
    reward_kwargs = dict(fn_config.get("reward_kwargs", {}))
    if not inspect.iscoroutinefunction(raw_fn):
        return partial(call_with_kwargs, raw_fn, reward_kwargs)
    return partial(call_with_kwargs_async, raw_fn, reward_kwargs)


def legacy_config(name, path=REWARD_FILE):
    return {"custom_reward_function": {"path": path, "name": name, "reward_kwargs": dict(REWARD_KWARGS)}}


class LegacyLoaderCase(unittest.TestCase):
    def setUp(self) -> None:
        sys.modules.pop("custom_module", None)

    def tearDown(self) -> None:
        sys.modules.pop("custom_module", None)


class V061BatchRewardManagerTest(LegacyLoaderCase):
    """Mirrors verl/workers/reward_manager/batch.py BatchRewardManager.verify / __call__ and
    verl/trainer/ppo/reward.py get_custom_reward_fn at v0.6.1 d62da495: ONE call per batch with numpy
    object arrays, the results indexed per sample, every dict key appended to reward_extra_info."""

    def manager_call(self, data, compute_score, reward_fn_key="data_source", **reward_kwargs):
        tokenizer = self.tokenizer
        prompt_len = data.batch["prompts"].shape[-1]
        valid_response_lengths = data.batch["attention_mask"][:, prompt_len:].sum(axis=-1)
        responses_str = [
            tokenizer.decode(data.batch["responses"][i][: valid_response_lengths[i]], skip_special_tokens=True)
            for i in range(len(data))
        ]
        ground_truths = [item.non_tensor_batch["reward_model"].get("ground_truth", None) for item in data]
        data_sources = data.non_tensor_batch[reward_fn_key]
        rollout_reward_scores = data.non_tensor_batch.get("reward_scores", [{} for _ in range(len(data))])
        extras = data.non_tensor_batch.get("extra_info", [{} for _ in range(len(data))])
        for i in range(len(data)):
            extras[i]["rollout_reward_scores"] = rollout_reward_scores[i]
        scores = compute_score(
            data_sources=data_sources,
            solution_strs=responses_str,
            ground_truths=ground_truths,
            extra_infos=extras,
            **reward_kwargs,
        )
        reward_tensor = np.zeros_like(data.batch["responses"], dtype=np.float32)
        reward_extra_info = {}
        rewards = []
        for i in range(len(data)):
            score = scores[i]
            if isinstance(score, dict):
                reward = score["score"]
                for key, value in score.items():
                    reward_extra_info.setdefault(key, []).append(value)
            else:
                reward = score
            rewards.append(reward)
            reward_tensor[i, valid_response_lengths[i] - 1] = reward
        return reward_tensor, reward_extra_info, np.array(rewards, dtype=np.float32)

    def test_one_call_per_batch_with_numpy_object_arrays(self) -> None:
        self.tokenizer = Tokenizer()
        prompts = step_prompts(8)
        data = make_batch(self.tokenizer, prompts)
        self.assertEqual(data.non_tensor_batch["extra_info"].dtype, object)
        compute_score = get_custom_reward_fn_v061(legacy_config("compute_score_batch"))
        scorer = minedit_verl.coalescing_scorer(**REWARD_KWARGS)
        before = scorer.stats.calls
        reward_tensor, extra, acc = self.manager_call(data, compute_score)
        self.assertLessEqual(scorer.stats.calls - before, 2)
        expected = [scored_alone(c, t) for t, cs in prompts for c in cs]
        self.assertEqual(list(acc), [np.float32(e["score"]) for e in expected])
        self.assertEqual(set(extra), KEYS)
        self.assertTrue(all(len(v) == len(data) for v in extra.values()))  # ray_trainer._validate asserts it
        self.assertEqual(extra["infra_error"], [e["infra_error"] for e in expected])
        # The reward sits on the last valid response token, as verl places it.
        last = data.batch["attention_mask"][:, data.batch["prompts"].shape[-1] :].sum(axis=-1) - 1
        self.assertEqual(list(reward_tensor[np.arange(len(data)), last]), list(acc))
        reward_tensor[np.arange(len(data)), last] = 0.0
        self.assertFalse(reward_tensor.any())

    def test_infra_error_group_without_scored_sample_falls_back(self) -> None:
        self.tokenizer = Tokenizer()
        data = make_batch(self.tokenizer, [(INFRA_TASK_ID, [GOLD] * 4), (TASK_ID, [GOLD, CORRUPTED])])
        compute_score = get_custom_reward_fn_v061(legacy_config("compute_score_batch"))
        _, extra, acc = self.manager_call(data, compute_score, infra_error_score=-0.05)
        self.assertEqual([round(float(x), 4) for x in acc], [-0.05] * 4 + [0.1, -0.2])
        self.assertEqual(extra["infra_error"], [1.0] * 4 + [0.0, 0.0])


def parallel_compute_score_v061(
    evaluation_func, completions, references, tasks, extra_info=None, num_processes=64, mp_context=None
):
    """prime.py parallel_compute_score_async / single_compute_score at v0.6.1: a ProcessPoolExecutor of 64,
    one POSITIONAL call per sample under a 300 s timeout, a failed sample 0.0, a number kept, anything
    else ``float(result[0])`` -- which fails for a dict, outside the per-sample try: the whole batch 0."""
    if extra_info is None:
        extra_info = [None] * len(tasks)
    paths = []

    async def main():
        loop = asyncio.get_running_loop()
        with ProcessPoolExecutor(max_workers=num_processes, mp_context=mp_context) as executor:

            async def single(c, r, t, ei):
                try:
                    future = loop.run_in_executor(executor, partial(evaluation_func, t, c, r, ei))
                    return await asyncio.wait_for(future, timeout=300.0)
                except Exception as e:  # verl prints it and scores the sample 0.0
                    return e

            rows = zip(completions, references, tasks, extra_info)
            return await asyncio.gather(*(single(c, r, t, ei) for c, r, t, ei in rows))

    results = asyncio.run(main())
    scores = []
    for result in results:
        if isinstance(result, Exception) or result is None:
            paths.append("failed")
            scores.append(0.0)
        elif isinstance(result, (int, float, bool)):
            paths.append("number")
            scores.append(float(result))
        else:
            paths.append("result[0]")
            scores.append(float(result[0]))
    return scores, paths, results


class V061PrimeRewardManagerTest(LegacyLoaderCase):
    """Mirrors verl/workers/reward_manager/prime.py PrimeRewardManager.verify and
    parallel_compute_score_async at v0.6.1 d62da495: batch_decode of the padded responses, positional
    calls in a ProcessPoolExecutor(64), float results."""

    def run_prime(self, mp_context=None, num_processes=64):
        tokenizer = Tokenizer()
        prompts = [
            (TASK_ID, [GOLD, CORRUPTED, "no code", GOLD]),
            (INFRA_TASK_ID, [GOLD] * 4),
            (TASKS[1]["task_id"], [fence(TASKS[1]["gold"])] * 4),
        ]
        data = make_batch(tokenizer, prompts)
        compute_score = get_custom_reward_fn_v061(legacy_config("compute_score_prime"))
        sequences_str = tokenizer.batch_decode(data.batch["responses"], skip_special_tokens=True)
        ground_truth = [item.non_tensor_batch["reward_model"]["ground_truth"] for item in data]
        scores, paths, raw = parallel_compute_score_v061(
            compute_score,
            completions=sequences_str,
            references=ground_truth,
            tasks=data.non_tensor_batch["data_source"],
            extra_info=data.non_tensor_batch.get("extra_info", None),
            num_processes=num_processes,
            mp_context=mp_context,
        )
        self.assertEqual(paths, ["number"] * len(data), raw)
        self.assertTrue(all(type(r) is float for r in raw))
        self.assertEqual(scores, [scored_alone(c, t)["score"] for t, cs in prompts for c in cs])

    def test_positional_calls_in_a_forked_process_pool(self) -> None:
        self.run_prime()  # verl's own pool: the platform's default start method (fork on Linux < 3.14)

    def test_the_function_pickles_by_reference_for_spawned_workers(self) -> None:
        wrapped = get_custom_reward_fn_v061(legacy_config("compute_score_prime"))
        self.assertIs(pickle.loads(pickle.dumps(wrapped.args[0])), minedit_verl.compute_score_prime)
        self.run_prime(mp_context=multiprocessing.get_context("spawn"), num_processes=4)


class V061NaiveRewardManagerTest(LegacyLoaderCase):
    """Mirrors verl/workers/reward_manager/naive.py NaiveRewardManager.__call__ (sync rollout mode) and the
    loader verl/trainer/ppo/reward.py get_custom_reward_fn at v0.6.1 d62da495: a serial loop of blocking
    keyword calls; an ``async def`` would not be awaited there."""

    def test_serial_keyword_calls_of_the_sync_function(self) -> None:
        tokenizer = Tokenizer()
        prompts = [(TASK_ID, [GOLD, CORRUPTED]), (INFRA_TASK_ID, [GOLD])]
        data = make_batch(tokenizer, prompts)
        compute_score = get_custom_reward_fn_v061(legacy_config("compute_score_sync"))
        extra = {}
        for i in range(len(data)):
            item = data[i]
            prompt_length = item.batch["prompts"].shape[-1]
            valid = item.batch["attention_mask"][prompt_length:].sum()
            extra_info = item.non_tensor_batch.get("extra_info", {})
            extra_info["num_turns"] = None
            extra_info["rollout_reward_scores"] = {}
            score = compute_score(
                data_source=item.non_tensor_batch["data_source"],
                solution_str=tokenizer.decode(item.batch["responses"][:valid], skip_special_tokens=True),
                ground_truth=item.non_tensor_batch["reward_model"]["ground_truth"],
                extra_info=extra_info,
            )
            for key, value in score.items():
                extra.setdefault(key, []).append(value)
        self.assertEqual(extra["score"], [0.1, -0.2, -0.2])
        self.assertEqual(extra["infra_error"], [0.0, 0.0, 1.0])
        self.assertEqual(set(extra), KEYS)

    def test_file_path_only_and_the_first_load_wins(self) -> None:
        with self.assertRaises(FileNotFoundError):
            get_custom_reward_fn_v061(legacy_config("compute_score_batch", path="pkg://minedit_client.verl"))
        get_custom_reward_fn_v061(legacy_config("compute_score_batch"))
        self.assertIn("custom_module", sys.modules)
        async_fn = get_custom_reward_fn_v061(legacy_config("compute_score"))
        self.assertTrue(inspect.iscoroutinefunction(async_fn))  # the reward loop (rollout.mode=async) awaits it


class V061RewardLoopTest(LegacyLoaderCase):
    """Mirrors verl/experimental/reward/reward_loop/naive.py NaiveRewardLoopManager.run_single at v0.6.1
    d62da495 (rollout.mode=async): like 0.9's, but it ALWAYS passes reward_router_address= and
    reward_model_tokenizer= (None without a reward model)."""

    def test_async_function_awaited_with_router_kwargs(self) -> None:
        tokenizer = Tokenizer()
        data = make_batch(tokenizer, [(TASK_ID, [GOLD, CORRUPTED, GOLD, "no code"])])
        compute_score = get_custom_reward_fn_v061(legacy_config("compute_score"))

        async def run_single(item):
            response_ids = item.batch["responses"]
            valid = response_ids[: item.batch["attention_mask"][-response_ids.shape[-1] :].sum()]
            return await compute_score(
                data_source=item.non_tensor_batch["data_source"],
                solution_str=tokenizer.decode(valid, skip_special_tokens=True),
                ground_truth=item.non_tensor_batch["reward_model"]["ground_truth"],
                extra_info=item.non_tensor_batch.get("extra_info", {}),
                reward_router_address=None,
                reward_model_tokenizer=None,
            )

        async def main():
            return await asyncio.gather(*(run_single(data[i]) for i in range(len(data))))

        results = asyncio.run(main())
        assert_verl_dicts(self, results)
        self.assertEqual([r["score"] for r in results], [0.1, -0.2, 0.1, -0.2])


# ---- the example command lines against each version's config -------------------------------------------


def hydra_value(text):
    """An override's value as Hydra reads the simple ones: quoted string, null, bool, int, float, string."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    lowered = text.lower()
    if lowered == "null":
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


MISSING = object()


def lookup(config, dotted):
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return MISSING
        node = node[part]
    return node


def apply_overrides(test, config, overrides):
    """Hydra's struct-mode rules: ``key=v`` must name an existing key, ``+key=v`` a missing one (under an
    existing mapping), ``++key=v`` either. Returns the config with the overrides applied."""
    for override in overrides:
        prefix = "++" if override.startswith("++") else "+" if override.startswith("+") else ""
        key, _, value = override[len(prefix) :].partition("=")
        exists = lookup(config, key) is not MISSING
        if prefix == "":
            test.assertTrue(exists, f"{override}: no key {key!r} in this verl's config (needs a '+')")
        elif prefix == "+":
            test.assertFalse(exists, f"{override}: {key!r} exists: Hydra refuses '+' on it")
        node = config
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            test.assertIsInstance(node, dict, override)
        node[parts[-1]] = hydra_value(value)
    return config


def load_fixture(version):
    with open(os.path.join(FIXTURES, f"ppo_trainer.{version}.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def check_batch_sizes(test, config):
    """verl/utils/config.py validate_config and verl/workers/config/actor.py ActorConfig.validate (same
    checks at v0.6.1 and v0.9.0): without dynamic batch sizes, train_batch_size >= ppo_mini_batch_size,
    a micro batch size for the actor, the rollout and (with a KL loss) the reference; the rollout batch
    divisible by the GPUs."""
    actor = config["actor_rollout_ref"]["actor"]
    rollout = config["actor_rollout_ref"]["rollout"]
    n_gpus = config["trainer"]["n_gpus_per_node"] * config["trainer"]["nnodes"]
    test.assertFalse(actor["use_dynamic_bsz"])
    test.assertGreaterEqual(config["data"]["train_batch_size"], actor["ppo_mini_batch_size"])
    test.assertIsNotNone(actor["ppo_micro_batch_size_per_gpu"])
    test.assertIsNotNone(rollout["log_prob_micro_batch_size_per_gpu"])
    if actor["use_kl_loss"] or config["algorithm"]["use_kl_in_reward"]:
        test.assertIsNotNone(config["actor_rollout_ref"]["ref"]["log_prob_micro_batch_size_per_gpu"])
    test.assertEqual(config["data"]["train_batch_size"] * rollout["n"] % n_gpus, 0)
    # verl/workers/fsdp_workers.py (v0.6.1): the per-GPU mini batch, then its micro batches.
    mini = actor["ppo_mini_batch_size"] * rollout["n"] // n_gpus
    test.assertGreater(mini, 0)
    test.assertEqual(mini % actor["ppo_micro_batch_size_per_gpu"], 0)


def reward_kwargs_are_parameters(test, fn, config_node):
    accepted = inspect.signature(fn).parameters
    for name in (config_node.get("reward_kwargs") or {}):
        test.assertIn(name, accepted, f"reward kwarg {name!r} is not a parameter of {fn.__name__}")


class ExampleCommandLineTest(LegacyLoaderCase):
    """The example scripts' Hydra overrides against verl's flattened trainer config at each version
    (fixtures/verl/ppo_trainer.<tag>.yaml = verl/trainer/config/_generated_ppo_trainer.yaml at v0.6.1
    d62da495, v0.7.1 bec9ef74, v0.8.0 7aed6b23, v0.9.0 483b8a00), the reward manager registries
    (verl/experimental/reward_loop/reward_manager/ for 0.7.1+, verl/workers/reward_manager/ for 0.6.1)
    and the batch-size validation."""

    def test_run_grpo_on_verl_0_7_1_to_0_9(self) -> None:
        for gpus in ("1", "8"):
            argv = script_argv(os.path.join(EXAMPLES, "run_grpo.sh"), GPUS=gpus)
            self.assertEqual(argv[:2], ["-m", "verl.trainer.main_ppo"])
            overrides = argv[2:]
            # The legacy top-level keys are silently ignored by main_ppo on 0.9: never use them.
            legacy = ("custom_reward_function.", "reward_model.")
            self.assertFalse([o for o in overrides if o.lstrip("+").startswith(legacy)])
            for version in ("v0.7.1", "v0.8.0", "v0.9.0"):
                with self.subTest(version=version, gpus=gpus):
                    config = apply_overrides(self, load_fixture(version), overrides)
                    reward = config["reward"]
                    self.assertIn(reward["reward_manager"]["name"], ("naive", "dapo", "gdpo", "rate_limited", "remote"))
                    self.assertEqual(reward["reward_manager"]["source"], "register")
                    fn_node = reward["custom_reward_function"]
                    fn = load_extern_object_v09(fn_node["path"], fn_node["name"])
                    self.assertTrue(inspect.iscoroutinefunction(fn))
                    reward_kwargs_are_parameters(self, fn, fn_node)
                    self.assertEqual(fn_node["reward_kwargs"]["minedit_target"], os.environ.get("MINEDIT_TARGET"))
                    check_batch_sizes(self, config)
        self.assertTrue(load_fixture("v0.9.0")["trainer"]["use_v1"])  # where on_infra_error="raise" masks

    def test_run_grpo_v0_6_on_verl_0_6_1(self) -> None:
        for gpus in ("1", "8"):
            argv = script_argv(os.path.join(EXAMPLES, "run_grpo_v0.6.sh"), GPUS=gpus)
            self.assertEqual(argv[:2], ["-m", "verl.trainer.main_ppo"])
            config = apply_overrides(self, load_fixture("v0.6.1"), argv[2:])
            self.assertNotIn("reward", config)
            self.assertIn(config["reward_model"]["reward_manager"], ("naive", "prime", "batch", "dapo"))
            self.assertEqual(config["reward_model"]["reward_manager"], "batch")
            # The reward loop of rollout.mode=async has no `batch` manager.
            self.assertEqual(config["actor_rollout_ref"]["rollout"]["mode"], "sync")
            fn_node = config["custom_reward_function"]
            self.assertTrue(os.path.isfile(fn_node["path"]))
            sys.modules.pop("custom_module", None)
            wrapped = get_custom_reward_fn_v061(config)
            self.assertIs(wrapped.args[0], minedit_verl.compute_score_batch)
            reward_kwargs_are_parameters(self, wrapped.args[0], fn_node)
            check_batch_sizes(self, config)

    def test_the_rules_catch_a_missing_plus(self) -> None:
        config = load_fixture("v0.9.0")
        with self.assertRaises(AssertionError):
            apply_overrides(self, config, ["reward.custom_reward_function.reward_kwargs.minedit_target=x"])
        with self.assertRaises(AssertionError):
            apply_overrides(self, load_fixture("v0.9.0"), ["+reward.custom_reward_function.path=x"])


if __name__ == "__main__":
    unittest.main()
