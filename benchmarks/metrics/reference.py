#!/usr/bin/env python3
"""The CPython reference pipeline for the metrics benchmark, plus the stdlib helper the batch generator uses.

    reference.py score BATCH.jsonl   Score a batch the way a plain Python implementation of docs/reward.md
                                     would: per task, norm+tokens of C and G once; per rollout, extract the
                                     program, ast.unparse(ast.parse(M)), tokenize, two-row Levenshtein DP.
                                     Prints one JSON object: timings (perf_counter, interpreter start-up
                                     excluded), per-stage split, per-rollout verdicts and d(M, C), d(G, C).
    reference.py stdlib-functions    List candidate gold programs: top-level functions of 15-80 lines from a
                                     fixed list of stdlib modules, each with the edit sites (offsets) the
                                     generator may use. No randomness here: make-batch.mjs does the seeded picks.
    reference.py bigcodebench-functions FILE.jsonl.gz
                                     The same for BigCodeBench: gold = complete_prompt + canonical_solution.
    reference.py check               Read {"programs": [...], "completions": [...]} on stdin; print whether each
                                     program parses and what each completion extracts to (code/unparsable/no_code).

Only `score` is timed. Nothing here is imported by the product: minedit itself runs no Python.
"""

import ast
import gzip
import io
import json
import keyword
import os
import re
import resource
import sys
import sysconfig
import tokenize
from time import perf_counter

# --------------------------------------------------------------------------------------------------------------
# The reference pipeline (timed)
# --------------------------------------------------------------------------------------------------------------

THINK_CLOSE = "</think>"
# src/config.ts DEFAULT_END_OF_TURN_MARKERS: removed from the end of a completion before extraction.
END_OF_TURN_MARKERS = (
    "<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "</s>", "<end_of_turn>",
    "<eos>", "<|end|>", "<|return|>", "<\uff5cend\u2581of\u2581sentence\uff5c>", "<|EOT|>",
)
# What JavaScript's trimEnd()/trim() remove (ECMAScript WhiteSpace and LineTerminator), which is not quite
# str.strip()'s set (that one has \x1c-\x1f and \x85, and lacks \ufeff).
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
# Same rule as src/core/extract-program.ts: 0-3 leading spaces, 3+ backticks, an info string without backticks.
FENCE_LINE = re.compile(r"( {0,3})`{3,}[^`]*")
LINE_PART = re.compile(r"[^\n]*\n|[^\n]+\Z")
# docs/reward.md#normalization-and-tokens: these token types are dropped; NEWLINE is kept.
DROPPED = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
)


def strip_container_indent(block, indent):
    """Removes a list container's indentation when every non-blank line carries it (extract-program.ts)."""
    if indent == 0:
        return block
    prefix = " " * indent
    parts = LINE_PART.findall(block)
    for part in parts:
        if part.strip(JS_SPACE) != "" and not part.startswith(prefix):
            return block
    out = []
    for part in parts:
        i = 0
        while i < indent and i < len(part) and part[i] == " ":
            i += 1
        out.append(part[i:])
    return "".join(out)


def strip_end_of_turn(completion):
    """extract-program.ts stripEndOfTurn: end-of-turn markers (and the whitespace around them) at the very end."""
    text = completion
    while True:
        trimmed = text.rstrip(JS_SPACE)
        marker = next((m for m in END_OF_TURN_MARKERS if trimmed.endswith(m)), None)
        if marker is None:
            return text
        text = trimmed[: len(trimmed) - len(marker)]


def extract_program(completion):
    """docs/reward.md#from-completion-to-program-m: end-of-turn markers off, text after the last </think>, then the last fenced block (or
    everything); None = NO_CODE."""
    answer = strip_end_of_turn(completion)
    end = answer.rfind(THINK_CLOSE)
    text = answer if end == -1 else answer[end + len(THINK_CLOSE) :]
    last = None
    opened = None
    start = 0
    n = len(text)
    while start < n:
        nl = text.find("\n", start)
        line_end = n if nl == -1 else nl + 1
        body = text[start : n if nl == -1 else nl]
        if body.endswith("\r"):
            body = body[:-1]
        m = FENCE_LINE.fullmatch(body)
        if m is not None:
            if opened is None:
                opened = (line_end, len(m.group(1)))
            else:
                last = (opened[0], start, opened[1])
                opened = None
        start = line_end
    if opened is not None:
        last = (opened[0], n, opened[1])
    program = text if last is None else strip_container_indent(text[last[0] : last[1]], last[2])
    return None if program.strip(JS_SPACE) == "" else program


def token_strings(normalized):
    """docs/reward.md#normalization-and-tokens: token strings of norm(X), without COMMENT/NL/ENCODING/ENDMARKER/INDENT/DEDENT."""
    return [t.string for t in tokenize.generate_tokens(io.StringIO(normalized).readline) if t.type not in DROPPED]


def levenshtein(a, b):
    """Plain two-row dynamic programme over token lists (unit costs), the textbook formulation."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def distance(a, b):
    """docs/reward.md#distance-and-scope: Levenshtein / max length, 0 when both are empty."""
    longest = max(len(a), len(b))
    return 0.0 if longest == 0 else levenshtein(a, b) / longest


class Stages:
    """Accumulated seconds per pipeline stage, so the report can say where Python's time goes."""

    def __init__(self):
        self.extract = self.parse = self.unparse = self.tokenize = self.levenshtein = 0.0

    def tokens(self, source):
        t0 = perf_counter()
        tree = ast.parse(source)
        t1 = perf_counter()
        normalized = ast.unparse(tree)
        t2 = perf_counter()
        tokens = token_strings(normalized)
        t3 = perf_counter()
        self.parse += t1 - t0
        self.unparse += t2 - t1
        self.tokenize += t3 - t2
        return tokens

    def distance(self, a, b):
        t0 = perf_counter()
        d = distance(a, b)
        self.levenshtein += perf_counter() - t0
        return d


def score(path):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]

    stages = Stages()
    tasks = {}
    results = []
    rollout_seconds = []
    started = perf_counter()
    for row in rows:
        key = (row["corrupted"], row["gold"])
        task = tasks.get(key)
        if task is None:
            corrupted_tokens = stages.tokens(row["corrupted"])
            gold_tokens = stages.tokens(row["gold"])
            task = (corrupted_tokens, stages.distance(gold_tokens, corrupted_tokens))
            tasks[key] = task
        t0 = perf_counter()
        program = extract_program(row["completion"])
        stages.extract += perf_counter() - t0
        if program is None:
            results.append({"verdict": "NO_CODE", "d_model": None, "d_gold": task[1]})
        else:
            try:
                tokens = stages.tokens(program)
            except (SyntaxError, ValueError):
                # SyntaxError covers IndentationError/TabError; ValueError is a NUL byte in the source.
                results.append({"verdict": "UNPARSABLE", "d_model": None, "d_gold": task[1]})
            else:
                results.append({"verdict": "PASSED", "d_model": stages.distance(tokens, task[0]), "d_gold": task[1]})
        rollout_seconds.append(perf_counter() - t0)
    seconds = perf_counter() - started

    # What the same run would cost if duplicate completions of a task were scored once (as MetricsPool does):
    # derived from the per-rollout times measured above, since each rollout's work is independent.
    seen = set()
    deduped = seconds - sum(rollout_seconds)  # per-task preparation and loop overhead
    for row, spent in zip(rows, rollout_seconds):
        key = (row["corrupted"], row["gold"], row["completion"])
        if key not in seen:
            seen.add(key)
            deduped += spent

    json.dump(
        {
            "rollouts": len(rows),
            "tasks": len(tasks),
            "distinctCompletions": len(seen),
            "seconds": seconds,
            "dedupedSeconds": deduped,
            "stages": {
                "extract": stages.extract,
                "parse": stages.parse,
                "unparse": stages.unparse,
                "tokenize": stages.tokenize,
                "levenshtein": stages.levenshtein,
            },
            "maxRssKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "python": sys.version.split()[0],
            "results": results,
        },
        sys.stdout,
    )


# --------------------------------------------------------------------------------------------------------------
# Batch-building helpers (not timed): gold functions from the installed stdlib and where they may be edited
# --------------------------------------------------------------------------------------------------------------

# Pure-Python stdlib modules with ordinary application-style code. Order matters only for determinism.
MODULES = [
    "argparse.py", "ast.py", "base64.py", "bisect.py", "calendar.py", "cgi.py", "cmd.py", "code.py",
    "codeop.py", "colorsys.py", "compileall.py", "configparser.py", "copy.py", "csv.py", "dataclasses.py",
    "difflib.py", "dis.py", "doctest.py", "email/utils.py", "email/_parseaddr.py", "filecmp.py", "fileinput.py",
    "fnmatch.py", "fractions.py", "ftplib.py", "functools.py", "genericpath.py", "getopt.py", "gettext.py",
    "glob.py", "gzip.py", "heapq.py", "html/__init__.py", "http/cookiejar.py", "imaplib.py", "inspect.py",
    "ipaddress.py", "json/decoder.py", "json/encoder.py", "linecache.py", "locale.py", "mailbox.py",
    "mimetypes.py", "netrc.py", "ntpath.py", "nturl2path.py", "optparse.py", "os.py", "pdb.py", "pickletools.py",
    "pkgutil.py", "platform.py", "plistlib.py", "posixpath.py", "pprint.py", "py_compile.py", "pydoc.py",
    "quopri.py", "random.py", "reprlib.py", "shlex.py", "shutil.py", "site.py", "smtplib.py", "statistics.py",
    "string.py", "subprocess.py", "sysconfig.py", "tarfile.py", "tempfile.py", "textwrap.py", "tokenize.py",
    "trace.py", "traceback.py", "typing.py", "urllib/parse.py", "urllib/request.py", "uu.py", "warnings.py",
    "webbrowser.py", "zipfile.py", "_pydecimal.py", "datetime.py", "_strptime.py",
]

FLIPS = {"<": ["<=", ">"], "<=": ["<", ">="], ">": [">=", "<"], ">=": [">", "<="], "==": ["!="], "!=": ["=="]}
SWAPS = {"min": "max", "max": "min"}
DECIMAL_INT = re.compile(r"0|[1-9][0-9]*")
SIMPLE_QUOTED = re.compile(r"'[^'\"\\\n]*'")
# Renames a model might make when "cleaning up" a function.
SYNONYMS = {
    "result": "res", "res": "result", "i": "idx", "j": "k", "n": "count", "s": "text", "x": "value",
    "items": "elements", "path": "filepath", "name": "label", "line": "row", "lines": "rows", "data": "payload",
    "value": "val", "val": "value", "key": "k", "k": "key", "v": "val", "args": "arguments", "c": "ch",
    "ch": "char", "f": "fh", "fp": "fh", "l": "length", "m": "match", "p": "part", "parts": "pieces",
    "msg": "message", "text": "content", "obj": "item", "tmp": "temp", "prefix": "head", "start": "begin",
    "end": "stop", "pos": "position", "index": "idx", "buf": "buffer", "size": "length", "filename": "fname",
}


def new_name(name, taken):
    candidate = SYNONYMS.get(name) or (f"{name}_value" if len(name) <= 3 else f"new_{name}")
    if candidate in taken or keyword.iskeyword(candidate):
        return None
    return candidate


class Positions:
    """Offsets in the text (code points, which equal UTF-16 units for BMP-only text) from (line, col) pairs."""

    def __init__(self, text):
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def char(self, lineno, col):
        return self.starts[lineno - 1] + col

    def node(self, lineno, col_bytes):
        """AST columns are UTF-8 byte offsets."""
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col_bytes].decode("utf-8"))


def function_body_statements(fn):
    """Every statement nested in the function (not the def itself), in source order."""
    out = []
    stack = list(reversed(fn.body))
    while stack:
        stmt = stack.pop()
        out.append(stmt)
        children = []
        for field in ("body", "orelse", "finalbody"):
            children.extend(getattr(stmt, field, []) or [])
        for handler in getattr(stmt, "handlers", []) or []:
            children.extend(handler.body)
        for case in getattr(stmt, "cases", []) or []:
            children.extend(case.body)
        stack.extend(reversed(children))
    return out


def single_line_site(text, pos, stmt):
    """(start, end, indent) of a statement alone on its line (maybe with a trailing comment), else None."""
    if stmt.lineno != stmt.end_lineno:
        return None
    line = pos.lines[stmt.lineno - 1]
    start = pos.node(stmt.lineno, stmt.col_offset)
    end = pos.node(stmt.end_lineno, stmt.end_col_offset)
    indent = text[pos.starts[stmt.lineno - 1] : start]
    rest = line[end - pos.starts[stmt.lineno - 1] :].strip()
    if indent.strip() != "" or (rest != "" and not rest.startswith("#")):
        return None
    return start, end, indent


class Restyle(ast.NodeTransformer):
    """Wholesale rewrite, part 1: rename locals everywhere."""

    def __init__(self, renames):
        self.renames = renames

    def visit_Name(self, node):
        node.id = self.renames.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.renames.get(node.arg, node.arg)
        return node


def is_simple(stmt):
    return isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or (
        isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Constant)
    )


def reorder_and_comprehend(statements):
    """Wholesale rewrite, part 2: swap every other pair of adjacent simple statements, and turn
    `for t in it: acc.append(e)` (optionally under one `if`) into `acc.extend(e for t in it if c)`."""
    changed = False
    out = []
    i = 0
    while i < len(statements):
        stmt = statements[i]
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if block:
                new_block, sub = reorder_and_comprehend(block)
                setattr(stmt, field, new_block)
                changed |= sub
        comprehension = loop_to_comprehension(stmt)
        if comprehension is not None:
            out.append(comprehension)
            changed = True
            i += 1
            continue
        if i + 1 < len(statements) and is_simple(stmt) and is_simple(statements[i + 1]):
            out.extend([statements[i + 1], stmt])
            changed = True
            i += 2
            continue
        out.append(stmt)
        i += 1
    return out, changed


def loop_to_comprehension(stmt):
    if not isinstance(stmt, ast.For) or stmt.orelse or len(stmt.body) != 1:
        return None
    inner = stmt.body[0]
    conditions = []
    if isinstance(inner, ast.If) and not inner.orelse and len(inner.body) == 1:
        conditions = [inner.test]
        inner = inner.body[0]
    call = inner.value if isinstance(inner, ast.Expr) else None
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and len(call.args) == 1
        and not call.keywords
    ):
        return None
    generator = ast.GeneratorExp(
        elt=call.args[0], generators=[ast.comprehension(target=stmt.target, iter=stmt.iter, ifs=conditions, is_async=0)]
    )
    extend = ast.Call(func=ast.Attribute(value=call.func.value, attr="extend", ctx=ast.Load()), args=[generator], keywords=[])
    return ast.Expr(value=extend)


def analyze(module, text, entry=None):
    """Edit sites of one gold program: the function `entry` of `text` (a module, e.g. imports + the function,
    as BigCodeBench's golds are), or `text`'s first statement when `entry` is None; offsets index `text`.
    `module` names the task's source. Returns None when it is unsuitable."""
    tree = ast.parse(text)
    fn_index = next(
        (i for i, node in enumerate(tree.body) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
         and (entry is None or node.name == entry)),
        None,
    )
    if fn_index is None or (entry is None and fn_index != 0):
        return None
    fn = tree.body[fn_index]
    pos = Positions(text)
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    token_at = {pos.char(*t.start): t for t in tokens}
    taken = {t.string for t in tokens if t.type == tokenize.NAME}

    corruptions = []
    comments = []
    blanks = []
    quotes = []
    for k, t in enumerate(tokens):
        start = pos.char(*t.start)
        end = pos.char(*t.end)
        if t.type == tokenize.OP and t.string in FLIPS:
            corruptions.append({"start": start, "end": end, "options": FLIPS[t.string], "what": "comparison"})
        elif t.type == tokenize.NUMBER and DECIMAL_INT.fullmatch(t.string):
            n = int(t.string)
            options = [str(n + 1)] + ([str(n - 1)] if n > 0 else [])
            corruptions.append({"start": start, "end": end, "options": options, "what": "int"})
        elif t.type == tokenize.NAME and t.string in SWAPS:
            corruptions.append({"start": start, "end": end, "options": [SWAPS[t.string]], "what": "min/max"})
        elif t.type == tokenize.NAME and t.string == "not":
            following = tokens[k + 1]
            if following.start[0] == t.end[0]:
                # Drop `not` and the space before the next token: `if not x` -> `if x`, `is not` -> `is`.
                corruptions.append(
                    {"start": start, "end": pos.char(*following.start), "options": [""], "what": "drop not"}
                )
        elif t.type == tokenize.NEWLINE and t.string == "\n" and tokens[k - 1].type != tokenize.COMMENT:
            comments.append(start)
            blanks.append(end)
        elif t.type == tokenize.STRING and SIMPLE_QUOTED.fullmatch(t.string):
            quotes.append({"start": start, "end": end, "text": '"' + t.string[1:-1] + '"'})

    parens = []
    rewrites = []
    truncations = []
    statements = function_body_statements(fn)
    for stmt in statements:
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            seg = ast.get_source_segment(text, stmt.value)
            if stmt.value.lineno == stmt.value.end_lineno and not (seg.startswith("(") and seg.endswith(")")):
                start = pos.node(stmt.value.lineno, stmt.value.col_offset)
                parens.append({"start": start, "end": start + len(seg), "text": f"({seg})"})
        site = single_line_site(text, pos, stmt)
        if site is not None:
            start, end, indent = site
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                expanded = ast.unparse(ast.BinOp(left=ast.Name(id=stmt.target.id), op=stmt.op, right=stmt.value))
                rewrites.append({"start": start, "end": end, "text": f"{stmt.target.id} = {expanded}"})
            elif isinstance(stmt, ast.Return) and stmt.value is not None and not isinstance(
                stmt.value, (ast.Name, ast.Constant)
            ):
                tmp = next((n for n in ("result", "retval", "out") if n not in taken), None)
                if tmp is not None:
                    seg = ast.get_source_segment(text, stmt.value)
                    rewrites.append({"start": start, "end": end, "text": f"{tmp} = {seg}\n{indent}return {tmp}"})
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.IfExp)
            ):
                t, v = stmt.targets[0].id, stmt.value
                block = (
                    f"if {ast.unparse(v.test)}:\n{indent}    {t} = {ast.unparse(v.body)}\n"
                    f"{indent}else:\n{indent}    {t} = {ast.unparse(v.orelse)}"
                )
                rewrites.append({"start": start, "end": end, "text": block})
        if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.Try)) and stmt.body[0].lineno > stmt.lineno:
            line = stmt.body[0].lineno - 1
            while line > stmt.lineno and (pos.lines[line - 1].strip() == "" or pos.lines[line - 1].lstrip().startswith("#")):
                line -= 1
            if line >= stmt.lineno:
                truncations.append(pos.starts[line])

    # Locals that can be renamed consistently: every occurrence must be a NAME token where the AST says.
    declared = {n for s in statements if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}
    occurrences = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name):
            occurrences.setdefault(node.id, []).append((node.lineno, node.col_offset))
        elif isinstance(node, ast.arg):
            occurrences.setdefault(node.arg, []).append((node.lineno, node.col_offset))
    local_names = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
        node.id for node in ast.walk(fn) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    renames = []
    for name in sorted(local_names - declared - {"self", "cls"}):
        target = new_name(name, taken)
        if target is None:
            continue
        offsets = sorted(pos.node(line, col) for line, col in occurrences.get(name, []))
        if offsets and all(
            (tok := token_at.get(o)) is not None and tok.type == tokenize.NAME and tok.string == name for o in offsets
        ):
            renames.append({"name": name, "new": target, "offsets": offsets})

    body = fn.body
    has_docstring = (
        isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
    )

    def insertion(stmt):
        if stmt is None or stmt.lineno <= fn.lineno:
            return None
        line_start = pos.starts[stmt.lineno - 1]
        indent = text[line_start : pos.node(stmt.lineno, stmt.col_offset)]
        return None if indent.strip() != "" else {"offset": line_start, "indent": indent}

    first_code = body[1] if has_docstring and len(body) > 1 else (None if has_docstring else body[0])
    guard = insertion(first_code)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args if a.arg not in ("self", "cls")]
    if guard is not None and params:
        guard["params"] = params
    else:
        guard = None
    docstring = None if has_docstring else insertion(body[0])

    restyle_map = {r["name"]: r["new"] for r in renames[:3]}
    restyled = ast.unparse(Restyle(restyle_map).visit(ast.parse(text))) + "\n"
    reordered_tree = ast.parse(text)
    reordered_fn = reordered_tree.body[fn_index]
    reordered_fn.body, changed = reorder_and_comprehend(reordered_fn.body)
    reordered = ast.unparse(ast.fix_missing_locations(reordered_tree)) + "\n" if changed else None

    return {
        "module": module,
        "name": fn.name,
        "lines": len(pos.lines),
        "gold": text,
        "hasDocstring": has_docstring,
        "corruptions": corruptions,
        "comments": comments,
        "blanks": blanks[:-1],
        "quotes": quotes,
        "parens": parens,
        "rewrites": rewrites,
        "truncations": truncations,
        "renames": renames,
        "guard": guard,
        "docstring": docstring,
        "restyled": restyled,
        "reordered": reordered,
    }


def stdlib_functions():
    stdlib = sysconfig.get_paths()["stdlib"]
    out = []
    seen = set()
    for module in MODULES:
        path = os.path.join(stdlib, module)
        if not os.path.exists(path):
            continue
        with tokenize.open(path) as f:
            source = f.read()
        lines = source.splitlines(keepends=True)
        for node in ast.parse(source).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if not 15 <= node.end_lineno - first + 1 <= 80:
                continue
            text = "".join(lines[first - 1 : node.end_lineno])
            if not text.endswith("\n"):
                text += "\n"
            if text in seen or any(ord(ch) > 0xFFFF for ch in text) or "```" in text or "</think>" in text:
                continue
            seen.add(text)
            info = analyze(module[:-3].replace("/", "."), text)
            if info is not None:
                out.append(info)
    json.dump({"stdlib": stdlib, "functions": out}, sys.stdout)


def bigcodebench_functions(path):
    """BigCodeBench tasks as gold programs: complete_prompt + canonical_solution (imports, the entry function
    with its docstring), read from the gzipped JSONL at `path`; the same filters and edit sites as above."""
    out = []
    skipped = 0
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            task = json.loads(line)
            text = task["complete_prompt"] + task["canonical_solution"]
            if not text.endswith("\n"):
                text += "\n"
            info = None
            if not (any(ord(ch) > 0xFFFF for ch in text) or "```" in text or "</think>" in text):
                try:
                    info = analyze(task["task_id"], text, task["entry_point"])
                except (SyntaxError, ValueError, tokenize.TokenError):
                    info = None
            if info is None:
                skipped += 1
            else:
                info["id"] = task["task_id"]
                out.append(info)
    json.dump({"source": path, "skipped": skipped, "functions": out}, sys.stdout)


def check():
    request = json.load(sys.stdin)

    def parses(source):
        try:
            ast.parse(source)
            return True
        except (SyntaxError, ValueError):
            return False

    statuses = []
    for completion in request["completions"]:
        program = extract_program(completion)
        statuses.append("no_code" if program is None else "code" if parses(program) else "unparsable")
    json.dump({"programs": [parses(p) for p in request["programs"]], "completions": statuses}, sys.stdout)


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "score" and len(sys.argv) == 3:
        score(sys.argv[2])
    elif command == "stdlib-functions":
        stdlib_functions()
    elif command == "bigcodebench-functions" and len(sys.argv) == 3:
        bigcodebench_functions(sys.argv[2])
    elif command == "check":
        check()
    else:
        sys.exit(__doc__)
