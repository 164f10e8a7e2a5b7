#!/usr/bin/env bash
# GRPO with verl 0.6.x (0.6.0, 0.6.1) on minedit rewards; for verl >= 0.7.1 use run_grpo.sh.
# Data and server as in run_grpo.sh. verl 0.6 loads a reward function from a FILE only: this points it at
# minedit_reward.py, which imports minedit_client (pip install ./clients/python).
# The reward: compute_score_batch with the legacy `batch` reward manager, which exists only in the sync
# rollout mode (rollout.mode=async builds the reward loop, which has no `batch`): ONE call per training
# step with the whole batch, so an INFRA_ERROR sample gets the mean score of its GRPO group (zero
# advantage). Raising there would crash training, so nothing raises for an INFRA_ERROR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export MINEDIT_TARGET="${MINEDIT_TARGET:-127.0.0.1:50051}"

python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files="${TRAIN_FILES:-train.parquet}" \
  data.val_files="${VAL_FILES:-train.parquet}" \
  data.train_batch_size=32 data.max_prompt_length=2048 data.max_response_length=1024 \
  actor_rollout_ref.model.path="${MODEL:-Qwen/Qwen2.5-Coder-0.5B-Instruct}" \
  actor_rollout_ref.actor.ppo_mini_batch_size=16 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=8 \
  actor_rollout_ref.rollout.mode=sync \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \
  reward_model.reward_manager=batch \
  custom_reward_function.path="$here/minedit_reward.py" \
  custom_reward_function.name=compute_score_batch \
  "+custom_reward_function.reward_kwargs.minedit_target='${MINEDIT_TARGET}'" \
  "+custom_reward_function.reward_kwargs.minedit_timeout=${MINEDIT_TIMEOUT:-240}" \
  trainer.n_gpus_per_node="${GPUS:-1}" trainer.nnodes=1 trainer.total_epochs=1 "$@"
