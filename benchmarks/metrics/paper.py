#!/usr/bin/env python3
"""The over-editing paper's own distance pipeline, as the benchmarks' baseline.

The paper's code (github.com/nreHieW/fyp, commit 5a4023e4d1f287ac73a616b5b944a14f28422c7e) computes the
reward's distance in train/environments/deepcoder_minimal_edit/partial_edits_utils/similarity_utils.py:

    standardize_code_formatting(code) = ast.unparse(ast.parse(code))         (ignore_comments=True)
    tokenize_code(code) = [tok.string for tok in tokenize.generate_tokens(...)
                           if tok.type not in (COMMENT, NL, ENCODING, ENDMARKER, INDENT, DEDENT)]
    get_levenshtein_distance(a, b, normalize=True)
        = Levenshtein.distance(tokenize_code(a), tokenize_code(b)) / max(len(...), len(...))

and deepcoder_minimal_edit.py's rubric calls it twice per passing rollout, on the event loop's thread:
d(G, C) ("baseline_distance") and d(M, C) ("completion_distance"), recomputing norm(G) and norm(C) (twice)
every time. `Levenshtein.distance` is called on two LISTS of token strings: the environment pins
python-levenshtein >= 0.27.1 (uv.lock: 0.27.1, on rapidfuzz 3.14.0), whose distance takes any sequences of
hashables. Debian's python3-levenshtein is 0.12.2, whose distance takes two strings only (a list raises
TypeError). With it, every distinct token string is mapped to one code point (a per-process table) and the
two strings of code points are compared: the same distance, since two tokens are equal exactly when their
code points are. With a Levenshtein that takes lists (`--python` pointing at an environment with
python-levenshtein >= 0.18), the lists are passed as the paper does.

Modes (`--mode`):
  cached      the baseline: norm + tokens of C (and its code-point string) and d(G, C) once per task, kept
              in a per-process dict across batches, as a trainer that precomputes its dataset would;
              every rollout's own work done once per rollout, as the paper's rubric does.
  memo        cached, plus each distinct completion of a task scored once per batch (what minedit's
              pool does with duplicates inside a call). The strongest variant: our ratio's lower bound.
  as-written  what the paper's rubric really does per rollout: d(G, C) and d(M, C) from scratch.

Extraction is minedit's rule (reference.py's extract_program) rather than the paper's
`extract_code_from_model` (a regex over fences): it must be, for every distance to agree, and it costs
about the same. A program that does not parse is UNPARSABLE (in the paper it fails its tests and gets the
failure reward before any distance is computed).

    paper.py batches --mode M --workers N [--stages] FILE...
        Reads every batch file first (not timed), then scores them in order in this one process (workers
        = 1) or in a multiprocessing pool of N forked processes, each with its own cache, one task group
        per message (workers > 1; pool start-up timed on its own). Caches persist from batch to batch.
        Prints {levenshtein, poolStartSeconds, batches: [{seconds, results}], maxRssKiB, ...}.
    paper.py score-file --tasks TASKS.jsonl --workers N [--mode cached|memo] ROLLOUTS.jsonl OUT
        What `minedit score --no-exec --tasks TASKS.jsonl ROLLOUTS.jsonl` does, streaming: consecutive rows
        of a task are one group; writes one line per rollout to OUT (d(M, C) as repr, or the verdict).
        `--mode memo` scores each distinct completion of a group once (the lower bound of mixes.mjs).
"""

import argparse
import ast
import io
import json
import multiprocessing
import os
import resource
import sys
import tokenize
from time import perf_counter, process_time

import Levenshtein

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import extract_program  # noqa: E402  (minedit's extraction rule, shared with reference.py)

LEVENSHTEIN_VERSION = getattr(Levenshtein, "__version__", "0.12.2 (no __version__: Debian's python3-levenshtein)")


def _takes_lists():
    try:
        return Levenshtein.distance(["ab", "c"], ["ab", "d"]) == 1
    except TypeError:
        return False


TAKES_LISTS = _takes_lists()

# --------------------------------------------------------------------------------------------------------------
# The paper's functions (similarity_utils.py), minus the fallbacks that only run on programs that do not parse
# --------------------------------------------------------------------------------------------------------------


def standardize_code_formatting(code):
    if not code.strip():
        return code
    return ast.unparse(ast.parse(code))


def tokenize_code(code):
    tokens = []
    stream = tokenize.generate_tokens(io.StringIO(code).readline)
    for tok in stream:
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT):
            continue
        tokens.append(tok.string)
    return tokens


class Symbols(dict):
    """Token string -> one code point, assigned on first sight (surrogates skipped)."""

    def __missing__(self, token):
        n = len(self)
        code = n if n < 0xD800 else n + 0x800
        if code > 0x10FFFF:
            raise OverflowError("more distinct tokens than code points")
        symbol = self[token] = chr(code)
        return symbol


SYMBOLS = Symbols()


def encode(tokens):
    """The Levenshtein operand of a token list: the list itself, or its code-point string for 0.12.2."""
    return tokens if TAKES_LISTS else "".join(map(SYMBOLS.__getitem__, tokens))


def normalized(distance, a, b):
    longest = max(len(a), len(b))
    return 0.0 if longest == 0 else distance / longest


def get_levenshtein_distance(reference, prediction):
    """The paper's get_levenshtein_distance(reference, prediction, normalize=True, ignore_comments=True)."""
    ref_tokens = tokenize_code(standardize_code_formatting(reference))
    pred_tokens = tokenize_code(standardize_code_formatting(prediction))
    return normalized(Levenshtein.distance(encode(ref_tokens), encode(pred_tokens)), ref_tokens, pred_tokens)


# --------------------------------------------------------------------------------------------------------------
# Scoring one task group
# --------------------------------------------------------------------------------------------------------------

TASKS = {}  # (corrupted, gold) -> (corrupted tokens, its Levenshtein operand, d(G, C)); per process


def prepared(corrupted, gold):
    key = (corrupted, gold)
    task = TASKS.get(key)
    if task is None:
        c_tokens = tokenize_code(standardize_code_formatting(corrupted))
        c_operand = encode(c_tokens)
        g_tokens = tokenize_code(standardize_code_formatting(gold))
        d_gold = normalized(Levenshtein.distance(encode(g_tokens), c_operand), g_tokens, c_tokens)
        task = TASKS[key] = (c_tokens, c_operand, d_gold)
    return task


def model_tokens(program):
    """tokens(norm(M)), or None when M does not parse (SyntaxError covers IndentationError; ValueError: NUL)."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError):
        return None
    return tokenize_code(ast.unparse(tree))


def score_cached(corrupted, gold, completions):
    c_tokens, c_operand, d_gold = prepared(corrupted, gold)
    out = []
    for completion in completions:
        program = extract_program(completion)
        if program is None:
            out.append(("NO_CODE", None, d_gold))
            continue
        tokens = model_tokens(program)
        if tokens is None:
            out.append(("UNPARSABLE", None, d_gold))
            continue
        out.append(("PASSED", normalized(Levenshtein.distance(encode(tokens), c_operand), tokens, c_tokens), d_gold))
    return out


def score_memo(corrupted, gold, completions):
    distinct = {}
    for completion in completions:
        distinct.setdefault(completion, len(distinct))
    scores = score_cached(corrupted, gold, list(distinct))
    return [scores[distinct[c]] for c in completions]


def score_as_written(corrupted, gold, completions):
    out = []
    for completion in completions:
        program = extract_program(completion)
        if program is None:
            out.append(("NO_CODE", None, None))
            continue
        try:
            ast.parse(program)  # the tests would fail: no distance is computed
        except (SyntaxError, ValueError):
            out.append(("UNPARSABLE", None, None))
            continue
        d_gold = get_levenshtein_distance(gold, corrupted)
        d_model = get_levenshtein_distance(program, corrupted)
        out.append(("PASSED", d_model, d_gold))
    return out


class Staged:
    """The cached pipeline with a timer around each stage (a separate pass: the timed passes have none)."""

    NAMES = ("extract", "parse", "unparse", "tokenize", "encode", "levenshtein")

    def __init__(self):
        self.seconds = dict.fromkeys(self.NAMES, 0.0)
        self.tasks = {}

    def tokens(self, source):
        s = self.seconds
        t0 = perf_counter()
        tree = ast.parse(source)
        t1 = perf_counter()
        text = ast.unparse(tree)
        t2 = perf_counter()
        tokens = tokenize_code(text)
        t3 = perf_counter()
        operand = encode(tokens)
        t4 = perf_counter()
        s["parse"] += t1 - t0
        s["unparse"] += t2 - t1
        s["tokenize"] += t3 - t2
        s["encode"] += t4 - t3
        return tokens, operand

    def distance(self, a, a_operand, b, b_operand):
        t0 = perf_counter()
        d = normalized(Levenshtein.distance(a_operand, b_operand), a, b)
        self.seconds["levenshtein"] += perf_counter() - t0
        return d

    def score(self, corrupted, gold, completions):
        key = (corrupted, gold)
        task = self.tasks.get(key)
        if task is None:
            c, c_op = self.tokens(corrupted)
            g, g_op = self.tokens(gold)
            task = self.tasks[key] = (c, c_op, self.distance(g, g_op, c, c_op))
        c, c_op, d_gold = task
        out = []
        for completion in completions:
            t0 = perf_counter()
            program = extract_program(completion)
            self.seconds["extract"] += perf_counter() - t0
            if program is None:
                out.append(("NO_CODE", None, d_gold))
                continue
            try:
                m, m_op = self.tokens(program)
            except (SyntaxError, ValueError):
                out.append(("UNPARSABLE", None, d_gold))
                continue
            out.append(("PASSED", self.distance(m, m_op, c, c_op), d_gold))
        return out


SCORERS = {"cached": score_cached, "memo": score_memo, "as-written": score_as_written}
SCORER = None  # set in each process (inherited by forked workers)


def score_group(group):
    return SCORER(*group)


def groups_of(rows):
    """Consecutive rows of one task, as a trainer's GRPO groups arrive: (corrupted, gold, completions)."""
    groups = []
    for row in rows:
        key = (row["corrupted"], row["gold"])
        if groups and groups[-1][0] == key:
            groups[-1][1].append(row["completion"])
        else:
            groups.append((key, [row["completion"]]))
    return [(c, g, completions) for (c, g), completions in groups]


def result_rows(scored):
    return [{"verdict": v, "d_model": dm, "d_gold": dg} for group in scored for (v, dm, dg) in group]


def rss_kib():
    return {
        "selfKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "largestWorkerKiB": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }


# --------------------------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------------------------


def batches(args):
    global SCORER
    loaded = []
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            loaded.append(groups_of([json.loads(line) for line in f if line.strip()]))
    if args.stages:
        staged = Staged()
        runs = []
        for groups in loaded:
            staged.seconds = dict.fromkeys(Staged.NAMES, 0.0)
            staged.tasks = {}  # every pass prepares its tasks, as the TypeScript staged pass does
            t0 = perf_counter()
            scored = [staged.score(*g) for g in groups]
            runs.append({"seconds": perf_counter() - t0, "stages": staged.seconds, "results": result_rows(scored)})
        json.dump({"levenshtein": LEVENSHTEIN_VERSION, "takesLists": TAKES_LISTS, "batches": runs}, sys.stdout)
        return
    SCORER = SCORERS[args.mode]
    pool = None
    pool_start = 0.0
    if args.workers > 1:
        t0 = perf_counter()
        pool = multiprocessing.get_context("fork").Pool(args.workers)
        pool_start = perf_counter() - t0
    runs = []
    for groups in loaded:
        t0 = perf_counter()
        c0 = process_time()
        scored = list(pool.imap(score_group, groups)) if pool else [SCORER(*g) for g in groups]
        # CPU time of this process: the whole pipeline with workers = 1 (the pool's workers are not in it).
        cpu = process_time() - c0
        runs.append({"seconds": perf_counter() - t0, "cpuSeconds": cpu, "results": result_rows(scored)})
    if pool is not None:
        pool.close()
        pool.join()
    json.dump(
        {
            "mode": args.mode,
            "workers": args.workers,
            "levenshtein": LEVENSHTEIN_VERSION,
            "takesLists": TAKES_LISTS,
            "python": sys.version.split()[0],
            "poolStartSeconds": pool_start,
            "batches": runs,
            "maxRss": rss_kib(),
        },
        sys.stdout,
    )


def read_groups(path, tasks):
    """Streams (corrupted, gold, completions) groups of consecutive rows of one task_id."""
    current = None
    completions = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            task_id = row["task_id"]
            if task_id != current:
                if completions:
                    yield (*tasks[current], completions)
                current, completions = task_id, []
            completions.append(row["completion"])
    if completions:
        yield (*tasks[current], completions)


def score_file(args):
    global SCORER
    SCORER = SCORERS[args.mode]
    tasks = {}
    with open(args.tasks, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                task = json.loads(line)
                tasks[task["task_id"]] = (task["corrupted"], task["gold"])
    pool = multiprocessing.get_context("fork").Pool(args.workers) if args.workers > 1 else None
    groups = read_groups(args.rollouts, tasks)
    scored = pool.imap(score_group, groups, chunksize=8) if pool else map(score_group, groups)
    rows = 0
    with open(args.out, "w", encoding="utf-8") as out:
        for group in scored:
            out.write("".join(f"{verdict if d_model is None else repr(d_model)}\n" for verdict, d_model, _ in group))
            rows += len(group)
    if pool is not None:
        pool.close()
        pool.join()
    json.dump({"rows": rows, "levenshtein": LEVENSHTEIN_VERSION, "takesLists": TAKES_LISTS, "maxRss": rss_kib()}, sys.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("batches")
    b.add_argument("--mode", choices=sorted(SCORERS), default="cached")
    b.add_argument("--workers", type=int, default=1)
    b.add_argument("--stages", action="store_true")
    b.add_argument("files", nargs="+")
    s = commands.add_parser("score-file")
    s.add_argument("--tasks", required=True)
    s.add_argument("--workers", type=int, default=1)
    s.add_argument("--mode", choices=["cached", "memo"], default="cached")
    s.add_argument("rollouts")
    s.add_argument("out")
    args = parser.parse_args()
    batches(args) if args.command == "batches" else score_file(args)


if __name__ == "__main__":
    main()
