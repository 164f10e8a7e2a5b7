#!/usr/bin/env bash
# GRPO with OpenRLHF >= 0.10.2 (dotted flags; checked against the argparse definitions of v0.10.4 and
# v0.11.0 by clients/python/tests/test_contract_openrlhf.py) on minedit rewards, on ONE GPU: the actor, the
# reference model and one vLLM engine colocated, each asleep while the others work. OpenRLHF 0.9.x to
# 0.10.1 (flat flags): train_grpo_v0.9.sh.
#
# No Python client needed: `minedit serve --openrlhf-port` answers OpenRLHF's remote reward protocol
# (POST /get_reward {query, prompts, labels} -> {rewards, scores, extra_logs}). Each vLLM actor posts every
# sample as soon as it is generated, one request per sample; the server scores concurrent requests together.
# Data: JSONL rows {input: prompt messages, label: task id}, as
#   minedit export --kind grpo --format openrlhf --tasks TASKS.jsonl --out DIR     writes them, or
#   python3 clients/python/examples/demo_dataset.py --format openrlhf > grpo.jsonl  (from the demo tasks)
# --data.label_key label is required: without it OpenRLHF sends "" as every label, which the server refuses.
# --vllm.num_engines is required: OpenRLHF generates only through vLLM.
#
# Environment: MODEL, DATA (grpo.jsonl), PORT (5000), MINEDIT_TOKEN (the server then requires it; OpenRLHF
# sends no headers, so it goes in the URL as ?token=, URL-safe characters only), MINEDIT_PRINT_ARGS=1
# (print OpenRLHF's arguments NUL-separated and exit; the contract test parses them). Further arguments
# go to OpenRLHF.
set -euo pipefail
cd "$(dirname "$0")/../../../.."   # the repository root

port="${PORT:-5000}"
url="http://127.0.0.1:$port/get_reward"
serve=(node bin/minedit.js serve --openrlhf-port "$port")
if [ -n "${MINEDIT_TOKEN:-}" ]; then
  url="$url?token=$MINEDIT_TOKEN"
  serve+=(--auth-token "$MINEDIT_TOKEN")
fi

args=(
  --actor.model_name_or_path "${MODEL:-Qwen/Qwen2.5-Coder-0.5B-Instruct}"
  --actor.num_nodes 1 --actor.num_gpus_per_node 1 --ref.num_nodes 1 --ref.num_gpus_per_node 1
  --vllm.num_engines 1 --vllm.tensor_parallel_size 1 --vllm.gpu_memory_utilization 0.5
  --train.colocate_all --vllm.enable_sleep --ds.enable_sleep
  --ds.zero_stage 2 --actor.gradient_checkpointing_enable
  --data.prompt_dataset "${DATA:-grpo.jsonl}" --data.input_key input --data.label_key label
  --data.apply_chat_template
  --reward.remote_url "$url"
  --algo.advantage.estimator group_norm --rollout.n_samples_per_prompt 8
  --algo.kl.use_loss --algo.kl.estimator k3 --algo.kl.init_coef 0.001
  --train.micro_batch_size 2 --train.batch_size 64 --rollout.micro_batch_size 8 --rollout.batch_size 16
  --train.max_epochs 1 --data.max_len 3072 --rollout.max_new_tokens 1024
  --ckpt.output_dir ./minedit-openrlhf
)

if [ "${MINEDIT_PRINT_ARGS:-0}" = 1 ]; then
  printf '%s\0' "${args[@]}" "$@"
  exit 0
fi

"${serve[@]}" &
server=$!
trap 'kill $server' EXIT
python3 -m openrlhf.cli.train_ppo_ray "${args[@]}" "$@"
