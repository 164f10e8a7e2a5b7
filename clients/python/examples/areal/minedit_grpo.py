"""GRPO on minedit rewards with AReaL (v1.0.4), on the config of AReaL's own GSM8K example:

    python3 minedit_grpo.py --config AREAL/examples/math/gsm8k_grpo.yaml scheduler.type=local \
        train_dataset.path=grpo.jsonl

Data: JSONL rows {prompt: chat messages, task_id}, as `minedit export --kind grpo --format hf` writes them
(or `python3 clients/python/examples/demo_dataset.py --format jsonl > grpo.jsonl`). Needs
`pip install ./clients/python` on the rollout workers and `node bin/minedit.js serve` (MINEDIT_TARGET, or
add minedit_target=... to workflow_kwargs). minedit_client.areal.MineditRLVRWorkflow is AReaL's
RLVRWorkflow scoring with minedit (awaited and coalesced, no 15 s process-pool limit); an INFRA_ERROR
sample keeps its place in its group with a zero loss mask and its group's mean reward.
"""

import sys

from datasets import load_dataset

from areal import PPOTrainer
from areal.api.cli_args import GRPOConfig, load_expr_config


def main(argv):
    config, _ = load_expr_config(argv, GRPOConfig)
    rows = load_dataset("json", data_files=config.train_dataset.path, split="train")
    with PPOTrainer(config, train_dataset=rows) as trainer:
        trainer.train(
            workflow="minedit_client.areal.MineditRLVRWorkflow",
            workflow_kwargs=dict(gconfig=config.gconfig, tokenizer=config.tokenizer_path),
        )


if __name__ == "__main__":
    main(sys.argv[1:])
