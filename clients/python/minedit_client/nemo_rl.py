"""minedit as a NeMo-RL environment (NVIDIA-NeMo/RL v0.7.0, 81aa43d; contract-tested against its calling
code in ``tests/test_contract_nemo_rl.py``).

**The user's lines.** NeMo-RL builds an environment from an env name in its registry
(``nemo_rl/environments/utils.py``: ``create_env`` looks the name up in ``ENV_REGISTRY``, imports the actor
class by its dotted name with hydra's ``get_object``, asks ``ACTOR_ENVIRONMENT_REGISTRY`` which Python runs
it -- an unknown class is refused there, which ``register_env`` alone does not cover -- and starts it with
``.options(runtime_env={"py_executable": ..., "env_vars": <the driver's os.environ>}).remote(env_config)``).
:func:`register` does both registrations; ``examples/nemo_rl/run_grpo_minedit.py`` calls it and then runs
NeMo-RL's own ``examples/run_grpo.py``, with ``examples/nemo_rl/grpo_minedit.yaml``, which inherits
``grpo_math_1B.yaml``, reads a minedit GRPO export with NeMo-RL's ``ResponseDataset`` (``input_key:
prompt``, ``output_key: task_id``) and names the env ``minedit``.

**Where the task comes from.** The default data processor (``math_hf_data_processor``) puts the row's
``output_key`` column into ``extra_env_info = {"ground_truth": ...}``, which NeMo-RL hands to ``step`` as
``metadata``. ``ground_truth`` is the task id, or an inline task as a JSON object string (``{"corrupted",
"gold", "tests", "entry_point", "runtime"}``: :class:`minedit_client.Task`). A custom processor may also
set ``extra_env_info["task_id"]`` (must agree with ``ground_truth`` when both are set) or
``extra_env_info["task"]`` (an inline task as a dict or JSON string).

**How NeMo-RL calls it** (``nemo_rl/experience/rollouts.py``). ``MineditEnvironment`` is a Ray actor with
an ``async`` :meth:`MineditEnvironmentActor.step` (so Ray runs concurrent calls at once, up to 1000).

- Synchronous rollouts (the default; ``run_multi_turn_rollout`` -> ``calculate_rewards``): ONE ``step``
  per env and turn with every active sample of the step whose ``task_name`` maps to this env -- all
  ``num_generations_per_prompt`` samples of every prompt. Sent as one ``ScoreBatch`` (cut at
  ``MINEDIT_COALESCE_MAX`` rollouts).
- Async rollouts (``vllm_cfg.async_engine: true`` and async GRPO: ``run_async_multi_turn_rollout``): one
  ``step`` per SAMPLE, each from its own thread, all at once; the calls of the actor share ``ScoreBatch``
  calls through one :class:`~minedit_client.CoalescingScorer` (``MINEDIT_COALESCE_MS`` window).

``step`` returns an ``EnvironmentReturn``: ``rewards`` a float32 tensor ``[B]`` (added to
``total_reward``), ``terminateds`` all ones (one turn), ``observations`` ``{"role": "environment",
"content": "minedit: <VERDICT>"}`` (NeMo-RL tokenizes it and appends it to the sample's message log, not
trained on; so the verdict of every sample is in the logged training data), ``metadata`` as given,
``next_stop_strings`` and ``answers`` None. The completion scored is the last assistant message.

**INFRA_ERROR / INVALID_TASK.** NeMo-RL v0.7.0 has no way for an environment to mask a sample: the
per-sample ``loss_multiplier`` (the loss's ``sample_mask``) comes from the data processor and the
trainer's own filters (overlong, logprob error), never from an environment;
``calculate_baseline_and_std_per_prompt`` is called with ``valid_mask = ones``; a NaN reward would poison
its whole prompt group; and GRPO never calls ``global_post_process_and_metrics``. So a masked sample's
reward is the mean reward of the scored samples of the same task in this ``step``: with GRPO's group
baseline (leave-one-out or not) its advantage is exactly zero and the others keep their order -- it
teaches nothing. In the synchronous path ``step`` sees whole groups, so this always applies; a group with
no scored sample in the step (per-sample async rollouts, or all of a group broken) gets
``infra_error_score`` (default -0.2, the server's failure reward: never above a failed repair; a whole
group at one value has zero advantage anyway). The actor logs a warning per step with masked samples;
:meth:`MineditEnvironmentActor.global_post_process_and_metrics` reports the verdict counts since its last
call, for code that calls it.

A transiently failed call (UNAVAILABLE after the client's retries, DEADLINE_EXCEEDED) counts as
INFRA_ERROR for its samples (observation ``minedit: CALL_FAILED``). Any other failed call (unknown task id,
bad token) raises: Ray re-raises it in the driver's ``ray.get`` and training stops on the data bug.

**Settings.** ``MINEDIT_TARGET``, ``MINEDIT_TOKEN``, ``MINEDIT_ROOT_CERTS``, ``MINEDIT_TIMEOUT``,
``MINEDIT_COALESCE_MS``, ``MINEDIT_COALESCE_MAX`` in the driver's environment (``create_env`` copies it
into the actor), or the env config keys ``minedit_target``, ``minedit_token``, ``minedit_timeout``,
``coalesce_ms``, ``coalesce_max``, ``infra_error_score`` (``env.minedit.<key>`` in the YAML).

Imports neither torch, ray nor nemo_rl at module level: ``MineditEnvironment`` (``ray.remote(max_restarts=-1,
max_task_retries=-1)`` of :class:`MineditEnvironmentActor`, like NeMo-RL's environments) is made on first
access, the tensors in ``step``.
"""

from __future__ import annotations

import logging
from collections import Counter
from concurrent.futures import Future
from functools import partial
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from ._adapt import completion_text, group_means, json_object, new_scorer, one_task, results_of, task_group, task_or_id
from .client import MineditClient, settings_from_env
from .types import Rollout, RolloutResult

logger = logging.getLogger(__name__)

#: The env name :func:`register` registers unless told otherwise.
DEFAULT_ENV_NAME = "minedit"
#: The dotted name NeMo-RL imports the actor class by.
ACTOR_CLASS_FQN = "minedit_client.nemo_rl.MineditEnvironment"
#: The reward of a masked sample with no scored sample of its task in the step: the server's default
#: failure reward, so that a sandbox fault never outranks a failed repair.
DEFAULT_INFRA_ERROR_SCORE = -0.2

#: The env config keys this environment reads.
CONFIG_KEYS = (
    "minedit_target",
    "minedit_token",
    "minedit_timeout",
    "coalesce_ms",
    "coalesce_max",
    "infra_error_score",
)


class _EnvironmentReturn(NamedTuple):
    """``nemo_rl.environments.interfaces.EnvironmentReturn``'s fields, in its order, for when nemo_rl is not
    importable (NeMo-RL itself only unpacks the tuple)."""

    observations: List[Dict[str, str]]
    metadata: List[Any]
    next_stop_strings: List[Optional[List[str]]]
    rewards: Any
    terminateds: Any
    answers: Optional[List[Optional[str]]]


def _environment_return() -> Callable[..., Any]:
    try:
        from nemo_rl.environments.interfaces import EnvironmentReturn
    except ImportError:
        return _EnvironmentReturn
    return EnvironmentReturn


def _torch_tensor(values: Sequence[float]) -> Any:
    import torch

    return torch.tensor(list(values), dtype=torch.float32)


# ---- the task of a sample ------------------------------------------------------------------------------


def sample_task(info: Any) -> Tuple[Optional[str], Optional[Mapping[str, Any]], str]:
    """``(task_id, inline_task, group)`` of one sample from its ``extra_env_info`` (see the module doc);
    exactly one of the first two is set. ``group`` is the task id, or ``inline:<hash>`` of an inline task:
    the samples of one GRPO prompt share it."""
    if not isinstance(info, Mapping):
        raise ValueError(f"minedit: extra_env_info must be a dict with the task, not {type(info).__name__}")
    truth, truth_task = task_or_id(info.get("ground_truth"))
    task = info.get("task")
    if task is None:
        task = truth_task
    inline = None if task is None else json_object(task)
    if task is not None and inline is None:
        raise ValueError("minedit: extra_env_info['task'] must be an inline task (a dict or a JSON object)")
    task_id, inline = one_task(
        inline, ("extra_env_info['ground_truth']", truth), ("extra_env_info['task_id']", info.get("task_id"))
    )
    return task_id, inline, task_group(task_id, inline)


# ---- the environment ------------------------------------------------------------------------------------


class MineditEnvironmentActor:
    """The environment's class; NeMo-RL starts ``MineditEnvironment``, the Ray actor class made of it.

    ``cfg`` is the env config (``env.<name>`` of the YAML; keys in :data:`CONFIG_KEYS`). ``tensor_factory``
    turns a list of floats into the returned tensors (default ``torch.tensor(..., dtype=torch.float32)``);
    NeMo-RL never passes it.
    """

    def __init__(self, cfg: Optional[Mapping[str, Any]] = None, tensor_factory: Optional[Callable] = None) -> None:
        cfg = dict(cfg or {})
        unknown = sorted(set(cfg) - set(CONFIG_KEYS))
        if unknown:
            raise ValueError(f"minedit: unknown env config keys {unknown}; known: {list(CONFIG_KEYS)}")
        self.infra_error_score = float(cfg.get("infra_error_score", DEFAULT_INFRA_ERROR_SCORE))
        # The actor's own scorer (shutdown closes it), its settings read now, in the actor's environment.
        settings = settings_from_env(
            target=cfg.get("minedit_target"), token=cfg.get("minedit_token"), timeout=cfg.get("minedit_timeout")
        )
        self.scorer = new_scorer(partial(MineditClient, **settings), cfg.get("coalesce_ms"), cfg.get("coalesce_max"))
        self._tensor = tensor_factory or _torch_tensor
        #: Verdicts since the last :meth:`global_post_process_and_metrics` ("CALL_FAILED": a failed call).
        self.verdicts: Counter = Counter()

    async def step(self, message_log_batch: Sequence[Any], metadata: Sequence[Any]) -> Any:
        """Scores the last assistant message of each conversation against its sample's task."""
        if len(message_log_batch) != len(metadata):
            raise ValueError(f"minedit: {len(message_log_batch)} message logs but {len(metadata)} metadata")
        targets = [sample_task(info) for info in metadata]
        futures: List["Future[RolloutResult]"] = [
            self.scorer.submit(
                Rollout(id=str(i), completion=completion_text(log), task_id=task_id, task=task, group_id=group)
            )
            for i, (log, (task_id, task, group)) in enumerate(zip(message_log_batch, targets))
        ]
        results = await results_of(futures)
        rewards = self._rewards(results, [group for _, _, group in targets])
        verdicts = [r.verdict if r is not None else "CALL_FAILED" for r in results]
        self.verdicts.update(verdicts)
        masked = sum(1 for r in results if r is None or r.reward is None)
        if masked:
            logger.warning(
                "minedit: %d of %d samples unscored (INFRA_ERROR, INVALID_TASK or a failed call): they get the "
                "mean reward of their task's scored samples in this step, or %s",
                masked,
                len(results),
                self.infra_error_score,
            )
        return _environment_return()(
            observations=[{"role": "environment", "content": f"minedit: {v}"} for v in verdicts],
            metadata=list(metadata),
            next_stop_strings=[None] * len(results),
            rewards=self._tensor(rewards),
            terminateds=self._tensor([1.0] * len(results)),
            answers=None,
        )

    def _rewards(self, results: Sequence[Optional[RolloutResult]], groups: Sequence[str]) -> List[float]:
        """The reward per sample. An unscored one (masked, or no result: its call failed) gets the mean
        reward of the scored samples of its group in this step (:func:`~minedit_client._adapt.group_means`),
        else ``infra_error_score``."""
        rewards = [None if result is None else result.reward for result in results]
        return group_means(rewards, groups, self.infra_error_score)

    def global_post_process_and_metrics(self, batch: Any) -> Tuple[Any, Dict[str, float]]:
        """``EnvironmentInterface``'s hook (GRPO v0.7.0 does not call it): the batch unchanged and, per
        verdict, the share of the samples scored since the last call (``minedit/<verdict>_rate``)."""
        total = sum(self.verdicts.values())
        metrics = {f"minedit/{v.lower()}_rate": n / total for v, n in sorted(self.verdicts.items())} if total else {}
        self.verdicts.clear()
        return batch, metrics

    def shutdown(self) -> None:
        """Called by NeMo-RL at the end of async GRPO: sends what is queued and closes the client."""
        self.scorer.close()


def register(env_name: str = DEFAULT_ENV_NAME) -> str:
    """Registers the environment with NeMo-RL under ``env_name`` (idempotent); call it in the driver before
    ``setup_response_data``. Also tells NeMo-RL to run the actor with the driver's own Python
    (``PY_EXECUTABLES.SYSTEM``), where minedit_client is installed."""
    from nemo_rl.distributed.ray_actor_environment_registry import ACTOR_ENVIRONMENT_REGISTRY
    from nemo_rl.distributed.virtual_cluster import PY_EXECUTABLES
    from nemo_rl.environments.utils import ENV_REGISTRY, register_env

    registered = ENV_REGISTRY.get(env_name, {}).get("actor_class_fqn")
    if registered is None:
        register_env(env_name, ACTOR_CLASS_FQN)
    elif registered != ACTOR_CLASS_FQN:
        raise ValueError(f"minedit: env name {env_name!r} is already registered to {registered}")
    ACTOR_ENVIRONMENT_REGISTRY.setdefault(ACTOR_CLASS_FQN, PY_EXECUTABLES.SYSTEM)
    return env_name


_remote_class: Any = None


def __getattr__(name: str) -> Any:
    # MineditEnvironment is ray.remote(MineditEnvironmentActor), made on first access so that importing
    # this module needs no ray (PEP 562); hydra's get_object reaches it by getattr.
    global _remote_class
    if name == "MineditEnvironment":
        if _remote_class is None:
            import ray

            # Restarted after a crash, its calls retried, as NeMo-RL's own environments are.
            _remote_class = ray.remote(max_restarts=-1, max_task_retries=-1)(MineditEnvironmentActor)
        return _remote_class
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
