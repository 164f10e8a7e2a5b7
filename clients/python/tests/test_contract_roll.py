"""Contract tests of ``minedit_client.roll`` against ROLL's calling code, against the real server.

ROLL needs torch and Ray, which cannot be installed here, so what it does with a reward worker is
reproduced below in plain Python (numpy arrays for tensors) from alibaba/ROLL v0.3.0
(7f9d4d3873a87679c8d070085a4bd3bdeea7e589), with ROLL's names:

- loading (``roll/distributed/executor/cluster.py`` ``Cluster.__init__`` / ``_create_workers``): the
  ``worker_cls`` string through ``safe_import_class`` (``roll/utils/import_utils.py``), ``ray.remote`` when
  not already an actor class, ``max_concurrency`` 1000 for a class with async methods (Ray's
  ``has_async_methods``) else 1 (asserted), the worker config's ``system_envs`` as the actor's environment,
  ``_bind_worker_method`` / ``Dispatch.DP_MP_COMPUTE`` (``decorator.py``: chunk over the workers, concat);
- the worker's bases (``roll/distributed/executor/worker.py`` ``Worker.__init__``'s rank info,
  ``decorator.py`` ``register`` with its async branch) and ``DataProto`` (``protocol.py``: ``from_dict``,
  ``union`` = ``union_tensor_dict`` / ``union_numpy_dict`` / ``union_two_dict``, ``concat`` with
  ``meta_info["metrics"]`` aggregation, ``chunk``, ``select_idxs``);
- the rollout (``roll/distributed/scheduler/user_defined_rollout_loop.py`` ``UserDefinedRolloutLoop``
  and ``generate_scheduler.py`` ``RolloutContext.compute_rewards``, ``expand_requests``,
  ``collect_items_as_batch``, ``get_batch_opt_level_0`` with ``reward_scheduler.py``
  ``RewardScheduler.compute_rewards``): one call per prompt on the next worker in round robin, the
  prompts in flight at once, ``req.union(rewards)``, one item per response, ``query_filter``;
- what the pipeline does with the rewards (``roll/utils/functionals.py`` ``reward_postprocess`` /
  ``reward_norm`` with ``adv_estimator: grpo`` = group mean and std, ``difficulty_mask``);
- the config (``rlvr_config.py`` ``RewardConfig``, ``worker_config.py`` ``WorkerConfig``, ``data_args.py``
  ``DataArguments``, ``base_config.py``): dacite's ``from_dict`` ignores unknown keys, so the example's keys
  are checked against the dataclasses' field names (listed below from those files).

Ray is replaced by contract_support's stand-in with Ray's actor semantics as ROLL uses them (an actor is a
thread with an event loop; async methods run concurrently, ``await ref`` and ``ray.get`` wait; arguments are
copied).

Over ~500 lines because it carries the stand-ins (ROLL's Worker / register / DataProto, the config field
lists) and the mirror of one call path from the config to the normalized reward; split, that one
path would be scattered over several files.
"""

import asyncio
import copy
import importlib
import inspect
import itertools
import json
import os
import pickle
import subprocess
import sys
import types
import unittest
import uuid
from enum import Enum, auto
from functools import wraps
from typing import Any, Dict, List, Optional

import numpy as np
import yaml

from contract_support import FAULT, alone, fault_scorer, ray_get, ray_module
from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, GOLD_PLUS, INFRA_TASK_ID, INLINE_TASK, INVALID_INLINE_TASK
from support import OTHER_TASK, TARGET, TASK_ID, TOKEN, fence

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.join(HERE, "..")
EXAMPLE = os.path.join(CLIENT_DIR, "examples", "roll", "rlvr_minedit.yaml")
DEAD_TARGET = "127.0.0.1:1"
RESPONSE_LENGTH = 1024  # responses are padded to the response length
N = 4  # num_return_sequences_in_group (8 in the example; 4 keeps the sandbox work small)

# Field names of ROLL v0.3.0's config dataclasses (dacite drops any other key without a word).
WORKER_CONFIG_FIELDS = {
    "name", "worker_cls", "pg_variant", "model_args", "training_args", "data_args", "generating_args",
    "strategy_args", "world_size", "device_mapping", "num_gpus_per_worker", "model_update_frequency",
    "infer_batch_size", "backend_timeout", "system_envs", "topr_positive_weight", "topr_negative_weight",
    "max_concurrency", "use_dynamic_batching_in_train", "max_tokens_per_microbatch_in_train",
    "sequence_length_round_in_train", "use_dynamic_batching_in_infer", "max_tokens_per_microbatch_in_infer",
    "sequence_length_round_in_infer", "offload_nccl", "use_sequence_packing", "sequence_packing_args",
    "logits_in_fp32", "router_replay", "apply_loss_scale", "mtp_training_mode", "opd_kl_coef", "tag_included",
}
REWARD_CONFIG_FIELDS = WORKER_CONFIG_FIELDS | {
    "code_url", "use_local", "judge_prompt", "judge_model_type", "judge_model_name", "judge_api_url",
    "judge_api_key", "format_pattern", "reward_type", "response_length_penalty_coef", "tag_included",
    "query_filter_config", "response_filter_config", "reward_manager_config",
}
DATA_ARGUMENTS_FIELDS = {
    "template", "domain_interleave_probs", "preprocessing_num_workers", "file_name", "eval_file_name",
    "dataset_type", "tag", "id", "prompt", "response", "messages", "image_max_pixels", "image_min_pixels",
    "video_max_pixels", "video_min_pixels", "video_total_pixels", "video_fps", "video_max_frames",
    "video_resize_chunk_frames", "image_folder", "video_folder", "audio_folder", "custom_data_kwargs_func",
}
MODEL_ARGUMENTS_FIELDS = {
    "additional_target", "autocast_adapter_dtype", "lora_alpha", "lora_dropout", "lora_rank", "lora_target",
    "model_name_or_path", "adapter_name_or_path", "attn_implementation", "moe_aux_loss_coef",
    "disable_gradient_checkpointing", "gradient_checkpointing_use_reentrant", "device_map", "dtype",
    "model_type", "num_labels", "model_config_kwargs", "freeze_module_prefix", "ulysses_size",
}
RLVR_CONFIG_FIELDS = {
    # ScheduleConfig, BaseConfig
    "generate_opt_level", "is_num_return_sequences_expand", "max_running_requests", "is_use_additional_prompts",
    "max_additional_running_prompts", "user_defined_rollout_loop_cls", "router_args", "exp_name", "seed",
    "rpc_timeout", "output_dir", "base_dir", "logging_dir", "rollout_dump_dir", "track_with", "tracker_kwargs",
    "max_steps", "save_steps", "max_ckpt_to_keep", "logging_steps", "eval_steps", "rollout_batch_size",
    "val_batch_size", "local_rank", "resume_from_checkpoint", "checkpoint_config", "prompt_length",
    "response_length", "sequence_length", "val_prompt_length", "val_sequence_length", "profiler_timeline",
    "profiler_memory", "report_length_and_rewards", "is_offload_states", "is_offload_optimizer_states_in_train_step",
    "length_profiler_dir", "profiler_output_dir", "otlp_output_dir", "system_envs", "model_update_buffer_size_mb",
    "num_nodes", "num_gpus_per_node", "model_download_type", "rollout_mock", "transfer_backend",
    # PPOConfig
    "pretrain", "reward_pretrain", "actor_train", "actor_infer", "critic", "reference", "reward",
    "async_generation_ratio", "ppo_epochs", "max_grad_norm", "l2", "lambd", "gamma", "pg_clip",
    "use_pg_clip_range", "pg_clip_low", "pg_clip_high", "value_clip", "kl_penalty", "target_kl", "init_kl_coef",
    "kl_horizon", "use_reward_scaling", "add_len_reward", "reward_clip", "use_reward_norm", "whiten_rewards",
    "whiten_advantages", "advantage_clip", "adv_estimator", "norm_mean_type", "norm_std_type",
    "add_token_level_kl", "critic_warmup", "use_kl_loss", "kl_loss_coef", "entropy_loss_coef", "loss_agg_mode",
    "dual_clip_loss", "enable_reference", "enable_old_logprobs_recompute", "force_disable_old_logprobs_recompute",
    "train_infer_correction", "pure_opd_pipeline_type", "teacher", "student_train", "student_infer",
    "is_pure_opd", "use_opd",
    # RLVRConfig
    "global_template", "tag_to_template", "dataset_filter", "num_return_sequences_in_group",
    "save_logging_board_dir", "validation", "rewards", "reward_model", "difficulty_loss_weight",
    "length_loss_weight", "postive_loss_coef", "use_topr_neg_loss_coef", "use_policy_loss_type", "use_topr_loss",
    "rl_loss_coef", "importance_sampling", "val_greedy", "val_n_sample", "max_len_mask", "mask_type",
    "difficulty_mask", "balance_length", "minibatch_data_iter_num", "difficulty_low_threshold",
    "difficulty_high_threshold", "error_max_len_clip", "error_max_len_threshold",
}


# ---- Ray and torch stand-ins ------------------------------------------------------------------------------


def has_async_methods(cls: type) -> bool:
    """ray._private.async_compat.has_async_methods."""
    methods = inspect.getmembers(cls, predicate=lambda m: inspect.isfunction(m) or inspect.ismethod(m))
    return any(inspect.iscoroutinefunction(m) for _, m in methods)


# ---- ROLL's modules the worker imports, reduced to what it uses ---------------------------------------------


class DataProto:
    """roll.distributed.scheduler.protocol.DataProto on numpy: ``batch`` (arrays with a batch axis),
    ``non_tensor_batch`` (object arrays), ``meta_info``."""

    def __init__(self, batch=None, non_tensor_batch=None, meta_info=None) -> None:
        self.batch = dict(batch or {})
        self.non_tensor_batch = dict(non_tensor_batch or {})
        self.meta_info = dict(meta_info or {})
        self._remote_batch = None

    @classmethod
    def from_dict(cls, tensors, non_tensors=None, meta_info=None) -> "DataProto":
        assert len(tensors) > 0, "tensors must not be empty"
        sizes = {key: value.shape[:1] for key, value in tensors.items()}
        assert len(set(sizes.values())) == 1, f"Not all the tensor in tensors have the same batch size: {sizes}"
        objects = {}
        for key, val in (non_tensors or {}).items():
            objects[key] = np.empty(len(val), dtype=object)
            objects[key][:] = val
        return cls(tensors, objects, meta_info or {})

    @classmethod
    def from_single_dict(cls, data: Dict[str, Any], meta_info=None) -> "DataProto":
        tensors = {k: v for k, v in data.items() if isinstance(v, np.ndarray) and v.dtype != object}
        objects = {k: v for k, v in data.items() if k not in tensors}
        return cls(tensors, objects, meta_info or {})

    def __len__(self) -> int:
        for value in itertools.chain(self.batch.values(), self.non_tensor_batch.values()):
            return len(value)
        return 0

    def __getitem__(self, item):
        indices = list(item)
        return DataProto(
            {k: v[indices] for k, v in self.batch.items()},
            {k: v[indices] for k, v in self.non_tensor_batch.items()},
            copy.deepcopy(self.meta_info),
        )

    def union(self, other: "DataProto") -> "DataProto":
        for key, value in other.batch.items():  # union_tensor_dict
            if key in self.batch:
                assert np.array_equal(self.batch[key], value), f"{key} in tensor_dict1 and tensor_dict2 differ"
            self.batch.setdefault(key, value)
        for key, value in other.non_tensor_batch.items():  # union_numpy_dict
            if key in self.non_tensor_batch:
                assert np.all(self.non_tensor_batch[key] == value), f"{key} not the same object"
            self.non_tensor_batch[key] = value
        for key, value in other.meta_info.items():  # union_two_dict
            if key in self.meta_info:
                assert self.meta_info[key] == value, f"{key} in meta_dict1 and meta_dict2 are not the same object"
            self.meta_info[key] = value
        return self

    def repeat(self, repeat_times: int) -> "DataProto":
        return DataProto(
            {k: np.repeat(v, repeat_times, axis=0) for k, v in self.batch.items()},
            {k: np.repeat(v, repeat_times, axis=0) for k, v in self.non_tensor_batch.items()},
            copy.deepcopy(self.meta_info),
        )

    def chunk(self, chunks: int) -> List["DataProto"]:
        parts = np.array_split(np.arange(len(self)), chunks)
        return [self[list(p)] for p in parts]

    def pop(self, key: str) -> "DataProto":
        return DataProto({key: self.batch.pop(key)})

    @staticmethod
    def concat(data: List["DataProto"]) -> "DataProto":
        if len(data) == 1:
            return data[0]
        batch = {k: np.concatenate([d.batch[k] for d in data]) for k in data[0].batch}
        objects = {k: np.concatenate([d.non_tensor_batch[k] for d in data]) for k in data[0].non_tensor_batch}
        meta = dict(data[0].meta_info)
        values = [d.meta_info.get("metrics") for d in data]
        if any(v is not None for v in values):  # global key "metrics": each sub-key collected across items
            keys = [k for v in values if v for k in v]
            meta["metrics"] = {
                k: np.array([v[k] for v in values if v and k in v]).tolist() for k in dict.fromkeys(keys)
            }
        return DataProto(batch, objects, meta)

    def group_by(self, key: str) -> Dict[str, "DataProto"]:
        groups: Dict[str, List[int]] = {}
        for i, value in enumerate(self.non_tensor_batch[key] if key in self.non_tensor_batch else self.batch[key]):
            groups.setdefault(str(value), []).append(i)
        return {k: self[idx] for k, idx in groups.items()}


class Dispatch(Enum):
    ONE_TO_ALL = auto()
    DP_MP_COMPUTE = auto()


BIND_WORKER_METHOD_FLAG = "BIND_WORKER_METHOD_FLAG"


def register(dispatch_mode=Dispatch.ONE_TO_ALL, clear_cache=True, **_: Any):
    """decorator.py register: the async branch keeps the method a coroutine function."""

    def decorator(func):
        attrs = {"dispatch_mode": dispatch_mode}
        if asyncio.iscoroutinefunction(func):

            @wraps(func)
            async def inner_async(*args, **kwargs):
                has_remote_batch = any(
                    a._remote_batch is not None for a in args + tuple(kwargs.values()) if isinstance(a, DataProto)
                )
                assert not has_remote_batch, f"Remote data is not allowed for async function {func.__name__}"
                return await func(*args, **kwargs)

            setattr(inner_async, BIND_WORKER_METHOD_FLAG, attrs)
            return inner_async

        @wraps(func)
        def inner(*args, **kwargs):
            return func(*args, **kwargs)

        setattr(inner, BIND_WORKER_METHOD_FLAG, attrs)
        return inner

    return decorator


class RankInfo:
    def __init__(self, world_size: int, rank: int) -> None:
        self.world_size, self.rank, self.dp_rank, self.dp_size = world_size, rank, rank, world_size
        self.tp_rank = self.pp_rank = self.cp_rank = 0


class Worker:
    """worker.py Worker.__init__'s state a reward worker uses (the rank from its environment)."""

    def __init__(self, worker_config: Any) -> None:
        self.worker_config = worker_config
        self.pipeline_config = None
        self.rank = int(os.environ.get("RANK", 0))
        self.world_size = int(os.environ.get("WORLD_SIZE", 1))
        self.rank_info = RankInfo(self.world_size, self.rank)

    def get_rank_info(self) -> RankInfo:
        return self.rank_info


class Tokenizer:
    """A word-piece stand-in for a Hugging Face tokenizer; ids 0 and 1 are the special ``<pad>`` and
    ``<|im_end|>``, which ``skip_special_tokens=True`` drops."""

    SPECIAL = (0, 1)
    vocab: List[str] = ["<pad>", "<|im_end|>"]
    ids: Dict[str, int] = {}

    def __init__(self, model_name_or_path: str) -> None:
        self.model_name_or_path = model_name_or_path

    @classmethod
    def encode(cls, text: str) -> List[int]:
        import re

        out = []
        for piece in re.findall(r"\s+|\S+", text):
            if piece not in cls.ids:
                cls.ids[piece] = len(cls.vocab)
                cls.vocab.append(piece)
            out.append(cls.ids[piece])
        return out

    def batch_decode(self, rows, skip_special_tokens: bool = False) -> List[str]:
        return [
            "".join(self.vocab[int(i)] for i in row if not (skip_special_tokens and int(i) in self.SPECIAL))
            for row in rows
        ]


def default_tokenizer_provider(model_args: Any) -> Tokenizer:
    assert model_args.model_name_or_path, "the reward worker's model_args.model_name_or_path is required"
    return Tokenizer(model_args.model_name_or_path)


def install_fakes() -> None:
    sys.modules["ray"] = ray_module()
    torch = types.ModuleType("torch")
    torch.float16, torch.float32, torch.Tensor = np.float16, np.float32, np.ndarray
    torch.tensor = lambda values, dtype=None: np.asarray(values, dtype=dtype)
    torch.zeros_like = lambda array, dtype=None: np.zeros_like(array, dtype=dtype)
    sys.modules["torch"] = torch
    modules = {
        "roll.distributed.executor.worker": {"Worker": Worker, "RankInfo": RankInfo},
        "roll.distributed.scheduler.decorator": {"Dispatch": Dispatch, "register": register},
        "roll.distributed.scheduler.protocol": {"DataProto": DataProto},
        "roll.models.model_providers": {"default_tokenizer_provider": default_tokenizer_provider},
    }
    for name, attrs in modules.items():
        parts = name.split(".")
        for i in range(1, len(parts)):
            sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        sys.modules[name] = module


install_fakes()
sys.path.insert(0, CLIENT_DIR)
from minedit_client import MineditError  # noqa: E402
from minedit_client import roll as minedit_roll  # noqa: E402


# ---- ROLL's loading and calling code ----------------------------------------------------------------------


def safe_import_class(class_path: str) -> Any:
    module_path, class_name = class_path.rsplit(".", 1)
    return getattr(importlib.import_module(module_path), class_name)


class Cluster:
    """cluster.py: the workers of one reward domain, and the bound DP_MP_COMPUTE / ONE_TO_ALL methods."""

    def __init__(self, name: str, worker_config: Any) -> None:
        worker_cls = worker_config.worker_cls
        if isinstance(worker_cls, str):
            worker_cls = safe_import_class(worker_cls)
        if not hasattr(worker_cls, "__ray_actor_class__"):
            worker_cls = sys.modules["ray"].remote(worker_cls)
        self.worker_config, self.world_size, self.workers = worker_config, worker_config.world_size, []
        self.async_actor = has_async_methods(worker_cls.__ray_metadata__.modified_class)
        for rank in range(self.world_size):
            env_vars = {
                "WORLD_SIZE": str(self.world_size), "RANK": str(rank), "LOCAL_RANK": "0",
                "CLUSTER_NAME": name, "WORKER_NAME": f"{name}-{rank}",
            }
            env_vars.update(worker_config.system_envs)
            if self.async_actor:
                max_concurrency = worker_config.max_concurrency if worker_config.max_concurrency > 1 else 1000
            else:
                assert worker_config.max_concurrency == 1
                max_concurrency = 1
            options = {"runtime_env": types.SimpleNamespace(env_vars=env_vars), "max_concurrency": max_concurrency}
            self.workers.append(worker_cls.options(**options).remote(worker_config=worker_config))
        self.max_concurrency = max_concurrency
        self.cls = worker_cls.__ray_actor_class__

    def flag(self, method: str) -> Dict[str, Any]:
        return getattr(getattr(self.cls, method), BIND_WORKER_METHOD_FLAG)

    def initialize(self, pipeline_config: Any) -> None:  # ONE_TO_ALL
        ray_get([w.initialize.remote(pipeline_config) for w in self.workers])

    def compute_rewards(self, data: DataProto, blocking: bool = True):  # DP_MP_COMPUTE
        ranks = [ray_get(w.get_rank_info.remote()) for w in self.workers]
        chunks = data.chunk(max(r.dp_size for r in ranks))
        refs = [w.compute_rewards.remote(chunks[r.dp_rank]) for w, r in zip(self.workers, ranks)]
        return refs if not blocking else DataProto.concat(ray_get(refs))

    def kill(self) -> None:
        for worker in self.workers:
            worker.kill()


def worker_config(**overrides: Any) -> types.SimpleNamespace:
    """A RewardConfig as dacite builds it from the example's ``rewards.minedit`` (defaults filled in)."""
    with open(EXAMPLE, encoding="utf-8") as f:
        config = yaml.safe_load(f)
    section = dict(config["rewards"]["minedit"])
    model_args = dict(section.pop("model_args"))
    model_args["model_name_or_path"] = model_args["model_name_or_path"].replace("${pretrain}", config["pretrain"])
    fields = {"max_concurrency": 1, "system_envs": {}, "tag_included": [], **section, **overrides}
    fields["system_envs"] = {**fields["system_envs"], "MINEDIT_TOKEN": TOKEN, "MINEDIT_TARGET": TARGET}
    fields["system_envs"].update(overrides.get("system_envs", {}))
    return types.SimpleNamespace(model_args=types.SimpleNamespace(**model_args), **fields)


def collate(rows: List[Dict[str, Any]], prompt_length: int = 16) -> Dict[str, Any]:
    """DataCollatorWithPaddingForPaddedKeys: input_ids / attention_mask padded, every other column an object
    array (collate_fn_to_dict_list)."""
    ids = [Tokenizer.encode(str(r["prompt"]))[-prompt_length:] for r in rows]
    input_ids = np.zeros((len(rows), prompt_length), dtype=np.int64)
    for i, row in enumerate(ids):
        input_ids[i, prompt_length - len(row):] = row
    out: Dict[str, Any] = {"input_ids": input_ids, "attention_mask": (input_ids > 0).astype(np.int64)}
    for key in rows[0]:
        column = np.empty(len(rows), dtype=object)
        column[:] = [r.get(key) for r in rows]
        out[key] = column
    return out


def generate(request: DataProto, completions: List[str]) -> DataProto:
    """The actor's generation and postprocess_output_data: responses right-padded, ending with <|im_end|>,
    the request's columns repeated once per response."""
    encoded = [Tokenizer.encode(c) + [1] for c in completions]
    assert max(len(e) for e in encoded) <= RESPONSE_LENGTH
    responses = np.zeros((len(encoded), RESPONSE_LENGTH), dtype=np.int64)
    for i, e in enumerate(encoded):
        responses[i, : len(e)] = e
    repeated = request.repeat(len(completions))
    batch = {
        "prompts": repeated.batch["input_ids"],
        "responses": responses,
        "response_mask": (responses > 0).astype(np.int64),
    }
    return DataProto(batch, repeated.non_tensor_batch, repeated.meta_info)


def query_filter(data_list: List[DataProto], config: Dict[str, Any]) -> bool:
    rewards = np.concatenate([d.batch["response_level_rewards"] for d in data_list]).astype(np.float32)
    if len(data_list) == 1:
        return True
    kind, args = config.get("type", "no_filter"), config.get("filter_args", {})
    if kind == "mean_filter":
        mean = rewards.mean()
        return not (mean <= args.get("threshold_down", -1) or mean >= args.get("threshold_up", np.inf))
    if kind == "std_filter":
        return not (np.std(rewards, ddof=1) <= args.get("std_threshold", -1))
    return True


class Scheduler:
    """DynamicSamplingScheduler + UserDefinedRolloutLoop for one domain: every prompt in flight at once
    (max_running_requests), each prompt's requests generated and rewarded on the next worker in turn."""

    def __init__(self, cluster: Cluster, expand: bool = False, filter_config: Optional[Dict] = None) -> None:
        self.cluster, self.expand, self.filter_config = cluster, expand, filter_config or {}
        self.workers = itertools.cycle(cluster.workers)

    async def compute_rewards(self, req: DataProto) -> DataProto:  # RolloutContext.compute_rewards
        worker = next(self.workers)
        req.non_tensor_batch["rollout_id"] = np.array([str(uuid.uuid4()) for _ in range(len(req))], dtype=object)
        return await worker.compute_rewards.remote(req)

    async def process_new_prompt(self, row: Dict[str, Any], completions: List[str]) -> Optional[List[DataProto]]:
        request = DataProto.from_single_dict(collate([row]), meta_info={"generation_config": {}})
        groups = [[c] for c in completions] if self.expand else [completions]  # expand_requests
        responses: List[DataProto] = []
        for group in groups:
            req = generate(request, group)
            rewards = await self.compute_rewards(req)
            metrics = req.meta_info.pop("metrics", {})
            req.union(rewards)
            req_metrics = req.meta_info.pop("metrics", {})
            req.meta_info["metrics"] = {**metrics, **req_metrics}
            responses.extend(req[[i]] for i in range(len(req)))  # response_filter keeps all
        if not query_filter(responses, self.filter_config):
            return None
        return responses

    def get_batch(self, prompts: List[tuple]) -> Optional[DataProto]:
        async def run():
            return await asyncio.gather(*[self.process_new_prompt(row, c) for row, c in prompts])

        items = [item for result in asyncio.run(run()) if result is not None for item in result]
        return collect_items_as_batch(items) if items else None


def collect_items_as_batch(items: List[DataProto]) -> DataProto:
    batch = DataProto.concat(items)
    metrics = {"score/mean": float(np.mean(batch.batch["scores"].astype(np.float32)))}
    for key, value in batch.meta_info.get("metrics", {}).items():
        metrics[f"{key}/mean"] = float(np.mean(value))
    batch.meta_info["metrics"] = metrics
    return batch


def reward_norm_grpo(rewards: np.ndarray, n_sample: int) -> np.ndarray:
    """reward_postprocess with adv_estimator grpo: norm_mean_type = norm_std_type = "group"."""
    grouped = rewards.astype(np.float16).reshape(-1, n_sample)
    mean = grouped.mean(axis=-1, keepdims=True)
    std = grouped.std(axis=-1, ddof=1, keepdims=True)  # torch.std: unbiased
    return ((grouped - mean) / (std + np.float16(1e-6))).reshape(-1).astype(np.float32)


def difficulty_mask(scores: np.ndarray, n_sample: int, low: float = 0.1, high: float = 0.95) -> np.ndarray:
    mean = scores.astype(np.float32).reshape(-1, n_sample).mean(axis=-1, keepdims=True)
    return np.repeat((mean > low) & (mean < high), n_sample, axis=1).reshape(-1)


# ---- scenario helpers ----------------------------------------------------------------------------------


def f16(value: float) -> float:
    return float(np.float16(value))


def row(task_id: Any, **extra: Any) -> Dict[str, Any]:
    """A row of `minedit export --kind grpo --format hf` with the domain column added."""
    return {"prompt": f"Repair {task_id!s:.40}", "task_id": task_id, "domain": "minedit", **extra}


class RollTest(unittest.TestCase):
    world_size = 2

    def setUp(self) -> None:
        self.cluster = Cluster("reward-minedit", worker_config(world_size=self.world_size))
        self.cluster.initialize(pipeline_config=types.SimpleNamespace(name="rlvr"))
        for worker in self.cluster.workers:
            worker.instance.minedit.scorer = fault_scorer()

    def tearDown(self) -> None:
        self.cluster.kill()

    def calls(self) -> int:
        return sum(w.instance.minedit.scorer.stats.calls for w in self.cluster.workers)


# ---- the tests ------------------------------------------------------------------------------------------


class LoadingTest(unittest.TestCase):
    def test_module_imports_without_torch_ray_or_roll(self) -> None:
        code = (
            "import sys; import minedit_client.roll as m\n"
            "assert not {'torch', 'ray', 'roll'} & set(sys.modules), sorted(sys.modules)\n"
            "try:\n    m.MineditRewardWorker\nexcept ImportError:\n    print('lazy')\n"
        )
        run = subprocess.run([sys.executable, "-c", code], cwd=CLIENT_DIR, capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), "lazy")

    def test_cluster_loads_the_example_worker_as_an_async_actor(self) -> None:
        cluster = Cluster("reward-minedit", worker_config(world_size=2))
        try:
            self.assertIs(cluster.cls, minedit_roll.MineditRewardWorker)
            self.assertTrue(issubclass(cluster.cls, Worker))
            self.assertTrue(cluster.async_actor)
            self.assertEqual(cluster.max_concurrency, 1000)  # a sync worker would get 1: one prompt at a time
            self.assertEqual(cluster.flag("compute_rewards"), {"dispatch_mode": Dispatch.DP_MP_COMPUTE})
            self.assertEqual(cluster.flag("initialize"), {"dispatch_mode": Dispatch.ONE_TO_ALL})
            self.assertIs(pickle.loads(pickle.dumps(cluster.cls)), cluster.cls)  # Ray ships it by reference
            ranks = [ray_get(w.get_rank_info.remote()) for w in cluster.workers]
            self.assertEqual([(r.dp_rank, r.dp_size) for r in ranks], [(0, 2), (1, 2)])
            tokenizer = cluster.workers[0].instance.tokenizer
            self.assertEqual(tokenizer.model_name_or_path, "Qwen/Qwen3-8B")  # ${pretrain}
        finally:
            cluster.kill()

    def test_example_config_keys_are_roll_fields(self) -> None:
        with open(EXAMPLE, encoding="utf-8") as f:
            text = f.read()
        config = yaml.safe_load(text)
        self.assertLessEqual(set(config) - {"hydra"}, RLVR_CONFIG_FIELDS)
        reward = config["rewards"]["minedit"]
        self.assertEqual(list(config["rewards"]), ["minedit"])
        self.assertLessEqual(set(reward), REWARD_CONFIG_FIELDS)
        self.assertLessEqual(set(reward["model_args"]), MODEL_ARGUMENTS_FIELDS)
        self.assertEqual(safe_import_class(reward["worker_cls"]), minedit_roll.MineditRewardWorker)
        self.assertIn("MINEDIT_TARGET", reward["system_envs"])
        data_args = config["actor_train"]["data_args"]
        self.assertLessEqual(set(data_args), DATA_ARGUMENTS_FIELDS)
        self.assertEqual(data_args["messages"], "prompt")  # the export's prompt messages
        self.assertEqual(set(data_args["domain_interleave_probs"]), set(config["rewards"]))
        self.assertEqual(config["adv_estimator"], "grpo")
        for section in ("actor_train", "actor_infer", "reference"):
            self.assertLessEqual(set(config[section]), WORKER_CONFIG_FIELDS)
        marked = [line for line in text.splitlines() if "# minedit" in line and not line.lstrip().startswith("#")]
        self.assertLessEqual(len(marked), 10)


class RolloutTest(RollTest):
    def test_prompts_in_flight_are_rewarded_and_coalesced(self) -> None:
        completions = [GOLD, CORRUPTED, GOLD_PLUS, "I cannot fix it."]
        other = [fence(OTHER_TASK["gold"]), fence(OTHER_TASK["corrupted"]), fence(OTHER_TASK["gold"]), "no"]
        prompts = [(row(TASK_ID), completions), (row(OTHER_TASK["task_id"]), other)] * 4
        batch = Scheduler(self.cluster).get_batch(prompts)
        expected = [alone(c, TASK_ID) for c in completions] + [alone(c, OTHER_TASK["task_id"]) for c in other]
        rewards = batch.batch["response_level_rewards"]
        self.assertEqual(rewards.dtype, np.float16)
        np.testing.assert_array_equal(rewards, np.asarray([r.reward for r in expected] * 4, dtype=np.float16))
        np.testing.assert_array_equal(batch.batch["scores"], [1.0 if r.passed else 0.0 for r in expected] * 4)
        self.assertEqual(batch.batch["token_level_rewards"].shape, batch.batch["responses"].shape)
        self.assertFalse(batch.batch["token_level_rewards"].any())
        self.assertAlmostEqual(batch.meta_info["metrics"]["score/mean"], 0.5)
        self.assertAlmostEqual(batch.meta_info["metrics"]["minedit/pass_rate/mean"], 0.5)
        self.assertEqual(batch.meta_info["metrics"]["minedit/infra_error_rate/mean"], 0.0)
        self.assertLess(self.calls(), 8)  # 8 prompts in flight on 2 workers: fewer ScoreBatch calls than prompts

    def test_a_sandbox_fault_in_a_group_gets_zero_advantage(self) -> None:
        completions = [GOLD, CORRUPTED, FAULT + GOLD, GOLD_PLUS]
        batch = Scheduler(self.cluster).get_batch([(row(TASK_ID), completions)])
        rewards = batch.batch["response_level_rewards"]
        peers = [alone(c, TASK_ID).reward for c in (GOLD, CORRUPTED, GOLD_PLUS)]
        self.assertEqual(float(rewards[2]), f16(sum(peers) / 3))  # the group's mean, not 0.0
        self.assertEqual(float(batch.batch["scores"][2]), f16(2 / 3))  # the group's pass rate
        advantages = reward_norm_grpo(rewards, N)
        self.assertLess(abs(advantages[2]), 2e-3, advantages)
        self.assertGreater(advantages[0], advantages[3])
        self.assertGreater(advantages[3], 0)
        self.assertLess(advantages[1], 0)
        self.assertTrue(difficulty_mask(batch.batch["scores"], N).all())  # pass rate 2/3 either way
        self.assertAlmostEqual(batch.meta_info["metrics"]["minedit/infra_error_rate/mean"], 0.25)

    def test_a_group_with_no_scored_sample_gets_the_failure_reward(self) -> None:
        prompts = [(row(INFRA_TASK_ID), [fence("def f(x):\n    return x\n")] * N)]
        batch = Scheduler(self.cluster).get_batch(prompts)
        np.testing.assert_array_equal(batch.batch["response_level_rewards"], np.full(N, -0.2, dtype=np.float16))
        np.testing.assert_array_equal(reward_norm_grpo(batch.batch["response_level_rewards"], N), np.zeros(N))
        self.assertEqual(batch.meta_info["metrics"]["minedit/infra_error_rate/mean"], 1.0)
        # ROLL's std query filter drops such a group altogether.
        filtered = Scheduler(self.cluster, filter_config={"type": "std_filter", "filter_args": {"std_threshold": 0}})
        self.assertIsNone(filtered.get_batch(prompts))

    def test_inline_tasks_in_the_task_column_or_as_json(self) -> None:
        # A `task` column loaded through Arrow: one struct schema for every row, missing keys as None.
        arrow_task = {**INLINE_TASK, "runtime": None, "tests": {**INLINE_TASK["tests"], "cases": None}}
        prompts = [
            (row(None, task=arrow_task), [GOLD, CORRUPTED]),
            (row(json.dumps(INVALID_INLINE_TASK), task=None), [GOLD, CORRUPTED]),  # every row has every column
            (row(json.dumps(BROKEN_INLINE_TASK), task=None), [fence("def f(x):\n    return x\n"), "x"]),
        ]
        batch = Scheduler(self.cluster).get_batch(prompts)
        rewards = batch.batch["response_level_rewards"]
        self.assertEqual(float(rewards[0]), f16(alone(GOLD, task=INLINE_TASK).reward))
        self.assertEqual(float(rewards[1]), f16(-0.2))
        np.testing.assert_array_equal(rewards[2:], np.full(4, -0.2, dtype=np.float16))  # nothing scored there
        broken = [alone(c, task=BROKEN_INLINE_TASK) for c in prompts[2][1]]
        self.assertEqual([r.reward for r in broken], [None, None])
        invalid = 2 + sum(r.invalid_task for r in broken)
        self.assertAlmostEqual(batch.meta_info["metrics"]["minedit/invalid_task_rate/mean"], invalid / 6)

    def test_expanded_requests_score_one_sample_per_call(self) -> None:
        # is_num_return_sequences_expand (forced by async_pipeline): every call holds one sample, no group.
        completions = [GOLD, CORRUPTED, FAULT + GOLD, GOLD_PLUS]
        batch = Scheduler(self.cluster, expand=True).get_batch([(row(TASK_ID), completions)] * 3)
        expected = [alone(GOLD, TASK_ID).reward, -0.2, -0.2, alone(GOLD_PLUS, TASK_ID).reward] * 3
        np.testing.assert_array_equal(batch.batch["response_level_rewards"], np.asarray(expected, dtype=np.float16))
        self.assertLess(self.calls(), 12)  # 12 calls in flight share ScoreBatch calls

    def test_generate_opt_level_0_calls_the_cluster_with_the_whole_batch(self) -> None:
        # get_batch_opt_level_0 -> RewardScheduler.compute_rewards: group by domain, DP_MP_COMPUTE, reorder.
        completions = [GOLD, CORRUPTED, FAULT + GOLD, GOLD_PLUS]
        request = DataProto.from_single_dict(collate([row(TASK_ID), row(OTHER_TASK["task_id"])]))
        parts = [generate(request[[0]], completions), generate(request[[1]], [fence(OTHER_TASK["gold"])] * N)]
        batch = DataProto.concat(parts)
        refs = self.cluster.compute_rewards(batch.group_by("domain")["minedit"], blocking=False)
        rewards = DataProto.concat(ray_get(refs))
        peers = [alone(c, TASK_ID).reward for c in (GOLD, CORRUPTED, GOLD_PLUS)]
        other = alone(fence(OTHER_TASK["gold"]), OTHER_TASK["task_id"]).reward
        expected = [peers[0], peers[1], sum(peers) / 3, peers[2]] + [other] * N
        np.testing.assert_array_equal(rewards.batch["response_level_rewards"], np.asarray(expected, dtype=np.float16))
        self.assertEqual(self.calls(), 2)  # one ScoreBatch per worker's chunk

    def test_an_unknown_task_id_raises_and_roll_stops(self) -> None:
        with self.assertRaises(MineditError) as raised:
            Scheduler(self.cluster).get_batch([(row("no-such/task"), [GOLD, CORRUPTED])])
        self.assertEqual(raised.exception.code.name, "NOT_FOUND")

    def test_task_sources(self) -> None:
        sample = minedit_roll.sample_task
        self.assertEqual(sample(TASK_ID, TASK_ID, None)[0], TASK_ID)
        self.assertEqual(sample(None, TASK_ID, None)[0], TASK_ID)
        self.assertEqual(sample('{"task_id": "%s"}' % TASK_ID, None, None)[0], TASK_ID)
        self.assertEqual(sample(None, None, json.dumps(INLINE_TASK))[1], INLINE_TASK)
        self.assertEqual(sample(None, json.dumps(INLINE_TASK), None)[2], sample(None, None, INLINE_TASK)[2])
        with self.assertRaisesRegex(ValueError, "name different tasks"):
            sample(TASK_ID, "other", None)
        with self.assertRaisesRegex(ValueError, "no task id"):
            sample(None, "", None)
        with self.assertRaisesRegex(ValueError, "both a task id and an inline task"):
            sample(TASK_ID, None, INLINE_TASK)


class TransientTest(unittest.TestCase):
    def test_a_transient_failure_is_an_infra_error_not_a_crash(self) -> None:
        config = worker_config(world_size=1)
        config.system_envs.update({"MINEDIT_TARGET": DEAD_TARGET, "MINEDIT_TIMEOUT": "1"})
        cluster = Cluster("reward-minedit", config)
        try:
            batch = Scheduler(cluster).get_batch([(row(TASK_ID), [GOLD, CORRUPTED])])
        finally:
            cluster.kill()
        np.testing.assert_array_equal(batch.batch["response_level_rewards"], np.full(2, -0.2, dtype=np.float16))
        self.assertEqual(batch.meta_info["metrics"]["minedit/call_failed/mean"], 1.0)
        self.assertEqual(batch.meta_info["metrics"]["minedit/infra_error_rate/mean"], 1.0)


if __name__ == "__main__":
    unittest.main()
