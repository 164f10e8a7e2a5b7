"""GRPO on minedit tasks with OpenPipe ART's local backend (ART 0.3.x: ``model.train``; on 0.5.x train with
``await backend.train(model, groups, learning_rate=...)`` instead). Needs a GPU, ``pip install openpipe-art``
and this package; a server (``minedit serve``) at MINEDIT_TARGET; a GRPO export:

    node bin/minedit.js export --kind grpo --format hf --tasks TASKS.jsonl --out data
    MINEDIT_TARGET=127.0.0.1:50051 python3 train.py data/grpo/train.jsonl
"""

import asyncio
import json
import random
import sys

import art
from art.local import LocalBackend

from rollout import rollout

GROUP_SIZE = 8
GROUPS_PER_STEP = 16


async def train_step(model: art.TrainableModel, rows: list) -> list:
    groups = await art.gather_trajectory_groups(
        (art.TrajectoryGroup(rollout(model, row) for _ in range(GROUP_SIZE)) for row in rows),
        pbar_desc="gather",
        # A masked sample (INFRA_ERROR / INVALID_TASK) raises: drop it from its group instead of stopping.
        max_exceptions=0.05,
    )
    await model.train(groups, config=art.TrainConfig(learning_rate=1e-5))
    return groups


async def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    model = art.TrainableModel(name="minedit-001", project="minedit", base_model="Qwen/Qwen2.5-7B-Instruct")
    await model.register(LocalBackend())
    for _ in range(await model.get_step(), 100):
        await train_step(model, random.sample(rows, min(GROUPS_PER_STEP, len(rows))))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
