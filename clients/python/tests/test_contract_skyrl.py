"""Contract tests of minedit_client.skyrl against SkyRL's own calling code, against the real server.

SkyRL (NovaSky-AI/SkyRL, tag ``skyrl-v0.3.0``, commit f5bc3b78dfddfb352870d5d7430cd226e5785838; skyrl-gym
0.4.0) needs torch, vLLM and Ray, so it is not installed. Instead:

- ``FAKE_SKYRL_GYM`` below is upstream's skyrl-gym code that a custom env meets, trimmed of docstrings and
  of the built-in envs: ``skyrl_gym/core.py`` (``Env``), ``skyrl_gym/error.py``,
  ``skyrl_gym/envs/registration.py`` (``register``, ``make``, ``load_env_creator``: the registry imports
  ``module:attribute`` entry points), ``skyrl_gym/envs/base_text_env.py`` and ``skyrl_gym/metrics.py``
  (``aggregate_for_environment``). It is written to a temporary directory put on ``sys.path``.
- The classes and functions below mirror, in plain Python (numpy for tensors), the code that calls an env:
  ``skyrl/train/dataset/dataset.py`` ``PromptDataset.__getitem__`` / ``collate_fn`` (every column but
  ``prompt`` and ``env_class`` becomes the env's ``extras``), ``skyrl/train/generators/utils.py``
  ``prepare_generator_input`` and ``get_rollout_metrics``, ``skyrl/train/generators/skyrl_gym_generator.py``
  ``SkyRLGymGenerator`` (the env thread pool of ``max_env_workers`` threads, ``agent_loop`` on the single-turn
  path, ``generate``, ``generate_batched``), ``skyrl/train/trainer.py`` ``postprocess_generator_output`` and
  ``compute_advantages_and_returns``, ``skyrl/backends/skyrl_train/utils/ppo_utils.py``
  ``compute_grpo_outcome_advantage`` and ``reduce_loss``, ``skyrl/train/utils/utils.py`` ``validate_cfg``'s
  batch-size checks and ``skyrl/train/entrypoints/main_base.py`` ``main`` (the ``trainer.override_entrypoint``
  dispatch), with fakes of the ``skyrl.train`` modules and of ``ray`` that :func:`minedit_client.skyrl.main`
  imports. ``CONFIG_KEYS`` are the dotted fields of ``SkyRLTrainConfig`` (``skyrl/train/config/config.py``)
  that the example sets.

Completions are scored by the REAL server (support.py). A sandbox fault in one sample of a group is made
real by contract_support's :class:`SandboxFaultClient`, which sends that sample against the stored task
whose tests cannot run, so the server answers INFRA_ERROR for it.
"""

import asyncio
import copy
import inspect
import json
import os
import pickle
import subprocess
import sys
import tempfile
import textwrap
import unittest
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from contract_support import FAULT, grpo_step_batch, install_fault_scorer, oracle_groups, samples_of, script_argv
from contract_support import verl_export_row
from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, INFRA_TASK_ID, INLINE_TASK, INVALID_INLINE_TASK, OTHER_TASK
from support import TARGET, TASK_ID, TOKEN
from minedit_client import MineditError
from minedit_client import skyrl as minedit_skyrl

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples", "skyrl")
COMMIT = "f5bc3b78dfddfb352870d5d7430cd226e5785838"
N = 8  # generator.n_samples_per_prompt

# ---- the fake skyrl_gym: upstream's code at COMMIT, trimmed ----------------------------------------------

FAKE_SKYRL_GYM = {
    "skyrl_gym/__init__.py": """
        from skyrl_gym.core import Env
        from skyrl_gym import error
        from skyrl_gym.envs.registration import make, spec, register, registry
        from skyrl_gym import envs
    """,
    "skyrl_gym/error.py": """
        class Error(Exception):
            pass


        class RegistrationError(Error):
            pass
    """,
    "skyrl_gym/core.py": """
        from __future__ import annotations
        from typing import Generic, Any, SupportsFloat, TypeVar, TypedDict, Optional, Tuple, Dict

        ObsType = TypeVar("ObsType")
        ActType = TypeVar("ActType")


        class EnvStepOutput(TypedDict):
            observations: ObsType
            reward: SupportsFloat
            done: bool
            metadata: Optional[Dict[str, Any]] = None


        class Env(Generic[ObsType, ActType]):
            def step(self, action: ActType) -> EnvStepOutput:
                raise NotImplementedError

            def init(self, *kwargs) -> Tuple[ObsType, Dict[str, Any]]:
                raise NotImplementedError

            def close(self):
                pass
    """,
    "skyrl_gym/envs/__init__.py": """
        from skyrl_gym.envs.registration import deregister, register
    """,
    "skyrl_gym/envs/registration.py": """
        from __future__ import annotations
        import copy
        import importlib
        from dataclasses import dataclass, field
        from skyrl_gym import Env, error
        from typing import Dict, Any


        @dataclass
        class EnvSpec:
            id: str
            entry_point: Any = field(default=None)
            kwargs: Dict[str, Any] = field(default_factory=dict)
            name: str = field(init=False)

            def __post_init__(self):
                self.name = self.id


        registry: Dict[str, EnvSpec] = {}


        def _find_spec(env_id: str) -> EnvSpec:
            assert isinstance(env_id, str)
            env_spec = registry.get(env_id)
            if env_spec is None:
                raise error.Error(f"No registered env with id: {env_id}.")
            return env_spec


        def load_env_creator(name: str):
            mod_name, attr_name = name.split(":")
            mod = importlib.import_module(mod_name)
            fn = getattr(mod, attr_name)
            return fn


        def _check_spec_register(testing_spec: EnvSpec):
            for env_spec in registry.values():
                if env_spec.name == testing_spec.name:
                    raise error.RegistrationError(f"An environment named `{testing_spec.name}` is already registered")


        def register(id: str, entry_point=None, kwargs: Dict[str, Any] | None = None):
            assert entry_point is not None, "`entry_point` must be provided"
            global registry
            if kwargs is None:
                kwargs = dict()
            new_spec = EnvSpec(id=id, entry_point=entry_point, kwargs=kwargs)
            _check_spec_register(new_spec)
            registry[new_spec.id] = new_spec


        def deregister(id: str):
            global registry
            if id not in registry:
                raise error.Error(f"No registered env with id: {id}.")
            del registry[id]


        def make(id, **kwargs: Any) -> Env:
            if isinstance(id, EnvSpec):
                env_spec = id
            else:
                assert isinstance(id, str)
                env_spec = _find_spec(id)
            env_spec_kwargs = copy.deepcopy(env_spec.kwargs)
            env_spec_kwargs.update(kwargs)
            if env_spec.entry_point is None:
                raise error.Error(f"{env_spec.id} registered but entry_point is not specified")
            elif callable(env_spec.entry_point):
                env_creator = env_spec.entry_point
            else:
                env_creator = load_env_creator(env_spec.entry_point)
            try:
                env = env_creator(**env_spec_kwargs)
            except TypeError as e:
                raise type(e)(f"{e} was raised from the environment creator for {env_spec.id} ({env_spec_kwargs})")
            if not isinstance(env, Env):
                raise TypeError(f"The environment must inherit from the skyrl_gym.Env class: {type(env)}. ")
            env.spec = EnvSpec(id=env_spec.id, entry_point=env_spec.entry_point, kwargs=env_spec_kwargs)
            return env


        def spec(env_id: str) -> EnvSpec:
            return registry[env_id]
    """,
    "skyrl_gym/envs/base_text_env.py": """
        from typing import Any, Dict, List, Optional, TypedDict
        from skyrl_gym import Env
        from typing import Tuple

        MessageType = Dict[str, str]
        ConversationType = List[MessageType]


        class BaseTextEnvStepOutput(TypedDict):
            observations: ConversationType
            reward: float
            done: bool
            metadata: Dict[str, Any]
            postprocessed_action: Optional[str] = None


        class BaseTextEnv(Env[ConversationType, str]):
            def __init__(self):
                super().__init__()
                self.turns = 0
                self.max_turns = 1
                self.tool_groups = []
                self.tool_to_toolgroup = {}

            def step(self, action: str) -> BaseTextEnvStepOutput:
                pass

            def init(self, prompt: ConversationType) -> Tuple[ConversationType, Dict[str, Any]]:
                return prompt, {}

            def close(self):
                pass

            def get_metrics(self) -> Dict[str, Any]:
                return {}

            @staticmethod
            def aggregate_metrics(metrics: List[Dict[str, Any]]) -> Dict[str, Any]:
                from skyrl_gym.metrics import default_aggregate_metrics

                return default_aggregate_metrics(metrics)
    """,
    "skyrl_gym/metrics.py": """
        from typing import Any, Dict, List
        from skyrl_gym.envs.registration import registry, load_env_creator


        def default_aggregate_metrics(metrics: List[Dict[str, Any]]) -> Dict[str, float]:
            if not metrics:
                return {}
            aggregated_metrics: Dict[str, list[float]] = {}
            for m in metrics:
                for k, v in m.items():
                    if isinstance(v, bool):
                        v = float(v)
                    elif isinstance(v, (int, float)):
                        v = float(v)
                    else:
                        continue
                    aggregated_metrics.setdefault(k, []).append(v)
            return {k: sum(vals) / len(vals) for k, vals in aggregated_metrics.items()}


        def aggregate_for_environment(env_name: str, metrics: List[Dict[str, Any]]) -> Dict[str, Any]:
            env_spec = registry.get(env_name)
            if env_spec is None:
                raise ValueError(f"No registered env with id: {env_name}")
            entry_point = env_spec.entry_point
            if callable(entry_point):
                env_cls = entry_point
            else:
                env_cls = load_env_creator(entry_point)
            return env_cls.aggregate_metrics(metrics)
    """,
}

#: Dotted SkyRLTrainConfig fields (skyrl/train/config/config.py at COMMIT) that the example command sets.
#: ``from_cli_overrides`` builds the dataclasses strictly: any other key, or a ``+key``, is refused.
CONFIG_KEYS = {
    "data.train_data",
    "data.val_data",
    "environment.env_class",
    "environment.skyrl_gym.max_env_workers",
    "generator.batched",
    "generator.inference_engine.backend",
    "generator.inference_engine.num_engines",
    "generator.inference_engine.tensor_parallel_size",
    "generator.n_samples_per_prompt",
    "generator.sampling_params.max_generate_length",
    "trainer.algorithm.advantage_estimator",
    "trainer.epochs",
    "trainer.eval_interval",
    "trainer.logger",
    "trainer.max_prompt_length",
    "trainer.micro_forward_batch_size_per_gpu",
    "trainer.micro_train_batch_size_per_gpu",
    "trainer.placement.colocate_all",
    "trainer.placement.policy_num_gpus_per_node",
    "trainer.placement.ref_num_gpus_per_node",
    "trainer.policy.model.path",
    "trainer.policy_mini_batch_size",
    "trainer.strategy",
    "trainer.train_batch_size",
}

# The skyrl.train modules and ray that minedit_client.skyrl.main imports: the calls it makes, recorded.
FAKE_SKYRL_TRAIN = {
    "skyrl/__init__.py": "",
    "skyrl/train/__init__.py": "",
    "skyrl/train/config.py": """
        KNOWN_KEYS = set()  # filled by the test: CONFIG_KEYS


        class SkyRLTrainConfig:
            def __init__(self, values):
                self.values = values

            @classmethod
            def from_cli_overrides(cls, args):
                values = {}
                for arg in args:
                    if arg.startswith("+"):
                        raise ValueError(f"The '+' prefix for adding new config fields is not supported: '{arg}'.")
                    key, _, value = arg.partition("=")
                    if key not in KNOWN_KEYS:
                        raise ValueError(f"unknown config field {key!r}")
                    values[key] = value
                return cls(values)
    """,
    "skyrl/train/utils/__init__.py": """
        CALLS = []


        def validate_cfg(cfg):
            CALLS.append("validate_cfg")


        def initialize_ray(cfg):
            CALLS.append("initialize_ray")
    """,
    "skyrl/train/entrypoints/__init__.py": "",
    "skyrl/train/entrypoints/main_base.py": """
        import sys

        HOOKS = {}  # the test's stand-ins for the inference engine and the training loop


        class BasePPOExp:
            def __init__(self, cfg):
                self.cfg = cfg

            def get_generator(self, cfg, tokenizer, inference_engine_client):
                return HOOKS["generator"](cfg)

            def run(self):
                HOOKS["run"](self)


        def main() -> None:
            # upstream's main: the override_entrypoint peek, before any config parse
            override_entrypoint = None
            for arg in sys.argv[1:]:
                if arg.startswith("trainer.override_entrypoint="):
                    override_entrypoint = arg.split("=", 1)[1]
                    break
            if override_entrypoint:
                from importlib import import_module

                return import_module(override_entrypoint).main()
            raise AssertionError("without the override, main_base runs its own experiment: no minedit env")
    """,
    "ray/__init__.py": """
        import os
        import pickle

        REMOTE_OPTIONS = []


        class _Remote:
            def __init__(self, fn, options):
                self._fn, self._options = fn, options

            def remote(self, *args):
                REMOTE_OPTIONS.append(self._options)
                # Ray ships the function and its arguments to a worker by pickling them.
                return pickle.dumps((self._fn, args))


        def remote(*args, **options):
            if args and callable(args[0]):
                return _Remote(args[0], {})
            return lambda fn: _Remote(fn, options)


        def get(ref):
            fn, args = pickle.loads(ref)
            # The worker of a remote cluster does not inherit the launching shell's environment.
            saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("MINEDIT_")}
            try:
                return fn(*args)
            finally:
                for k in [k for k in os.environ if k.startswith("MINEDIT_")]:
                    del os.environ[k]
                os.environ.update(saved)
    """,
}

_fake_dir = None


def write_package(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text).lstrip("\n"))


def setUpModule():
    global _fake_dir
    _fake_dir = tempfile.TemporaryDirectory(prefix="fake-skyrl-")
    write_package(_fake_dir.name, FAKE_SKYRL_GYM)
    write_package(_fake_dir.name, FAKE_SKYRL_TRAIN)
    sys.path.insert(0, _fake_dir.name)
    import skyrl.train.config

    skyrl.train.config.KNOWN_KEYS.update(CONFIG_KEYS)
    minedit_skyrl.register_env()  # what main() does in the Ray task; the generator below needs it too


def tearDownModule():
    sys.path.remove(_fake_dir.name)
    _fake_dir.cleanup()


# ---- the dataset: skyrl/train/dataset/dataset.py, skyrl/train/generators/utils.py -----------------------


def export_row(task_id, index, task=None):
    """A row of minedit's verl GRPO export (verl_export_row); ``task`` (with task_id None) adds an inline
    task, as JSON, to extra_info."""
    row = verl_export_row(task_id, index)
    if task is not None:
        row["extra_info"]["task"] = json.dumps(task)
    return row


def dataset_items(rows, prompt_key="prompt", env_class_key="env_class"):
    """PromptDataset.__getitem__ over the rows, then collate_fn."""
    items = []
    for item, row in enumerate(rows):
        row_dict = dict(row)
        messages = row_dict.pop(prompt_key)
        env_class = row_dict.pop(env_class_key, None)
        extra = {key: value for key, value in row_dict.items() if key != prompt_key and key != env_class_key}
        items.append({"prompt": messages, "env_class": env_class, "env_extras": extra, "uid": str(item)})
    return items


@dataclass
class TrajectoryID:
    """skyrl/train/generators/base.py TrajectoryID."""

    instance_id: str
    repetition_id: int


def prepare_generator_input(prompts, n_samples_per_prompt, default_env_class):
    all_prompts = [prompt["prompt"] for prompt in prompts for _ in range(n_samples_per_prompt)]
    all_envs = [
        prompt["env_class"] if prompt["env_class"] is not None else default_env_class
        for prompt in prompts
        for _ in range(n_samples_per_prompt)
    ]
    env_extras = [copy.deepcopy(prompt["env_extras"]) for prompt in prompts for _ in range(n_samples_per_prompt)]
    trajectory_ids, uids = [], []
    for prompt in prompts:
        for repetition_id in range(n_samples_per_prompt):
            trajectory_ids.append(TrajectoryID(instance_id=prompt["uid"], repetition_id=repetition_id))
            uids.append(prompt["uid"])
    generator_input = {
        "prompts": all_prompts,
        "env_classes": all_envs,
        "env_extras": env_extras,
        "sampling_params": None,
        "trajectory_ids": trajectory_ids,
    }
    return generator_input, uids


# ---- the generator: skyrl/train/generators/skyrl_gym_generator.py ----------------------------------------


@dataclass
class SkyRLGymConfig:
    """skyrl/train/config/config.py SkyRLGymConfig (its env-specific sub-configs left out)."""

    max_env_workers: int = 32


EOS = 1


def tokenize(text):
    return [2 + (hash(word) % 1000) for word in text.split()] or [2]


class SkyRLGymGenerator:
    """SkyRLGymGenerator at COMMIT, single-turn path (max_turns=1, use_conversation_multi_turn=True, no
    custom chat template, not step-wise). ``completions`` stands in for the inference engine: the response of
    each (instance_id, repetition_id)."""

    def __init__(self, skyrl_gym_cfg, completions, batched=False):
        self.skyrl_gym_cfg = skyrl_gym_cfg
        self.completions = completions
        self.max_turns = 1
        self.batched = batched
        self.step_threads = set()
        if self.skyrl_gym_cfg.max_env_workers > 0:
            self.env_executor = ThreadPoolExecutor(
                max_workers=self.skyrl_gym_cfg.max_env_workers, thread_name_prefix="skyrl-gym-env-"
            )
        else:
            self.env_executor = None

    async def _run_in_executor_if_available(self, func, *args, **kwargs):
        if (executor := self.env_executor) is not None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(executor, func, *args, **kwargs)
        else:
            return func(*args, **kwargs)

    def _step(self, env, output):
        import threading

        self.step_threads.add(threading.current_thread().name)
        return env.step(output)

    async def agent_loop(self, prompt, env_class, env_extras, trajectory_id):
        import skyrl_gym

        env_extras["max_turns"] = self.max_turns
        env_config = getattr(self.skyrl_gym_cfg, env_class, dict())
        env = skyrl_gym.make(env_class, env_config=env_config, extras=env_extras)
        chat_history = copy.deepcopy(prompt)
        chat_history, _ = await self._run_in_executor_if_available(env.init, chat_history)
        prompt_ids = tokenize(" ".join(m["content"] for m in chat_history))
        await asyncio.sleep(0)  # the inference engine's await
        output = self.completions[(trajectory_id.instance_id, trajectory_id.repetition_id)]
        output_ids = tokenize(output) + [EOS]
        env_step_output = await self._run_in_executor_if_available(self._step, env, output)
        step_reward = env_step_output["reward"]
        assert env_step_output["done"], "the minedit env is single-turn"
        loss_mask = [1] * len(output_ids)
        env_metrics = env.get_metrics()
        await self._run_in_executor_if_available(env.close)
        # _build_per_token_rewards: the step's reward on the last response token
        token_level_rewards = [0.0] * len(output_ids)
        token_level_rewards[len(output_ids) - 1] += step_reward
        return {
            "response_ids": output_ids,
            "reward": token_level_rewards,
            "stop_reason": "stop",
            "loss_mask": loss_mask,
            "prompt_ids": prompt_ids,
            "env_metrics": env_metrics,
        }

    async def generate(self, input_batch, disable_tqdm=False):
        if self.batched:
            return await self.generate_batched(input_batch)
        tasks = []
        for i in range(len(input_batch["prompts"])):
            tasks.append(
                self.agent_loop(
                    input_batch["prompts"][i],
                    input_batch["env_classes"][i],
                    input_batch["env_extras"][i],
                    input_batch["trajectory_ids"][i],
                )
            )
        all_outputs = await asyncio.gather(*tasks)
        env_metrics = [output["env_metrics"] for output in all_outputs]
        return {
            "prompt_token_ids": [output["prompt_ids"] for output in all_outputs],
            "response_ids": [output["response_ids"] for output in all_outputs],
            "rewards": [output["reward"] for output in all_outputs],
            "loss_masks": [output["loss_mask"] for output in all_outputs],
            "stop_reasons": [output["stop_reason"] for output in all_outputs],
            "rollout_metrics": get_rollout_metrics(env_metrics, input_batch["env_classes"]),
            "trajectory_ids": None,
            "is_last_step": None,
            "env_metrics": env_metrics,
        }

    async def generate_batched(self, input_batch):
        """generate_batched: envs made and initialized first, then stepped ONE AFTER THE OTHER."""
        import skyrl_gym

        envs = []
        for env_class, env_extra, prompt in zip(
            input_batch["env_classes"], input_batch["env_extras"], input_batch["prompts"]
        ):
            env_extra["max_turns"] = self.max_turns
            env_config = getattr(self.skyrl_gym_cfg, env_class, dict())
            env = skyrl_gym.make(env_class, env_config=env_config, extras=env_extra)
            await self._run_in_executor_if_available(env.init, prompt)
            envs.append(env)
        outputs = [self.completions[(t.instance_id, t.repetition_id)] for t in input_batch["trajectory_ids"]]
        rewards, loss_masks, responses, env_metrics = [], [], [], []
        for output, env in zip(outputs, envs):
            env_step_output = await self._run_in_executor_if_available(env.step, output)
            rewards.append(env_step_output["reward"])
            responses.append(tokenize(output))
            loss_masks.append([1] * len(responses[-1]))
            env_metrics.append(env.get_metrics())
            await self._run_in_executor_if_available(env.close)
        return {
            "prompt_token_ids": [tokenize("p")] * len(outputs),
            "response_ids": responses,
            "rewards": rewards,
            "loss_masks": loss_masks,
            "stop_reasons": ["stop"] * len(outputs),
            "rollout_metrics": get_rollout_metrics(env_metrics, input_batch["env_classes"]),
            "rollout_logprobs": None,
            "rollout_expert_indices": None,
        }


def get_rollout_metrics(env_metrics, env_classes):
    """get_rollout_metrics, its environment part: each env class's aggregate_metrics, as environment/<key>."""
    from collections import defaultdict

    from skyrl_gym.metrics import aggregate_for_environment

    rollout_metrics = {}
    env_to_metrics = defaultdict(list)
    for i, metrics in enumerate(env_metrics):
        env_to_metrics[env_classes[i]].append(metrics)
    for env_name, metrics in env_to_metrics.items():
        for key, value in aggregate_for_environment(env_name, metrics).items():
            rollout_metrics[f"environment/{key}"] = value
    return rollout_metrics


# ---- the trainer: skyrl/train/trainer.py, skyrl/backends/skyrl_train/utils/ppo_utils.py -----------------


def postprocess_rewards(generator_output):
    """postprocess_generator_output: token-level rewards pass through; a response-level reward goes on
    the last token."""
    rewards = generator_output["rewards"]
    if rewards and isinstance(rewards[0], list):
        return rewards
    per_token_rewards = []
    for reward, response in zip(rewards, generator_output["response_ids"]):
        per_token_reward = [0.0] * len(response)
        per_token_reward[-1] = float(reward)
        per_token_rewards.append(per_token_reward)
    return per_token_rewards


def compute_grpo_outcome_advantage(token_level_rewards, response_mask, index, epsilon=1e-6):
    """compute_grpo_outcome_advantage (grpo_norm_by_std=True); torch.std is the unbiased estimate."""
    scores = np.array([float(np.sum(r)) for r in token_level_rewards])
    id2score = {}
    for i, uid in enumerate(index):
        id2score.setdefault(uid, []).append(scores[i])
    id2mean, id2std = {}, {}
    for uid, values in id2score.items():
        if len(values) == 1:
            id2mean[uid], id2std[uid] = 0.0, 1.0
        else:
            id2mean[uid], id2std[uid] = float(np.mean(values)), float(np.std(values, ddof=1))
    advantages = (scores - np.array([id2mean[u] for u in index])) / (np.array([id2std[u] for u in index]) + epsilon)
    # scores.unsqueeze(-1) * response_mask: the response mask is every response token, loss mask or not
    return [adv * np.asarray(mask, dtype=float) for adv, mask in zip(advantages, response_mask)]


def policy_loss_per_sample(advantages, loss_masks):
    """What each sample adds to the policy loss at ratio 1 (the first update): reduce_loss sums
    ``loss * loss_mask`` with ``loss = -advantages * ratio``."""
    return [float(np.sum(-adv * np.asarray(mask, dtype=float))) for adv, mask in zip(advantages, loss_masks)]


def train_step(input_batch, uids, generator_output):
    """After generate: rewards per token, GRPO advantages over each prompt's samples, loss contributions."""
    token_level_rewards = postprocess_rewards(generator_output)
    response_mask = [[1] * len(r) for r in generator_output["response_ids"]]
    advantages = compute_grpo_outcome_advantage(token_level_rewards, response_mask, uids)
    return {
        "scores": [float(np.sum(r)) for r in token_level_rewards],
        "advantages": [float(a[-1]) for a in advantages],
        "loss": policy_loss_per_sample(advantages, generator_output["loss_masks"]),
        "loss_masks": generator_output["loss_masks"],
    }


# ---- helpers ----------------------------------------------------------------------------------------------


def fault_env(env_id, coalesce_ms):
    """Registers an env whose scorer (a settings key of its own) goes through SandboxFaultClient."""
    scorer = install_fault_scorer(coalesce_ms)
    minedit_skyrl.register_env(env_id, minedit_target=TARGET, minedit_token=TOKEN, coalesce_ms=coalesce_ms)
    return scorer


def run_generation(rows, completions, env_class="minedit", workers=32, wrap=True, batched=False):
    """One generation of SkyRL's trainer: dataset items -> generator input -> (wrapped) generate."""
    prompts = dataset_items(rows)
    input_batch, uids = prepare_generator_input(prompts, len(completions[0]), env_class)
    table = {(p["uid"], j): c for p, cs in zip(prompts, completions) for j, c in enumerate(cs)}
    generator = SkyRLGymGenerator(SkyRLGymConfig(max_env_workers=workers), table, batched=batched)
    if wrap:
        generator = minedit_skyrl.mask_infra_errors(generator)
    try:
        output = asyncio.run(generator.generate(input_batch))
    finally:
        if generator.env_executor is not None:
            generator.env_executor.shutdown(wait=True)
    return input_batch, uids, output, generator


def validate_batch_sizes(test, values):
    """validate_batch_sizes (skyrl/train/utils/utils.py) for fsdp without a critic or sequence parallelism."""
    train = int(values["trainer.train_batch_size"])
    mini = int(values["trainer.policy_mini_batch_size"])
    n = int(values["generator.n_samples_per_prompt"])
    micro = int(values["trainer.micro_train_batch_size_per_gpu"])
    dp = int(values["trainer.placement.policy_num_gpus_per_node"])  # policy_num_nodes defaults to 1
    test.assertEqual(train % mini, 0)
    mini_per_gpu = mini * n // dp
    test.assertGreater(mini_per_gpu, 0)
    test.assertEqual(mini_per_gpu % micro, 0)
    test.assertGreater(mini_per_gpu // micro, 0)
    test.assertEqual((train * n // dp) % mini_per_gpu, 0)
    test.assertGreaterEqual(train * n, dp)


# ---- the tests --------------------------------------------------------------------------------------------


class ImportTest(unittest.TestCase):
    def test_the_module_imports_without_skyrl_gym(self) -> None:
        code = "import sys, minedit_client.skyrl as m; print('skyrl_gym' in sys.modules, m.ENTRY_POINT)"
        env = {**os.environ, "PYTHONPATH": os.path.join(HERE, "..")}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split(), ["False", "minedit_client.skyrl:MineditEnv"])


class RegistryTest(unittest.TestCase):
    """skyrl_gym.envs.register / make as the generator uses them; the entry point is imported by name."""

    def test_make_builds_the_lazy_class_from_the_entry_point(self) -> None:
        import skyrl_gym
        from skyrl_gym.envs.base_text_env import BaseTextEnv

        [item] = dataset_items([export_row(TASK_ID, 0)])
        env = skyrl_gym.make("minedit", env_config=dict(), extras=item["env_extras"])
        self.assertIsInstance(env, BaseTextEnv)
        self.assertIsInstance(env, skyrl_gym.Env)
        self.assertEqual(type(env).__name__, "MineditEnv")
        self.assertIs(type(env), minedit_skyrl.MineditEnv)
        self.assertEqual((env.task_id, env.task), (TASK_ID, None))
        self.assertEqual(env.init([{"role": "user", "content": "x"}]), ([{"role": "user", "content": "x"}], {}))
        # Registering again: the same settings do nothing, other ones are refused (SkyRL would raise).
        minedit_skyrl.register_env()
        with self.assertRaises(ValueError):
            minedit_skyrl.register_env(infra_error_score=-1.0)
        with self.assertRaises(TypeError):
            minedit_skyrl.register_env("minedit-typo", minedit_targt="x")

    def test_register_kwargs_and_env_config_reach_the_env(self) -> None:
        import skyrl_gym

        minedit_skyrl.register_env("minedit-kwargs", minedit_target=TARGET, infra_error_score=-0.5)

        @dataclass
        class MineditConfig:  # a user's environment.skyrl_gym.minedit-kwargs section
            infra_error_score: float = -0.9
            coalesce_ms: float = 7.0

        extras = dataset_items([export_row(INFRA_TASK_ID, 0)])[0]["env_extras"]
        env = skyrl_gym.make("minedit-kwargs", env_config=MineditConfig(), extras=extras)
        self.assertEqual(env.infra_error_score, -0.5)  # the registered kwargs win over env_config
        self.assertIs(env._scorer, minedit_skyrl.coalescing_scorer(TARGET, None, None, 7.0, None))
        out = env.step(GOLD)
        self.assertEqual((out["reward"], out["done"], out["metadata"]["verdict"]), (-0.5, True, "INFRA_ERROR"))


class GenerationTest(unittest.TestCase):
    """A GRPO step: 8 prompts x 8 samples through the generator's 32-thread env pool, then the trainer."""

    def test_grpo_step(self) -> None:
        tasks, rows, completions = grpo_step_batch(export_row)
        scorer = minedit_skyrl.coalescing_scorer()
        before = (scorer.stats.calls, scorer.stats.rollouts)
        input_batch, uids, output, generator = run_generation(rows, completions)
        calls, rollouts = scorer.stats.calls - before[0], scorer.stats.rollouts - before[1]
        self.assertEqual(rollouts, 64)
        self.assertLessEqual(calls, 16, "64 samples on 32 threads must share ScoreBatch calls")
        self.assertGreater(len(generator.step_threads), 1)
        self.assertTrue(all(name.startswith("skyrl-gym-env-") for name in generator.step_threads))
        # The fully async trainer passes disable_tqdm only if the signature it inspects has it.
        self.assertIn("disable_tqdm", inspect.signature(generator.generate).parameters)
        step = train_step(input_batch, uids, output)
        for k, expected in enumerate(oracle_groups(tasks, completions)):
            # The server's rewards, unchanged.
            self.assertEqual(step["scores"][k * N : (k + 1) * N], [r.reward for r in expected])
        # The INFRA_ERROR prompt: masked out of the loss; -0.2 (no scored sample to average), never 0.0.
        infra = range(7 * N, 8 * N)
        self.assertEqual([step["scores"][i] for i in infra], [-0.2] * N)
        self.assertTrue(all(not any(step["loss_masks"][i]) for i in infra))
        self.assertEqual([step["loss"][i] for i in infra], [0.0] * N)
        self.assertTrue(all(any(step["loss_masks"][i]) for i in range(7 * N)))
        # A passing repair gets a positive advantage, a failing one a negative one.
        self.assertGreater(step["advantages"][0], 0)
        self.assertLess(step["advantages"][1], 0)
        metrics = output["rollout_metrics"]
        self.assertEqual(metrics["environment/minedit/masked"], 1 / 8)
        self.assertEqual(metrics["environment/minedit/infra_error"], 1 / 8)
        self.assertAlmostEqual(metrics["environment/minedit/passed"], 4 * 7 / 64)

    def test_a_sandbox_fault_in_a_group_gets_the_group_mean_and_leaves_the_loss(self) -> None:
        scorer = fault_env("minedit-fault", 19.0)
        rows = [export_row(TASK_ID, 0), export_row(OTHER_TASK["task_id"], 1)]
        faulty = GOLD + "\n" + FAULT
        group = [GOLD, CORRUPTED, faulty, CORRUPTED, GOLD, "no code", CORRUPTED, GOLD]
        completions = [group, samples_of(OTHER_TASK)]
        input_batch, uids, output, _ = run_generation(rows, completions, env_class="minedit-fault")
        self.assertGreater(scorer.stats.rollouts, 0)
        step = train_step(input_batch, uids, output)
        scored = [step["scores"][i] for i in range(N) if i != 2]
        self.assertEqual(sorted(set(scored)), [-0.2, 0.1])
        # The faulty sample: the mean of its group's scored samples, so its GRPO advantage is zero and
        # the group's baseline is what it would be without it; no loss from it.
        self.assertAlmostEqual(step["scores"][2], sum(scored) / len(scored))
        self.assertAlmostEqual(step["advantages"][2], 0.0)
        self.assertAlmostEqual(float(np.mean(step["scores"][:N])), sum(scored) / len(scored))
        self.assertEqual(step["loss_masks"][2], [0] * len(step["loss_masks"][2]))
        self.assertEqual(step["loss"][2], 0.0)
        self.assertEqual(output["env_metrics"][2]["minedit/masked"], 1.0)
        self.assertEqual(output["env_metrics"][2]["minedit/infra_error"], 1.0)
        self.assertNotIn(0, [sum(m) for i, m in enumerate(step["loss_masks"]) if i != 2])

    def test_without_the_wrapper_a_masked_sample_trains_as_a_failure(self) -> None:
        fault_env("minedit-fault-bare", 17.0)
        faulty = GOLD + "\n" + FAULT
        group = [GOLD, CORRUPTED, faulty, GOLD]
        for batched in (False, True):
            with self.subTest(batched=batched):
                # generator.batched=true: no env_metrics, so even the wrapper cannot tell: the documented fallback.
                input_batch, uids, output, _ = run_generation(
                    [export_row(TASK_ID, 0)], [group], env_class="minedit-fault-bare", wrap=batched, batched=batched
                )
                step = train_step(input_batch, uids, output)
                self.assertEqual(step["scores"], [0.1, -0.2, -0.2, 0.1])  # -0.2: never above a failure (0.0 would be)
                self.assertAlmostEqual(step["advantages"][2], step["advantages"][1])
                self.assertTrue(all(any(mask) for mask in step["loss_masks"]))

    def test_inline_tasks(self) -> None:
        rows = [export_row(None, 0, task=INLINE_TASK), export_row(None, 1, task=INVALID_INLINE_TASK)]
        broken_row = {"prompt": [{"role": "user", "content": "fix"}], "task": BROKEN_INLINE_TASK}
        rows.append(broken_row)
        completions = [[GOLD, CORRUPTED, GOLD, GOLD], [GOLD] * 4, [GOLD] * 4]
        input_batch, uids, output, _ = run_generation(rows, completions)
        step = train_step(input_batch, uids, output)
        self.assertEqual(step["scores"][:4], [0.1, -0.2, 0.1, 0.1])
        verdicts = [m["minedit/invalid_task"] for m in output["env_metrics"]]
        self.assertEqual(verdicts, [0.0] * 4 + [1.0] * 8)
        self.assertEqual(step["scores"][4:], [-0.2] * 8)
        self.assertTrue(all(not any(step["loss_masks"][i]) for i in range(4, 12)))
        self.assertAlmostEqual(output["rollout_metrics"]["environment/minedit/masked"], 8 / 12)

    def test_a_failed_call_is_masked(self) -> None:
        minedit_skyrl.register_env("minedit-dead", minedit_target="127.0.0.1:1", minedit_timeout=2)
        input_batch, uids, output, _ = run_generation([export_row(TASK_ID, 0)], [[GOLD, CORRUPTED]], "minedit-dead")
        self.assertEqual([m["minedit/call_failed"] for m in output["env_metrics"]], [1.0, 1.0])
        self.assertEqual(train_step(input_batch, uids, output)["loss"], [0.0, 0.0])

    def test_an_unknown_task_id_stops_the_step(self) -> None:
        with self.assertRaises(MineditError) as caught:
            run_generation([export_row(TASK_ID, 0), export_row("no/such-task", 1)], [[GOLD, GOLD], [GOLD, GOLD]])
        self.assertEqual(caught.exception.code.name, "NOT_FOUND")

    def test_rows_without_a_task_or_with_two_fail_at_make(self) -> None:
        import skyrl_gym

        bad = [
            {"data_source": "minedit"},
            {"reward_model": {"ground_truth": TASK_ID}, "extra_info": {"task_id": OTHER_TASK["task_id"]}},
            {"reward_spec": {"ground_truth": TASK_ID}, "task": json.dumps(BROKEN_INLINE_TASK)},
        ]
        for extras in bad:
            with self.subTest(extras=extras), self.assertRaises(ValueError):
                skyrl_gym.make("minedit", env_config={}, extras=extras)
        # SkyRL's own datasets carry reward_spec; a task_id column alone also names the task.
        for extras in ({"reward_spec": {"ground_truth": TASK_ID}}, {"task_id": TASK_ID}):
            self.assertEqual(skyrl_gym.make("minedit", env_config={}, extras=extras).task_id, TASK_ID)


class ExampleTest(unittest.TestCase):
    """examples/skyrl/run_grpo.sh through main_base.main's override_entrypoint dispatch into
    minedit_client.skyrl.main, which runs the experiment in a Ray task (fake ray: pickled, without the
    shell's MINEDIT_* variables); the experiment's generator is run on one batch against the real server."""

    def test_the_example_command(self) -> None:
        import ray
        import skyrl.train.utils
        from skyrl.train.entrypoints import main_base

        for gpus in ("1", "4", "8"):
            argv = script_argv(os.path.join(EXAMPLES, "run_grpo.sh"), GPUS=gpus)
            self.assertEqual(argv[:2], ["-m", "skyrl.train.entrypoints.main_base"])
            from skyrl.train.config import SkyRLTrainConfig

            values = SkyRLTrainConfig.from_cli_overrides([a for a in argv[2:] if "override_entrypoint" not in a]).values
            validate_batch_sizes(self, values)
            self.assertEqual(values["environment.env_class"], minedit_skyrl.ENV_ID)
            self.assertEqual(values["generator.batched"], "false")
        seen = {}

        def generator_hook(cfg):
            workers = int(cfg.values["environment.skyrl_gym.max_env_workers"])
            rows = [export_row(TASK_ID, 0), export_row(INFRA_TASK_ID, 1)]
            prompts = dataset_items(rows)
            completions = {(p["uid"], j): c for p in prompts for j, c in enumerate([GOLD, CORRUPTED])}
            seen["input"] = prepare_generator_input(prompts, 2, cfg.values["environment.env_class"])
            return SkyRLGymGenerator(SkyRLGymConfig(max_env_workers=workers), completions)

        def run_hook(exp):
            seen["target"] = os.environ.get("MINEDIT_TARGET")
            generator = exp.get_generator(exp.cfg, None, None)
            input_batch, uids = seen["input"]
            seen["output"] = asyncio.run(generator.generate(input_batch))
            seen["step"] = train_step(input_batch, uids, seen["output"])
            generator.env_executor.shutdown(wait=True)

        main_base.HOOKS.update(generator=generator_hook, run=run_hook)
        skyrl.train.utils.CALLS.clear()
        saved = sys.argv
        sys.argv = ["main_base.py"] + argv[2:]
        try:
            main_base.main()
        finally:
            sys.argv = saved
        self.assertEqual(skyrl.train.utils.CALLS, ["validate_cfg", "initialize_ray"])
        self.assertEqual(ray.REMOTE_OPTIONS[-1], {"num_cpus": 1})  # upstream's skyrl_entrypoint options
        self.assertEqual(seen["target"], TARGET)  # forwarded into the Ray task
        self.assertEqual(seen["step"]["scores"][:2], [0.1, -0.2])
        self.assertEqual([sum(m) for m in seen["step"]["loss_masks"]][2:], [0, 0])  # the wrapped generator masked
        self.assertEqual(seen["output"]["rollout_metrics"]["environment/minedit/masked"], 0.5)
        self.assertTrue(pickle.loads(pickle.dumps(minedit_skyrl.run_experiment)) is minedit_skyrl.run_experiment)


if __name__ == "__main__":
    unittest.main()
