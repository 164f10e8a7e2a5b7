#!/usr/bin/env python3
"""The baseline of the end-to-end benchmark, and the helper that prepares its inputs.

    python3 -s -c "import baseline; baseline.score_one()"   (cwd = this directory, input JSON on stdin)

        The timed baseline: ONE fresh interpreter scores ONE rollout, as a plain Python reward function that
        shells out per rollout would. Input: {"completion", "corrupted", "d_gold", "tests", "entry_point",
        "cpu_ms"?} (the server's CPU-time limit, set as RLIMIT_CPU before the tests run; bigcodebench.mjs
        also applies the server's wall backstop).
        It extracts the program (the rule of src/core/extract-program.ts, via ../metrics/reference.py),
        computes norm + tokens of M and C and d(M, C) (ast.unparse + tokenize + pure-Python Levenshtein,
        the reference pipeline of the metrics benchmark), runs the task's tests in this same interpreter
        without any sandbox, and prints one line `@@baseline:<json>` with the verdict, d(M, C) and reward.
        d(G, C) is a per-task constant a trainer would keep in its dataset, so it is given, not recomputed.

    python3 baseline.py prepare     (not timed)

        Reads {"problems": [...], "tasks": [...]} on stdin and prints what run.mjs needs to build the batch:
        a corrupted variant of each problem (first comparison operator flipped, else the first `+ 1` made
        `- 1`), and per task d(G, C) plus model-like variants of G and C (locals renamed, a docstring added,
        comments and blank lines added, a truncation that no longer parses), each checked here with `ast`.

Tests run the way sandbox/python/harness.py runs them (unittest: one `__test__` module holding program and
tests with sys/os pre-imported, as BigCodeBench; assert: `check(<entry point>)`; a program that raises while
loading is RUNTIME_ERROR), minus the harness's defences against hostile candidates. Stdio cases run in this
interpreter too, each with its own globals, stdin and stdout (the server runs each case as its own sandboxed
process): every difference is in the baseline's favour.
"""

import ast
import builtins
import io
import json
import os
import re
import sys
import tokenize

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "metrics"))

from reference import distance, extract_program, new_name, token_strings  # noqa: E402

LAMBDA_EXEC = 0.1
LAMBDA_EDIT = 1.0
FAILURE_REWARD = -0.2


def tokens_of(source):
    """docs/reward.md#normalization-and-tokens: tokens(norm(X)). Raises SyntaxError/ValueError when X does not parse."""
    return token_strings(ast.unparse(ast.parse(source)))


# --------------------------------------------------------------------------------------------------------------
# Tests, run in this interpreter
# --------------------------------------------------------------------------------------------------------------


def run_unittest(program, tests):
    import types
    import unittest

    module = types.ModuleType("__test__")
    module.__dict__.update(
        {"__builtins__": builtins, "__file__": "__test__.py", "__package__": None, "sys": sys, "os": os, "environ": os.environ}
    )
    sys.modules["__test__"] = module
    namespace = module.__dict__
    try:
        exec(compile(program, "program.py", "exec"), namespace)
        exec(compile(tests, "tests.py", "exec"), namespace)
    except BaseException:  # noqa: B036 - SystemExit while loading is a runtime error, as in the harness
        return "RUNTIME_ERROR", 0, 0
    suite = unittest.TestLoader().loadTestsFromTestCase(namespace["TestCases"])
    result = unittest.TestResult()
    suite.run(result)
    failed = len(result.failures) + len(result.errors) + len(result.skipped) + len(result.unexpectedSuccesses)
    total = result.testsRun
    ok = total > 0 and failed == 0
    return ("PASSED" if ok else "FAILED_TESTS"), total - failed, total


def run_assert(program, tests, entry_point):
    namespace = {"__name__": "__test__", "__builtins__": builtins}
    try:
        exec(compile(program, "program.py", "exec"), namespace)
        exec(compile(tests, "tests.py", "exec"), namespace)
    except BaseException:  # noqa: B036
        return "RUNTIME_ERROR", 0, 1
    candidate = namespace.get(entry_point)
    if candidate is None:
        return "FAILED_TESTS", 0, 1
    try:
        namespace["check"](candidate)
    except BaseException:  # noqa: B036
        return "FAILED_TESTS", 0, 1
    return "PASSED", 1, 1


def canonical_lines(text):
    """Lines with trailing whitespace removed, trailing blank lines dropped (src/runners/python.ts)."""
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def token_matches(actual, expected, tolerance):
    if actual == expected:
        return True
    if not DECIMAL.fullmatch(actual) or not DECIMAL.fullmatch(expected):
        return False
    diff = abs(float(actual) - float(expected))
    return diff <= tolerance or diff <= tolerance * abs(float(expected))


def output_matches(actual, expected, tolerance):
    got, want = canonical_lines(actual), canonical_lines(expected)
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if a == b:
            continue
        if tolerance is None:
            return False
        at, bt = a.split(), b.split()
        if len(at) != len(bt) or not all(token_matches(x, y, tolerance) for x, y in zip(at, bt)):
            return False
    return True


def run_stdio(program, cases, tolerance):
    try:
        code = compile(program, "main.py", "exec")
    except BaseException:  # noqa: B036
        return "RUNTIME_ERROR", 0, len(cases)
    real_stdin, real_stdout = sys.stdin, sys.stdout
    passed = 0
    first = None
    for case in cases:
        sys.stdin, sys.stdout = io.StringIO(case["input"]), io.StringIO()
        try:
            exec(code, {"__name__": "__main__", "__builtins__": builtins})
            exited_ok = True
        except SystemExit as e:
            exited_ok = e.code is None or e.code == 0
        except BaseException:  # noqa: B036
            exited_ok = False
        output = sys.stdout.getvalue()
        sys.stdin, sys.stdout = real_stdin, real_stdout
        if not exited_ok:
            first = first or "RUNTIME_ERROR"
        elif not output_matches(output, case["output"], tolerance):
            first = first or "FAILED_TESTS"
        else:
            passed += 1
    return (first or "PASSED"), passed, len(cases)


def score_one():
    """The timed unit of work: one rollout, start to finish, in this fresh interpreter."""
    request = json.load(sys.stdin)
    out = sys.stdout
    result = {"verdict": None, "d_model": None, "reward": FAILURE_REWARD, "passed": 0, "total": 0}
    program = extract_program(request["completion"])
    if program is None:
        result["verdict"] = "NO_CODE"
    else:
        try:
            model_tokens = tokens_of(program)
        except (SyntaxError, ValueError):
            result["verdict"] = "UNPARSABLE"
        else:
            d_model = distance(model_tokens, tokens_of(request["corrupted"]))
            result["d_model"] = d_model
            tests = request["tests"]
            if request.get("cpu_ms"):
                # The server's CPU-time limit, for the tests only (this interpreter's start-up and imports
                # are not charged, as the fork server's preload is not): whole seconds, RLIMIT_CPU's unit.
                import math
                import resource

                usage = resource.getrusage(resource.RUSAGE_SELF)
                soft = math.ceil(usage.ru_utime + usage.ru_stime + request["cpu_ms"] / 1000.0)
                resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
            # The candidate's own prints must not reach the result line.
            sys.stdout = io.StringIO()
            try:
                if tests["style"] == "unittest":
                    verdict, passed, total = run_unittest(program, tests["code"])
                elif tests["style"] == "assert":
                    verdict, passed, total = run_assert(program, tests["code"], request["entry_point"])
                else:
                    verdict, passed, total = run_stdio(program, tests["cases"], tests.get("float_tolerance"))
            finally:
                sys.stdout = out
            result.update(verdict=verdict, passed=passed, total=total)
            if verdict == "PASSED":
                result["reward"] = LAMBDA_EXEC - LAMBDA_EDIT * (d_model - request["d_gold"])
    out.write("\n@@baseline:" + json.dumps(result) + "\n")
    out.flush()
    os._exit(0)  # the candidate may have left threads or atexit hooks behind


# --------------------------------------------------------------------------------------------------------------
# prepare: corrupted variants of problems, model-like variants of tasks (not timed)
# --------------------------------------------------------------------------------------------------------------

FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}


def replace_at(source, edits):
    """Applies (row, col, old, new) replacements (tokenize positions; 1-based rows) to `source`."""
    lines = source.splitlines(keepends=True)
    for row, col, old, new in sorted(edits, reverse=True):
        line = lines[row - 1]
        assert line[col : col + len(old)] == old
        lines[row - 1] = line[:col] + new + line[col + len(old) :]
    return "".join(lines)


def tokens_with_positions(source):
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def corrupt(solution):
    """First comparison operator flipped (<→<=, …), else the first `+ 1` made `- 1`; None if neither."""
    toks = tokens_with_positions(solution)
    for tok in toks:
        if tok.type == tokenize.OP and tok.string in FLIP:
            new = FLIP[tok.string]
            return replace_at(solution, [(*tok.start, tok.string, new)]), f"comparison {tok.string} -> {new} (line {tok.start[0]})"
    for tok, nxt in zip(toks, toks[1:]):
        if tok.type == tokenize.OP and tok.string == "+" and nxt.type == tokenize.NUMBER and nxt.string == "1":
            return replace_at(solution, [(*tok.start, "+", "-")]), f"arithmetic + 1 -> - 1 (line {tok.start[0]})"
    return None, None


def parses(source):
    try:
        ast.parse(source)
        return True
    except (SyntaxError, ValueError):
        return False


def renamable_locals(source):
    """Names bound only inside functions, safe to rename everywhere by NAME token (in first-binding order):
    never a parameter, attribute, keyword argument, import, def/class or module/class-level name, and never
    inside a string (an f-string is one STRING token in 3.11 and would keep the old name)."""
    tree = ast.parse(source)
    if re.search(r"\b(?:locals|vars|eval|exec|globals)\s*\(", source):
        return []
    excluded = set(dir(builtins))
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                excluded.add(child.name)
            if isinstance(child, ast.arg):
                excluded.add(child.arg)
            elif isinstance(child, ast.keyword) and child.arg:
                excluded.add(child.arg)
            elif isinstance(child, ast.Attribute):
                excluded.add(child.attr)
            elif isinstance(child, ast.alias):
                excluded.add((child.asname or child.name).split(".")[0])
            elif isinstance(child, (ast.Global, ast.Nonlocal)):
                excluded.update(child.names)
            elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                (found if in_function else excluded_list).append(child.id)
            scope = in_function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                scope = True
            elif isinstance(child, ast.ClassDef):
                scope = False
            visit(child, scope)

    excluded_list = []
    visit(tree, False)
    excluded.update(excluded_list)
    strings = " ".join(t.string for t in tokens_with_positions(source) if t.type == tokenize.STRING)
    out = []
    for name in found:
        if name in excluded or name in out or re.search(rf"\b{re.escape(name)}\b", strings):
            continue
        out.append(name)
    return out


def rename(source, count):
    """`source` with its first `count` renamable locals renamed (reference.py's new_name), or None."""
    taken = {t.string for t in tokens_with_positions(source) if t.type == tokenize.NAME}
    renames = {}
    for name in renamable_locals(source):
        new = new_name(name, taken | set(renames.values()))
        if new is None or new in dir(builtins):
            continue
        renames[name] = new
        if len(renames) == count:
            break
    if len(renames) < count:
        return None
    edits = [
        (*t.start, t.string, renames[t.string])
        for t in tokens_with_positions(source)
        if t.type == tokenize.NAME and t.string in renames
    ]
    return replace_at(source, edits)


def entry_node(tree, entry_point):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == entry_point:
            return node
    for node in tree.body:  # stdio programs: the first function
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None


def add_docstring(source, entry_point, text):
    """A docstring line added at the top of the entry point's body (None if the body shares the def line)."""
    tree = ast.parse(source)
    node = entry_node(tree, entry_point)
    if node is None:
        return None
    first = node.body[0]
    first_line = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
    if first_line == node.lineno:
        return None
    lines = source.splitlines(keepends=True)
    indent = " " * first.col_offset
    lines.insert(first_line - 1, f'{indent}"""{text}"""\n')
    return "".join(lines)


def reformat(source, entry_point):
    """Comments and blank lines added, nothing else: the same norm(X) as `source`."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    node = entry_node(tree, entry_point)
    if node is not None and lines[node.lineno - 1].rstrip().endswith(":"):
        lines[node.lineno - 1] = lines[node.lineno - 1].rstrip() + "  # fixed the bug in here\n"
    starts = sorted(
        min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])]) for s in tree.body[1:]
    )
    for start in reversed(starts):
        lines.insert(start - 1, "\n")
    out = "# Corrected version\n" + "".join(lines)
    return out if ast.unparse(ast.parse(out)) == ast.unparse(tree) else None


def truncate(source):
    """What a completion cut at max tokens looks like: the program up to a block header past its middle."""
    lines = source.splitlines(keepends=True)
    order = list(range(len(lines) // 2, len(lines))) + list(range(len(lines) // 2 - 1, -1, -1))
    for i in order:
        if lines[i].rstrip().endswith(":"):
            cut = "".join(lines[: i + 1])
            if not parses(cut):
                return cut
    return None


def prepare():
    request = json.load(sys.stdin)
    problems = []
    for problem in request["problems"]:
        corrupted, description = corrupt(problem["solution"])
        ok = corrupted is not None and parses(corrupted)
        problems.append({"corrupted": corrupted if ok else None, "corruption": description})
    tasks = []
    for task in request["tasks"]:
        gold, corrupted, entry = task["gold"], task["corrupted"], task.get("entry_point", "")
        gold_tokens, corrupted_tokens = tokens_of(gold), tokens_of(corrupted)
        docstring = add_docstring(gold, entry, "Returns what the statement asks for.")
        # Without enough renamable locals (e.g. a class whose state lives in attributes), the over-edits fall
        # back to other docstrings, so they still differ from G, from each other and still pass.
        renamed = rename(gold, 1) or add_docstring(gold, entry, "Implements the statement; see the tests.")
        rewritten = add_docstring(
            rename(gold, 2) or rename(gold, 1) or gold, entry, "Computes the result the statement asks for."
        )
        wrong = add_docstring(rename(corrupted, 1) or corrupted, entry, "Fixed: the edge case is handled now.")
        variants = {
            "reformatted": reformat(gold, entry),
            "docstring": docstring,
            "renamed": renamed,
            "rewritten": rewritten,
            "wrong_fix": wrong,
            "truncated": truncate(gold),
        }
        for name, text in variants.items():
            if text is not None and (name == "truncated") == parses(text):
                raise SystemExit(f"prepare: variant {name} of {task['task_id']} does not (un)parse as intended")
        tasks.append(
            {
                "d_gold": distance(gold_tokens, corrupted_tokens),
                "gold_tokens": len(gold_tokens),
                "variants": variants,
            }
        )
    json.dump({"problems": problems, "tasks": tasks}, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1:] == ["prepare"]:
        prepare()
    else:
        raise SystemExit("usage: baseline.py prepare   |   python3 -c 'import baseline; baseline.score_one()'")
