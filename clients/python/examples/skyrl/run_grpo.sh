#!/usr/bin/env bash
# GRPO with SkyRL 0.3.0 (tag skyrl-v0.3.0) on minedit rewards.
# Data: a verl GRPO export (Parquet with data_source, prompt, ability, reward_model{style: rule,
# ground_truth: <task_id>}, extra_info{task_id}), which SkyRL's PromptDataset reads as it is; make a demo
#   python3 clients/python/examples/demo_dataset.py --format verl --out train.parquet
# Run `node bin/minedit.js serve` first (127.0.0.1:50051), and install the client where SkyRL runs:
#   pip install ./clients/python
# The two minedit lines: trainer.override_entrypoint hands main_base over to minedit_client.skyrl.main
# (upstream's main, plus: register the `minedit` env in the training Ray task and mask INFRA_ERROR /
# INVALID_TASK samples out of the loss), and environment.env_class picks the env. Each sample's env
# scores its completion in SkyRL's env thread pool (max_env_workers threads), and the blocked threads'
# samples go out together as ScoreBatch calls. MINEDIT_TARGET / MINEDIT_TOKEN reach the Ray task from here.
set -euo pipefail
export MINEDIT_TARGET="${MINEDIT_TARGET:-127.0.0.1:50051}"
GPUS="${GPUS:-1}"

python3 -m skyrl.train.entrypoints.main_base \
  trainer.override_entrypoint=minedit_client.skyrl \
  environment.env_class=minedit \
  environment.skyrl_gym.max_env_workers=256 \
  data.train_data="['${TRAIN_FILES:-train.parquet}']" \
  data.val_data="['${VAL_FILES:-train.parquet}']" \
  trainer.algorithm.advantage_estimator=grpo \
  trainer.policy.model.path="${MODEL:-Qwen/Qwen2.5-Coder-0.5B-Instruct}" \
  trainer.strategy=fsdp trainer.placement.colocate_all=true \
  trainer.placement.policy_num_gpus_per_node="$GPUS" trainer.placement.ref_num_gpus_per_node="$GPUS" \
  generator.inference_engine.backend=vllm generator.inference_engine.num_engines="$GPUS" \
  generator.inference_engine.tensor_parallel_size=1 \
  generator.n_samples_per_prompt=8 generator.batched=false \
  trainer.train_batch_size=64 trainer.policy_mini_batch_size=16 \
  trainer.micro_forward_batch_size_per_gpu=8 trainer.micro_train_batch_size_per_gpu=8 \
  trainer.max_prompt_length=2048 generator.sampling_params.max_generate_length=1024 \
  trainer.epochs=1 trainer.eval_interval=10 trainer.logger=console "$@"
