#!/usr/bin/env python3
"""Test oracle for the paired edit-metric tests of `minedit eval compare`: reads two run directories
(tasks.jsonl, samples.jsonl) itself and answers with scipy 1.10.1 (Debian's /usr/bin/python3).

Usage: compare_tests_oracle.py RUN_A RUN_B  →  one JSON object on stdout:
  {group: {"excess": T, "added_cc": T, "over_edit": {"a": mean, "b": mean, "tasks": k}}}
for the groups "all", "domain:<d>", "contains:<family>", "exact:<f1 + f2>", where T is null (no
joint-passing task) or {"tasks": k, "wilcoxon": {"statistic", "pvalue"} | {"error"} , "positive",
"negative", "ties", "binomtest": p | null}.

The rules, in our own words (docs/eval.md, "eval compare"):
- only repair tasks that are not excluded, and that both runs evaluated, are paired (by task id);
- per run and task, the metric is the mean over that run's PASSING samples of the task that have a value;
  a task enters the metric's comparison only when both runs have such a mean ("joint passing");
- the difference of a task is B's mean minus A's mean; scipy.stats.wilcoxon(differences) with every
  default, and the sign test scipy.stats.binomtest(#positive, #non-zero, 0.5) (two-sided);
- the over-edit share of a task is the fraction of its passing samples (with an excess) whose excess > 0.
"""

import json
import sys

import scipy
from paired_tests_oracle import binomtest, wilcoxon

if scipy.__version__ != "1.10.1":
    sys.exit(f"compare_tests_oracle.py expects scipy 1.10.1 (got {scipy.__version__})")


def read_jsonl(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_run(directory):
    tasks = {t["task_id"]: t for t in read_jsonl(f"{directory}/tasks.jsonl") if t["excluded"] is None}
    samples = {}
    for s in read_jsonl(f"{directory}/samples.jsonl"):
        samples.setdefault(s["task_id"], []).append(s)
    return tasks, samples


def passing_mean(samples, value):
    values = [value(s) for s in samples if s["passed"] and value(s) is not None]
    return sum(values) / len(values) if values else None


def tests(task_ids, samples_a, samples_b, value):
    differences = []
    for task in task_ids:
        a = passing_mean(samples_a.get(task, []), value)
        b = passing_mean(samples_b.get(task, []), value)
        if a is not None and b is not None:
            differences.append(b - a)
    if not differences:
        return None
    positive = sum(1 for d in differences if d > 0)
    negative = sum(1 for d in differences if d < 0)
    nonzero = positive + negative
    return {
        "tasks": len(differences),
        "wilcoxon": wilcoxon(differences),
        "positive": positive,
        "negative": negative,
        "ties": len(differences) - nonzero,
        "binomtest": binomtest(positive, nonzero),
    }


def over_edit(task_ids, samples_a, samples_b):
    def share(s):
        return None if s["excess"] is None else (1.0 if s["excess"] > 0 else 0.0)

    a_values, b_values = [], []
    for task in task_ids:
        a = passing_mean(samples_a.get(task, []), share)
        b = passing_mean(samples_b.get(task, []), share)
        if a is not None and b is not None:
            a_values.append(a)
            b_values.append(b)
    if not a_values:
        return None
    return {"a": sum(a_values) / len(a_values), "b": sum(b_values) / len(b_values), "tasks": len(a_values)}


def main():
    tasks_a, samples_a = read_run(sys.argv[1])
    tasks_b, samples_b = read_run(sys.argv[2])
    paired = [t for t in tasks_a if t in tasks_b and tasks_a[t]["kind"] == "repair"]
    groups = {"all": paired}
    for task in paired:
        record = tasks_a[task]
        groups.setdefault(f"domain:{record['domain']}", []).append(task)
        for family in sorted(set(record["families"])):
            groups.setdefault(f"contains:{family}", []).append(task)
        if record["families"]:
            groups.setdefault(f"exact:{' + '.join(sorted(set(record['families'])))}", []).append(task)
    answer = {
        name: {
            "excess": tests(ids, samples_a, samples_b, lambda s: s["excess"]),
            "added_cc": tests(ids, samples_a, samples_b, lambda s: s["added_cc"]),
            "over_edit": over_edit(ids, samples_a, samples_b),
        }
        for name, ids in groups.items()
    }
    json.dump(answer, sys.stdout)


main()
