#!/usr/bin/env python3
"""Build and verify minedit's own seed problems.

Reads the readable sources under datasets/seed/src/NNN_slug/ and writes

  datasets/seed/problems.jsonl     one row per problem

but only after every problem has been verified by running it; any failure is printed and the script exits
with status 1 without writing anything. The repair tasks made from these problems (datasets/tasks/*.jsonl
and the demo set datasets/seed/demo-tasks.jsonl, whose problems datasets/seed/demo-problems.txt lists) are
built by the corruption engine: scripts/build-task-sets.sh, i.e. `minedit tasks build`.

Source layout of one problem directory (NNN = three digits, slug = lower-case words joined by "_"):

  problem.json       {"problem_id": "seed/NNN-slug", "statement": ..., "entry_point": ...}
  solution.py        the reference solution (8-60 lines, standard library only)
  and exactly one test file, which fixes the test style:
  test_solution.py   style "unittest" (BigCodeBench): defines `class TestCases(unittest.TestCase)` with 4-8
                     test methods; it is executed after the solution in the same namespace, so it calls the
                     entry point by name and imports nothing from the solution.
  check.py           style "assert" (HumanEval): defines `def check(candidate)`; the runner executes the
                     solution and this file in one namespace and calls `check(<entry_point>)`.
  cases.json         style "stdio": {"cases": [{"input": str, "output": str}, ...]} (4-8 cases); the solution
                     is a program run with each input on stdin. Outputs are compared after trimming trailing
                     whitespace on every line and dropping trailing empty lines. entry_point is "main".

Verification runs each problem's programs in one `python3 -I` subprocess (in a scratch directory, with a
subprocess timeout), each program in a fresh module namespace with a 10 s SIGALRM deadline; stdio programs
run once per case with the case on sys.stdin and __name__ == "__main__". It checks that:
  - the reference solution passes all of its tests;
  - the tests assert something: unittest/assert suites must fail when the entry point is replaced by a
    function returning None (for unittest, every test method must fail), and stdio cases must not all be
    satisfied by a program that prints nothing or by one that echoes its input.

Usage: python3 scripts/build-seed-dataset.py [--check] [--jobs N]
  --check   verify and compare with the JSONL files on disk instead of writing them (exit 1 if stale)
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC_DIR = ROOT / "datasets" / "seed" / "src"
PROBLEMS_OUT = ROOT / "datasets" / "seed" / "problems.jsonl"
SOURCE_TAG = "minedit-seed"

# What the shipped data set promises (checked, so losing a problem directory fails loudly).
MIN_PROBLEMS = 60
MIN_PER_STYLE = {"unittest": 40, "assert": 10, "stdio": 10}
SOLUTION_LINES = (8, 60)
TEST_COUNT = (4, 8)
JOB_TIMEOUT_S = 10  # per program run (docs/sandbox.md default wall limit)

# The verification subprocess sees no PYTHON* variables (-I ignores most anyway) and a fixed locale; hash
# randomization stays on so that a test depending on set order fails here rather than in training.
CHILD_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}

DIR_RE = re.compile(r"^(\d{3})_([a-z0-9]+(?:_[a-z0-9]+)*)$")

# Runs the jobs of one problem in one `python3 -I` process (interpreter start-up dominates the run time):
# every job gets a fresh module namespace, its own SIGALRM deadline, and captured stdout/stderr, so what a
# program prints is never mistaken for the result line. This verifies our own data; it is not a sandbox for
# untrusted code. Reads {"jobs": [...]} as JSON on stdin and prints one line RESULT_MARK + JSON results.
RESULT_MARK = "@@minedit-seed-result@@ "
HARNESS = r"""
import contextlib, io, json, signal, sys, types, unittest

MARK = "@@minedit-seed-result@@ "
real_stdout, real_stdin = sys.stdout, sys.stdin
jobs = json.loads(sys.stdin.read())["jobs"]


class Deadline(BaseException):
    pass


def on_alarm(signum, frame):
    # Re-arm: unittest records the exception of a hanging test method and moves on to the next one,
    # which may hang too and must be interrupted as well, until the job's finally clause disarms.
    signal.alarm(1)
    raise Deadline("timeout")


signal.signal(signal.SIGALRM, on_alarm)


def stub(*args, **kwargs):
    return None


def describe(exc):
    lines = str(exc).strip().splitlines()
    return type(exc).__name__ + (": " + lines[0] if lines else "")


class Recorder(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcomes = {}

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes[test._testMethodName] = "pass"

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes[test._testMethodName] = "fail: " + describe(err[1])

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes[test._testMethodName] = "error: " + describe(err[1])

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes[test._testMethodName] = "skipped"


def run_suite(job):
    result = {"ok": False}
    namespace = types.ModuleType("__minedit_solution__").__dict__
    exec(compile(job["program"], "solution.py", "exec"), namespace)
    if job["stub"]:
        namespace[job["entry_point"]] = stub
    if job["style"] == "unittest":
        exec(compile(job["tests"], "test_solution.py", "exec"), namespace)
        recorder = Recorder()
        unittest.defaultTestLoader.loadTestsFromTestCase(namespace["TestCases"]).run(recorder)
        result["outcomes"] = recorder.outcomes
        result["ok"] = recorder.testsRun > 0 and all(v == "pass" for v in recorder.outcomes.values())
    else:
        exec(compile(job["tests"], "check.py", "exec"), namespace)
        namespace["check"](namespace[job["entry_point"]])
        result["ok"] = True
    return result


def run_stdio(job):
    outputs = []
    for case in job["cases"]:
        out = io.StringIO()
        sys.stdin = io.TextIOWrapper(io.BytesIO(case["input"].encode("utf-8")), encoding="utf-8")
        namespace = types.ModuleType("__main__").__dict__
        error = None
        try:
            with contextlib.redirect_stdout(out):
                signal.alarm(job["timeout"])
                try:
                    exec(compile(job["program"], "solution.py", "exec"), namespace)
                finally:
                    signal.alarm(0)
        except SystemExit as exc:
            if exc.code not in (None, 0):
                error = f"exit status {exc.code}"
        except BaseException as exc:
            error = describe(exc)
        finally:
            sys.stdin = real_stdin
        outputs.append({"stdout": out.getvalue(), "error": error})
        if isinstance(error, str) and error.startswith("Deadline"):
            break  # one timeout is enough to fail the job; do not wait for every case
    return {"outputs": outputs}


results = []
for job in jobs:
    captured = io.StringIO()
    try:
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            if job["style"] == "stdio":
                results.append(run_stdio(job))
            else:
                signal.alarm(job["timeout"])
                try:
                    results.append(run_suite(job))
                finally:
                    signal.alarm(0)
    except BaseException as exc:  # SystemExit and timeouts included: they are failures, not crashes
        results.append({"ok": False, "error": describe(exc)})
real_stdout.write(MARK + json.dumps(results) + "\n")
"""


@dataclass
class Problem:
    directory: Path
    problem_id: str
    statement: str
    entry_point: str
    solution: str
    style: str
    tests: dict


class Report:
    """Collects every problem found, so one run shows all of them rather than the first."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")


def read_json(path: Path):
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def slug_to_id(number: str, slug: str) -> str:
    return f"seed/{number}-{slug.replace('_', '-')}"


def top_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def imports_solution(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "solution":
            return True
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "solution" for a in node.names):
            return True
    return False


def load_problem(directory: Path, report: Report) -> Problem | None:
    where = directory.name
    match = DIR_RE.match(directory.name)
    if not match:
        report.fail(where, "directory name must look like NNN_slug (lower-case, digits, underscores)")
        return None
    meta_path = directory / "problem.json"
    solution_path = directory / "solution.py"
    if not meta_path.is_file() or not solution_path.is_file():
        report.fail(where, "problem.json and solution.py are required")
        return None
    meta = read_json(meta_path)
    expected_id = slug_to_id(*match.groups())
    if set(meta) != {"problem_id", "statement", "entry_point"}:
        keys = sorted(meta)
        report.fail(where, f"problem.json must have exactly problem_id, statement, entry_point; got {keys}")
        return None
    if meta["problem_id"] != expected_id:
        report.fail(where, f"problem_id {meta['problem_id']!r} should be {expected_id!r}")
    if not meta["statement"].strip():
        report.fail(where, "empty statement")

    style_files = {
        "unittest": directory / "test_solution.py",
        "assert": directory / "check.py",
        "stdio": directory / "cases.json",
    }
    present = [style for style, path in style_files.items() if path.is_file()]
    if len(present) != 1:
        report.fail(where, f"need exactly one of test_solution.py, check.py, cases.json; found {present}")
        return None
    style = present[0]
    solution = solution_path.read_text(encoding="utf-8")
    problem = Problem(
        directory=directory,
        problem_id=meta["problem_id"],
        statement=meta["statement"],
        entry_point=meta["entry_point"],
        solution=solution,
        style=style,
        tests={},
    )

    line_count = len(solution.splitlines())
    if not SOLUTION_LINES[0] <= line_count <= SOLUTION_LINES[1]:
        low, high = SOLUTION_LINES
        report.fail(where, f"solution.py has {line_count} lines, want {low}-{high}")
    try:
        solution_tree = ast.parse(solution, "solution.py")
    except SyntaxError as exc:
        report.fail(where, f"solution.py does not parse: {exc}")
        return None
    if problem.entry_point not in top_level_names(solution_tree):
        report.fail(where, f"solution.py defines no top-level {problem.entry_point!r}")

    if style == "stdio":
        if problem.entry_point != "main":
            report.fail(where, "stdio problems use entry_point 'main'")
        calls_main = any(
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "main"
            for node in solution_tree.body
        )
        if not calls_main:
            report.fail(where, "a stdio solution must call main() at top level")
        cases = read_json(style_files["stdio"]).get("cases")
        if not isinstance(cases, list) or not TEST_COUNT[0] <= len(cases) <= TEST_COUNT[1]:
            report.fail(where, f"cases.json needs {TEST_COUNT[0]}-{TEST_COUNT[1]} cases")
            return None
        for index, case in enumerate(cases):
            if set(case) != {"input", "output"} or not all(isinstance(v, str) for v in case.values()):
                report.fail(where, f"case {index} must be {{'input': str, 'output': str}}")
                return None
        problem.tests = {"style": "stdio", "cases": cases}
    else:
        code = style_files[style].read_text(encoding="utf-8")
        try:
            tree = ast.parse(code, style_files[style].name)
        except SyntaxError as exc:
            report.fail(where, f"{style_files[style].name} does not parse: {exc}")
            return None
        if imports_solution(tree):
            report.fail(where, "tests must not import the solution (they share its namespace)")
        if style == "unittest":
            classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "TestCases"]
            methods = [
                n.name
                for c in classes
                for n in c.body
                if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
            ]
            if len(classes) != 1:
                report.fail(where, "test_solution.py must define exactly one class TestCases")
            elif not TEST_COUNT[0] <= len(methods) <= TEST_COUNT[1]:
                low, high = TEST_COUNT
                report.fail(where, f"TestCases has {len(methods)} test methods, want {low}-{high}")
        else:
            checks = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"]
            if len(checks) != 1 or [a.arg for a in checks[0].args.args] != ["candidate"]:
                report.fail(where, "check.py must define exactly one `def check(candidate)`")
            elif not any(isinstance(n, ast.Assert) for n in ast.walk(checks[0])):
                report.fail(where, "check(candidate) contains no assert statement")
        problem.tests = {"style": style, "code": code}

    return problem


# ---------------------------------------------------------------------------------------------- execution


def run_jobs(jobs: list[dict]) -> list[dict]:
    """Run the harness on `jobs` in a fresh `python3 -I` process; one result per job."""
    with tempfile.TemporaryDirectory(prefix="minedit-seed-") as workdir:
        try:
            proc = subprocess.run(
                [sys.executable, "-I", "-c", HARNESS],
                input=json.dumps({"jobs": jobs}),
                capture_output=True,
                text=True,
                timeout=JOB_TIMEOUT_S * (len(jobs) + 1),
                cwd=workdir,
                env=CHILD_ENV,
            )
        except subprocess.TimeoutExpired:
            return [{"ok": False, "error": "harness timed out"} for _ in jobs]
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            results = json.loads(line[len(RESULT_MARK) :])
            if len(results) == len(jobs):
                return results
    message = "harness printed no result; stderr: " + proc.stderr.strip()[-500:]
    return [{"ok": False, "error": message} for _ in jobs]


def suite_job(problem: Problem, program: str, stub: bool) -> dict:
    return {
        "style": problem.style,
        "program": program,
        "tests": problem.tests["code"],
        "entry_point": problem.entry_point,
        "stub": stub,
        "timeout": JOB_TIMEOUT_S,
    }


def stdio_job(problem: Problem, program: str) -> dict:
    return {"style": "stdio", "program": program, "cases": problem.tests["cases"], "timeout": JOB_TIMEOUT_S}


def normalize_output(text: str) -> str:
    """docs/sandbox.md: compare after trimming trailing whitespace per line (and trailing empty lines)."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def stdio_failures(problem: Problem, result: dict) -> list[str]:
    if "outputs" not in result:
        return [result.get("error", "no output")]
    failures = []
    for index, (case, got) in enumerate(zip(problem.tests["cases"], result["outputs"])):
        if got["error"] or normalize_output(got["stdout"]) != normalize_output(case["output"]):
            failures.append(f"case {index}: {got['error'] or 'got ' + repr(got['stdout'])}")
    skipped = len(problem.tests["cases"]) - len(result["outputs"])
    if skipped:
        failures.append(f"{skipped} case(s) not run after a timeout")
    return failures


def suite_failure(result: dict) -> str:
    return result.get("error") or str({k: v for k, v in result.get("outcomes", {}).items() if v != "pass"})


def verify(problem: Problem) -> list[str]:
    """Run every check of one problem; return the error messages (empty when it is sound)."""
    errors = []
    if problem.style == "stdio":
        cases = problem.tests["cases"]
        for name, produce in (("empty", lambda text: ""), ("echo", lambda text: text)):
            if all(normalize_output(produce(c["input"])) == normalize_output(c["output"]) for c in cases):
                errors.append(f"the {name} program passes every case: the cases assert nothing")
        results = run_jobs([stdio_job(problem, problem.solution)])
        gold_failures = stdio_failures(problem, results[0])
        if gold_failures:
            errors.append("reference solution fails: " + "; ".join(gold_failures))
    else:
        jobs = [suite_job(problem, problem.solution, False), suite_job(problem, problem.solution, True)]
        results = run_jobs(jobs)
        if not results[0]["ok"]:
            errors.append(f"reference solution fails its tests: {suite_failure(results[0])}")
        if results[1]["ok"]:
            errors.append("tests pass when the entry point returns None: they assert nothing")
        elif problem.style == "unittest":
            passing = [name for name, outcome in results[1].get("outcomes", {}).items() if outcome == "pass"]
            if passing:
                errors.append(f"test methods pass when the entry point returns None: {passing}")
    return [f"{problem.directory.name}: {message}" for message in errors]


# ---------------------------------------------------------------------------------------------- output


def problem_row(problem: Problem) -> dict:
    return {
        "problem_id": problem.problem_id,
        "statement": problem.statement,
        "entry_point": problem.entry_point,
        "solution": problem.solution,
        "tests": problem.tests,
        "source": SOURCE_TAG,
    }


def to_jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="verify and compare with the files on disk")
    parser.add_argument("--jobs", type=int, default=2, help="parallel verification workers (default 2)")
    options = parser.parse_args()
    started = time.monotonic()

    report = Report()
    problems = []
    seen_entry = {}
    for directory in sorted(p for p in SRC_DIR.iterdir() if p.is_dir()):
        problem = load_problem(directory, report)
        if problem is None:
            continue
        if problem.problem_id in seen_entry:
            report.fail(directory.name, f"duplicate problem_id {problem.problem_id}")
        seen_entry[problem.problem_id] = directory.name
        problems.append(problem)

    by_style = {style: [p for p in problems if p.style == style] for style in MIN_PER_STYLE}
    if len(problems) < MIN_PROBLEMS:
        report.fail("dataset", f"{len(problems)} problems, want at least {MIN_PROBLEMS}")
    for style, minimum in MIN_PER_STYLE.items():
        if len(by_style[style]) < minimum:
            report.fail("dataset", f"{len(by_style[style])} {style} problems, want at least {minimum}")

    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        for messages in pool.map(verify, problems):
            report.errors.extend(messages)

    elapsed = time.monotonic() - started
    if report.errors:
        print(f"build-seed-dataset: {len(report.errors)} problem(s) found, nothing written:", file=sys.stderr)
        for message in report.errors:
            print(f"  - {message}", file=sys.stderr)
        return 1

    outputs = {PROBLEMS_OUT: to_jsonl([problem_row(p) for p in problems])}
    if options.check:
        stale = [
            str(path.relative_to(ROOT))
            for path, text in outputs.items()
            if not path.is_file() or path.read_text(encoding="utf-8") != text
        ]
        if stale:
            message = "build-seed-dataset: out of date, rerun without --check: " + ", ".join(stale)
            print(message, file=sys.stderr)
            return 1
    else:
        for path, text in outputs.items():
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)

    counts = ", ".join(f"{s} {len(by_style[s])}" for s in by_style)
    verb = "verified" if options.check else "wrote"
    print(
        f"build-seed-dataset: {verb} {len(problems)} problems [{counts}] in {elapsed:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
