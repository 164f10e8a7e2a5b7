"""GRPO with TRL (>= 0.27) on minedit rewards.

    node bin/minedit.js serve &                           # the reward server, 127.0.0.1:50051
    pip install ./clients/python trl                      # or PYTHONPATH=clients/python
    python3 clients/python/examples/trl_grpo.py --model Qwen/Qwen2.5-Coder-0.5B-Instruct [--dataset grpo.jsonl]

`--dataset`: a GRPO export (JSONL rows with `prompt` and `task_id`); default: prompts built from the demo
tasks. `--check` scores the gold repairs through the same reward function instead of training (no TRL,
no model needed), calling it the way TRL 1.9's GRPOTrainer does: on a persistent event loop in a daemon
thread (`asyncio.run_coroutine_threadsafe(...).result()`), with `prompts`, `completions`,
`completion_ids`, `trainer_state`, `log_extra`, `log_metric` and every dataset column but `prompt`,
repeated for each generation. A quick test that the server and the dataset agree.

INFRA_ERROR samples (a broken sandbox) get no reward: TRL >= 1.6 masks them. On TRL < 1.6 the adapter is
built with `infra_error="group_mean"` instead, so they get advantage ~0 rather than a 0.0 reward.
"""

import argparse
import asyncio
import os
import sys
import threading
import types
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from demo_dataset import rows  # noqa: E402

from minedit_client.trl import minedit_reward_func  # noqa: E402

NUM_GENERATIONS = 2


def daemon_loop():
    """What trl.trainer.utils.start_event_loop_in_daemon does: one loop, running for the whole run."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run():
        asyncio.set_event_loop(loop)
        ready.set()
        loop.run_forever()

    threading.Thread(target=run, name="GRPOTrainer-AsyncLoop", daemon=True).start()
    ready.wait()
    return loop


def check(dataset, target):
    reward = minedit_reward_func(target)
    loop = daemon_loop()
    # GRPOTrainer._calculate_rewards: every generation of a prompt is one sample; its dataset columns
    # (but prompt) are repeated for it, and the log hooks buffer until the end of the step.
    inputs = [row for row in rows(dataset) for _ in range(NUM_GENERATIONS)]
    completions = [[{"role": "assistant", "content": f"```python\n{x['gold']}```"}] for x in inputs]
    pending_metrics, pending_extra = defaultdict(list), defaultdict(list)
    columns = [k for k in inputs[0] if k not in ("prompt", "completion", "completion_ids")]
    reward_kwargs = {k: [x[k] for x in inputs] for k in columns}
    reward_kwargs["trainer_state"] = types.SimpleNamespace(global_step=0)
    reward_kwargs["log_extra"] = lambda column, values: pending_extra[column].extend(values)
    reward_kwargs["log_metric"] = lambda name, value: pending_metrics[name].append(value)
    coroutine = reward(
        prompts=[x["prompt"] for x in inputs],
        completions=completions,
        completion_ids=[list(c[0]["content"].encode()) for c in completions],  # stand-in token ids
        **reward_kwargs,
    )
    rewards = asyncio.run_coroutine_threadsafe(coroutine, loop).result()
    loop.call_soon_threadsafe(loop.stop)
    assert all(len(values) == len(inputs) for values in pending_extra.values()), "one value per sample"
    pass_rate = sum(pending_metrics["minedit/pass_rate"]) / len(pending_metrics["minedit/pass_rate"])
    print(
        f"trl check: {len(inputs) // NUM_GENERATIONS} prompts, rewards {sorted(set(rewards))}, pass rate {pass_rate}"
    )


def train(dataset, target, model):
    import trl
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    # TRL >= 1.6 masks a sample whose rewards are all None; before, None counts 0.0 (see minedit_client.trl).
    masks_infra_errors = tuple(int(p) for p in trl.__version__.split(".")[:2]) >= (1, 6)
    reward = minedit_reward_func(target, timeout=300, infra_error="none" if masks_infra_errors else "group_mean")
    train_dataset = Dataset.from_list([{"prompt": r["prompt"], "task_id": r["task_id"]} for r in rows(dataset)])
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
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
