"""A GRPO prompt dataset for the examples, in the shape `minedit export grpo` writes: one row per task,
with the prompt and the task id the reward call needs (`task_id`; verl: `reward_model.ground_truth`).

Use your own export instead (any JSONL whose rows have `prompt` and `task_id`); without one, the rows are
built from the demo tasks the server serves by default (datasets/seed/demo-tasks.jsonl), so the examples
run end to end against `minedit serve` as shipped.

    python3 demo_dataset.py --format jsonl > grpo.jsonl        # TRL / verifiers: prompt, task_id
    python3 demo_dataset.py --format openrlhf > grpo.jsonl     # OpenRLHF: input, label (= task id)
    python3 demo_dataset.py --format verl --out train.parquet  # verl (needs pandas + pyarrow)

With minedit's own export: `minedit export --kind grpo --format hf|openrlhf|verl --tasks TASKS --out DIR`.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO_TASKS = os.path.join(HERE, "..", "..", "..", "datasets", "seed", "demo-tasks.jsonl")
SYSTEM = "You are a careful programmer. Fix the bug with the smallest change that makes the program correct."


def user_prompt(task):
    return (
        f"{task.get('statement', '').strip()}\n\nThis program has a bug:\n\n```python\n{task['corrupted']}```\n\n"
        "Repair it, changing as little as possible. Answer with the whole program in one ```python block."
    )


def rows(path=None, conversational=True):
    """Prompt rows {"prompt", "task_id"} from `path`: a GRPO export is passed through; a task file (rows
    with `corrupted`, such as the demo tasks, the default) is turned into prompts. `prompt` is a message
    list (conversational) or a string."""
    with open(path or DEMO_TASKS, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            task = json.loads(line)
            if "corrupted" not in task:
                yield task
                continue
            prompt = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user_prompt(task)}]
            yield {
                "prompt": prompt if conversational else f"{SYSTEM}\n\n{user_prompt(task)}",
                "task_id": task["task_id"],
                "gold": task["gold"],  # only for the examples' --check runs, which answer with it
            }


def verl_rows(path=None):
    for row in rows(path):
        yield {
            "data_source": "minedit",
            "prompt": row["prompt"],
            "ability": "code-repair",
            "reward_model": {"style": "rule", "ground_truth": row["task_id"]},
            "extra_info": {"task_id": row["task_id"]},
        }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=["jsonl", "openrlhf", "verl"], default="jsonl")
    parser.add_argument("--tasks", help="task JSONL (default: the shipped demo tasks)")
    parser.add_argument("--out", help="output file (verl: required, .parquet)")
    args = parser.parse_args()
    if args.format in ("jsonl", "openrlhf"):
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
        for row in rows(args.tasks):
            row.pop("gold", None)
            if args.format == "openrlhf":
                row = {"input": row["prompt"], "label": row["task_id"]}
            out.write(json.dumps(row) + "\n")
    else:
        import pandas as pd  # verl's own dependency

        pd.DataFrame(list(verl_rows(args.tasks))).to_parquet(args.out)
