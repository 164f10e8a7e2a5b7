"""minedit as a SkyRL environment (SkyRL 0.3.0: tag ``skyrl-v0.3.0``, commit f5bc3b78, with skyrl-gym 0.4.0;
contract-tested against that commit's calling code in ``tests/test_contract_skyrl.py``).

**Use.** Train on the GRPO export (``minedit export --kind grpo --format verl``: SkyRL's dataset reader
takes its Parquet rows as they are) with upstream's launcher and two extra overrides::

    python -m skyrl.train.entrypoints.main_base \\
        trainer.override_entrypoint=minedit_client.skyrl environment.env_class=minedit \\
        data.train_data="['grpo.parquet']" ...

``trainer.override_entrypoint`` makes ``main_base`` call :func:`main` here, which runs SkyRL's own
``BasePPOExp`` in the ``skyrl_entrypoint`` Ray task after registering the ``minedit`` environment there
(SkyRL's env registry is per process) and wrapping its generator so that masked samples leave the loss
(below). With your own entrypoint, call :func:`register_env` in the Ray task and, in ``get_generator``,
``return mask_infra_errors(super().get_generator(...))``. ``examples/skyrl/run_grpo.sh`` is a full command.

**How SkyRL calls it** (``skyrl/train/generators/skyrl_gym_generator.py``). Every sample gets its own env:
``skyrl_gym.make("minedit", env_config=<environment.skyrl_gym.minedit, usually {}>, extras=<the row>)``,
where the row is every dataset column but ``prompt`` and ``env_class`` (the verl export's
``reward_model``, ``extra_info``, ``data_source``, ``ability``; SkyRL's own datasets' ``reward_spec``), plus
``max_turns``. Then ``env.init(prompt)``, ONE ``env.step(completion)`` (single turn: it returns
``done=True``), ``env.get_metrics()`` and ``env.close()``, each sync, run in a thread pool of
``environment.skyrl_gym.max_env_workers`` threads (32) while every sample of the step is in flight.
All the envs of the process score through ONE :class:`~minedit_client.CoalescingScorer`, so the blocked
step threads share ``ScoreBatch`` calls: up to ``max_env_workers`` rollouts per call (raise it, e.g. to
256, for bigger batches: the threads only wait). ``generator.batched=true`` steps the envs one after the
other (one call per sample) and has no ``env_metrics``: keep the default ``false``. ``max_env_workers=0``
steps on the event loop itself, one sample at a time.

A row names its task by id -- ``reward_model.ground_truth`` (the export) or ``reward_spec.ground_truth``,
and/or ``extra_info.task_id`` (they must agree), else a ``task_id`` column -- or inline: a ``task`` column
or ``extra_info.task`` holding :class:`~minedit_client.Task` fields (``corrupted``, ``gold``, ``tests``,
``entry_point``, ``runtime``) as a struct or a JSON object string. A row with neither fails at ``make``.

**Result.** ``step`` returns ``{"observations": [], "reward": r, "done": True, "metadata": {...}}``
(``verdict``, ``masked``, ``tests_passed``, ``tests_total``, ``detail``); ``get_metrics()`` gives
``minedit/passed``, ``minedit/infra_error``, ``minedit/invalid_task``, ``minedit/call_failed`` and
``minedit/masked`` (0.0 / 1.0), which SkyRL averages and logs as ``environment/minedit/...``.

**INFRA_ERROR / INVALID_TASK** (the sandbox broke, or an inline task's gold fails its own tests; also a
call that failed transiently: UNAVAILABLE after the client's retries, DEADLINE_EXCEEDED). An env can only
return a float, and SkyRL crashes the step on an exception. So ``step`` returns ``infra_error_score``
(default -0.2, the server's failure reward: never better than a failed repair, where 0.0 would top a
group of failures and get a positive advantage) with ``minedit/masked`` = 1.0. The generator wrapper of
:func:`main` / :func:`mask_infra_errors` then reads those metrics and, for each masked sample, sets its
loss mask to zeros (SkyRL's own way to drop a sample, as ``apply_overlong_filtering`` does) and its
reward to the mean of the scored samples of its prompt (``trajectory_ids[i].instance_id``), so GRPO
gives it a zero advantage and the others' group mean is unchanged; a prompt with no scored sample keeps
``infra_error_score``. Without the wrapper (your own generator, or ``generator.batched=true``) a masked
sample trains as a failure. Any other failed call (an unknown task id, a bad token) raises
:class:`~minedit_client.MineditError`, which stops training: a dataset or setup error.

**Settings.** ``MINEDIT_TARGET`` (default ``127.0.0.1:50051``), ``MINEDIT_TOKEN``, ``MINEDIT_ROOT_CERTS``,
``MINEDIT_TIMEOUT``, ``MINEDIT_COALESCE_MS``, ``MINEDIT_COALESCE_MAX`` in the launcher's environment
(:func:`main` forwards the ``MINEDIT_*`` variables to its Ray task), or the keyword arguments
``minedit_target=``, ``minedit_token=``, ``minedit_timeout=``, ``coalesce_ms=``, ``coalesce_max=``,
``infra_error_score=`` of :func:`register_env` (or fields of ``environment.skyrl_gym.minedit`` if you
extend SkyRL's config with one).
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._adapt import coalescing_scorer, inline_task, one_task, transient
from .types import MineditError, Rollout, RolloutResult

logger = logging.getLogger("minedit_client.skyrl")

#: The environment id :func:`register_env` and :func:`main` register (``environment.env_class=minedit``).
ENV_ID = "minedit"
#: The ``entry_point`` SkyRL's registry imports the env class from (``module:attribute``).
ENTRY_POINT = "minedit_client.skyrl:MineditEnv"
#: The reward of a masked sample unless ``infra_error_score`` says otherwise: the server's failure reward.
DEFAULT_INFRA_ERROR_SCORE = -0.2
#: The env metric that marks a masked sample; :func:`mask_generator_output` reads it.
MASKED_METRIC = "minedit/masked"

_SETTINGS = ("minedit_target", "minedit_token", "minedit_timeout", "coalesce_ms", "coalesce_max", "infra_error_score")


# ---- the task of a sample ------------------------------------------------------------------------------


def sample_task(extras: Mapping[str, Any]) -> Tuple[Optional[str], Optional[Mapping[str, Any]]]:
    """``(task_id, None)`` or ``(None, inline_task)`` for one row's ``extras`` (see the module doc)."""
    info = extras.get("extra_info")
    info = info if isinstance(info, Mapping) else {}
    reward = extras.get("reward_spec") or extras.get("reward_model")
    ground_truth = reward.get("ground_truth") if isinstance(reward, Mapping) else None
    if isinstance(ground_truth, Mapping):  # a ground_truth written as {"task_id": ...}
        ground_truth = ground_truth.get("task_id")
    inline = inline_task(extras.get("task"), complete=True) or inline_task(info.get("task"), complete=True)
    primary = ground_truth if ground_truth not in (None, "") else extras.get("task_id")
    return one_task(inline, ("reward ground_truth", primary), ('extra_info["task_id"]', info.get("task_id")))


# ---- the environment -------------------------------------------------------------------------------------


def _config_value(env_config: Any, name: str) -> Any:
    # env_config is SkyRL's getattr(cfg.environment.skyrl_gym, env_class, dict()): {} unless the user
    # extended the config, then a dataclass (or a mapping).
    if isinstance(env_config, Mapping):
        return env_config.get(name)
    return getattr(env_config, name, None)


class _MineditEnvLogic:
    """The body of :data:`MineditEnv`, apart from skyrl_gym's ``BaseTextEnv`` so that this module imports
    without skyrl_gym; :func:`env_class` joins the two on first use."""

    def __init__(self, env_config: Any = None, extras: Optional[Mapping[str, Any]] = None, **settings: Any) -> None:
        super().__init__()  # BaseTextEnv: turns = 0, tool groups
        unknown = sorted(set(settings) - set(_SETTINGS))
        if unknown:
            raise TypeError(f"minedit env: unknown settings {unknown}; known: {list(_SETTINGS)}")
        value = {name: settings.get(name, _config_value(env_config, name)) for name in _SETTINGS}
        self.task_id, self.task = sample_task({} if extras is None else extras)
        self.max_turns = 1
        score = value["infra_error_score"]
        self.infra_error_score = DEFAULT_INFRA_ERROR_SCORE if score is None else float(score)
        self._scorer = coalescing_scorer(
            value["minedit_target"],
            value["minedit_token"],
            value["minedit_timeout"],
            value["coalesce_ms"],
            value["coalesce_max"],
        )
        self._metrics: Dict[str, float] = {}

    def step(self, action: str) -> Dict[str, Any]:
        """Scores the completion (blocking this thread; concurrent envs share ``ScoreBatch`` calls)."""
        self.turns += 1
        name = self.task_id or "an inline task"
        rollout = Rollout(id="0", completion=str(action), task_id=self.task_id, task=self.task)
        result: Optional[RolloutResult] = None
        try:
            result = self._scorer.score(rollout)
        except MineditError as error:
            if not transient(error):
                raise
            logger.warning("minedit: scoring a sample of %s failed (%s); it is masked", name, error)
        masked = result is None or result.reward is None
        if result is not None and masked:
            logger.debug("minedit: %s for %s (%s); the sample is masked", result.verdict, name, result.detail)
        self._metrics = {
            "minedit/passed": 1.0 if result is not None and result.passed else 0.0,
            "minedit/infra_error": 1.0 if result is None or result.infra_error else 0.0,
            "minedit/invalid_task": 1.0 if result is not None and result.invalid_task else 0.0,
            "minedit/call_failed": 1.0 if result is None else 0.0,
            MASKED_METRIC: 1.0 if masked else 0.0,
        }
        metadata = {
            "verdict": "CALL_FAILED" if result is None else result.verdict,
            "masked": masked,
            "tests_passed": 0 if result is None else result.tests_passed,
            "tests_total": 0 if result is None else result.tests_total,
            "detail": "" if result is None else result.detail,
        }
        reward = self.infra_error_score if masked else float(result.reward)  # type: ignore[union-attr, arg-type]
        # skyrl_gym's BaseTextEnvStepOutput is a TypedDict: this plain dict is one.
        return {"observations": [], "reward": reward, "done": True, "metadata": metadata}

    def get_metrics(self) -> Dict[str, float]:
        return dict(self._metrics)


_env_lock = threading.Lock()
_env_class: Optional[type] = None


def env_class() -> type:
    """``MineditEnv``: a ``skyrl_gym.envs.base_text_env.BaseTextEnv`` (imported here, on first use)."""
    global _env_class
    with _env_lock:
        if _env_class is None:
            from skyrl_gym.envs.base_text_env import BaseTextEnv

            _env_class = type(
                "MineditEnv",
                (_MineditEnvLogic, BaseTextEnv),
                {"__module__": __name__, "__doc__": "minedit's single-turn SkyRL environment (module doc)."},
            )
        return _env_class


def __getattr__(name: str) -> Any:
    # PEP 562: ``minedit_client.skyrl:MineditEnv`` (the registry's entry point) builds the class lazily.
    if name == "MineditEnv":
        return env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register_env(env_id: str = ENV_ID, **settings: Any) -> None:
    """Registers the env with SkyRL's registry of THIS process (call it where the generator runs: the
    ``skyrl_entrypoint`` Ray task). ``settings``: the keyword arguments of the module doc. Registering
    the same id again with the same settings does nothing; with other settings it raises."""
    unknown = sorted(set(settings) - set(_SETTINGS))
    if unknown:
        raise TypeError(f"register_env: unknown settings {unknown}; known: {list(_SETTINGS)}")
    from skyrl_gym.envs.registration import register, registry

    spec = registry.get(env_id)
    if spec is not None:
        if spec.entry_point == ENTRY_POINT and spec.kwargs == settings:
            return
        raise ValueError(f"register_env: {env_id!r} is already registered ({spec.entry_point}, {spec.kwargs})")
    register(id=env_id, entry_point=ENTRY_POINT, kwargs=dict(settings))


# ---- masking in the generator's output ------------------------------------------------------------------


def _scalar(reward: Any) -> float:
    # Token-level rewards (a list: the default multi-turn chat path) or one float (custom chat templates).
    return float(sum(reward)) if isinstance(reward, list) else float(reward)


def _replaced(reward: Any, value: float) -> Any:
    if not isinstance(reward, list):
        return value
    # SkyRL puts a single-turn reward on the last response token; GRPO only sums the row.
    tokens = [0.0] * len(reward)
    if tokens:
        tokens[-1] = value
    return tokens


def mask_generator_output(input_batch: Mapping[str, Any], output: Dict[str, Any]) -> int:
    """Masks, in place, the samples of a ``GeneratorOutput`` whose env metrics say ``minedit/masked``:
    loss mask all zeros, reward the mean of the scored samples of the same prompt (when there is one).
    Returns how many were masked; 0 when the output has no ``env_metrics`` (``generator.batched=true``)."""
    metrics = output.get("env_metrics")
    rewards: List[Any] = output["rewards"]
    count = len(rewards)
    if metrics is None or len(metrics) != count:
        return 0
    masked = [i for i, m in enumerate(metrics) if m and m.get(MASKED_METRIC)]
    if not masked:
        return 0
    ids = output.get("trajectory_ids") or input_batch.get("trajectory_ids")
    if ids is not None and len(ids) == count:
        groups: List[Any] = [getattr(t, "instance_id", t) for t in ids]
    else:
        groups = list(range(count))  # no prompt ids: no group mean, the sample keeps its own score
    last = output.get("is_last_step") or [True] * count
    skip = set(masked)
    sums: Dict[Any, Tuple[float, int]] = {}
    for i in range(count):
        if i not in skip and last[i]:
            total, n = sums.get(groups[i], (0.0, 0))
            sums[groups[i]] = (total + _scalar(rewards[i]), n + 1)
    for i in masked:
        total, n = sums.get(groups[i], (0.0, 0))
        if n:
            rewards[i] = _replaced(rewards[i], total / n)
        output["loss_masks"][i] = [0] * len(output["loss_masks"][i])
    return len(masked)


def mask_infra_errors(generator: Any) -> Any:
    """Wraps ``generator.generate`` (a SkyRL ``GeneratorInterface``; the trainer and the evaluation both
    call it) so that its output goes through :func:`mask_generator_output`. Returns the generator."""
    inner = generator.generate
    warned: List[bool] = []

    # wraps: callers that inspect the signature (the fully async trainer looks for disable_tqdm) see inner's.
    @functools.wraps(inner)
    async def generate(input_batch: Any, *args: Any, **kwargs: Any) -> Any:
        output = await inner(input_batch, *args, **kwargs)
        if output.get("env_metrics") is None and not warned:
            warned.append(True)
            logger.warning("minedit: the generator output has no env_metrics: masked samples train as failures")
        mask_generator_output(input_batch, output)
        return output

    generator.generate = generate
    return generator


# ---- the entrypoint ----------------------------------------------------------------------------------------


def _experiment_class() -> type:
    from skyrl.train.entrypoints.main_base import BasePPOExp

    class MineditPPOExp(BasePPOExp):
        """SkyRL's ``BasePPOExp`` whose generator masks minedit's masked samples."""

        def get_generator(self, cfg: Any, tokenizer: Any, inference_engine_client: Any) -> Any:
            return mask_infra_errors(super().get_generator(cfg, tokenizer, inference_engine_client))

    return MineditPPOExp


def run_experiment(cfg: Any, environ: Mapping[str, str]) -> None:
    """The body of the Ray task :func:`main` starts (upstream's ``skyrl_entrypoint`` plus the env)."""
    os.environ.update(environ)
    register_env()
    _experiment_class()(cfg).run()


def main() -> None:
    """``skyrl.train.entrypoints.main_base`` calls this for ``trainer.override_entrypoint=minedit_client.skyrl``:
    upstream's ``main`` (parse, validate, start Ray, run the experiment in a Ray task) with the env registered
    and the generator wrapped in that task."""
    import ray
    from skyrl.train.config import SkyRLTrainConfig
    from skyrl.train.utils import initialize_ray, validate_cfg

    # main_base consumed the flag; it is not a config field, so the strict parse would reject it.
    argv = [a for a in sys.argv[1:] if not a.startswith("trainer.override_entrypoint=")]
    cfg = SkyRLTrainConfig.from_cli_overrides(argv)
    validate_cfg(cfg)
    initialize_ray(cfg)
    # A remote Ray cluster's workers do not see this shell's environment: pass the minedit settings along.
    environ = {k: v for k, v in os.environ.items() if k.startswith("MINEDIT_")}
    ray.get(ray.remote(num_cpus=1)(run_experiment).remote(cfg, environ))
