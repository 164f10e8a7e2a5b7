"""verl custom reward function FILE, for verl versions that load the reward function by file path
(``custom_reward_function.path``: verl 0.6.x takes nothing else; 0.7.1+ also takes
``reward.custom_reward_function.path=pkg://minedit_client.verl`` with no file at all). Set the name to:

- ``compute_score_batch`` -- verl 0.6.x, ``reward_model.reward_manager=batch`` (run_grpo_v0.6.sh);
- ``compute_score_prime`` -- verl 0.6.x, ``reward_model.reward_manager=prime`` (returns a float);
- ``compute_score_sync`` -- verl 0.6.x, the default ``naive`` manager (sync rollout mode);
- ``compute_score`` (async) -- verl >= 0.7.1, every reward-loop manager (naive, dapo, gdpo, rate_limited).

The server is found through MINEDIT_TARGET / MINEDIT_TOKEN in the environment of verl's workers, or the
``minedit_target`` / ``minedit_token`` reward kwargs. See ``minedit_client.verl`` for the whole contract.
"""

from minedit_client.verl import (  # noqa: F401
    compute_score,
    compute_score_batch,
    compute_score_prime,
    compute_score_sync,
)
