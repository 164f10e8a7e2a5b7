"""Contract tests for OpenRLHF: what its code does with our example command lines and with the answers
of our `POST /get_reward` endpoint, reproduced from OpenRLHF's source at tagged commits and run against
the REAL server that tests/clients/python-client.test.ts starts (see support.py). OpenRLHF itself (torch,
ray, vLLM, GPUs) is not needed: the reproductions are the few functions on the reward path, with plain
Python lists standing in for torch tensors.

(a) Command lines. For each release line the add_argument definitions (names, types, defaults, nargs,
    choices) of every flag our examples use are copied from openrlhf/cli/train_ppo_ray.py; the example
    script's own argument list (MINEDIT_PRINT_ARGS=1 makes it print it) must parse with them — no
    unrecognized argument — and pass the post-parse checks that matter.
(b) The reward call. OpenRLHF >= 0.9.1 posts one sample per request from every vLLM actor
    (SingleTurnAgentExecutor._fetch_rewards_via_http, aiohttp, 180 s, 5 tries 1 s apart); 0.9.0 posted the
    whole batch (request_api_wrapper). The answers are read into "tensors" exactly as OpenRLHF does, so a
    missing reward, a ragged extra_logs key set or a non-number shows up here as it would in training.

Needs /usr/bin/python3 with python3-aiohttp and python3-requests (scripts/ensure-system.sh installs them).
"""

import argparse
import asyncio
import json
import math
import os
import resource
import statistics
import subprocess
import time
import unittest

import aiohttp
import requests

from support import (
    BROKEN_INLINE_TASK,
    CORRUPTED,
    GOLD,
    INFRA_TASK_ID,
    OPENRLHF_TIGHT_BUDGET_S,
    OPENRLHF_TIGHT_URL,
    OPENRLHF_URL,
    TASK,
    TASK_ID,
    TASKS,
    TOKEN,
    fence,
)

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "openrlhf")
# The test server's default: server.openrlhfInfraErrorReward is unset, so reward.failureReward.
INFRA_REWARD = -0.2
# OpenRLHF sends no headers: a server with a token is reached with ?token= in the URL.
URL = f"{OPENRLHF_URL}?token={TOKEN}"

SYSTEM = "<|im_start|>system\nYou repair Python programs with the smallest edit that makes them correct.<|im_end|>\n"
PROMPT = (
    SYSTEM
    + "<|im_start|>user\nRepair this program:\n"
    + CORRUPTED
    + "\n<|im_end|>\n<|im_start|>assistant\n"
)
# OpenRLHF decodes prompt + response with skip_special_tokens=False: the response ends in the EOS text.
EOS = "<|im_end|>"
UNFENCED_GOLD = TASK["gold"] + EOS

# ---------------------------------------------------------------------------------------------------------
# (a) argparse definitions, copied from openrlhf/cli/train_ppo_ray.py at each tag (only the flags our
# examples use, plus those the post-parse checks below read).

STORE_TRUE = "store_true"

FLAGS_V0_11_0 = [
    ('--actor.model_name_or_path', dict(type=str, default=None)),
    ('--actor.num_nodes', dict(type=int, default=1)),
    ('--actor.num_gpus_per_node', dict(type=int, default=8)),
    ('--ref.num_nodes', dict(type=int, default=1)),
    ('--ref.num_gpus_per_node', dict(type=int, default=8)),
    ('--vllm.num_engines', dict(type=int, default=None)),
    ('--vllm.tensor_parallel_size', dict(type=int, default=1)),
    ('--vllm.gpu_memory_utilization', dict(type=float, default=0.95)),
    ('--train.colocate_all', STORE_TRUE),
    ('--vllm.enable_sleep', STORE_TRUE),
    ('--ds.enable_sleep', STORE_TRUE),
    ('--ds.zero_stage', dict(type=int, default=2)),
    ('--actor.gradient_checkpointing_enable', STORE_TRUE),
    ('--data.prompt_dataset', dict(type=str, default=None)),
    ('--data.input_key', dict(type=str, default='input')),
    ('--data.label_key', dict(type=str, default=None)),
    ('--data.apply_chat_template', STORE_TRUE),
    ('--reward.remote_url', dict(type=str, default=None)),
    ('--algo.advantage.estimator', dict(type=str, default='gae',
          choices=['gae', 'reinforce', 'rloo', 'reinforce_baseline', 'group_norm', 'dr_grpo'])),
    ('--rollout.n_samples_per_prompt', dict(type=int, default=1)),
    ('--algo.kl.use_loss', STORE_TRUE),
    ('--algo.kl.estimator', dict(type=str, default='k1', choices=['k1', 'k2', 'k3'])),
    ('--algo.kl.init_coef', dict(type=float, default=0.01)),
    ('--train.micro_batch_size', dict(type=int, default=1)),
    ('--train.batch_size', dict(type=int, default=128)),
    ('--rollout.micro_batch_size', dict(type=int, default=1)),
    ('--rollout.batch_size', dict(type=int, default=1024)),
    ('--train.max_epochs', dict(type=int, default=1)),
    ('--data.max_len', dict(type=int, default=2048)),
    ('--rollout.max_new_tokens', dict(type=int, default=None)),
    ('--ckpt.output_dir', dict(type=str, default='./ckpt')),
    ('--ds.ring_attn_size', dict(type=int, default=1)),
    ('--ds.tensor_parallel_size', dict(type=int, default=1)),
    ('--train.async_enable', STORE_TRUE),
]
FLAGS_V0_10_4 = [
    ('--actor.model_name_or_path', dict(type=str, default=None)),
    ('--actor.num_nodes', dict(type=int, default=1)),
    ('--actor.num_gpus_per_node', dict(type=int, default=8)),
    ('--ref.num_nodes', dict(type=int, default=1)),
    ('--ref.num_gpus_per_node', dict(type=int, default=8)),
    ('--vllm.num_engines', dict(type=int, default=None)),
    ('--vllm.tensor_parallel_size', dict(type=int, default=1)),
    ('--vllm.gpu_memory_utilization', dict(type=float, default=0.95)),
    ('--train.colocate_all', STORE_TRUE),
    ('--vllm.enable_sleep', STORE_TRUE),
    ('--ds.enable_sleep', STORE_TRUE),
    ('--ds.zero_stage', dict(type=int, default=2)),
    ('--actor.gradient_checkpointing_enable', STORE_TRUE),
    ('--data.prompt_dataset', dict(type=str, default=None)),
    ('--data.input_key', dict(type=str, default='input')),
    ('--data.label_key', dict(type=str, default=None)),
    ('--data.apply_chat_template', STORE_TRUE),
    ('--reward.remote_url', dict(type=str, default=None)),
    ('--algo.advantage.estimator', dict(type=str, default='gae',
          choices=['gae', 'reinforce', 'rloo', 'reinforce_baseline', 'group_norm', 'dr_grpo'])),
    ('--rollout.n_samples_per_prompt', dict(type=int, default=1)),
    ('--algo.kl.use_loss', STORE_TRUE),
    ('--algo.kl.estimator', dict(type=str, default='k1', choices=['k1', 'k2', 'k3'])),
    ('--algo.kl.init_coef', dict(type=float, default=0.01)),
    ('--train.micro_batch_size', dict(type=int, default=1)),
    ('--train.batch_size', dict(type=int, default=128)),
    ('--rollout.micro_batch_size', dict(type=int, default=1)),
    ('--rollout.batch_size', dict(type=int, default=1024)),
    ('--train.max_epochs', dict(type=int, default=1)),
    ('--data.max_len', dict(type=int, default=2048)),
    ('--rollout.max_new_tokens', dict(type=int, default=None)),
    ('--ckpt.output_dir', dict(type=str, default='./ckpt')),
    ('--ds.ring_attn_size', dict(type=int, default=1)),
    ('--ds.tensor_parallel_size', dict(type=int, default=1)),
    ('--train.async_enable', STORE_TRUE),
]
FLAGS_V0_10_1_POST2 = [
    ('--pretrain', dict(type=str, default=None)),
    ('--actor_num_nodes', dict(type=int, default=1)),
    ('--actor_num_gpus_per_node', dict(type=int, default=8)),
    ('--ref_num_nodes', dict(type=int, default=1)),
    ('--ref_num_gpus_per_node', dict(type=int, default=8)),
    ('--vllm_num_engines', dict(type=int, default=None)),
    ('--vllm_tensor_parallel_size', dict(type=int, default=1)),
    ('--vllm_gpu_memory_utilization', dict(type=float, default=0.95)),
    ('--colocate_all_models', STORE_TRUE),
    ('--vllm_enable_sleep', STORE_TRUE),
    ('--deepspeed_enable_sleep', STORE_TRUE),
    ('--zero_stage', dict(type=int, default=2)),
    ('--gradient_checkpointing', STORE_TRUE),
    ('--prompt_data', dict(type=str, default=None)),
    ('--input_key', dict(type=str, default='input')),
    ('--label_key', dict(type=str, default=None)),
    ('--apply_chat_template', STORE_TRUE),
    ('--remote_rm_url', dict(type=str, default=None)),
    ('--advantage_estimator', dict(type=str, default='gae',
          choices=['gae', 'reinforce', 'rloo', 'reinforce_baseline', 'group_norm', 'dr_grpo'])),
    ('--n_samples_per_prompt', dict(type=int, default=1)),
    ('--use_kl_loss', STORE_TRUE),
    ('--kl_estimator', dict(type=str, default='k1', choices=['k1', 'k2', 'k3'])),
    ('--init_kl_coef', dict(type=float, default=0.01)),
    ('--micro_train_batch_size', dict(type=int, default=1)),
    ('--train_batch_size', dict(type=int, default=128)),
    ('--micro_rollout_batch_size', dict(type=int, default=1)),
    ('--rollout_batch_size', dict(type=int, default=1024)),
    ('--max_epochs', dict(type=int, default=1)),
    ('--max_len', dict(type=int, default=2048)),
    ('--max_new_tokens', dict(type=int, default=None)),
    ('--save_path', dict(type=str, default='./ckpt')),
    ('--ring_attn_size', dict(type=int, default=1)),
    ('--ds_tensor_parallel_size', dict(type=int, default=1)),
    ('--async_train', STORE_TRUE),
]
FLAGS_V0_9_10 = [
    ('--pretrain', dict(type=str, default=None)),
    ('--actor_num_nodes', dict(type=int, default=1)),
    ('--actor_num_gpus_per_node', dict(type=int, default=8)),
    ('--ref_num_nodes', dict(type=int, default=1)),
    ('--ref_num_gpus_per_node', dict(type=int, default=8)),
    ('--vllm_num_engines', dict(type=int, default=None)),
    ('--vllm_tensor_parallel_size', dict(type=int, default=1)),
    ('--vllm_gpu_memory_utilization', dict(type=float, default=0.95)),
    ('--colocate_all_models', STORE_TRUE),
    ('--vllm_enable_sleep', STORE_TRUE),
    ('--deepspeed_enable_sleep', STORE_TRUE),
    ('--zero_stage', dict(type=int, default=2)),
    ('--gradient_checkpointing', STORE_TRUE),
    ('--prompt_data', dict(type=str, default=None)),
    ('--input_key', dict(type=str, default='input')),
    ('--label_key', dict(type=str, default=None)),
    ('--apply_chat_template', STORE_TRUE),
    ('--remote_rm_url', dict(type=str, default=None)),
    ('--advantage_estimator', dict(type=str, default='gae',
          choices=['gae', 'reinforce', 'rloo', 'reinforce_baseline', 'group_norm', 'dr_grpo'])),
    ('--n_samples_per_prompt', dict(type=int, default=1)),
    ('--use_kl_loss', STORE_TRUE),
    ('--kl_estimator', dict(type=str, default='k1', choices=['k1', 'k2', 'k3'])),
    ('--init_kl_coef', dict(type=float, default=0.01)),
    ('--micro_train_batch_size', dict(type=int, default=4)),
    ('--train_batch_size', dict(type=int, default=128)),
    ('--micro_rollout_batch_size', dict(type=int, default=8)),
    ('--rollout_batch_size', dict(type=int, default=1024)),
    ('--max_epochs', dict(type=int, default=1)),
    ('--max_len', dict(type=int, default=2048)),
    ('--max_new_tokens', dict(type=int, default=None)),
    ('--save_path', dict(type=str, default='./ckpt')),
    ('--ring_attn_size', dict(type=int, default=1)),
    ('--ds_tensor_parallel_size', dict(type=int, default=1)),
    ('--async_train', STORE_TRUE),
]
FLAGS_V0_9_0 = [
    ('--pretrain', dict(type=str, default=None)),
    ('--actor_num_nodes', dict(type=int, default=1)),
    ('--actor_num_gpus_per_node', dict(type=int, default=8)),
    ('--ref_num_nodes', dict(type=int, default=1)),
    ('--ref_num_gpus_per_node', dict(type=int, default=8)),
    ('--vllm_num_engines', dict(type=int, default=None)),
    ('--vllm_tensor_parallel_size', dict(type=int, default=1)),
    ('--vllm_gpu_memory_utilization', dict(type=float, default=0.95)),
    ('--colocate_all_models', STORE_TRUE),
    ('--vllm_enable_sleep', STORE_TRUE),
    ('--deepspeed_enable_sleep', STORE_TRUE),
    ('--zero_stage', dict(type=int, default=2)),
    ('--gradient_checkpointing', STORE_TRUE),
    ('--prompt_data', dict(type=str, default=None)),
    ('--input_key', dict(type=str, default='input')),
    ('--label_key', dict(type=str, default=None)),
    ('--apply_chat_template', STORE_TRUE),
    ('--remote_rm_url', dict(type=str, default=None)),
    ('--advantage_estimator', dict(type=str, default='gae',
          choices=['gae', 'reinforce', 'rloo', 'reinforce_baseline', 'group_norm', 'dr_grpo'])),
    ('--n_samples_per_prompt', dict(type=int, default=1)),
    ('--use_kl_loss', STORE_TRUE),
    ('--kl_estimator', dict(type=str, default='k1', choices=['k1', 'k2', 'k3'])),
    ('--init_kl_coef', dict(type=float, default=0.01)),
    ('--micro_train_batch_size', dict(type=int, default=4)),
    ('--train_batch_size', dict(type=int, default=128)),
    ('--micro_rollout_batch_size', dict(type=int, default=8)),
    ('--rollout_batch_size', dict(type=int, default=1024)),
    ('--max_epochs', dict(type=int, default=1)),
    ('--prompt_max_len', dict(type=int, default=1024)),
    ('--generate_max_len', dict(type=int, default=1024)),
    ('--max_len', dict(type=int, default=None)),
    ('--save_path', dict(type=str, default='./ckpt')),
    ('--ring_attn_size', dict(type=int, default=1)),
    ('--ds_tensor_parallel_size', dict(type=int, default=1)),
    ('--async_train', STORE_TRUE),
]

COMMITS = {
    "v0.11.0": "3c3be6234e0cb353e76bb8019947db9dfe99fca7",
    "v0.10.4": "ad1796e62b56bc9deae95542778336f88d24a3ed",
    "v0.10.1.post2": "ff481ecdc97b861c0cbf07ce49284969a1bd9878",
    "v0.9.10": "6f58d4183dfa2ff2de396f856350ed4aca395645",
    "v0.9.0": "06ab51e75c0e8c5b4d6b66912996b2a611e3dc2f",
}

# The example of this repository before OpenRLHF 0.9.8 renamed the length flags, and without a vLLM
# engine: what the contract must catch.
OLD_EXAMPLE = (
    "--pretrain Qwen/Qwen2.5-Coder-0.5B-Instruct --prompt_data grpo.jsonl --input_key input --label_key label "
    "--apply_chat_template --remote_rm_url http://127.0.0.1:5000/get_reward --advantage_estimator group_norm "
    "--n_samples_per_prompt 8 --micro_train_batch_size 2 --train_batch_size 64 --micro_rollout_batch_size 8 "
    "--rollout_batch_size 16 --max_epochs 1 --prompt_max_len 2048 --generate_max_len 1024 "
    "--save_path ./minedit-openrlhf"
).split()


class ArgumentError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """OpenRLHF's `argparse.ArgumentParser()`, raising instead of exiting. allow_abbrev is off: our
    scripts must spell every flag in full (an abbreviation that is unique among the copied flags may be
    ambiguous among all of them)."""

    def __init__(self) -> None:
        super().__init__(prog="train_ppo_ray", allow_abbrev=False)

    def error(self, message: str):
        raise ArgumentError(message)


def build_parser(definitions) -> Parser:
    parser = Parser()
    for flag, spec in definitions:
        if spec == STORE_TRUE:
            parser.add_argument(flag, action="store_true", default=False)
        else:
            parser.add_argument(flag, **spec)
    return parser


def hierarchize(args):
    """openrlhf/utils/config.py (v0.10.2+): dotted dests become nested namespaces."""
    root = {}
    for key, value in vars(args).items():
        parts = key.split(".")
        node = root
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value

    def build(x):
        return argparse.Namespace(**{k: build(v) for k, v in x.items()}) if isinstance(x, dict) else x

    return build(root)


def example_args(script: str, **env: str):
    """The arguments the example passes to OpenRLHF, as bash expands them."""
    out = subprocess.run(
        ["bash", os.path.join(EXAMPLES, script)],
        env={**os.environ, "MINEDIT_PRINT_ARGS": "1", "MINEDIT_TOKEN": "", **env},
        capture_output=True,
        check=True,
    ).stdout
    return [a.decode("utf-8") for a in out.split(b"\0") if a]


def settings(args, dotted: bool) -> dict:
    """The values the checks read, under either naming."""
    if dotted:
        a = hierarchize(args)
        return dict(
            estimator=a.algo.advantage.estimator, n=a.rollout.n_samples_per_prompt,
            rollout_batch=a.rollout.batch_size, micro_rollout=a.rollout.micro_batch_size,
            actor_gpus=a.actor.num_nodes * a.actor.num_gpus_per_node, ring=a.ds.ring_attn_size,
            ds_tp=a.ds.tensor_parallel_size, engines=a.vllm.num_engines, vllm_tp=a.vllm.tensor_parallel_size,
            colocate=a.train.colocate_all, sleep=a.vllm.enable_sleep, asynchronous=a.train.async_enable,
            label_key=a.data.label_key, input_key=a.data.input_key, remote=a.reward.remote_url,
            max_len=a.data.max_len, max_new_tokens=a.rollout.max_new_tokens,
        )
    return dict(
        estimator=args.advantage_estimator, n=args.n_samples_per_prompt, rollout_batch=args.rollout_batch_size,
        micro_rollout=args.micro_rollout_batch_size, actor_gpus=args.actor_num_nodes * args.actor_num_gpus_per_node,
        ring=args.ring_attn_size, ds_tp=args.ds_tensor_parallel_size, engines=args.vllm_num_engines,
        vllm_tp=args.vllm_tensor_parallel_size, colocate=args.colocate_all_models, sleep=args.vllm_enable_sleep,
        asynchronous=args.async_train, label_key=args.label_key, input_key=args.input_key,
        remote=args.remote_rm_url, max_len=getattr(args, "max_len", None),
        max_new_tokens=getattr(args, "max_new_tokens", None),
        prompt_max_len=getattr(args, "prompt_max_len", None), generate_max_len=getattr(args, "generate_max_len", None),
    )


class CommandLineContract:
    """Mixin: parse an example's arguments with one release's definitions and check the result."""

    VERSION = ""
    DEFINITIONS: list = []
    DOTTED = False
    SCRIPT = ""
    ENV: dict = {}

    def parse(self, argv):
        return build_parser(self.DEFINITIONS).parse_args(argv)

    def test_example_parses_and_passes_the_checks(self) -> None:
        argv = example_args(self.SCRIPT, **self.ENV)
        try:
            args = self.parse(argv)
        except ArgumentError as error:
            self.fail(f"{self.SCRIPT} does not parse with OpenRLHF {self.VERSION}'s flags: {error}")
        s = settings(args, self.DOTTED)
        # Upstream post-parse checks (train_ppo_ray.py after parse_args).
        if s["estimator"] in ["rloo", "reinforce_baseline", "group_norm", "dr_grpo"]:
            self.assertGreater(s["n"], 1, f"{s['estimator']} requires n_samples_per_prompt > 1")
        self.assertGreaterEqual(
            s["n"] * s["rollout_batch"] // s["micro_rollout"], s["actor_gpus"] // s["ring"] // s["ds_tp"],
            "The number of sample batches must be greater than or equal to the effective number of actor processes.",
        )
        # Upstream train(): colocated vLLM engines must cover the actor's GPUs exactly.
        if s["colocate"] and not s["asynchronous"]:
            self.assertEqual(s["actor_gpus"], s["engines"] * s["vllm_tp"])
        # Upstream silently turns vllm sleep off without colocation; the example means it.
        self.assertTrue(s["sleep"] and s["colocate"])
        # Ours: generation runs only through vLLM; the label column is the task id; GRPO.
        self.assertIsNotNone(s["engines"], "no --vllm.num_engines / --vllm_num_engines: nothing generates")
        self.assertGreater(s["engines"], 0)
        self.assertEqual((s["label_key"], s["input_key"]), ("label", "input"))
        self.assertEqual(s["estimator"], "group_norm")
        urls = s["remote"].split(",")  # upstream: args.remote_rm_url.split(",")
        self.assertEqual(urls, ["http://127.0.0.1:5000/get_reward"])
        if s.get("prompt_max_len") is not None:
            self.assertGreater(s["prompt_max_len"], 0)
            self.assertGreater(s["generate_max_len"], 0)
        else:
            self.assertIsNotNone(s["max_new_tokens"])
            self.assertGreater(s["max_len"] - s["max_new_tokens"], 0, "no room left for the prompt")

    def test_a_token_goes_in_the_url(self) -> None:
        argv = example_args(self.SCRIPT, MINEDIT_TOKEN="s3cret", **self.ENV)
        s = settings(self.parse(argv), self.DOTTED)
        self.assertEqual(s["remote"], "http://127.0.0.1:5000/get_reward?token=s3cret")


class CommandLineV0110Test(CommandLineContract, unittest.TestCase):
    """openrlhf/cli/train_ppo_ray.py and openrlhf/utils/config.py at v0.11.0
    (3c3be6234e0cb353e76bb8019947db9dfe99fca7): dotted flags; examples/openrlhf/train_grpo.sh."""

    VERSION, DEFINITIONS, DOTTED, SCRIPT = "v0.11.0", FLAGS_V0_11_0, True, "train_grpo.sh"


class CommandLineV0104Test(CommandLineContract, unittest.TestCase):
    """openrlhf/cli/train_ppo_ray.py at v0.10.4 (ad1796e62b56bc9deae95542778336f88d24a3ed): dotted flags
    (introduced in v0.10.2); examples/openrlhf/train_grpo.sh."""

    VERSION, DEFINITIONS, DOTTED, SCRIPT = "v0.10.4", FLAGS_V0_10_4, True, "train_grpo.sh"


class CommandLineV0101Post2Test(CommandLineContract, unittest.TestCase):
    """openrlhf/cli/train_ppo_ray.py at v0.10.1.post2 (ff481ecdc97b861c0cbf07ce49284969a1bd9878): the
    last flat flags; examples/openrlhf/train_grpo_v0.9.sh."""

    VERSION, DEFINITIONS, DOTTED, SCRIPT = "v0.10.1.post2", FLAGS_V0_10_1_POST2, False, "train_grpo_v0.9.sh"

    def test_the_dotted_example_is_rejected(self) -> None:
        with self.assertRaisesRegex(ArgumentError, r"unrecognized arguments: --actor\.model_name_or_path"):
            self.parse(example_args("train_grpo.sh"))


class CommandLineV0910Test(CommandLineContract, unittest.TestCase):
    """openrlhf/cli/train_ppo_ray.py at v0.9.10 (6f58d4183dfa2ff2de396f856350ed4aca395645): flat flags
    with --max_len / --max_new_tokens (since v0.9.8); examples/openrlhf/train_grpo_v0.9.sh."""

    VERSION, DEFINITIONS, DOTTED, SCRIPT = "v0.9.10", FLAGS_V0_9_10, False, "train_grpo_v0.9.sh"

    def test_the_old_example_is_rejected(self) -> None:
        with self.assertRaisesRegex(ArgumentError, r"unrecognized arguments: --prompt_max_len"):
            self.parse(OLD_EXAMPLE)


class CommandLineV090Test(CommandLineContract, unittest.TestCase):
    """openrlhf/cli/train_ppo_ray.py at v0.9.0 (06ab51e75c0e8c5b4d6b66912996b2a611e3dc2f): flat flags with
    --prompt_max_len / --generate_max_len (to v0.9.7); train_grpo_v0.9.sh with OPENRLHF_OLD_LENGTH_FLAGS=1."""

    VERSION, DEFINITIONS, DOTTED, SCRIPT = "v0.9.0", FLAGS_V0_9_0, False, "train_grpo_v0.9.sh"
    ENV = {"OPENRLHF_OLD_LENGTH_FLAGS": "1"}

    def test_the_newer_length_flags_are_rejected(self) -> None:
        with self.assertRaisesRegex(ArgumentError, r"unrecognized arguments: --max_new_tokens"):
            self.parse(example_args(self.SCRIPT))

    def test_the_old_example_parses_but_has_no_generation_engine(self) -> None:
        s = settings(self.parse(OLD_EXAMPLE), dotted=False)
        self.assertIsNone(s["engines"])


# ---------------------------------------------------------------------------------------------------------
# (b) The reward path, with plain lists for torch tensors.


class Tensor:
    """What torch.tensor(data) would make of JSON data: numbers (bool, int, float) in a rectangular
    nesting. torch raises on None, strings, dicts and ragged lists; so does this."""

    def __init__(self, data) -> None:
        self.shape, self.values = Tensor._walk(data)

    @staticmethod
    def _walk(data):
        if isinstance(data, bool) or isinstance(data, (int, float)):
            return (), [float(data)]
        if isinstance(data, list):
            parts = [Tensor._walk(x) for x in data]
            shapes = {shape for shape, _ in parts}
            if len(shapes) > 1:
                raise ValueError(f"expected sequence of equal length, got shapes {sorted(shapes)}")
            inner = shapes.pop() if shapes else ()
            return (len(data),) + inner, [v for _, values in parts for v in values]
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def cat(tensors):
    """torch.cat(dim=0): same trailing shape (an empty 1-D tensor is skipped, as torch does)."""
    kept = [t for t in tensors if t.shape != (0,)]
    trailing = {t.shape[1:] for t in kept}
    if len(trailing) > 1:
        raise RuntimeError(f"Sizes of tensors must match except in dimension 0: {sorted(trailing)}")
    out = Tensor([])
    out.shape = (sum(t.shape[0] for t in kept),) + (trailing.pop() if trailing else ())
    out.values = [v for t in kept for v in t.values]
    return out


class SingleTurnAgentExecutorV0110:
    """openrlhf/utils/agent.py at v0.11.0 (3c3be623): SingleTurnAgentExecutor._fetch_rewards_via_http and
    the reward block of execute(); the retry sleep is injectable, nothing else differs."""

    def __init__(self, reward_endpoints, sleep=asyncio.sleep) -> None:
        self.reward_endpoints = reward_endpoints
        self.sleep = sleep
        self.logged = []  # upstream: logger.info(...)

    async def _fetch_rewards_via_http(self, queries_list, prompts_list, labels_list):
        num_servers = len(self.reward_endpoints)
        batch_size = (len(queries_list) + num_servers - 1) // num_servers
        timeout = aiohttp.ClientTimeout(total=180)

        tasks = []
        for i, rm in enumerate(self.reward_endpoints):
            start_idx = i * batch_size
            end_idx = min((i + 1) * batch_size, len(queries_list))
            payload = {
                "query": queries_list[start_idx:end_idx],
                "prompts": prompts_list[start_idx:end_idx],
                "labels": labels_list[start_idx:end_idx],
            }

            async def _post_request(url, data, try_max_times=5):
                for _ in range(try_max_times):
                    try:
                        async with aiohttp.ClientSession(timeout=timeout) as session:
                            async with session.post(url, json=data) as response:
                                response.raise_for_status()
                                return await response.json()
                    except aiohttp.ClientError as e:
                        self.logged.append(f"Request error, please check: {e}")
                    except Exception as e:  # pragma: no cover - defensive
                        self.logged.append(f"Unexpected error, please check: {e}")
                    await self.sleep(1)

                raise RuntimeError(
                    f"Request error for {try_max_times} times, returning None. Please check the API server."
                )

            tasks.append(asyncio.create_task(_post_request(rm, payload)))
        return await asyncio.gather(*tasks)

    async def reward_output(self, query, prompt, label):
        """execute()'s reward block: the sample's reward, scores and extra_logs (None when the call failed)."""
        output = {"prompt": prompt, "label": label, "reward": None, "scores": None, "extra_logs": {}}
        try:
            rewards_info_list = await self._fetch_rewards_via_http([query], [prompt], [label])
            rewards_info = rewards_info_list[0] if rewards_info_list else None
            if rewards_info:
                score_value = rewards_info.get("scores")
                if score_value is None:
                    score_value = rewards_info.get("rewards")
                output.update(
                    reward=rewards_info.get("rewards"),
                    scores=score_value,
                    extra_logs=rewards_info.get("extra_logs") or {},
                )
        except Exception as e:
            self.logged.append(f"[SingleTurnExecutor] Failed to fetch reward from remote RM: {e}")
        return output


def experience_of(response):
    """openrlhf/trainer/ppo_utils/samples_generator.py at v0.11.0, _process_response_into_experience: the
    reward, score and info tensors of one sample."""
    reward_val = response.get("reward", None)
    score_val = response.get("scores", None)
    info = {}
    if reward_val is not None:
        info["reward"] = Tensor([reward_val])
    if score_val is not None:
        info["score"] = Tensor([score_val])
    for key, value in response.get("extra_logs", {}).items():
        info[key] = Tensor([value])
    return {
        "rewards": Tensor([reward_val]) if reward_val is not None else None,
        "scores": Tensor([score_val]) if score_val is not None else None,
        "info": info,
    }


def group_norm_advantages(experiences, n_samples_per_prompt):
    """openrlhf/trainer/ppo_utils/experience_maker.py at v0.11.0, compute_advantages_and_returns with
    --algo.advantage.estimator group_norm: (r - mean) / (std + 1e-9) within each prompt's samples."""
    raw = [e["rewards"] for e in experiences]
    if any(r is None for r in raw):
        raise TypeError("expected Tensor as element in argument 0, but got NoneType")  # torch.cat
    rewards = cat(raw)
    if len(rewards.values) % n_samples_per_prompt:
        raise RuntimeError(f"shape '[-1, {n_samples_per_prompt}]' is invalid for input of size {len(rewards.values)}")
    groups = [rewards.values[i : i + n_samples_per_prompt] for i in range(0, len(rewards.values), n_samples_per_prompt)]
    # torch.std is the unbiased (n - 1) estimate.
    return [[(r - statistics.mean(g)) / (statistics.stdev(g) + 1e-9) for r in g] for g in groups]


def gold_or_corrupted(i: int):
    """The i-th sample of a group: a fenced gold repair, the unchanged program, the gold repair unfenced,
    or a fenced gold repair behind a left-truncated prompt (query without the prompt's start)."""
    kind = ("gold", "corrupted", "unfenced", "truncated")[i % 4]
    response = {"gold": GOLD + EOS, "corrupted": CORRUPTED + EOS, "unfenced": UNFENCED_GOLD, "truncated": GOLD + EOS}[kind]
    query = (PROMPT[len(SYSTEM) + 10 :] if kind == "truncated" else PROMPT) + response
    return kind, query


class SingleSampleRewardsV0110Test(unittest.TestCase):
    """openrlhf/utils/agent.py (SingleTurnAgentExecutor._fetch_rewards_via_http, execute),
    openrlhf/trainer/ppo_utils/samples_generator.py (_process_response_into_experience) and
    openrlhf/trainer/ppo_utils/experience_maker.py (compute_advantages_and_returns) at v0.11.0
    (3c3be6234e0cb353e76bb8019947db9dfe99fca7); one sample per request since v0.9.1 (ac18582b)."""

    def run_async(self, coroutine):
        return asyncio.run(coroutine)

    def test_grpo_groups_of_128_concurrent_single_sample_requests(self) -> None:
        n, prompts = 8, 16
        executor = SingleTurnAgentExecutorV0110([URL])
        plan = []
        for p in range(prompts):
            label = INFRA_TASK_ID if p % 4 == 3 else TASK_ID
            for i in range(n):
                kind, query = gold_or_corrupted(i + p)
                plan.append((label, kind, query))

        async def generate():
            # Every sample's request leaves as soon as vLLM finishes it: all at once here.
            return await asyncio.gather(*(executor.reward_output(q, PROMPT, label) for label, _, q in plan))

        outputs = self.run_async(generate())
        self.assertEqual(executor.logged, [])
        experiences = [experience_of(o) for o in outputs]
        key_sets = {tuple(sorted(e["info"])) for e in experiences}
        self.assertEqual(len(key_sets), 1, key_sets)  # every sample logs the same train/<key> set
        for (label, kind, _), output, experience in zip(plan, outputs, experiences):
            with self.subTest(label=label, kind=kind):
                self.assertEqual(experience["rewards"].shape, (1, 1))
                self.assertEqual(experience["scores"].shape, (1, 1))
                for key, tensor in experience["info"].items():
                    self.assertEqual(tensor.shape, (1, 1), key)
                reward = output["reward"][0]
                logs = output["extra_logs"]
                if label == INFRA_TASK_ID:
                    self.assertEqual(reward, INFRA_REWARD)
                    self.assertEqual((logs["infra_error"], output["scores"]), ([1], [0]))
                elif kind == "corrupted":
                    self.assertEqual((reward, logs["passed"], logs["infra_error"]), (-0.2, [0], [0]))
                else:
                    self.assertAlmostEqual(reward, 0.1, places=12)
                    self.assertEqual((logs["passed"], logs["infra_error"]), ([1], [0]))
                self.assertEqual(logs["prompt_fallback"], [1 if kind == "truncated" else 0])
        advantages = group_norm_advantages(experiences, n)
        self.assertEqual(len(advantages), prompts)
        self.assertTrue(all(math.isfinite(a) for group in advantages for a in group))
        # An all-INFRA group has no signal, not a spurious one.
        self.assertTrue(all(abs(a) < 1e-6 for a in advantages[3]), advantages[3])
        print(f"openrlhf contract: {len(outputs)} single-sample requests, rewards {sorted({o['reward'][0] for o in outputs})}")

    def test_a_left_truncated_prompt_still_scores(self) -> None:
        executor = SingleTurnAgentExecutorV0110([URL])
        query = PROMPT[len(PROMPT) // 2 :] + GOLD + EOS  # agent.py: prompt_token_ids[-max_prompt_length:]
        output = self.run_async(executor.reward_output(query, PROMPT, TASK_ID))
        self.assertEqual(executor.logged, [])
        self.assertAlmostEqual(output["reward"][0], 0.1, places=12)
        self.assertEqual(output["extra_logs"]["prompt_fallback"], [1])

    def test_an_unfenced_answer_ending_in_the_end_of_turn_passes(self) -> None:
        executor = SingleTurnAgentExecutorV0110([URL])
        output = self.run_async(executor.reward_output(PROMPT + UNFENCED_GOLD, PROMPT, TASK_ID))
        self.assertEqual((output["extra_logs"]["passed"], output["scores"]), ([1], [1]))

    def test_a_second_url_gets_an_empty_shard_and_answers_200(self) -> None:
        executor = SingleTurnAgentExecutorV0110([URL, URL])
        infos = self.run_async(executor._fetch_rewards_via_http([PROMPT + GOLD], [PROMPT], [TASK_ID]))
        self.assertEqual(len(infos), 2)
        self.assertAlmostEqual(infos[0]["rewards"][0], 0.1, places=12)
        self.assertEqual((infos[1]["rewards"], infos[1]["scores"]), ([], []))
        self.assertEqual(set(infos[1]["extra_logs"]), set(infos[0]["extra_logs"]))

    def test_an_empty_label_fails_every_try_and_leaves_no_reward(self) -> None:
        # OpenRLHF without --data.label_key / --label_key sends "" as the label.
        slept = []

        async def sleep(seconds):
            slept.append(seconds)

        executor = SingleTurnAgentExecutorV0110([URL], sleep=sleep)
        output = self.run_async(executor.reward_output(PROMPT + GOLD, PROMPT, ""))
        self.assertIsNone(output["reward"])
        self.assertEqual(slept, [1] * 5)
        self.assertTrue(all("400" in line for line in executor.logged[:5]), executor.logged)
        self.assertRegex(executor.logged[-1], "Failed to fetch reward from remote RM")
        with self.assertRaises(TypeError):  # the run crashes later, in compute_advantages_and_returns
            group_norm_advantages([experience_of(output)] * 2, 2)
        # OpenRLHF never shows the answer; this is what the server said (and logged).
        answer = requests.post(URL, json={"query": [PROMPT + GOLD], "prompts": [PROMPT], "labels": [""]}, timeout=60)
        self.assertEqual(answer.status_code, 400)
        self.assertRegex(answer.json()["error"]["message"], r"--data\.label_key label .*--label_key label")

    def test_without_the_token_in_the_url_every_try_fails(self) -> None:
        async def sleep(_seconds):
            pass

        executor = SingleTurnAgentExecutorV0110([OPENRLHF_URL], sleep=sleep)
        output = self.run_async(executor.reward_output(PROMPT + GOLD, PROMPT, TASK_ID))
        self.assertIsNone(output["reward"])
        self.assertTrue(all("401" in line for line in executor.logged[:5]), executor.logged)


class AtScaleV0110Test(unittest.TestCase):
    """What a large step does to the endpoint, through the v0.11.0 (3c3be623) request code above: every
    sample is its own request (agent.py _fetch_rewards_via_http), all in flight at once, each with
    aiohttp's fixed total=180 s and 5 tries 1 s apart that ignore Retry-After; a sample without an answer
    after the last try gets reward None and crashes compute_advantages_and_returns. The server's answer
    must come on the FIRST try, before 180 s, every time: server.openrlhfRequestBudgetMs. This engine's
    budget is short (20 s) so that 4,096 distinct programs cannot all run in it on 2 cores: the test sees
    both kinds of answer, scored ones and INFRA_ERRORs at the budget, and none late."""

    def test_4096_single_sample_requests_at_once_each_answered_in_budget_on_its_first_try(self) -> None:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 16384)), hard))
        n, prompts = 8, 512
        plan = []
        for p in range(prompts):
            task = TASKS[p % len(TASKS)]
            prompt = SYSTEM + "<|im_start|>user\nRepair this program:\n" + fence(task["corrupted"]) + EOS + "\n"
            for i in range(n):
                # Every program differs (a distinct module-level line), so each of the 4,096 must execute.
                correct = i % 2 == 0
                code = (task["gold"] if correct else task["corrupted"]) + f"_SAMPLE = {p * n + i}\n"
                plan.append((task["task_id"], correct, prompt, prompt + fence(code) + EOS))
        executor = SingleTurnAgentExecutorV0110([f"{OPENRLHF_TIGHT_URL}?token={TOKEN}"])
        latencies = []

        async def timed(query, prompt, label):
            started = time.monotonic()
            output = await executor.reward_output(query, prompt, label)
            latencies.append(time.monotonic() - started)
            return output

        async def step():
            return await asyncio.gather(*(timed(q, prompt, label) for label, _, prompt, q in plan))

        started = time.monotonic()
        outputs = asyncio.run(step())
        wall = time.monotonic() - started
        # No try failed, so no request was retried and no sample was left without a reward.
        self.assertEqual(executor.logged, [])
        self.assertTrue(all(o["reward"] is not None for o in outputs))
        latencies.sort()
        # The budget runs from each request's arrival; connecting 4,096 sockets at once adds a few seconds.
        self.assertLess(latencies[-1], OPENRLHF_TIGHT_BUDGET_S + 20.0)
        over_budget = sum(o["extra_logs"]["infra_error"][0] for o in outputs)
        for (label, correct, _, _), output in zip(plan, outputs):
            if output["extra_logs"]["infra_error"] == [1]:
                self.assertEqual(output["reward"], [INFRA_REWARD])
            else:
                self.assertEqual(output["extra_logs"]["passed"], [1 if correct else 0], label)
        print(
            f"openrlhf at scale: {len(outputs)} single-sample requests at once answered in {wall:.1f} s "
            f"(budget {OPENRLHF_TIGHT_BUDGET_S:.0f} s); latency p50 {latencies[len(latencies) // 2]:.1f} s, "
            f"max {latencies[-1]:.1f} s; {len(outputs) - over_budget} scored, {over_budget} INFRA_ERROR at the "
            "budget; 0 retries"
        )
        # Both kinds of answer happened: the budget really cut in, and real scoring went on meanwhile.
        self.assertGreater(over_budget, 0)
        self.assertGreater(len(outputs) - over_budget, 0)
        advantages = group_norm_advantages([experience_of(o) for o in outputs], n)
        self.assertTrue(all(math.isfinite(a) for group in advantages for a in group))


class InlineLabelV0110Test(unittest.TestCase):
    """A label column holding the task itself (JSON text, as a Parquet/JSONL dataset carries it through
    --data.label_key), sent by the v0.11.0 request code: scored as the stored task is, its runtime picked
    from its imports or named."""

    def test_an_inline_task_label_scores_like_its_stored_task(self) -> None:
        inline = {k: TASK[k] for k in ("corrupted", "gold", "entry_point", "tests")}
        executor = SingleTurnAgentExecutorV0110([URL])

        async def step():
            labels = [json.dumps(inline), json.dumps({**inline, "runtime": "stdlib"}), json.dumps(inline)]
            queries = [PROMPT + GOLD + EOS, PROMPT + GOLD + EOS, PROMPT + CORRUPTED + EOS]
            broken = executor.reward_output(PROMPT + GOLD + EOS, PROMPT, json.dumps(BROKEN_INLINE_TASK))
            return await asyncio.gather(*(executor.reward_output(q, PROMPT, l) for q, l in zip(queries, labels)), broken)

        gold, gold_named, corrupted, broken = asyncio.run(step())
        self.assertEqual(executor.logged, [])
        self.assertAlmostEqual(gold["reward"][0], 0.1, places=12)
        self.assertAlmostEqual(gold_named["reward"][0], 0.1, places=12)
        self.assertEqual((corrupted["reward"], corrupted["extra_logs"]["passed"]), ([-0.2], [0]))
        # A task whose gold cannot pass its own tests: INVALID_TASK at the failure reward, flagged; the same keys.
        self.assertEqual((broken["reward"], broken["extra_logs"]["invalid_task"]), ([INFRA_REWARD], [1]))
        self.assertEqual(set(broken["extra_logs"]), set(gold["extra_logs"]))


def request_api_wrapper_v090(url, data, try_max_times=5):
    """openrlhf/utils/remote_rm_utils.py at v0.9.0 (06ab51e7), request_api_wrapper."""
    headers = {"Content-Type": "application/json"}
    for _ in range(try_max_times):
        try:
            response = requests.post(url=url, json=data, headers=headers, timeout=180)
            response.raise_for_status()
            return response.json()
        except requests.RequestException:
            pass  # upstream: logger.info(...)
        time.sleep(1)
    raise Exception(f"Request error for {try_max_times} times, returning None. Please check the API server.")


def get_rewards_v090(remote_rm_url, queries_list, prompts_list, labels_list):
    """RemoteRewardModel.get_rewards at v0.9.0 (HTTP branch; ray.get of the shards in order)."""
    num_servers = len(remote_rm_url)
    batch_size = (len(queries_list) + num_servers - 1) // num_servers
    out = []
    for i in range(num_servers):
        start_idx = i * batch_size
        end_idx = min((i + 1) * batch_size, len(queries_list))
        data = {
            "query": queries_list[start_idx:end_idx],
            "prompts": prompts_list[start_idx:end_idx],
            "labels": labels_list[start_idx:end_idx],
        }
        out.append(request_api_wrapper_v090(remote_rm_url[i], data))
    return out


def update_samples_with_rewards_v090(rewards_info, samples_len):
    """openrlhf/trainer/ppo_utils/experience_maker.py at v0.9.0, update_samples_with_rewards: the shards'
    rewards, scores and extra_logs concatenated, then split back into the Experiences (of samples_len)."""

    def split(t):
        out, at = [], 0
        for n in samples_len:
            out.append(t.values[at : at + n])
            at += n
        return out

    rewards_list = split(cat([Tensor(info["rewards"]) for info in rewards_info]))
    scores_list = (
        split(cat([Tensor(info["scores"]) for info in rewards_info])) if "scores" in rewards_info[0] else rewards_list
    )
    merged_logs = {}
    if "extra_logs" in rewards_info[0]:
        merged_logs = {
            key: split(cat([Tensor(info["extra_logs"][key]) for info in rewards_info]))
            for key in rewards_info[0]["extra_logs"].keys()
        }
    return rewards_list, scores_list, merged_logs


class BatchedRewardsV090Test(unittest.TestCase):
    """openrlhf/utils/remote_rm_utils.py (request_api_wrapper, RemoteRewardModel.get_rewards) and
    openrlhf/trainer/ppo_utils/experience_maker.py (update_samples_with_rewards) at v0.9.0
    (06ab51e75c0e8c5b4d6b66912996b2a611e3dc2f): the whole rollout batch in one request per server."""

    def test_a_batched_request_split_over_two_servers(self) -> None:
        n = 8
        queries, labels = [], []
        for p in range(4):
            label = INFRA_TASK_ID if p == 2 else TASK_ID
            for i in range(n):
                queries.append(gold_or_corrupted(i)[1])
                labels.append(label)
        infos = get_rewards_v090([URL, URL], queries, [PROMPT] * len(queries), labels)
        self.assertEqual([len(info["rewards"]) for info in infos], [16, 16])
        rewards, scores, logs = update_samples_with_rewards_v090(infos, [n] * 4)  # micro_rollout_batch_size 8
        self.assertEqual(rewards[2], [INFRA_REWARD] * n)
        self.assertEqual(logs["infra_error"][2], [1.0] * n)
        self.assertEqual(scores[2], [0.0] * n)
        for group in (0, 1, 3):
            self.assertEqual(logs["passed"][group], [1.0, 0.0, 1.0, 1.0] * 2)
            self.assertEqual(logs["prompt_fallback"][group], [0.0, 0.0, 0.0, 1.0] * 2)

    def test_more_servers_than_samples(self) -> None:
        infos = get_rewards_v090([URL, URL], [PROMPT + GOLD], [PROMPT], [TASK_ID])
        rewards, _, logs = update_samples_with_rewards_v090(infos, [1])
        self.assertEqual(len(rewards[0]), 1)
        self.assertAlmostEqual(rewards[0][0], 0.1, places=12)
        self.assertEqual(logs["passed"], [[1.0]])


if __name__ == "__main__":
    unittest.main()
