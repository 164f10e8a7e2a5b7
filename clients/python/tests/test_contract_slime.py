"""Contract tests of minedit_client.slime against slime's own reward path (THUDM/slime v0.3.1, commit
a6272da0dc; the same code at HEAD 624b824a), against the real server (see support.py).

slime (torch, Megatron, SGLang, Ray) cannot be installed here, so the steps of its reward path are
reproduced in plain Python (numpy for torch), each from the file that does it at that commit:

- the flags of examples/slime/minedit_args.sh: their add_argument definitions in slime/utils/arguments.py,
  and what slime_validate_args does with them (the --custom-config-path YAML becomes attributes of args;
  eval_reward_key defaults to reward_key);
- load_function (slime/utils/misc.py): ``module.attr`` by rpartition, import_module, getattr;
- Dataset (slime/utils/data.py): ``label = row[label_key]``, ``metadata = row.get(metadata_key) or {}``;
  RolloutDataSource.get_samples (slime/rollout/data_source.py): n deep copies of a prompt's Sample, one
  group_index per prompt;
- generate_and_rm / generate_and_rm_group (slime/rollout/sglang_rollout.py) and async_rm /
  batched_async_rm (slime/rollout/rm_hub/__init__.py): every group a task on slime's one background event
  loop (slime/utils/async_utils.py), per-sample rewards awaited as samples finish, --group-rm awaited once
  per group with the list;
- RolloutManager._post_process_rewards and the loss-mask part of _convert_samples_to_train_data
  (slime/ray/rollout.py): group normalization (GRPO: minus the group mean, over the unbiased std + 1e-6)
  and ``remove_sample`` -> an all-zero loss mask; _compute_reward_cat_metrics (--log-reward-category).

The assertions are on slime's consequences: a masked sample's loss mask is zero and its normalized reward
(advantage) is 0, the scored samples of its group keep the advantages they would have without it.
Setup: Debian's python3-numpy and python3-yaml.
"""

import argparse
import asyncio
import copy
import importlib
import inspect
import json
import os
import random
import subprocess
import threading
import unittest
from dataclasses import dataclass, field
from typing import Any, Optional

import aiohttp
import numpy as np
import yaml

from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, INFRA_TASK_ID, INLINE_TASK, INVALID_INLINE_TASK, OPENRLHF_URL
from support import TARGET, TASK_ID, TOKEN, free_port
from minedit_client import MineditError
from minedit_client import slime as minedit_slime

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "slime")
FAILURE = -0.2

# ---- (a) slime's arguments: the definitions of the flags our example uses (slime/utils/arguments.py) ----

STORE_TRUE = "store_true"
FLAGS_V0_3_1 = [
    ("--prompt-data", dict(type=str, default=None)),  # :634
    ("--apply-chat-template", STORE_TRUE),  # :645
    ("--input-key", dict(type=str, default="input")),  # :648
    ("--label-key", dict(type=str, default=None)),  # :649
    ("--metadata-key", dict(type=str, default="metadata")),  # :658
    ("--n-samples-per-prompt", dict(type=int, default=1)),  # :689
    ("--log-reward-category", dict(type=str, default=None)),  # :1204
    ("--rm-type", dict(type=str, default=None)),  # :1319
    ("--reward-key", dict(type=str, default=None)),  # :1325
    ("--eval-reward-key", dict(type=str, default=None)),  # :1334
    ("--group-rm", STORE_TRUE),  # :1340
    ("--rm-url", dict(type=str, default=None)),  # :1343
    ("--custom-rm-path", dict(type=str, default=None)),  # :1349
    ("--custom-config-path", dict(type=str, default=None)),  # :1519
]


class ArgumentError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def __init__(self) -> None:
        super().__init__(prog="train.py", allow_abbrev=False)
        for flag, spec in FLAGS_V0_3_1:
            if spec == STORE_TRUE:
                self.add_argument(flag, action="store_true", default=False)
            else:
                self.add_argument(flag, **spec)

    def error(self, message: str):
        raise ArgumentError(message)


def validate_args(args):
    """The parts of slime_validate_args (arguments.py:1714) that concern these flags."""
    if args.eval_reward_key is None:  # :1828
        args.eval_reward_key = args.reward_key
    if args.custom_config_path:  # :1949
        with open(args.custom_config_path) as f:
            data = yaml.safe_load(f) or {}
        for k, v in data.items():
            setattr(args, k, v)
    return args


def example_args():
    """MINEDIT_ARGS as bash expands it when a run script sources the example."""
    script = os.path.join(EXAMPLES, "minedit_args.sh")
    out = subprocess.run(
        ["bash", "-c", 'source "$1"; printf "%s\\0" "${MINEDIT_ARGS[@]}"', "bash", script],
        capture_output=True,
        check=True,
    ).stdout
    return [a.decode("utf-8") for a in out.split(b"\0") if a]


def load_function(path):
    """slime/utils/misc.py load_function."""
    module_path, _, attr = path.rpartition(".")
    return getattr(importlib.import_module(module_path), attr)


def slime_args(**overrides):
    """The args slime hands the reward function: parsed defaults, our server, then the overrides."""
    argv = ["--custom-rm-path", "minedit_client.slime.reward", "--label-key", "label"]
    args = validate_args(Parser().parse_args(argv))
    args.minedit_target, args.minedit_token = TARGET, TOKEN
    args.advantage_estimator, args.rewards_normalization, args.grpo_std_normalization = "grpo", True, True
    for key, value in overrides.items():
        setattr(args, key, value)
    return args


# ---- (b) samples: slime/utils/types.py, slime/utils/data.py, slime/rollout/data_source.py ----------------


@dataclass
class Sample:
    """slime.utils.types.Sample: the fields on the reward path."""

    group_index: Optional[int] = None
    index: Optional[int] = None
    prompt: Any = ""
    response: str = ""
    response_length: int = 0
    label: Any = None
    reward: Any = None
    loss_mask: Optional[list] = None
    remove_sample: bool = False
    status: str = "pending"
    metadata: dict = field(default_factory=dict)
    custom_rm_path: Optional[str] = None

    def get_reward_value(self, args):  # types.py:246
        return self.reward if not args.reward_key else self.reward[args.reward_key]


def groups_of(args, rows):
    """Dataset (data.py:225, :260) then get_samples (data_source.py:108-116)."""
    groups = []
    for group_index, data in enumerate(rows):
        prompt = Sample(
            prompt=data.get(args.input_key),
            label=data[args.label_key] if args.label_key is not None else None,
            metadata=data.get(args.metadata_key) or {},
        )
        group = []
        for _ in range(args.n_samples_per_prompt):
            sample = copy.deepcopy(prompt)
            sample.group_index = group_index
            sample.index = group_index * args.n_samples_per_prompt + len(group)
            group.append(sample)
        groups.append(group)
    return groups


# ---- (c) the rollout: sglang_rollout.py generate_and_rm(_group), rm_hub async_rm / batched_async_rm --------


async def remote_rm(args, sample, max_retries=10, sleep=asyncio.sleep, log=None):  # rm_hub/__init__.py:34
    """slime's built-in HTTP reward model; the session is per call here (upstream shares one per process,
    limit=64, ClientTimeout(total=120)), the back-off sleep and the log are injectable."""
    payload = {"prompt": sample.prompt, "response": sample.response, "label": sample.label}
    connector = aiohttp.TCPConnector(limit=64, enable_cleanup_closed=True)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as session:
        for attempt in range(max_retries):
            try:
                async with session.post(args.rm_url, json=payload) as resp:
                    resp.raise_for_status()
                    return await resp.json()
            except Exception as e:
                if attempt + 1 >= max_retries:
                    raise
                if log is not None:
                    log.append(f"remote_rm: {type(e).__name__}: {e}")
                await sleep(min(2**attempt, 30) + random.random())


async def async_rm(args, sample, **kwargs):  # rm_hub/__init__.py:55
    if sample.custom_rm_path:
        return await load_function(sample.custom_rm_path)(args, sample, **kwargs)
    if args.custom_rm_path is not None:
        return await load_function(args.custom_rm_path)(args, sample, **kwargs)
    metadata = sample.metadata if isinstance(sample.metadata, dict) else {}
    rm_type = (metadata.get("rm_type") or args.rm_type or "").strip()
    if rm_type == "remote_rm":
        return await remote_rm(args, sample, **kwargs)
    raise NotImplementedError(f"Rule-based RM for {rm_type} is not implemented here.")


async def batched_async_rm(args, samples, **kwargs):  # rm_hub/__init__.py:99
    if args.custom_rm_path is not None:
        return await load_function(args.custom_rm_path)(args, samples, **kwargs)
    return await asyncio.gather(*(async_rm(args, sample, **kwargs) for sample in samples))


async def generate_and_rm(args, sample, completion):  # sglang_rollout.py:223
    await asyncio.sleep(0)  # the SGLang request
    sample.response, sample.response_length, sample.status = completion, len(completion.split()), "completed"
    if args.group_rm:
        return sample
    if sample.reward is None:
        sample.reward = await async_rm(args, sample)
    return sample


async def generate_and_rm_group(args, group, completions):  # sglang_rollout.py:295
    tasks = [asyncio.create_task(generate_and_rm(args, s, c)) for s, c in zip(group, completions)]
    group = await asyncio.gather(*tasks)
    if args.group_rm:
        rewards = await batched_async_rm(args, group)
        for sample, reward in zip(group, rewards):
            sample.reward = reward
    return group


class AsyncLoopThread:
    """slime/utils/async_utils.py: one background loop; run() blocks until the coroutine is done."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


async def generate_rollout_async(args, groups, completions):
    """generate_rollout_async (sglang_rollout.py:372): every group a task; a group's exception ends it."""
    pending = [asyncio.create_task(generate_and_rm_group(args, g, c)) for g, c in zip(groups, completions)]
    data = []
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            data.append(task.result())
    return sorted(data, key=lambda group: group[0].index)


# ---- (d) slime/ray/rollout.py: rewards -> training data ---------------------------------------------------


def post_process_rewards(args, samples):
    """RolloutManager._post_process_rewards (rollout.py:685), numpy for torch (std is unbiased)."""
    raw = [s.get_reward_value(args) for s in samples]
    if args.advantage_estimator in ["grpo", "gspo", "cispo", "reinforce_plus_plus_baseline"] and (
        args.rewards_normalization
    ):
        rewards = np.array(raw, dtype=np.float32)
        if rewards.shape[-1] == args.n_samples_per_prompt * args.rollout_batch_size:
            rewards = rewards.reshape(-1, args.n_samples_per_prompt)
        else:
            rewards = rewards.reshape(-1, rewards.shape[-1])
        rewards = rewards - rewards.mean(axis=-1, keepdims=True)
        if args.advantage_estimator in ["grpo", "gspo", "cispo"] and args.grpo_std_normalization:
            rewards = rewards / (rewards.std(axis=-1, ddof=1, keepdims=True) + 1e-6)
        return raw, rewards.flatten().tolist()
    return raw, raw


def train_data(args, groups):
    """_get_rollout_data's flattening, then _convert_samples_to_train_data (rollout.py:712-759)."""
    samples = [s for g in groups for s in g]
    raw, rewards = post_process_rewards(args, samples)
    loss_masks = []
    for sample in samples:
        if sample.loss_mask is None:
            sample.loss_mask = [1] * sample.response_length
        if sample.remove_sample:
            sample.loss_mask = [0] * sample.response_length
        loss_masks.append(sample.loss_mask)
    return {"raw_reward": raw, "rewards": rewards, "loss_masks": loss_masks}


def reward_cat_metrics(args, samples):
    """_compute_reward_cat_metrics (rollout.py:1481)."""
    counts = {}
    for s in samples:
        counts.setdefault(s.reward[args.log_reward_category], []).append(s)
    return {f"error_cat/{k}": len(v) / len(samples) for k, v in counts.items()}


class SlimeTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self.loop = AsyncLoopThread()

    def tearDown(self) -> None:
        self.loop.stop()

    def rollout(self, args, rows, completions):
        args.rollout_batch_size = len(rows)
        groups = groups_of(args, rows)
        return groups, self.loop.run(generate_rollout_async(args, groups, completions))


# ---- the tests --------------------------------------------------------------------------------------------


class ExampleArgsTest(unittest.TestCase):
    def test_the_example_parses_and_loads_the_reward(self) -> None:
        argv = example_args()
        args = validate_args(Parser().parse_args(argv))  # an unknown flag raises ArgumentError
        self.assertEqual(args.custom_rm_path, "minedit_client.slime.reward")
        self.assertTrue(args.group_rm)
        self.assertEqual((args.input_key, args.label_key), ("input", "label"))
        self.assertTrue(args.apply_chat_template)
        self.assertEqual(
            (args.reward_key, args.eval_reward_key, args.log_reward_category), ("score", "score", "verdict")
        )
        # The YAML's keys are attributes of args, where the reward reads its settings.
        self.assertEqual(args.minedit_target, "127.0.0.1:50051")
        self.assertEqual(args.minedit_timeout, 300)
        function = load_function(args.custom_rm_path)
        self.assertIs(function, minedit_slime.reward)
        self.assertTrue(inspect.iscoroutinefunction(function))
        self.assertEqual(list(inspect.signature(function).parameters)[:2], ["args", "sample"])

    def test_a_misspelled_flag_is_refused(self) -> None:
        with self.assertRaises(ArgumentError):
            Parser().parse_args(["--custom-rm", "minedit_client.slime.reward", "--group_rm"])


class GroupRmTest(SlimeTestCase):
    """--group-rm: batched_async_rm hands the reward the whole group."""

    def test_a_masked_sample_gets_its_group_mean_and_no_loss(self) -> None:
        args = slime_args(group_rm=True, n_samples_per_prompt=4)
        rows = [{"input": "p1", "label": TASK_ID}, {"input": "p2", "label": INFRA_TASK_ID}]
        groups = groups_of(args, rows)
        # The sandbox breaks on one sample of the first group: it is pointed at the task with unusable tests.
        groups[0][2].label = INFRA_TASK_ID
        args.rollout_batch_size = 2
        done = self.loop.run(generate_rollout_async(args, groups, [[GOLD, CORRUPTED, GOLD, CORRUPTED]] * 2))
        data = train_data(args, done)
        first = done[0]
        self.assertEqual([first[i].reward for i in (0, 1, 3)], [0.1, FAILURE, FAILURE])
        self.assertAlmostEqual(first[2].reward, (0.1 - 0.2 - 0.2) / 3)  # the mean of the scored three
        self.assertEqual([s.remove_sample for s in first], [False, False, True, False])
        self.assertEqual(data["loss_masks"][2], [0] * first[2].response_length)
        self.assertTrue(all(data["loss_masks"][0]))
        advantages = data["rewards"][:4]
        self.assertAlmostEqual(advantages[2], 0.0, places=5)  # its own advantage
        self.assertGreater(advantages[0], 0)
        self.assertLess(advantages[1], 0)
        # The group mean is that of the scored samples: their centred rewards are as if it were absent.
        scored = np.array([0.1, -0.2, -0.2])
        centred = np.array(advantages)[[0, 1, 3]] * (np.std([0.1, -0.2, -0.1, -0.2], ddof=1) + 1e-6)
        np.testing.assert_allclose(centred, scored - scored.mean(), atol=1e-6)
        # A group with no scored sample: the failure reward everywhere, zero advantage, nothing trained.
        second = done[1]
        self.assertEqual([s.reward for s in second], [FAILURE] * 4)
        self.assertTrue(all(s.remove_sample for s in second))
        self.assertEqual(data["rewards"][4:], [0.0] * 4)
        self.assertFalse(any(any(m) for m in data["loss_masks"][4:]))

    def test_a_dict_reward_logs_each_verdict(self) -> None:
        args = slime_args(group_rm=True, n_samples_per_prompt=2, reward_key="score", eval_reward_key="score",
                          log_reward_category="verdict")
        rows = [{"input": "p1", "label": TASK_ID}, {"input": "p2", "label": INFRA_TASK_ID}]
        groups, done = self.rollout(args, rows, [[GOLD, CORRUPTED]] * 2)
        samples = [s for g in done for s in g]
        self.assertEqual(set(samples[0].reward), {"score", *minedit_slime.EXTRA_KEYS})
        self.assertEqual(train_data(args, done)["raw_reward"], [0.1, FAILURE, FAILURE, FAILURE])
        self.assertEqual(samples[2].reward["masked"], 1.0)
        metrics = reward_cat_metrics(args, samples)
        self.assertEqual(metrics, {"error_cat/PASSED": 0.25, "error_cat/FAILED_TESTS": 0.25,
                                   "error_cat/INFRA_ERROR": 0.5})


class PerSampleTest(SlimeTestCase):
    """Without --group-rm: async_rm awaits the reward once per sample."""

    def test_a_masked_sample_scores_the_failure_reward_and_is_removed(self) -> None:
        args = slime_args(group_rm=False, n_samples_per_prompt=4)
        groups = groups_of(args, [{"input": "p1", "label": TASK_ID}])
        groups[0][3].label = INFRA_TASK_ID
        args.rollout_batch_size = 1
        done = self.loop.run(generate_rollout_async(args, groups, [[GOLD, CORRUPTED, CORRUPTED, GOLD]]))
        self.assertEqual([s.reward for s in done[0]], [0.1, FAILURE, FAILURE, FAILURE])
        self.assertEqual([s.remove_sample for s in done[0]], [False, False, False, True])
        data = train_data(args, done)
        self.assertEqual(data["loss_masks"][3], [0] * done[0][3].response_length)
        self.assertGreater(data["rewards"][0], 0)  # never a 0.0 that would outrank the failures
        self.assertTrue(all(isinstance(r, float) for r in data["raw_reward"]))

    def test_concurrent_samples_share_score_batch_calls(self) -> None:
        # A settings key of its own, so the scorer's stats count this test's calls only.
        args = slime_args(group_rm=False, n_samples_per_prompt=4, minedit_coalesce_ms=200)
        rows = [{"input": f"p{i}", "label": TASK_ID} for i in range(16)]
        groups, done = self.rollout(args, rows, [[GOLD, CORRUPTED, GOLD, CORRUPTED]] * 16)
        self.assertEqual([s.reward for g in done for s in g], [0.1, FAILURE, 0.1, FAILURE] * 16)
        stats = minedit_slime.coalescing_scorer(args).stats
        self.assertEqual(stats.rollouts, 64)
        self.assertLessEqual(stats.calls, 4)


class TaskSourcesTest(SlimeTestCase):
    def test_inline_tasks_in_the_label_or_the_metadata(self) -> None:
        args = slime_args(group_rm=True, n_samples_per_prompt=1, reward_key="score")
        rows = [
            {"input": "a", "label": INLINE_TASK},
            {"input": "b", "label": json.dumps(INLINE_TASK)},  # a Parquet string column
            {"input": "c", "label": None, "metadata": {"task": INLINE_TASK}},
            {"input": "d", "label": BROKEN_INLINE_TASK},  # unusable tests: the server's gold check says INVALID_TASK
            {"input": "e", "label": INVALID_INLINE_TASK},  # gold fails its own tests
            {"input": "f", "label": None, "extra_info": {"task_id": TASK_ID}},
        ]
        groups, done = self.rollout(args, rows[:5], [[GOLD]] * 5)
        verdicts = [g[0].reward["verdict"] for g in done]
        self.assertEqual(verdicts, ["PASSED", "PASSED", "PASSED", "INVALID_TASK", "INVALID_TASK"])
        self.assertEqual([g[0].remove_sample for g in done], [False, False, False, True, True])
        self.assertEqual([g[0].reward["score"] for g in done][3:], [FAILURE, FAILURE])
        # --metadata-key extra_info (a verl export's column) carries the task id.
        args.metadata_key = "extra_info"
        groups, done = self.rollout(args, rows[5:], [[GOLD]])
        self.assertEqual(done[0][0].reward["score"], 0.1)

    def test_conflicting_or_missing_tasks_stop_the_rollout(self) -> None:
        args = slime_args(group_rm=False, n_samples_per_prompt=1)
        for row in (
            {"input": "a", "label": TASK_ID, "metadata": {"task_id": INFRA_TASK_ID}},
            {"input": "b", "label": TASK_ID, "metadata": {"task": BROKEN_INLINE_TASK}},
            {"input": "c", "label": None},
        ):
            with self.subTest(row=row["input"]), self.assertRaises(ValueError):
                self.rollout(args, [row], [[GOLD]])

    def test_an_unknown_task_id_stops_the_rollout(self) -> None:
        # As slime's remote_rm does after its retries: the exception ends generate_rollout.
        args = slime_args(group_rm=True, n_samples_per_prompt=2)
        with self.assertRaises(MineditError) as raised:
            self.rollout(args, [{"input": "a", "label": "no/such/task"}], [[GOLD, CORRUPTED]])
        self.assertEqual(raised.exception.code.name, "NOT_FOUND")


class FailedCallTest(SlimeTestCase):
    def test_an_unreachable_server_masks_the_samples(self) -> None:
        args = slime_args(group_rm=True, n_samples_per_prompt=2, reward_key="score",
                          minedit_target=f"127.0.0.1:{free_port()}", minedit_timeout=2)
        groups, done = self.rollout(args, [{"input": "a", "label": TASK_ID}], [[GOLD, CORRUPTED]])
        self.assertEqual([s.reward["score"] for s in done[0]], [FAILURE, FAILURE])
        self.assertEqual([s.reward["call_failed"] for s in done[0]], [1.0, 1.0])
        self.assertTrue(all(s.remove_sample for s in done[0]))
        self.assertEqual(train_data(args, done)["rewards"], [0.0, 0.0])


if __name__ == "__main__":
    unittest.main()


class RemoteRmRouteTest(SlimeTestCase):
    """slime's own remote_rm (rm_hub/__init__.py:34-52 at v0.3.1 a6272da0; --rm-type remote_rm --rm-url URL,
    no --custom-rm-path) against minedit's POST /slime/reward on the OpenRLHF port: one request per sample,
    the JSON answer used as the reward as it is, group normalization as slime does it. Over HTTP nothing can
    set remove_sample, so a masked sample is trained as a failure (-0.2), never above one."""

    def remote_args(self, query="", **overrides):
        args = slime_args(custom_rm_path=None, rm_type="remote_rm", **overrides)
        args.rm_url = OPENRLHF_URL.replace("/get_reward", "/slime/reward") + f"?token={TOKEN}{query}"
        return args

    def test_per_sample_and_group_rm_get_the_reward_as_a_bare_number(self) -> None:
        for group_rm in (False, True):
            with self.subTest(group_rm=group_rm):
                args = self.remote_args(group_rm=group_rm, n_samples_per_prompt=4)
                rows = [{"input": "p", "label": TASK_ID}, {"input": "p", "label": INFRA_TASK_ID}]
                groups, done = self.rollout(args, rows, [[GOLD, CORRUPTED, GOLD, CORRUPTED], [GOLD] * 4])
                self.assertEqual([s.reward for s in done[0]], [0.1, -0.2, 0.1, -0.2])
                # INFRA_ERROR over HTTP: the failure reward (slime would crash on null, and 0.0 outranks -0.2).
                self.assertEqual([s.reward for s in done[1]], [-0.2] * 4)
                data = train_data(args, done)
                self.assertEqual(data["raw_reward"], [0.1, -0.2, 0.1, -0.2] + [-0.2] * 4)
                self.assertTrue(all(abs(a) < 1e-6 for a in data["rewards"][4:]))  # no signal, not a wrong one

    def test_the_object_answer_serves_reward_key_and_log_reward_category(self) -> None:
        args = self.remote_args(query="&format=object", reward_key="score", log_reward_category="verdict")
        args.n_samples_per_prompt = 2
        rows = [{"input": "p", "label": json.dumps(INLINE_TASK)}, {"input": "p", "label": BROKEN_INLINE_TASK}]
        groups, done = self.rollout(args, rows, [[GOLD, CORRUPTED], [GOLD, GOLD]])
        samples = [s for g in done for s in g]
        self.assertEqual([s.get_reward_value(args) for s in samples], [0.1, -0.2, -0.2, -0.2])
        verdicts = [s.reward["verdict"] for s in samples]
        self.assertEqual(verdicts, ["PASSED", "FAILED_TESTS", "INVALID_TASK", "INVALID_TASK"])
        self.assertEqual([s.reward["invalid_task"] for s in samples], [0, 0, 1, 1])
        self.assertEqual(reward_cat_metrics(args, samples)["error_cat/INVALID_TASK"], 0.5)

    def test_a_missing_label_fails_every_attempt_and_stops_the_rollout(self) -> None:
        args = self.remote_args()
        sample = Sample(prompt="p", response=GOLD, label=None)
        slept, log = [], []

        async def sleep(seconds):
            slept.append(seconds)

        with self.assertRaises(aiohttp.ClientResponseError) as raised:
            self.loop.run(remote_rm(args, sample, sleep=sleep, log=log))
        self.assertEqual(raised.exception.status, 400)
        self.assertEqual(len(slept), 9)  # 10 attempts: the run stops only after ~2.5 minutes of back-off
        self.assertTrue(all("400" in line for line in log), log)

