"""Python client of the minedit reward service (``minedit serve``) and drop-in reward functions for
trainers:

- :mod:`minedit_client.trl` (TRL ``GRPOTrainer``)
- :mod:`minedit_client.verl` (verl custom reward function)
- :mod:`minedit_client.verifiers` (verifiers rubrics, PRIME-RL)
- :mod:`minedit_client.slime` (slime custom / group reward)
- :mod:`minedit_client.areal` (AReaL RLVR workflow / ``reward_fn``)
- :mod:`minedit_client.nemo_rl` (NeMo-RL environment)
- :mod:`minedit_client.roll` (ROLL reward worker)
- :mod:`minedit_client.skyrl` (SkyRL environment)
- :mod:`minedit_client.art` (OpenPipe ART rollout reward)
- :mod:`minedit_client.rllm` (rLLM evaluator)

OpenRLHF needs no Python: the server answers its remote reward protocol itself (``minedit serve
--openrlhf-port``), and on the same port slime's built-in ``remote_rm`` at ``POST /slime/reward``.

The wire contract is ``proto/minedit/v1/reward.proto``; the stubs in ``_gen/`` are generated from it by
``generate.sh``.
"""

from .client import DEFAULT_TARGET, AsyncMineditClient, MineditClient, RetryPolicy, settings_from_env
from .coalesce import CoalescingScorer, CoalescingStats, coalescing_settings_from_env
from .types import (
    VERDICTS,
    MineditError,
    RewardComponents,
    RewardOverride,
    Rollout,
    RolloutResult,
    Task,
    Timings,
)

__all__ = [
    "DEFAULT_TARGET",
    "AsyncMineditClient",
    "CoalescingScorer",
    "CoalescingStats",
    "MineditClient",
    "MineditError",
    "RetryPolicy",
    "RewardComponents",
    "RewardOverride",
    "Rollout",
    "RolloutResult",
    "Task",
    "Timings",
    "VERDICTS",
    "coalescing_settings_from_env",
    "settings_from_env",
]
__version__ = "0.1.0"
