"""verl custom reward function file: point `custom_reward_function.path` here and set
`custom_reward_function.name` to `compute_score_batch` (with `reward_model.reward_manager=batch`, the
recommended setting: one ScoreBatch per step) or `compute_score` (per sample, any reward manager).
The server is found through MINEDIT_TARGET / MINEDIT_TOKEN in the environment of verl's workers."""

from minedit_client.verl import compute_score, compute_score_batch  # noqa: F401
