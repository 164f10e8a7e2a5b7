"""A verifiers environment whose rubric is the minedit reward, for PRIME-RL (or `vf-eval`).

    node bin/minedit.js serve &                    # 127.0.0.1:50051 (MINEDIT_TARGET to change)
    pip install ./clients/python verifiers
    # PRIME-RL / vf-eval load it through load_environment(); --check scores the gold repairs instead:
    python3 clients/python/examples/verifiers/minedit_env.py --check

Dataset rows: `prompt` (chat messages) and `answer` = the minedit task id (the GRPO export's `task_id`).
"""

import argparse
import asyncio
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from demo_dataset import rows  # noqa: E402

from minedit_client.verifiers import minedit_metric_funcs, minedit_reward_func, minedit_rubric  # noqa: E402


def load_environment(dataset_path=None, **client_settings):
    import verifiers as vf
    from datasets import Dataset

    dataset = Dataset.from_list(
        [{"prompt": r["prompt"], "answer": r["task_id"], "info": {"task_id": r["task_id"]}} for r in rows(dataset_path)]
    )
    return vf.SingleTurnEnv(dataset=dataset, rubric=minedit_rubric(**client_settings))


def check(dataset_path=None):
    reward, metrics = minedit_reward_func(), minedit_metric_funcs()

    async def score_all():
        scores = []
        for r in rows(dataset_path):
            state = {}
            completion = [{"role": "assistant", "content": f"```python\n{r['gold']}```"}]
            scores.append(await reward(prompt=r["prompt"], completion=completion, answer=r["task_id"], state=state))
            assert metrics[0](state=state) == 1.0, state["minedit"]
        return scores

    scores = asyncio.run(score_all())
    print(f"verifiers check: {len(scores)} rollouts, rewards {sorted(set(scores))}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", help="GRPO JSONL (prompt, task_id); default: the demo tasks")
    parser.add_argument("--check", action="store_true", help="score the gold repairs through the rubric function")
    args = parser.parse_args()
    if not args.check:
        parser.error("run through PRIME-RL / vf-eval (load_environment), or pass --check")
    check(args.dataset)
