"""The examples in clients/python/examples run against the real server: their --check modes score the
gold repairs of the demo tasks through the same adapters a training run uses, and the verl reward file
loads the way verl loads a custom reward function (by file path)."""

import importlib.util
import inspect
import os
import re
import subprocess
import sys
import unittest

from support import TARGET, TASKS, fence

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
ENV = {**os.environ, "MINEDIT_TARGET": TARGET, "PYTHONPATH": os.path.join(EXAMPLES, "..")}


def run(*args):
    done = subprocess.run([sys.executable, *args], env=ENV, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"{args} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


class ExamplesTest(unittest.TestCase):
    def test_trl_example_check(self) -> None:
        out = run(os.path.join(EXAMPLES, "trl_grpo.py"), "--check")
        self.assertIn(f"trl check: {len(TASKS)} prompts, rewards [0.1], pass rate 1.0", out)

    def test_verifiers_example_check(self) -> None:
        # Message objects (verifiers >= 0.1.11), the whole group at once: it shares a few ScoreBatch calls.
        out = run(os.path.join(EXAMPLES, "verifiers", "minedit_env.py"), "--check")
        found = re.search(r"verifiers check: (\d+) rollouts, rewards \[0\.1\], (\d+) ScoreBatch calls", out)
        self.assertIsNotNone(found, out)
        self.assertEqual(int(found.group(1)), len(TASKS))
        self.assertLessEqual(int(found.group(2)), 2, out)

    def test_demo_dataset_rows_carry_the_task_id(self) -> None:
        out = run(os.path.join(EXAMPLES, "demo_dataset.py"), "--format", "jsonl")
        lines = out.splitlines()
        self.assertEqual(len(lines), len(TASKS))
        self.assertIn('"task_id": "' + TASKS[0]["task_id"] + '"', lines[0])

    def test_verl_reward_file_loads_by_path(self) -> None:
        # How verl loads custom_reward_function.path: a module from a file, then getattr(name).
        path = os.path.join(EXAMPLES, "verl", "minedit_reward.py")
        spec = importlib.util.spec_from_file_location("custom_module", path)
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, os.path.join(EXAMPLES, ".."))
        os.environ["MINEDIT_TARGET"] = TARGET
        spec.loader.exec_module(module)
        task = TASKS[1]
        [result] = module.compute_score_batch(
            data_sources=["minedit"],
            solution_strs=[fence(task["gold"])],
            ground_truths=[task["task_id"]],
            extra_infos=[{"task_id": task["task_id"]}],
        )
        self.assertEqual((result["score"], result["passed"]), (0.1, 1.0))
        # verl awaits what inspect.iscoroutinefunction says is async: compute_score only.
        names = ("compute_score", "compute_score_sync", "compute_score_batch", "compute_score_prime")
        self.assertEqual([inspect.iscoroutinefunction(getattr(module, n)) for n in names], [True, False, False, False])


if __name__ == "__main__":
    unittest.main()
