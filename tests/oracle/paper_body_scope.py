#!/usr/bin/env python3
"""Test oracle for the `function_body` distance scope: the over-editing paper's body extraction and its
normalized token Levenshtein distance, as its evaluation computes them (nreHieW/fyp, commit
5a4023e4d1f287ac73a616b5b944a14f28422c7e: `extract_function_body` in
`partial_edits/utils/extract_utils.py`, `tokenize_code` in `partial_edits/utils/similarity_utils.py`,
`SimilarityCalculator.calculate_metrics(body_only=True)` and `_normalize_metrics` in
`partial_edits/evaluate.py`). This file is our own implementation of the rules below, written from their
description; it imports nothing from the paper's repository. Standard library only; CPython 3.11.

The rules:
  1. A source whose `strip()` is empty is kept as it is; any other is replaced by
     `ast.unparse(ast.parse(source))`.
  2. The first `ast.FunctionDef` that `ast.walk` yields (breadth-first over all nodes; `async def` does
     not count) decides the body, which runs to the end of the text (lines as `splitlines` cuts them,
     joined again with "\\n"):
       - no docstring: from the line of the `def` keyword (its `lineno`) on;
       - a docstring and more statements: from the line of the second statement on;
       - only a docstring: the empty string.
  3. Without such a def (or when the text does not parse): search the text for `def`, whitespace, then
     anything up to a colon, optional whitespace and a newline (the last newline of that whitespace);
     take what follows; if that starts with optional whitespace, a triple-quoted string (\"\"\" tried
     first, then ''') and optional whitespace up to a newline, drop that part too. No match at all: the
     whole text.
  4. Tokens: `tokenize.generate_tokens` strings without COMMENT, NL, ENCODING, ENDMARKER, INDENT, DEDENT
     tokens; if tokenize raises, `text.split()` instead.
  5. d(a, b): 0 if either body is the empty string; otherwise Levenshtein over the token lists (each
     token one symbol) divided by the longer list's length, 0 when both are empty.

Reads lines on stdin:
  - a JSON object {"id", "a", "b"}: one pair; or
  - a file path (source as CPython decodes it): pairs made of it — the whole module (when under
    MODULE_LIMIT characters) and each of its first DEFS_PER_FILE defs (cut out by def_segments.py), each
    paired with `mutated(x)`, a small edit of ours. Their records carry "a" and "b".
Writes one JSON line per pair:
  {"id", "body_a", "body_b", "tokens_a", "tokens_b", "distance", "d"}   (distance: the raw Levenshtein)
  {"id", "error"}     a or b does not parse (minedit calls such programs UNPARSABLE, never measured)
"""

import ast
import collections
import io
import json
import re
import sys
import tokenize

from def_segments import def_segments

if sys.version_info[:2] != (3, 11):
    sys.exit(f"paper_body_scope.py must run under CPython 3.11 (got {sys.version.split()[0]})")

DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
HEADER = re.compile(r"def\s+[^:]+:\s*\n")
LEADING_STRINGS = [re.compile(r'^\s*"""[\s\S]*?"""\s*\n'), re.compile(r"^\s*'''[\s\S]*?'''\s*\n")]


def normalized(source):
    return source if not source.strip() else ast.unparse(ast.parse(source))


def first_def(tree):
    queue = collections.deque([tree])
    while queue:
        node = queue.popleft()
        if type(node) is ast.FunctionDef:
            return node
        queue.extend(ast.iter_child_nodes(node))
    return None


def text_after_header(text):
    found = HEADER.search(text)
    if found is None:
        return text
    rest = text[found.end():]
    for pattern in LEADING_STRINGS:
        doc = pattern.search(rest)
        if doc is not None:
            return rest[doc.end():]
    return rest


def body(source):
    text = normalized(source)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text_after_header(text)
    fn = first_def(tree)
    if fn is None:
        return text_after_header(text)
    start = fn.lineno
    head = fn.body[0] if fn.body else None
    if isinstance(head, ast.Expr) and isinstance(head.value, ast.Constant) and isinstance(head.value.value, str):
        if len(fn.body) == 1:
            return ""
        start = fn.body[1].lineno
    return "\n".join(text.splitlines()[start - 1:])


def tokens(text):
    try:
        return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in DROPPED]
    except Exception:
        return text.split()


def levenshtein(a, b):
    # A common prefix and suffix cost nothing (an optimal alignment matches them), and a mutation leaves
    # most of a program alone: trimming them keeps the quadratic part small.
    while a and b and a[0] == b[0]:
        a, b = a[1:], b[1:]
    while a and b and a[-1] == b[-1]:
        a, b = a[:-1], b[:-1]
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


MODULE_LIMIT = 20_000
DEFS_PER_FILE = 4


def mutated(source):
    """A small edit: the first `==` made `!=`, else the first ` + ` made ` - `, else a statement added."""
    for old, new in (("==", "!="), (" + ", " - ")):
        if old in source:
            return source.replace(old, new, 1)
    return source + "\n_mutated = 1\n"


def file_requests(path):
    try:
        with tokenize.open(path) as handle:
            source = handle.read()
    except (SyntaxError, UnicodeDecodeError, ValueError) as error:
        return [{"id": path, "unreadable": str(error)}]
    requests = []
    if len(source) < MODULE_LIMIT:
        requests.append({"id": path, "a": source, "b": mutated(source)})
    for name, segment in def_segments(source)[1][:DEFS_PER_FILE]:
        requests.append({"id": f"{path}::{name}", "a": segment, "b": mutated(segment)})
    return requests


def answer(request, with_sources):
    if "unreadable" in request:
        print(json.dumps(request), flush=True)
        return
    try:
        ast.parse(request["a"])
        ast.parse(request["b"])
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        print(json.dumps({"id": request["id"], "error": f"{type(error).__name__}: {error}"}), flush=True)
        return
    body_a, body_b = body(request["a"]), body(request["b"])
    tokens_a, tokens_b = tokens(body_a), tokens(body_b)
    if not body_a or not body_b:
        distance, d = 0, 0.0
    else:
        distance = levenshtein(tokens_a, tokens_b)
        longest = max(len(tokens_a), len(tokens_b))
        d = distance / longest if longest else 0.0
    record = {"id": request["id"], "body_a": body_a, "body_b": body_b, "tokens_a": tokens_a,
              "tokens_b": tokens_b, "distance": distance, "d": d}
    if with_sources:
        record.update(a=request["a"], b=request["b"])
    print(json.dumps(record), flush=True)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        if not line.lstrip().startswith("{"):
            for request in file_requests(line.rstrip("\n")):
                answer(request, True)
            continue
        answer(json.loads(line), False)



if __name__ == "__main__":
    main()
