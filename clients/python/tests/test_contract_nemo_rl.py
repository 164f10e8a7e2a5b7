"""Contract tests of ``minedit_client.nemo_rl`` against NeMo-RL's calling code, against the real server.

NeMo-RL needs torch and Ray, which cannot be installed here, so what it does with an environment is
reproduced below in plain Python (numpy arrays for tensors) from NVIDIA-NeMo/RL v0.7.0
(81aa43dda4765b0429cf31dab44441e4e4383911), with NeMo-RL's names:

- ``nemo_rl/environments/utils.py``: ``ENV_REGISTRY``, ``register_env``, ``create_env`` (lines 29-139:
  registry lookup, hydra ``get_object`` of the actor class, ``get_actor_python_env``, ``.options(runtime_env=
  {"py_executable", "env_vars": os.environ}).remote(env_config)``);
- ``nemo_rl/distributed/ray_actor_environment_registry.py``: ``ACTOR_ENVIRONMENT_REGISTRY``,
  ``get_actor_python_env`` (refuses an unregistered class); ``virtual_cluster.py``: ``PY_EXECUTABLES.SYSTEM``;
- ``nemo_rl/environments/interfaces.py``: ``EnvironmentReturn``;
- ``nemo_rl/utils/config.py``: ``load_config_with_inheritance`` / ``merge_with_override`` (``defaults:``);
- ``nemo_rl/data/datasets/utils.py``: ``extract_necessary_env_names``, ``update_single_dataset_config``;
  ``response_datasets/response_dataset.py``: ``ResponseDataset.format_data`` and its task name;
  ``nemo_rl/data/processors.py``: ``math_hf_data_processor``'s ``extra_env_info`` (lines 382-442);
  ``nemo_rl/data/collate_fn.py``: ``rl_collate_fn``; ``batched_data_dict.py``: ``repeat_interleave``;
- ``nemo_rl/experience/rollouts.py``: ``calculate_rewards`` (lines 474-571), the reward / observation /
  termination handling of ``run_multi_turn_rollout`` (lines 693-771) and ``run_sample_multi_turn_rollout``
  (``asyncio.to_thread(calculate_rewards, ...)`` per sample, all samples gathered: lines 986-1040);
- ``nemo_rl/algorithms/utils.py``: ``calculate_baseline_and_std_per_prompt`` and
  ``advantage_estimator.py``: ``GRPOAdvantageEstimator.compute_advantage`` (valid_mask = ones).

Ray is replaced by contract_support's stand-in with Ray's actor semantics as NeMo-RL uses them:
``ray.remote(cls)``, ``.options(...).remote(*args)`` starts the actor (its own thread and event loop; the
runtime env's ``env_vars`` are its environment), ``handle.method.remote(...)`` returns a ref, ``ray.get``
waits; an actor with an ``async`` method runs concurrent calls at once, as Ray's async actors do. Arguments
are copied, as Ray serializes them. torch is replaced by numpy for the two calls the environment makes.

Over ~500 lines because it carries the stand-ins (NeMo-RL's registries) and the mirror of one call path from
the dataset row to the advantage; split, that one path would be scattered over several files.
"""

import ast
import asyncio
import copy
import json
import importlib
import os
import runpy
import subprocess
import sys
import tempfile
import types
import unittest
from collections import namedtuple
from typing import Any, Dict, List, NamedTuple, Optional

import numpy as np
import yaml

from contract_support import FAULT, alone, fault_scorer, ray_get, ray_module
from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, GOLD_PLUS, INFRA_TASK_ID, INLINE_TASK, INVALID_INLINE_TASK
from support import OTHER_TASK, TARGET, TASK_ID, TOKEN, fence

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.join(HERE, "..")
EXAMPLES = os.path.join(CLIENT_DIR, "examples", "nemo_rl")
DEAD_TARGET = "127.0.0.1:1"  # nothing listens
ACTOR_FQN = "minedit_client.nemo_rl.MineditEnvironment"
G = 4  # grpo.num_generations_per_prompt (16 in grpo_math_1B.yaml; 4 keeps the sandbox work small)


# ---- Ray, torch and NeMo-RL stand-ins -------------------------------------------------------------------


def install_fakes() -> types.SimpleNamespace:
    """Puts ray, torch and the nemo_rl modules the adapter imports into sys.modules; returns the latter."""
    sys.modules["ray"] = ray_module()

    torch = types.ModuleType("torch")
    torch.float32 = np.float32
    torch.Tensor = np.ndarray
    torch.tensor = lambda values, dtype=None: np.asarray(values, dtype=dtype)
    sys.modules["torch"] = torch

    # nemo_rl/distributed/virtual_cluster.py
    virtual_cluster = types.ModuleType("nemo_rl.distributed.virtual_cluster")

    class PY_EXECUTABLES:  # noqa: N801 - upstream's name
        SYSTEM = sys.executable
        BASE = "uv run --locked --directory <git_root>"

    virtual_cluster.PY_EXECUTABLES = PY_EXECUTABLES

    # nemo_rl/distributed/ray_actor_environment_registry.py (the environments' entries)
    registry = types.ModuleType("nemo_rl.distributed.ray_actor_environment_registry")
    registry.ACTOR_ENVIRONMENT_REGISTRY = {
        "nemo_rl.environments.math_environment.MathEnvironment": PY_EXECUTABLES.SYSTEM,
        "nemo_rl.environments.code_environment.CodeEnvironment": PY_EXECUTABLES.SYSTEM,
        "nemo_rl.environments.code_jaccard_environment.CodeJaccardEnvironment": PY_EXECUTABLES.SYSTEM,
    }

    def get_actor_python_env(actor_class_fqn: str) -> str:
        if actor_class_fqn in registry.ACTOR_ENVIRONMENT_REGISTRY:
            return registry.ACTOR_ENVIRONMENT_REGISTRY[actor_class_fqn]
        raise ValueError(f"No actor environment registered for {actor_class_fqn}. ...")

    registry.get_actor_python_env = get_actor_python_env

    # nemo_rl/environments/interfaces.py
    interfaces = types.ModuleType("nemo_rl.environments.interfaces")

    class EnvironmentReturn(NamedTuple):
        observations: list
        metadata: list
        next_stop_strings: list
        rewards: Any
        terminateds: Any
        answers: Optional[list]

    interfaces.EnvironmentReturn = EnvironmentReturn

    # nemo_rl/environments/utils.py
    utils = types.ModuleType("nemo_rl.environments.utils")
    utils.ENV_REGISTRY = {
        "math": {"actor_class_fqn": "nemo_rl.environments.math_environment.MathEnvironment"},
        "code": {"actor_class_fqn": "nemo_rl.environments.code_environment.CodeEnvironment"},
        "code_jaccard": {"actor_class_fqn": "nemo_rl.environments.code_jaccard_environment.CodeJaccardEnvironment"},
    }

    def create_env(env_name: str, env_config: dict) -> Any:
        assert env_name in utils.ENV_REGISTRY, f"Env name {env_name} is not registered in ENV_REGISTRY."
        actor_class_fqn = utils.ENV_REGISTRY[env_name]["actor_class_fqn"]
        actor_class = get_object(actor_class_fqn)
        actor_py_exec = get_actor_python_env(actor_class_fqn)
        extra_env_vars: Dict[str, str] = {}
        assert not actor_py_exec.startswith("uv")  # SYSTEM: no venv to build
        return actor_class.options(
            runtime_env={"py_executable": actor_py_exec, "env_vars": {**dict(os.environ), **extra_env_vars}}
        ).remote(env_config)

    def register_env(env_name: str, actor_class_fqn: str) -> None:
        if env_name in utils.ENV_REGISTRY:
            raise ValueError(f"Env name {env_name} already registered")
        utils.ENV_REGISTRY[env_name] = {"actor_class_fqn": actor_class_fqn}

    utils.create_env, utils.register_env = create_env, register_env

    for name in ("nemo_rl", "nemo_rl.distributed", "nemo_rl.environments"):
        sys.modules[name] = types.ModuleType(name)
    for module in (virtual_cluster, registry, interfaces, utils):
        sys.modules[module.__name__] = module
    return types.SimpleNamespace(utils=utils, registry=registry, interfaces=interfaces, PY=PY_EXECUTABLES)


def get_object(path: str) -> Any:
    """hydra.utils.get_object (hydra's _locate): import the longest importable module prefix, getattr the
    rest."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(path)


NEMO = install_fakes()

sys.path.insert(0, CLIENT_DIR)
from minedit_client import MineditError  # noqa: E402
from minedit_client import nemo_rl as minedit_nemo_rl  # noqa: E402

minedit_nemo_rl.register()  # what the example launcher does before NeMo-RL sets up its data and envs


# ---- NeMo-RL's data path, config and rollout loop (numpy for torch) --------------------------------------

# grpo_math_1B.yaml at v0.7.0: the sections the example overrides or reads (data, env, and grpo's keys).
PARENT_CONFIG = """\
grpo:
  num_prompts_per_step: 32
  num_generations_per_prompt: 16
  max_rollout_turns: 1 # for multi-turn rollouts. Math Environments just have 1 turn (answering the question)
  normalize_rewards: true
  use_leave_one_out_baseline: true
data:
  max_input_seq_length: ${policy.max_total_sequence_length} # upper bound, real truncation occurs at vllm.max_model_len
  shuffle: true
  num_workers: 1
  use_multiple_dataloader: false
  train:
    dataset_name: OpenMathInstruct-2
    split_validation_size: 0.05 # use 5% of the training data as validation data
    seed: ${grpo.seed} # seed for train/validation split when split_validation_size > 0
  validation: null
  default:
    prompt_file: "examples/prompts/cot.txt"
    system_prompt_file: null
    processor: "math_hf_data_processor"
    env_name: "math"
env:
  math:
    num_workers: 8
    math_verify_impl: "hf_math_verify"
"""

# nemo_rl/data/__init__.py ResponseDatasetConfig keys, and ResponseDataset.__init__'s own parameters.
RESPONSE_DATASET_CONFIG_KEYS = {
    "dataset_name", "data_path", "input_key", "output_key", "subset", "split", "prompt_file",
    "system_prompt_file", "env_name", "processor", "download_dir", "split_validation_size", "seed",
}


def merge(base: Any, override: Any) -> Any:
    """OmegaConf.merge of plain dicts: mappings merge key by key, anything else replaces."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = merge(base[key], value) if key in base else value
        return merged
    return override


def load_config_with_inheritance(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        config = yaml.safe_load(f)
    defaults = config.pop("defaults", None)
    if defaults is None:
        return config
    base: dict = {}
    for default in [defaults] if isinstance(defaults, str) else defaults:
        base = merge(base, load_config_with_inheritance(os.path.join(os.path.dirname(path), default)))
    return merge(base, config)


def extract_necessary_env_names(data_config: dict) -> List[str]:
    names = set()
    for key in ("train", "validation", "default"):
        if key in data_config and data_config[key] is not None and "env_name" in data_config[key]:
            names.add(data_config[key]["env_name"])
    return list(names)


def update_single_dataset_config(data_config: dict, default_data_config: dict) -> None:
    for key in default_data_config.keys():
        if key not in data_config:
            data_config[key] = default_data_config[key]


def response_dataset_rows(rows: List[dict], data_path: str, input_key: str, output_key: str) -> List[dict]:
    """ResponseDataset: its task name from the path, and format_data on every row."""
    task_name = "-".join(data_path.split("/")[-2:]).split(".")[0]
    task_name = task_name[1:] if task_name[0] == "-" else task_name
    return [
        {
            "messages": [
                {"role": "user", "content": row[input_key]},
                {"role": "assistant", "content": row[output_key]},
            ],
            "task_name": task_name,
        }
        for row in rows
    ]


def math_hf_data_processor(datum_dict: dict, idx: int) -> dict:
    """What the processor puts in a DatumSpec (the chat template and tokenization left out)."""
    user_message = datum_dict["messages"]
    return {
        "message_log": [{"role": "user", "content": user_message[0]["content"]}],
        "extra_env_info": {"ground_truth": user_message[1]["content"]},
        "loss_multiplier": 1.0,
        "idx": idx,
        "task_name": datum_dict["task_name"],
    }


def rl_collate_fn(data_batch: List[dict]) -> Dict[str, Any]:
    return {
        "message_log": [d["message_log"] for d in data_batch],
        "loss_multiplier": np.asarray([d["loss_multiplier"] for d in data_batch]),
        "extra_env_info": [d["extra_env_info"] for d in data_batch],
        "task_name": [d.get("task_name", None) for d in data_batch],
        "idx": [d["idx"] for d in data_batch],
    }


def repeat_interleave(batch: Dict[str, Any], num_repeats: int) -> Dict[str, Any]:
    repeated = {}
    for k, v in batch.items():
        if isinstance(v, np.ndarray):
            repeated[k] = np.repeat(v, num_repeats, axis=0)
        else:
            repeated[k] = [copy.deepcopy(item) for item in v for _ in range(num_repeats)]
    return repeated


EnvOutput = namedtuple("EnvOutput", "observations metadata next_stop_strings rewards terminateds answers")


def calculate_rewards(batch: Dict[str, Any], task_to_env: Dict[str, Any]) -> EnvOutput:
    """rollouts.py calculate_rewards, numpy for torch."""
    to_env = [[{k: m[k] for k in ("role", "content")} for m in log] for log in batch["message_log"]]
    task_groups: Dict[str, list] = {}
    for i, task_name in enumerate(batch["task_name"]):
        task_groups.setdefault(task_name, []).append((i, to_env[i]))
    futures, future_to_indices = [], {}
    for task_name, group in task_groups.items():
        if task_name not in task_to_env:
            raise ValueError(f"No environment found for task type: {task_name}")
        indices = [idx for idx, _ in group]
        messages = [msg for _, msg in group]
        env_info = [batch["extra_env_info"][i] for i in indices]
        future = task_to_env[task_name].step.remote(messages, env_info)
        futures.append(future)
        future_to_indices[future] = indices
    results = ray_get(futures)
    all_rewards, all_obs, all_term, all_stops, all_meta, order, all_answers = [], [], [], [], [], [], []
    for future, result in zip(futures, results):
        indices = future_to_indices[future]
        env_observations, metadata, next_stop_strings, task_rewards, terminateds, answers = result
        if next_stop_strings is None:
            next_stop_strings = [None] * len(task_rewards)
        if answers is None:
            answers = [None] * len(task_rewards)
        for i, idx in enumerate(indices):
            order.append(idx)
            all_rewards.append(task_rewards[i])
            all_obs.append(env_observations[i])
            all_term.append(terminateds[i])
            all_stops.append(next_stop_strings[i])
            all_meta.append(metadata[i])
            all_answers.append(answers[i])
    s = sorted(range(len(order)), key=lambda k: order[k])
    return EnvOutput(
        [all_obs[i] for i in s],
        [all_meta[i] for i in s],
        [all_stops[i] for i in s],
        np.asarray([all_rewards[i] for i in s]),
        np.asarray([all_term[i] for i in s]),
        [all_answers[i] for i in s],
    )


def run_one_turn(batch: Dict[str, Any], completions: List[str], task_to_env: Dict[str, Any]) -> Dict[str, Any]:
    """run_multi_turn_rollout with max_rollout_turns=1: the generated message is appended, rewards go to
    total_reward, the observation is appended to every active sample, done = terminated."""
    batch = copy.deepcopy(batch)
    for log, text in zip(batch["message_log"], completions):
        log.append({"role": "assistant", "content": text})
    total_rewards = np.zeros(len(completions), dtype=np.float32)
    env_output = calculate_rewards(batch, task_to_env)
    total_rewards += env_output.rewards
    for i, log in enumerate(batch["message_log"]):
        log.append({"role": env_output.observations[i]["role"], "content": env_output.observations[i]["content"]})
    batch["total_reward"] = total_rewards
    batch["done"] = env_output.terminateds.astype(bool)
    return batch


def run_async_rollout(batch: Dict[str, Any], completions: List[str], task_to_env: Dict[str, Any]) -> List[float]:
    """run_async_multi_turn_rollout: every sample on its own, all gathered; each sample's env call is
    ``await asyncio.to_thread(calculate_rewards, <one-sample batch>, task_to_env)``."""

    async def one(i: int) -> float:
        log = copy.deepcopy(batch["message_log"][i]) + [{"role": "assistant", "content": completions[i]}]
        sample = {
            "message_log": [log],
            "extra_env_info": [batch["extra_env_info"][i]],
            "task_name": [batch["task_name"][i]],
        }
        env_output = await asyncio.to_thread(calculate_rewards, sample, task_to_env)
        assert bool(env_output.terminateds[0])
        return float(env_output.rewards[0])

    async def gather() -> List[float]:
        return list(await asyncio.gather(*[one(i) for i in range(len(completions))]))

    return asyncio.run(gather())


def calculate_baseline_and_std_per_prompt(prompts, rewards, valid_mask, leave_one_out_baseline=True):
    baseline = np.zeros_like(rewards)
    std = np.zeros_like(rewards)
    for unique in np.unique(prompts, axis=0):
        prompt_idx = np.nonzero((prompts == unique).all(1))[0]
        n = len(prompt_idx)
        matrix = (1 - np.eye(n)) if leave_one_out_baseline else np.ones((n, n))
        matrix = matrix.astype(rewards.dtype)
        if valid_mask[prompt_idx].sum() <= 1:
            baseline[prompt_idx] = rewards[prompt_idx]
            continue
        num_valid = valid_mask[prompt_idx].sum() - int(leave_one_out_baseline)
        prompt_baseline = matrix @ (rewards[prompt_idx] * valid_mask[prompt_idx]) / num_valid
        square = matrix @ (rewards[prompt_idx] ** 2 * valid_mask[prompt_idx]) / num_valid
        baseline[prompt_idx] = prompt_baseline
        with np.errstate(invalid="ignore"):
            std[prompt_idx] = np.nan_to_num(np.sqrt((square - prompt_baseline**2) * (num_valid / (num_valid - 1))))
    return baseline, std


def grpo_advantages(prompt_ids, rewards, leave_one_out: bool, normalize: bool) -> np.ndarray:
    """GRPOAdvantageEstimator.compute_advantage, per sample (before the expansion to tokens)."""
    baseline, std = calculate_baseline_and_std_per_prompt(
        prompt_ids, rewards, np.ones_like(rewards), leave_one_out_baseline=leave_one_out
    )
    advantages = rewards - baseline
    if normalize:
        nonzero = std > 0
        advantages[nonzero] = advantages[nonzero] / (std[nonzero] + 1e-6)
    return advantages


# ---- scenario helpers -----------------------------------------------------------------------------------

DATA_PATH = "data/hf/grpo/train.jsonl"


def export_rows(entries: List[tuple]) -> List[dict]:
    """Rows of `minedit export --kind grpo --format hf --style standard`: prompt text, task_id, ..."""
    return [
        {"prompt": f"Repair the program of {name}.", "task_id": task_id, "problem_id": name, "split": "train"}
        for name, task_id in entries
    ]


def prepared_batch(rows: List[dict], generations: int) -> Dict[str, Any]:
    """The dataset rows through ResponseDataset, the processor, the collate function and the repeat of
    grpo_train: the batch a GRPO step generates for."""
    formatted = response_dataset_rows(rows, DATA_PATH, input_key="prompt", output_key="task_id")
    batch = rl_collate_fn([math_hf_data_processor(datum, i) for i, datum in enumerate(formatted)])
    return repeat_interleave(batch, generations)


class NemoRlEnv:
    """The env as NeMo-RL creates it from the example config's env section."""

    def __init__(self, config: Optional[dict] = None, env: Optional[Dict[str, str]] = None) -> None:
        saved = dict(os.environ)
        os.environ.update({"MINEDIT_TARGET": TARGET, "MINEDIT_TOKEN": TOKEN, **(env or {})})
        try:
            self.handle = NEMO.utils.create_env("minedit", config or {})
        finally:
            os.environ.clear()
            os.environ.update(saved)
        self.task_name = "grpo-train"
        self.task_to_env = {self.task_name: self.handle}

    @property
    def actor(self) -> minedit_nemo_rl.MineditEnvironmentActor:
        return self.handle.instance

    def fault_client(self) -> None:
        self.actor.scorer = fault_scorer()

    def close(self) -> None:
        ray_get(self.handle.shutdown.remote())
        self.handle.kill()


# ---- the tests ------------------------------------------------------------------------------------------


class RegistrationTest(unittest.TestCase):
    def test_module_imports_without_torch_ray_or_nemo_rl(self) -> None:
        code = (
            "import sys; import minedit_client.nemo_rl as m\n"
            "assert not {'torch', 'ray', 'nemo_rl'} & set(sys.modules), sorted(sys.modules)\n"
            "try:\n    m.MineditEnvironment\nexcept ImportError:\n    print('lazy')\n"
        )
        run = subprocess.run([sys.executable, "-c", code], cwd=CLIENT_DIR, capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), "lazy")  # ray.remote is only called on first access

    def test_register_makes_create_env_work_and_is_needed(self) -> None:
        # register_env alone is not enough: create_env asks the actor registry which Python runs the class.
        NEMO.utils.register_env("bare", "minedit_client.nemo_rl.MineditEnvironmentActor")
        with self.assertRaisesRegex(ValueError, "No actor environment registered"):
            NEMO.utils.create_env("bare", {})
        self.assertEqual(NEMO.utils.ENV_REGISTRY["minedit"], {"actor_class_fqn": ACTOR_FQN})
        self.assertEqual(
            NEMO.registry.ACTOR_ENVIRONMENT_REGISTRY[minedit_nemo_rl.ACTOR_CLASS_FQN], NEMO.PY.SYSTEM
        )
        self.assertEqual(minedit_nemo_rl.register(), "minedit")  # idempotent
        NEMO.utils.register_env("taken", "some.OtherEnv")
        with self.assertRaisesRegex(ValueError, "already registered"):
            minedit_nemo_rl.register("taken")
        env = NemoRlEnv({"infra_error_score": -0.5})
        try:
            self.assertIsInstance(env.actor, minedit_nemo_rl.MineditEnvironmentActor)
            self.assertEqual(env.actor.infra_error_score, -0.5)
            self.assertEqual(env.handle.options["runtime_env"]["py_executable"], sys.executable)
            self.assertEqual((env.handle.options["max_restarts"], env.handle.options["max_task_retries"]), (-1, -1))
            # An async step: Ray runs the actor as an async actor, concurrent calls at once.
            self.assertTrue(asyncio.iscoroutinefunction(minedit_nemo_rl.MineditEnvironmentActor.step))
        finally:
            env.close()
        with self.assertRaisesRegex(ValueError, "unknown env config keys"):
            NemoRlEnv({"num_workers": 8})

    def test_example_launcher_registers_then_runs_nemo_rls_launcher(self) -> None:
        launcher = os.path.join(EXAMPLES, "run_grpo_minedit.py")
        with tempfile.TemporaryDirectory() as checkout:
            os.makedirs(os.path.join(checkout, "examples"))
            # NeMo-RL's examples/run_grpo.py, reduced to what it sees: its arguments, its name, the registry.
            with open(os.path.join(checkout, "examples", "run_grpo.py"), "w", encoding="utf-8") as f:
                f.write(
                    "import json, sys\nfrom nemo_rl.environments.utils import ENV_REGISTRY\n"
                    "with open('ran.json', 'w') as f:\n"
                    "    json.dump([sys.argv[1:], __name__, ENV_REGISTRY['minedit']], f)\n"
                )
            cwd, argv = os.getcwd(), sys.argv
            os.chdir(checkout)
            sys.argv = [launcher, "--config", "examples/configs/grpo_minedit.yaml"]
            try:
                del NEMO.utils.ENV_REGISTRY["minedit"]  # a fresh driver process
                runpy.run_path(launcher, run_name="__main__")
                with open("ran.json", encoding="utf-8") as f:
                    ran = json.load(f)
            finally:
                os.chdir(cwd)
                sys.argv = argv
                minedit_nemo_rl.register()
        self.assertEqual(
            ran,
            [["--config", "examples/configs/grpo_minedit.yaml"], "__main__", {"actor_class_fqn": ACTOR_FQN}],
        )
        with open(launcher, encoding="utf-8") as f:
            body = ast.parse(f.read()).body
        self.assertLessEqual(len(body) - 1, 4)  # statements after the docstring: the user's lines

    def test_example_config_against_the_parent_config(self) -> None:
        with tempfile.TemporaryDirectory() as configs:
            with open(os.path.join(configs, "grpo_math_1B.yaml"), "w", encoding="utf-8") as f:
                f.write(PARENT_CONFIG)
            with open(os.path.join(EXAMPLES, "grpo_minedit.yaml"), encoding="utf-8") as f:
                ours = f.read()
            with open(os.path.join(configs, "grpo_minedit.yaml"), "w", encoding="utf-8") as f:
                f.write(ours)
            config = load_config_with_inheritance(os.path.join(configs, "grpo_minedit.yaml"))
        data = config["data"]
        # setup_response_data creates only the envs the data names: minedit, not the parent's math.
        self.assertEqual(extract_necessary_env_names(data), ["minedit"])
        train = dict(data["train"])
        update_single_dataset_config(train, data["default"])
        self.assertLessEqual(set(train), RESPONSE_DATASET_CONFIG_KEYS)
        self.assertEqual(train["dataset_name"], "ResponseDataset")
        self.assertEqual((train["input_key"], train["output_key"]), ("prompt", "task_id"))
        self.assertEqual(train["processor"], "math_hf_data_processor")
        self.assertIsNone(train["prompt_file"])  # the parent's chain-of-thought math prompt is dropped
        self.assertEqual(train["env_name"], "minedit")
        self.assertLessEqual(set(config["env"]["minedit"]), set(minedit_nemo_rl.CONFIG_KEYS))
        minedit_nemo_rl.MineditEnvironmentActor(config["env"]["minedit"]).shutdown()
        user_lines = [line for line in ours.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        self.assertLessEqual(len(user_lines), 6)


class SynchronousRolloutTest(unittest.TestCase):
    """run_multi_turn_rollout: one step per env with every sample of every prompt."""

    def setUp(self) -> None:
        self.env = NemoRlEnv()
        self.env.fault_client()

    def tearDown(self) -> None:
        self.env.close()

    def test_a_step_is_one_score_batch_and_rewards_are_the_servers(self) -> None:
        rows = export_rows([("p0", TASK_ID), ("p1", OTHER_TASK["task_id"])])
        batch = prepared_batch(rows, G)
        self.assertEqual(batch["extra_env_info"][0], {"ground_truth": TASK_ID})
        completions = [GOLD, CORRUPTED, GOLD_PLUS, "I cannot fix it."] + [
            fence(OTHER_TASK["gold"]), fence(OTHER_TASK["corrupted"]), fence(OTHER_TASK["gold"]), "no"
        ]
        out = run_one_turn(batch, completions, self.env.task_to_env)
        expected = [alone(c, TASK_ID).reward for c in completions[:4]] + [
            alone(c, OTHER_TASK["task_id"]).reward for c in completions[4:]
        ]
        np.testing.assert_allclose(out["total_reward"], np.asarray(expected, dtype=np.float32))
        self.assertEqual(self.env.actor.scorer.stats.calls, 1)  # 8 samples, one ScoreBatch
        self.assertEqual(self.env.actor.scorer.stats.rollouts, 8)
        self.assertTrue(out["done"].all())
        self.assertEqual(out["message_log"][0][-1], {"role": "environment", "content": "minedit: PASSED"})
        self.assertEqual(out["message_log"][3][-1]["content"], f"minedit: {alone(completions[3], TASK_ID).verdict}")
        self.assertEqual(out["total_reward"].dtype, np.float32)
        _, metrics = ray_get(self.env.handle.global_post_process_and_metrics.remote({}))
        self.assertAlmostEqual(metrics["minedit/passed_rate"], 4 / 8)
        log = [{"role": "assistant", "content": GOLD}]
        returned = ray_get(self.env.handle.step.remote([log], [{"ground_truth": TASK_ID}]))
        self.assertIsInstance(returned, NEMO.interfaces.EnvironmentReturn)  # upstream's type when importable

    def test_a_sandbox_fault_in_a_group_gets_zero_advantage(self) -> None:
        rows = export_rows([("p0", TASK_ID)])
        batch = prepared_batch(rows, G)
        completions = [GOLD, CORRUPTED, FAULT + GOLD, GOLD_PLUS]
        out = run_one_turn(batch, completions, self.env.task_to_env)
        rewards = out["total_reward"]
        scored = [alone(GOLD, TASK_ID).reward, alone(CORRUPTED, TASK_ID).reward, alone(GOLD_PLUS, TASK_ID).reward]
        self.assertAlmostEqual(float(rewards[2]), sum(scored) / 3, places=6)  # the group's mean, not 0.0
        self.assertEqual(out["message_log"][2][-1]["content"], "minedit: INFRA_ERROR")
        prompt_ids = np.zeros((G, 1), dtype=np.int64)  # one prompt: one group
        for loo in (True, False):
            for normalize in (True, False):
                adv = grpo_advantages(prompt_ids, rewards, loo, normalize)
                self.assertLess(abs(float(adv[2])), 1e-5, (loo, normalize, adv))
                self.assertGreater(adv[0], 0)
                self.assertLess(adv[1], 0)
                self.assertGreater(adv[0], adv[3])  # the far repair still ranks below the minimal one

    def test_a_group_with_no_scored_sample_gets_the_failure_reward(self) -> None:
        rows = export_rows([("p0", TASK_ID), ("broken", INFRA_TASK_ID)])
        batch = prepared_batch(rows, G)
        completions = [GOLD, CORRUPTED, GOLD, CORRUPTED] + [fence("def f(x):\n    return x\n")] * G
        out = run_one_turn(batch, completions, self.env.task_to_env)
        np.testing.assert_allclose(out["total_reward"][G:], np.full(G, -0.2, dtype=np.float32))
        self.assertEqual(out["message_log"][G][-1]["content"], "minedit: INFRA_ERROR")
        prompt_ids = np.repeat(np.arange(2), G).reshape(-1, 1)
        adv = grpo_advantages(prompt_ids, out["total_reward"], True, True)
        np.testing.assert_allclose(adv[G:], 0.0)  # all equal: the group teaches nothing

    def test_inline_tasks_as_json_in_the_task_id_column(self) -> None:
        rows = export_rows([("inline", json.dumps(INLINE_TASK)), ("invalid", json.dumps(INVALID_INLINE_TASK))])
        rows.append({"prompt": "broken tests", "task_id": json.dumps(BROKEN_INLINE_TASK)})
        batch = prepared_batch(rows, 2)
        completions = [GOLD, CORRUPTED, GOLD, CORRUPTED, fence("def f(x):\n    return x\n"), "x"]
        out = run_one_turn(batch, completions, self.env.task_to_env)
        self.assertAlmostEqual(float(out["total_reward"][0]), alone(GOLD, task=INLINE_TASK).reward, places=6)
        self.assertAlmostEqual(float(out["total_reward"][1]), -0.2, places=6)
        self.assertEqual(out["message_log"][2][-1]["content"], "minedit: INVALID_TASK")
        np.testing.assert_allclose(out["total_reward"][2:4], [-0.2, -0.2])  # nothing scored in its group
        broken = alone(completions[4], task=BROKEN_INLINE_TASK)
        self.assertIsNone(broken.reward)
        self.assertEqual(out["message_log"][4][-1]["content"], f"minedit: {broken.verdict}")
        np.testing.assert_allclose(out["total_reward"][4:6], [-0.2, -0.2])

    def test_task_sources_of_a_custom_processor(self) -> None:
        sample = minedit_nemo_rl.sample_task
        self.assertEqual(sample({"ground_truth": TASK_ID, "task_id": TASK_ID})[0], TASK_ID)
        self.assertEqual(sample({"task_id": TASK_ID})[0], TASK_ID)
        self.assertEqual(sample({"ground_truth": '{"task_id": "%s"}' % TASK_ID})[0], TASK_ID)
        _, task, group = sample({"task": INLINE_TASK})
        self.assertEqual(task, INLINE_TASK)
        self.assertEqual(group, sample({"ground_truth": INLINE_TASK})[2])
        with self.assertRaisesRegex(ValueError, "name different tasks"):
            sample({"ground_truth": TASK_ID, "task_id": "other"})
        with self.assertRaisesRegex(ValueError, "no task id"):
            sample({"ground_truth": None})
        with self.assertRaisesRegex(ValueError, "both a task id and an inline task"):
            sample({"task_id": TASK_ID, "task": INLINE_TASK})
        with self.assertRaisesRegex(ValueError, "must be a dict"):
            sample(None)

    def test_an_unknown_task_id_raises_in_the_driver(self) -> None:
        batch = prepared_batch(export_rows([("p0", "no-such/task")]), 2)
        with self.assertRaises(MineditError) as raised:
            run_one_turn(batch, [GOLD, CORRUPTED], self.env.task_to_env)
        self.assertEqual(raised.exception.code.name, "NOT_FOUND")


class AsyncRolloutTest(unittest.TestCase):
    """run_async_multi_turn_rollout: one step per sample, from threads, all at once."""

    def test_per_sample_steps_share_score_batch_calls(self) -> None:
        env = NemoRlEnv({"coalesce_ms": 50})
        env.fault_client()
        try:
            rows = export_rows([(f"p{k}", TASK_ID) for k in range(6)])
            batch = prepared_batch(rows, G)
            completions = ([GOLD, CORRUPTED, FAULT + GOLD, GOLD_PLUS]) * 6
            rewards = run_async_rollout(batch, completions, env.task_to_env)
        finally:
            env.close()
        expected = [alone(GOLD, TASK_ID).reward, -0.2, -0.2, alone(GOLD_PLUS, TASK_ID).reward] * 6
        np.testing.assert_allclose(rewards, expected, rtol=1e-6)  # a lone fault has no group: failure reward
        stats = env.actor.scorer.stats
        self.assertEqual(stats.rollouts, 24)
        self.assertLessEqual(stats.calls, 24 // 3, stats)  # to_thread's pool runs min(32, cpus + 4) at once

    def test_a_transient_failure_is_an_infra_error_not_a_crash(self) -> None:
        env = NemoRlEnv({"minedit_target": DEAD_TARGET, "minedit_timeout": 1.0})
        try:
            out = run_one_turn(prepared_batch(export_rows([("p0", TASK_ID)]), 2), [GOLD, CORRUPTED], env.task_to_env)
            _, metrics = ray_get(env.handle.global_post_process_and_metrics.remote({}))
        finally:
            env.close()
        np.testing.assert_allclose(out["total_reward"], [-0.2, -0.2])
        self.assertEqual(out["message_log"][0][-1]["content"], "minedit: CALL_FAILED")
        self.assertEqual(metrics, {"minedit/call_failed_rate": 1.0})


if __name__ == "__main__":
    unittest.main()
