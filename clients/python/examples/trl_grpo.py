"""GRPO with TRL on minedit rewards.

    node bin/minedit.js serve &                           # the reward server, 127.0.0.1:50051
    pip install ./clients/python trl                      # or PYTHONPATH=clients/python
    python3 clients/python/examples/trl_grpo.py --model Qwen/Qwen2.5-Coder-0.5B-Instruct [--dataset grpo.jsonl]

`--dataset`: a GRPO export (JSONL rows with `prompt` and `task_id`); default: prompts built from the demo
tasks. `--check` scores the gold repairs through the same reward function instead of training (no TRL,
no model needed): a quick test that the server and the dataset agree.
"""

import argparse
import asyncio
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from demo_dataset import rows  # noqa: E402

from minedit_client.trl import minedit_reward_func  # noqa: E402


def check(dataset, target):
    reward = minedit_reward_func(target)
    data = list(rows(dataset))
    completions = [[{"role": "assistant", "content": f"```python\n{r['gold']}```"}] for r in data]
    metrics = {}
    rewards = asyncio.run(
        reward(
            prompts=[r["prompt"] for r in data],
            completions=completions,
            task_id=[r["task_id"] for r in data],
            log_metric=metrics.__setitem__,
        )
    )
    print(f"trl check: {len(rewards)} prompts, rewards {sorted(set(rewards))}, pass rate {metrics['minedit/pass_rate']}")


def train(dataset, target, model):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    train_dataset = Dataset.from_list([{"prompt": r["prompt"], "task_id": r["task_id"]} for r in rows(dataset)])
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[minedit_reward_func(target)],
        args=GRPOConfig(output_dir="minedit-grpo", num_generations=8, max_completion_length=1024, log_completions=True),
        train_dataset=train_dataset,
    )
    trainer.train()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", help="GRPO JSONL (prompt, task_id); default: the demo tasks")
    parser.add_argument("--target", default=os.environ.get("MINEDIT_TARGET", "127.0.0.1:50051"))
    parser.add_argument("--model", default="Qwen/Qwen2.5-Coder-0.5B-Instruct")
    parser.add_argument("--check", action="store_true", help="score the gold repairs instead of training")
    args = parser.parse_args()
    if args.check:
        check(args.dataset, args.target)
    else:
        train(args.dataset, args.target, args.model)
