#!/usr/bin/env bash
# GRPO with OpenRLHF on minedit rewards. OpenRLHF needs no Python client: minedit serve answers its
# remote reward protocol itself (POST /get_reward {query, prompts, labels} -> {rewards, scores, extra_logs}).
# Data: JSONL rows {input: prompt messages, label: task id}, as
#   minedit export --kind grpo --format openrlhf --tasks TASKS.jsonl --out DIR     writes them, or
#   python3 clients/python/examples/demo_dataset.py --format openrlhf > grpo.jsonl  (from the demo tasks)
set -euo pipefail
cd "$(dirname "$0")/../../../.."   # the repository root

node bin/minedit.js serve --openrlhf-port 5000 &
server=$!
trap 'kill $server' EXIT

python3 -m openrlhf.cli.train_ppo_ray \
  --pretrain "${MODEL:-Qwen/Qwen2.5-Coder-0.5B-Instruct}" \
  --prompt_data "${DATA:-grpo.jsonl}" --input_key input --label_key label --apply_chat_template \
  --remote_rm_url http://127.0.0.1:5000/get_reward \
  --advantage_estimator group_norm --n_samples_per_prompt 8 \
  --micro_train_batch_size 2 --train_batch_size 64 --micro_rollout_batch_size 8 --rollout_batch_size 16 \
  --max_epochs 1 --prompt_max_len 2048 --generate_max_len 1024 \
  --save_path ./minedit-openrlhf "$@"
