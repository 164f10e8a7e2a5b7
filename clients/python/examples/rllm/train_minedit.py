"""GRPO with rLLM 0.3.0-pre (tag v0.3.0-pre) on minedit rewards: an agent flow that answers the export's
prompt, and minedit_client.rllm.MineditEvaluator to score it.

Data: a GRPO export (minedit export --kind grpo --format verl, or demo_dataset.py --format verl --out
train.parquet); its rows are registered with rLLM as they are, so every task rLLM hands the flow and the
evaluator keeps ``prompt`` and the task id (``reward_model.ground_truth``, ``extra_info.task_id``).
Run ``node bin/minedit.js serve`` first and install the client where rLLM runs (pip install ./clients/python).

    TRAIN_FILES=train.parquet python3 train_minedit.py rllm/backend=tinker \\
        model.name=Qwen/Qwen3-4B-Instruct-2507 training.group_size=8 rllm.compact_filtering.enable=true
    # verl backend: rllm/backend=verl actor_rollout_ref.model.path=... actor_rollout_ref.rollout.n=8 \\
    #   rllm.algorithm.use_rllm=true rllm.compact_filtering.enable=true

``rllm.compact_filtering.enable=true`` drops the samples the evaluator masks (INFRA_ERROR, INVALID_TASK, a
failed call: their episodes end with TerminationReason.ERROR; ``mask_error`` is on by default); on verl it
needs ``rllm.algorithm.use_rllm=true``, with which they get a zero advantage. Without it they score -0.2.
The evaluator reads MINEDIT_TARGET / MINEDIT_TOKEN from the environment.
"""

import os

import hydra
from omegaconf import DictConfig
from openai import OpenAI

import rllm
from minedit_client.rllm import MineditEvaluator
from rllm.data.dataset import Dataset, DatasetRegistry
from rllm.experimental.unified_trainer import AgentTrainer


@rllm.rollout
def repair(task, config):
    """One completion of the export's prompt (its system and user messages), through rLLM's gateway."""
    client = OpenAI(base_url=config.base_url, api_key="EMPTY")
    messages = [{"role": m["role"], "content": m["content"]} for m in task.metadata["prompt"]]
    response = client.chat.completions.create(model=config.model, messages=messages)
    return response.choices[0].message.content or ""


@hydra.main(config_path="pkg://rllm.experimental.config", config_name="unified", version_base=None)
def main(config: DictConfig):
    rows = Dataset.load_data(os.environ.get("TRAIN_FILES", "train.parquet")).get_data()
    train_dataset = DatasetRegistry.register_dataset("minedit", rows, "train")
    trainer = AgentTrainer(
        backend=config.rllm.get("backend", "tinker"),
        agent_flow=repair,
        evaluator=MineditEvaluator(),
        config=config,
        train_dataset=train_dataset,
    )
    trainer.train()


if __name__ == "__main__":
    main()
