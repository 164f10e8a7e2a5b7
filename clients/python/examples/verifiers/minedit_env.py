"""minedit for verifiers / PRIME-RL: the environment is the installable package
clients/python/environments/minedit_repair (id "minedit-repair"); this script checks a server against it.

    node bin/minedit.js serve &                                # 127.0.0.1:50051 (MINEDIT_TARGET to change)
    uv pip install -e clients/python -e clients/python/environments/minedit_repair
    node bin/minedit.js export --kind grpo --format hf --tasks datasets/seed/demo-tasks.jsonl --out data
    # PRIME-RL (HEAD, >= v0.8: v1 taskset):    prime-rl-v1.toml
    # PRIME-RL v0.8 (v0 env via the bridge):   prime-rl-v0.8-legacy.toml
    # PRIME-RL v0.6 / v0.7 (v0 env):           prime-rl-v0.6-v0.7.toml
    # PRIME-RL v0.5 (v0 env):                  prime-rl-v0.5.toml
    # minedit as a reward of ANOTHER v1 taskset (verifiers HEAD, TaskConfig.rewards): prime-rl-plugged-reward.toml,
    #                                          minedit_hooks.py (task id in another field)
    # vf-eval (verifiers 0.1.x):  vf-eval minedit-repair -a '{"dataset_path": "data/grpo"}'

--check needs neither verifiers nor a model: it scores the gold repairs of the demo tasks through the v0
rubric function exactly as verifiers >= 0.1.11 calls it — completions as pydantic-style AssistantMessage
objects (attributes, not a Mapping), every rollout of the "group" at once — and reports the ScoreBatch
calls they shared:

    python3 clients/python/examples/verifiers/minedit_env.py --check
"""

import argparse
import asyncio
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from demo_dataset import rows  # noqa: E402

from minedit_client.verifiers import minedit_metric_funcs, minedit_reward_func, shared_scorer  # noqa: E402


class AssistantMessage:
    """The shape of verifiers' v0 ``AssistantMessage`` (since 0.1.11, a pydantic model): fields are
    attributes, ``m["content"]`` / ``m.get("content")`` work, and it is not a Mapping."""

    def __init__(self, content, role="assistant"):
        self.role, self.content, self.reasoning_content, self.tool_calls = role, content, None, None

    def __getitem__(self, key):
        return getattr(self, key)

    def get(self, key, default=None):
        return getattr(self, key, default)


def check(dataset_path=None):
    reward, metrics = minedit_reward_func(), minedit_metric_funcs()
    scorer = shared_scorer()  # the one the reward function uses: same (default) settings
    before = scorer.stats.calls
    samples = list(rows(dataset_path))

    async def score(sample):
        # What verifiers' Rubric passes to a **kwargs reward function (rubrics/rubric.py).
        state = {"prompt": sample["prompt"], "answer": sample["task_id"], "error": None}
        value = await reward(
            prompt=sample["prompt"],
            completion=[AssistantMessage(f"```python\n{sample['gold']}```")],
            answer=sample["task_id"],
            state=state,
            task="minedit-repair",
            info={"task_id": sample["task_id"]},
            parser=None,
        )
        assert state["error"] is None and metrics[0](state=state) == 1.0, state["minedit"]
        return value

    async def score_group():
        return await asyncio.gather(*(score(sample) for sample in samples))

    scores = asyncio.run(score_group())
    calls = scorer.stats.calls - before
    print(f"verifiers check: {len(scores)} rollouts, rewards {sorted(set(scores))}, {calls} ScoreBatch calls")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", help="a task file, whose gold repairs are the answers (default: the demo tasks)")
    parser.add_argument("--check", action="store_true", help="score the gold repairs through the rubric function")
    args = parser.parse_args()
    if not args.check:
        parser.error("train through PRIME-RL / vf-eval with the minedit-repair package, or pass --check")
    check(args.dataset)
