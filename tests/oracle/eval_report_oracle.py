#!/usr/bin/env python3
"""Test oracle for the numbers of an eval report (src/eval/metrics.ts, `eval report`), written from the
definitions in docs/eval.md, not from the TypeScript: it reads a run directory's tasks.jsonl and
samples.jsonl (the scored rows) and computes, per group of repair tasks (all, each domain, each exact
family combination, each family "contained"), every number the report states:

- counts: tasks, problems, samples, passing samples, each outcome, truncated (and of those, passed);
- pass@1 and pass@k: per task 1 - C(n-c, k)/C(n, k) (Chen et al. 2021, eq. 1; with exact integer
  binomials here, not the product form), averaged over tasks; pass@k for k > 1 only when every task of
  the group has at least k samples;
- over the passing samples, pooled: mean excess edit distance, mean added CC (paper visitor), mean added
  CC (sonar), the share with excess <= 0 (minimal) and > 0 (over-edit), mean token edits; None when
  nothing passes;
- a cluster-bootstrap percentile interval for each (not for the sonar mean): the problems of the group,
  in first-appearance order, are the clusters; the estimate is the statistic of all tasks in order; each
  of R resamples draws as many problems uniformly with replacement (index floor(u * G) for the next
  generator number u), concatenates their tasks in draw order and recomputes the statistic; resamples
  where it is undefined are skipped, and fewer than R/2 usable resamples make the interval None; low and
  high are the (1 - level)/2 and (1 + level)/2 quantiles, linear interpolation between order statistics
  (Hyndman & Fan type 7, numpy.quantile's default, used here);
- the generator: mulberry32 (Tommy Ettinger's public-domain generator; the state advances by 0x6D2B79F5
  and is tempered by the published shifts and multiplies), seeded with the 32-bit FNV-1a hash (offset
  basis 0x811C9DC5, prime 0x01000193, over the UTF-16 code units of the seed's decimal text), a fresh
  generator for every interval, written below from those published definitions with Python integers.

And the run's `task_set` (the paper's Tables 7-8 over the evaluated repair tasks, docs/eval.md#the-json-reports
and docs/tasks.md), from each task row's gold program G and corrupted program C, with CPython itself
(norm(X) = ast.unparse(ast.parse(X)); tokens = tokenize.generate_tokens strings without COMMENT, NL,
ENCODING, ENDMARKER, INDENT, DEDENT; NEWLINE kept):

- functions: every `def` (or `async def`) of norm(G) not nested inside another def (top-level functions,
  methods, defs under `if`/`try`/...; a nested def belongs to its enclosing one). Every evaluated task
  contributes the functions of its own G: the report describes the evaluated tasks, so a gold program
  shared by several tasks counts once per task (unlike `minedit tasks stats`, which describes problems);
- executable lines of a function: the non-blank lines of norm(G) spanned by the statements of its body
  (a decorated statement from its first decorator), the docstring (a first statement that is an
  expression of a `str` constant) left out; the `def` line is not counted;
- tokens of a function: the tokens of norm(G) that start at or after the start of its first executable
  statement and at or before the function's end (so the NEWLINE ending its last line counts); 0 when the
  body is only a docstring;
- gold token edits per task: Levenshtein(tokens(G), tokens(C)), raw, over the run's distance scope
  (run.json `scope`): `program` tokenizes norm(X), `function_body` the paper's function body of X as
  tests/oracle/paper_body_scope.py cuts and tokenizes it (an empty body has no tokens);
- each summary: count, mean, the 0.5/0.25/0.75/0.95 quantiles by numpy.quantile's default (linear
  interpolation, Hyndman & Fan type 7), min and max; all None but count 0 over no values.

And for `eval compare` (tasks paired by id, every delta B - A), per group of paired repair tasks: the
pass rates and the bootstrap interval of the mean per-task difference of pass rates (both runs' tasks of a
problem resampled together); the exact McNemar test on the (task, sample index) outcome pairs (the
two-sided binomial test of the discordant pairs at 1/2, scipy.stats.binomtest) with Holm's step-down
adjustment across the groups of each family table; over the tasks both runs repair ("joint passing"), each
run's mean of the per-task means of excess, added CC and over-edit, the interval of the mean difference,
scipy.stats.wilcoxon (every default) and the sign test (binomtest on the non-zero signs) of the per-task
differences; the minimum detectable effects (normal quantiles from scipy.stats.norm.ppf).

Reads one JSON object on stdin: {"run": "<dir>", "resamples": R, "seed": s, "level": L, "ks": [k, ...]}
and writes {"tasks": {...}, "overall": group | None, "domains": {...}, "families": {"exact": {...},
"contains": {...}}, "task_set": {...}} where group has the report's keys; or, with "compare": ["<dir A>", "<dir B>"],
"alpha": a and "power": p instead of "run", writes {"a": run A, "b": run B, "paired": {"tasks": n},
"overall", "domains", "families"} with the comparison's keys. Floats are written with repr (round-trip
exact). Needs Debian's /usr/bin/python3 with numpy and scipy 1.10.1 (scripts/ensure-system.sh).
"""

import ast
import io
import json
import math
import sys
import tokenize
import warnings
from pathlib import Path

import numpy as np
import scipy
from scipy import stats

import paper_body_scope

if scipy.__version__ != "1.10.1":
    sys.exit(f"eval_report_oracle.py expects scipy 1.10.1 (got {scipy.__version__})")

OUTCOMES = [
    "PASSED",
    "FAILED_TESTS",
    "UNPARSABLE",
    "NO_CODE",
    "TIMEOUT",
    "MEMORY_LIMIT",
    "RUNTIME_ERROR",
    "COMPILE_ERROR",
    "INFRA_ERROR",
    "INVALID_TASK",
    "API_ERROR",
    "MISSING",
]
DOMAIN_ORDER = ["in-domain", "ood", "mixed", "unknown"]
M32 = 0xFFFFFFFF


def fnv1a32(text):
    h = 0x811C9DC5
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h ^= int.from_bytes(data[i : i + 2], "little")
        h = (h * 0x01000193) & M32
    return h


def mulberry32(seed_text):
    state = fnv1a32(seed_text)

    def imul(a, b):
        return (a * b) & M32

    def nxt():
        nonlocal state
        state = (state + 0x6D2B79F5) & M32
        t = imul(state ^ (state >> 15), 1 | state)
        t = ((t + imul(t ^ (t >> 7), 61 | t)) & M32) ^ t
        return (t ^ (t >> 14)) / 4294967296

    return nxt


def seed_text(seed):
    # The seed's text as JavaScript's String(number) writes an integer-valued double ("0", not "0.0").
    return str(int(seed)) if float(seed).is_integer() else repr(float(seed))


def pass_at_k(n, c, k):
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def mean(values):
    return None if not values else sum(values) / len(values)


def passing(tasks):
    return [s for t in tasks for s in t["samples"] if s["passed"]]


def mean_over(tasks, value):
    values = [v for v in (value(s) for s in passing(tasks)) if v is not None]
    return mean(values)


def interval(groups, statistic, options):
    estimate = statistic([t for g in groups for t in g])
    if estimate is None:
        return None
    rnd = mulberry32(seed_text(options["seed"]))
    resamples = options["resamples"]
    values = []
    for _ in range(resamples):
        drawn = [math.floor(rnd() * len(groups)) for _ in groups]
        v = statistic([t for i in drawn for t in groups[i]])
        if v is not None:
            values.append(v)
    if 2 * len(values) < resamples:
        return None
    level = options["level"]
    low, high = np.quantile(np.array(values, dtype=np.float64), [(1 - level) / 2, (1 + level) / 2])
    return {"estimate": estimate, "low": float(low), "high": float(high)}


def by_problem(tasks):
    groups = {}
    for t in tasks:
        groups.setdefault(t["task"]["problem_id"], []).append(t)
    return list(groups.values())


def excess_of(sign):
    return lambda s: None if s["excess"] is None else (1 if sign(s["excess"]) else 0)


def group(tasks, options):
    groups = by_problem(tasks)

    def boot(statistic):
        return interval(groups, statistic, options)

    def pass_at(k):
        return lambda sample: mean(
            [pass_at_k(len(t["samples"]), sum(s["passed"] for s in t["samples"]), k) for t in sample]
        )

    smallest_n = min(len(t["samples"]) for t in tasks)
    outcomes = {o: 0 for o in OUTCOMES}
    for t in tasks:
        for s in t["samples"]:
            outcomes[s["outcome"]] += 1
    every = [s for t in tasks for s in t["samples"]]
    return {
        "tasks": len(tasks),
        "problems": len(groups),
        "samples": len(every),
        "passed_samples": len(passing(tasks)),
        "pass_at_1": boot(pass_at(1)),
        "pass_at_k": {str(k): boot(pass_at(k)) for k in options["ks"] if 1 < k <= smallest_n},
        "excess": boot(lambda s: mean_over(s, lambda x: x["excess"])),
        "added_cc": boot(lambda s: mean_over(s, lambda x: x["added_cc"])),
        "added_cc_sonar": mean_over(tasks, lambda x: x["added_cc_sonar"]),
        "minimal_share": boot(lambda s: mean_over(s, excess_of(lambda e: e <= 0))),
        "over_edit_share": boot(lambda s: mean_over(s, excess_of(lambda e: e > 0))),
        "token_edits": boot(lambda s: mean_over(s, lambda x: x["token_edits"])),
        "outcomes": outcomes,
        "truncated": sum(1 for s in every if s["truncated"]),
        "truncated_passed": sum(1 for s in every if s["truncated"] and s["passed"]),
    }


def partition(tasks, keys):
    parts = {}
    for t in tasks:
        for key in keys(t):
            parts.setdefault(key, []).append(t)
    return parts


def labelled(parts, options):
    out = {}
    for name in sorted(parts):
        members = parts[name]
        domains = {m["task"]["domain"] for m in members}
        out[name] = {**group(members, options), "domain": next(iter(domains)) if len(domains) == 1 else "mixed"}
    return out


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def domain_rank(domain):
    return (DOMAIN_ORDER.index(domain) if domain in DOMAIN_ORDER else len(DOMAIN_ORDER), domain)


# ---- task_set: the paper's Tables 7-8 over the evaluated tasks ----

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def norm(source):
    return ast.unparse(ast.parse(source))


def kept_tokens(text):
    """(string, (row, column)) of every token the reward keeps, rows 1-based, columns in characters."""
    return [
        (t.string, t.start)
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type not in paper_body_scope.DROPPED
    ]


def outermost_defs(node):
    found = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, DEFS):
            found.append(child)
        else:
            found.extend(outermost_defs(child))
    return found


def is_docstring(statement):
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def char_column(lines, row, byte_offset):
    """ast's columns count UTF-8 bytes, tokenize's count characters."""
    return len(lines[row - 1].encode("utf-8")[:byte_offset].decode("utf-8"))


def statement_start(lines, statement):
    """(row, column) where a statement is written: a decorated def or class from its first `@`."""
    decorators = getattr(statement, "decorator_list", [])
    if decorators:
        row = min(d.lineno for d in decorators)
        text = lines[row - 1]
        return row, len(text) - len(text.lstrip())
    return statement.lineno, char_column(lines, statement.lineno, statement.col_offset)


def function_measures(gold):
    """(executable lines, tokens) of each outermost def of norm(G), in source order."""
    text = norm(gold)
    lines = text.split("\n")
    tokens = kept_tokens(text)
    measures = []
    for fn in outermost_defs(ast.parse(text)):
        body = fn.body[1:] if is_docstring(fn.body[0]) else fn.body
        rows = set()
        for statement in body:
            for row in range(statement_start(lines, statement)[0], statement.end_lineno + 1):
                if lines[row - 1].strip():
                    rows.add(row)
        count = 0
        if body:
            start = statement_start(lines, body[0])
            end = (fn.end_lineno, char_column(lines, fn.end_lineno, fn.end_col_offset))
            count = sum(1 for _, at in tokens if start <= at <= end)
        measures.append((len(rows), count))
    return measures


def scope_tokens(source, scope):
    if scope == "program":
        return [string for string, _ in kept_tokens(norm(source))]
    if scope == "function_body":
        return paper_body_scope.tokens(paper_body_scope.body(source))
    sys.exit(f"eval_report_oracle.py: unknown distance scope {scope!r}")


def summary(values):
    if not values:
        return {k: None for k in ("mean", "median", "q1", "q3", "p95", "min", "max")} | {"count": 0}
    median, q1, q3, p95 = np.quantile(np.array(values, dtype=np.float64), [0.5, 0.25, 0.75, 0.95])
    return {
        "count": len(values),
        "mean": sum(values) / len(values),
        "median": float(median),
        "q1": float(q1),
        "q3": float(q3),
        "p95": float(p95),
        "min": min(values),
        "max": max(values),
    }


def task_set(repair, scope):
    lines, tokens, edits = [], [], []
    for t in repair:
        gold, corrupted = t["task"]["gold"], t["task"]["corrupted"]
        for executable, count in function_measures(gold):
            lines.append(executable)
            tokens.append(count)
        edits.append(paper_body_scope.levenshtein(scope_tokens(gold, scope), scope_tokens(corrupted, scope)))
    return {"executable_lines": summary(lines), "tokens": summary(tokens), "gold_token_edits": summary(edits)}


def run_report(run_dir, options):
    tasks = read_jsonl(Path(run_dir) / "tasks.jsonl")
    joined = joined_tasks(run_dir)
    if any(t["task"]["kind"] != "repair" for t in joined):
        sys.exit("eval_report_oracle.py computes repair-task groups only (no lint or retention tasks)")
    repair = [t for t in joined if t["task"]["kind"] == "repair"]
    domain_parts = partition(repair, lambda t: [t["task"]["domain"]])
    return {
        "tasks": {
            "total": len(tasks),
            "evaluated": len(joined),
            "excluded": [
                {"task_id": t["task_id"], "reason": t["excluded"]} for t in tasks if t.get("excluded") is not None
            ],
        },
        "overall": group(repair, options) if repair else None,
        "domains": {name: group(domain_parts[name], options) for name in sorted(domain_parts, key=domain_rank)},
        "families": {
            "exact": labelled(
                partition(
                    repair,
                    lambda t: [" + ".join(sorted(set(t["task"]["families"])))] if t["task"]["families"] else [],
                ),
                options,
            ),
            "contains": labelled(partition(repair, lambda t: sorted(set(t["task"]["families"]))), options),
        },
        "task_set": task_set(repair, json.loads((Path(run_dir) / "run.json").read_text(encoding="utf-8"))["scope"]),
    }


def rate(samples):
    return 0 if not samples else sum(s["passed"] for s in samples) / len(samples)


def holm(pvalues):
    """Holm (1979) step-down: the i-th smallest p times (m - i), made monotone, capped at 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def binom_p(k, n):
    return 1.0 if n == 0 else float(stats.binomtest(k, n, 0.5).pvalue)


def paired_tests(deltas):
    if not deltas:
        return None
    nonzero = [d for d in deltas if d != 0]
    zeros = len(deltas) - len(nonzero)
    # scipy 1.10.1's mode "auto": exact for at most 50 differences, left for the normal approximation as
    # soon as one of them is zero (zero_method "wilcox" then drops the zeros).
    method = "exact" if len(deltas) <= 50 and zeros == 0 else "normal"
    if not nonzero:
        # scipy refuses all-zero differences; the report states "nothing to test" as W = 0, p = 1.
        wilcoxon = {"n": 0, "zeros": zeros, "statistic": 0, "p_value": 1, "method": method}
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.wilcoxon(np.asarray(deltas, dtype=np.float64))
        wilcoxon = {
            "n": len(nonzero),
            "zeros": zeros,
            "statistic": float(res.statistic),
            "p_value": float(res.pvalue),
            "method": method,
        }
    positive = sum(1 for d in deltas if d > 0)
    negative = sum(1 for d in deltas if d < 0)
    return {
        "wilcoxon": wilcoxon,
        "sign": {
            "positive": positive,
            "negative": negative,
            "ties": len(deltas) - positive - negative,
            "p_value": binom_p(min(positive, negative), positive + negative),
        },
    }


def z_values(alpha, power):
    return float(stats.norm.ppf(1 - alpha / 2)), float(stats.norm.ppf(power))


def mde_mean(n, sd, alpha, power):
    """(z_{1-alpha/2} + z_power) * sd / sqrt(n): the normal-approximation MDE of a paired mean."""
    za, zb = z_values(alpha, power)
    value = (za + zb) * sd / math.sqrt(n)
    return value if math.isfinite(value) else None


def mde_proportion(n, discordant_rate, alpha, power):
    """Connor (1987), Biometrics 43(1): 207-211, solved for the detectable difference delta of paired
    proportions with discordant rate psi: sqrt(n) delta = z_a sqrt(psi) + z_b sqrt(psi - delta^2), i.e.
    delta = sqrt(psi) (z_a sqrt(n) + z_b sqrt(n + z_b^2 - z_a^2)) / (n + z_b^2); None (infinite) when psi
    is 0, the root is negative, or delta exceeds psi (no difference that large is possible)."""
    za, zb = z_values(alpha, power)
    under = n + zb * zb - za * za
    if discordant_rate == 0 or under < 0:
        return None
    delta = math.sqrt(discordant_rate) * (za * math.sqrt(n) + zb * math.sqrt(under)) / (n + zb * zb)
    return None if delta > discordant_rate else delta


def passing_mean(samples, value):
    return mean([v for v in (value(s) for s in samples if s["passed"]) if v is not None])


def paired_group(pairs, options, alpha, power):
    groups = by_problem(pairs)

    def pass_delta(sample):
        if not sample:
            return None
        return mean([rate(p["b"]) - rate(p["a"]) for p in sample])

    outcomes = [
        (p["a"][i]["passed"], p["b"][i]["passed"]) for p in pairs for i in range(min(len(p["a"]), len(p["b"])))
    ]
    both = sum(1 for a, b in outcomes if a and b)
    only_a = sum(1 for a, b in outcomes if a and not b)
    only_b = sum(1 for a, b in outcomes if b and not a)
    neither = len(outcomes) - both - only_a - only_b

    def edit(value):
        joint = []
        for p in pairs:
            a, b = passing_mean(p["a"], value), passing_mean(p["b"], value)
            if a is not None and b is not None:
                joint.append({"task": p["task"], "a": a, "b": b})
        deltas = [j["b"] - j["a"] for j in joint]
        sd = float(np.std(np.asarray(deltas), ddof=1)) if len(deltas) >= 2 else 0.0
        return {
            "n": len(joint),
            "a": mean([j["a"] for j in joint]),
            "b": mean([j["b"] for j in joint]),
            "delta": None
            if not joint
            else interval(by_problem(joint), lambda s: mean([j["b"] - j["a"] for j in s]) if s else None, options),
            "tests": paired_tests(deltas),
            "mde": None if not joint else mde_mean(len(joint), sd, alpha, power),
        }

    excess = edit(lambda s: s["excess"])
    added = edit(lambda s: s["added_cc"])
    over = edit(excess_of(lambda e: e > 0))
    return {
        "tasks": len(pairs),
        "problems": len(groups),
        "pass_a": mean([rate(p["a"]) for p in pairs]) if pairs else None,
        "pass_b": mean([rate(p["b"]) for p in pairs]) if pairs else None,
        "pass_delta": interval(groups, pass_delta, options) if pairs else None,
        "mcnemar": {
            "both": both,
            "only_a": only_a,
            "only_b": only_b,
            "neither": neither,
            # The exact McNemar test is the two-sided binomial test of the discordant pairs at 1/2.
            "p_value": binom_p(only_a, only_a + only_b),
            "p_holm": None,
        },
        "joint_passing": excess["n"],
        "excess_a": excess["a"],
        "excess_b": excess["b"],
        "excess_delta": excess["delta"],
        "excess_tests": excess["tests"],
        "added_cc_a": added["a"],
        "added_cc_b": added["b"],
        "added_cc_delta": added["delta"],
        "added_cc_tests": added["tests"],
        "over_edit_a": over["a"],
        "over_edit_b": over["b"],
        "over_edit_delta": over["delta"],
        "mde": {
            "pass": None if not outcomes else mde_proportion(len(outcomes), (only_a + only_b) / len(outcomes), alpha, power),
            "excess": excess["mde"],
            "added_cc": added["mde"],
            "over_edit": over["mde"],
        },
    }


def paired_by(pairs, keys, options, alpha, power):
    parts = partition(pairs, keys)
    names = sorted(parts)
    metrics = [paired_group(parts[name], options, alpha, power) for name in names]
    adjusted = holm([m["mcnemar"]["p_value"] for m in metrics])
    out = {}
    for name, m, p in zip(names, metrics, adjusted):
        domains = {t["task"]["domain"] for t in parts[name]}
        m["mcnemar"]["p_holm"] = p
        out[name] = {**m, "domain": next(iter(domains)) if len(domains) == 1 else "mixed"}
    return out


def joined_tasks(run_dir):
    tasks = read_jsonl(Path(run_dir) / "tasks.jsonl")
    samples = read_jsonl(Path(run_dir) / "samples.jsonl")
    out = []
    for task in tasks:
        if task.get("excluded") is not None:
            continue
        own = sorted((s for s in samples if s["task_id"] == task["task_id"]), key=lambda s: s["sample"])
        out.append({"task": task, "samples": own})
    return out


def compare_report(dir_a, dir_b, options, alpha, power):
    """The paired numbers of `eval compare` (docs/eval.md): tasks paired by id, deltas B - A."""
    b_by_id = {t["task"]["task_id"]: t for t in joined_tasks(dir_b)}
    pairs = [
        {"task": t["task"], "a": t["samples"], "b": b_by_id[t["task"]["task_id"]]["samples"]}
        for t in joined_tasks(dir_a)
        if t["task"]["task_id"] in b_by_id
    ]
    repair = [p for p in pairs if p["task"]["kind"] == "repair"]
    domains = {}
    for name, m in paired_by(repair, lambda p: [p["task"]["domain"]], options, alpha, power).items():
        rest = {k: v for k, v in m.items() if k != "domain"}
        rest["mcnemar"] = {**rest["mcnemar"], "p_holm": None}
        domains[name] = rest
    return {
        "paired": {"tasks": len(pairs)},
        "overall": paired_group(repair, options, alpha, power) if repair else None,
        "domains": domains,
        "families": {
            "exact": paired_by(
                repair,
                lambda p: [" + ".join(sorted(set(p["task"]["families"])))] if p["task"]["families"] else [],
                options,
                alpha,
                power,
            ),
            "contains": paired_by(repair, lambda p: sorted(set(p["task"]["families"])), options, alpha, power),
        },
    }


def main():
    request = json.load(sys.stdin)
    options = {k: request[k] for k in ("resamples", "seed", "level", "ks")}
    if "compare" in request:
        a, b = request["compare"]
        json.dump(
            {
                "a": run_report(a, options),
                "b": run_report(b, options),
                **compare_report(a, b, options, request["alpha"], request["power"]),
            },
            sys.stdout,
        )
    else:
        json.dump(run_report(request["run"], options), sys.stdout)


if __name__ == "__main__":
    main()
