#!/usr/bin/env bash
# GRPO with verl on minedit rewards. Data: a verl GRPO export (Parquet with data_source, prompt, ability,
# reward_model{style: rule, ground_truth: <task_id>}, extra_info{task_id}); make a demo one with
#   python3 clients/python/examples/demo_dataset.py --format verl --out train.parquet
# Run `node bin/minedit.js serve` first (127.0.0.1:50051), and install the client where verl runs:
#   pip install ./clients/python
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export MINEDIT_TARGET="${MINEDIT_TARGET:-127.0.0.1:50051}"

python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files="${TRAIN_FILES:-train.parquet}" \
  data.val_files="${VAL_FILES:-train.parquet}" \
  data.train_batch_size=32 data.max_prompt_length=2048 data.max_response_length=1024 \
  actor_rollout_ref.model.path="${MODEL:-Qwen/Qwen2.5-Coder-0.5B-Instruct}" \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=8 \
  reward_model.reward_manager=batch \
  custom_reward_function.path="$here/minedit_reward.py" \
  custom_reward_function.name=compute_score_batch \
  trainer.n_gpus_per_node="${GPUS:-1}" trainer.nnodes=1 trainer.total_epochs=1 "$@"
