#!/usr/bin/env bash
# GRPO with verl >= 0.7.1 (0.7.1, 0.8.x, 0.9.x) on minedit rewards; for verl 0.6.x use run_grpo_v0.6.sh.
# Data: a verl GRPO export (Parquet with data_source, prompt, ability, reward_model{style: rule,
# ground_truth: <task_id>}, extra_info{task_id}); make a demo one with
#   python3 clients/python/examples/demo_dataset.py --format verl --out train.parquet
# Run `node bin/minedit.js serve` first (127.0.0.1:50051), and install the client where verl runs:
#   pip install ./clients/python
# The reward: minedit_client.verl.compute_score, an async function that verl's reward loop awaits once
# per sample on each of its reward.num_workers (8) worker processes; each process coalesces the samples
# in flight into a few ScoreBatch calls. An INFRA_ERROR sample scores -0.2 (the failure reward) with
# infra_error=1; on verl >= 0.9 (V1 trainer, the default) add
#   +reward.custom_reward_function.reward_kwargs.on_infra_error=raise
# to leave such a sample out instead (trainer.v1.trainer_mode=sync: that sample; the async modes drop and
# replace its whole prompt group); it crashes training on 0.7.x / 0.8.x.
# Each scoring call has a deadline (minedit_timeout, 240 s) below verl's reward.timeout (300 s), so a
# stalled server is answered by minedit (-0.2, infra_error=1) before verl substitutes 0.0.
# The server's address goes in as a reward kwarg (it reaches every Ray worker); MINEDIT_TOKEN, if the
# server needs one, from the environment (kept out of the config that verl prints).
set -euo pipefail
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
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \
  reward.custom_reward_function.path=pkg://minedit_client.verl \
  reward.custom_reward_function.name=compute_score \
  "+reward.custom_reward_function.reward_kwargs.minedit_target='${MINEDIT_TARGET}'" \
  "+reward.custom_reward_function.reward_kwargs.minedit_timeout=${MINEDIT_TIMEOUT:-240}" \
  trainer.n_gpus_per_node="${GPUS:-1}" trainer.nnodes=1 trainer.total_epochs=1 "$@"
