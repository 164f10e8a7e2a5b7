#!/usr/bin/env bash
# GRPO with OpenRLHF 0.9.8 to 0.10.1.post2 (flat flags; checked against the argparse definitions of v0.9.10
# and v0.10.1.post2 by clients/python/tests/test_contract_openrlhf.py) on minedit rewards, on ONE GPU:
# actor, reference model and one vLLM engine colocated. OpenRLHF >= 0.10.2 (dotted flags): train_grpo.sh.
#
# OpenRLHF 0.9.0 to 0.9.7 name the lengths --prompt_max_len / --generate_max_len (no --max_new_tokens):
#   OPENRLHF_OLD_LENGTH_FLAGS=1 bash train_grpo_v0.9.sh      (checked against v0.9.0)
# and 0.9.0 to 0.9.4 train in bf16 only with --bf16 (pass it as an extra argument).
# 0.9.0 posts the whole rollout batch in one request; 0.9.1 and later one request per sample.
#
# No Python client needed: `minedit serve --openrlhf-port` answers OpenRLHF's remote reward protocol.
# Data: JSONL rows {input: prompt messages, label: task id} (minedit export --kind grpo --format openrlhf,
# or clients/python/examples/demo_dataset.py --format openrlhf). --label_key label is required: without it
# OpenRLHF sends "" as every label, which the server refuses. --vllm_num_engines is required: OpenRLHF
# generates only through vLLM.
#
# Environment: MODEL, DATA (grpo.jsonl), PORT (5000), MINEDIT_TOKEN (sent as ?token= in the URL: OpenRLHF
# sends no headers), OPENRLHF_OLD_LENGTH_FLAGS=1 (see above), MINEDIT_PRINT_ARGS=1 (print OpenRLHF's
# arguments NUL-separated and exit). Further arguments go to OpenRLHF.
set -euo pipefail
cd "$(dirname "$0")/../../../.."   # the repository root

port="${PORT:-5000}"
url="http://127.0.0.1:$port/get_reward"
serve=(node bin/minedit.js serve --openrlhf-port "$port")
if [ -n "${MINEDIT_TOKEN:-}" ]; then
  url="$url?token=$MINEDIT_TOKEN"
  serve+=(--auth-token "$MINEDIT_TOKEN")
fi

if [ "${OPENRLHF_OLD_LENGTH_FLAGS:-0}" = 1 ]; then
  lengths=(--prompt_max_len 2048 --generate_max_len 1024)
else
  lengths=(--max_len 3072 --max_new_tokens 1024)
fi

args=(
  --pretrain "${MODEL:-Qwen/Qwen2.5-Coder-0.5B-Instruct}"
  --actor_num_nodes 1 --actor_num_gpus_per_node 1 --ref_num_nodes 1 --ref_num_gpus_per_node 1
  --vllm_num_engines 1 --vllm_tensor_parallel_size 1 --vllm_gpu_memory_utilization 0.5
  --colocate_all_models --vllm_enable_sleep --deepspeed_enable_sleep
  --zero_stage 2 --gradient_checkpointing
  --prompt_data "${DATA:-grpo.jsonl}" --input_key input --label_key label --apply_chat_template
  --remote_rm_url "$url"
  --advantage_estimator group_norm --n_samples_per_prompt 8
  --use_kl_loss --kl_estimator k3 --init_kl_coef 0.001
  --micro_train_batch_size 2 --train_batch_size 64 --micro_rollout_batch_size 8 --rollout_batch_size 16
  --max_epochs 1 "${lengths[@]}"
  --save_path ./minedit-openrlhf
)

if [ "${MINEDIT_PRINT_ARGS:-0}" = 1 ]; then
  printf '%s\0' "${args[@]}" "$@"
  exit 0
fi

"${serve[@]}" &
server=$!
trap 'kill $server' EXIT
python3 -m openrlhf.cli.train_ppo_ray "${args[@]}" "$@"
