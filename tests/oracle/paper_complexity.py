#!/usr/bin/env python3
"""Test oracle for docs/reward.md#added-cognitive-complexity's `paper` variant: the over-editing paper's cognitive complexity, computed on
CPython 3.11's `ast` from the rules of its evaluation code, `compute_python_complexities` in nreHieW/fyp
`partial_edits/utils/complexity_utils.py` (commit 5a4023e4d1f287ac73a616b5b944a14f28422c7e). This file
is our own implementation of those rules, written from their description in
src/core/cognitive-complexity.ts (rules P1–P12, which quote the lines they come from); it imports
nothing from the paper's repository. Only the cognitive part is reproduced, not the cyclomatic one.

Reads stdin, one request per line:
  - a file path, decoded as CPython decodes source (`tokenize.open`); or
  - a JSON object `{"id", "source"}` for an in-memory program.

Writes one JSON line per program. For a path: one line for the whole file and one for every def in it
(each `def` cut out with its own lines and dedented, as tests/oracle/normalize_oracle.py does, so that
methods and nested functions become programs of their own); for a JSON request, one line:

  {"id", "source", "cc"}      the paper's cognitive complexity of the program
  {"id", "source", "none"}    the paper's code returns None: the empty string (P1), or a program
                              CPython does not parse (the reason is given)
  {"id", "unreadable"}        CPython cannot decode the file as source

A file's line (not a function's) also has "functions": how many defs its tree holds.
"""

import ast
import json
import sys
import tokenize

from def_segments import PARSE_ERRORS, def_segments

if sys.version_info[:2] != (3, 11):
    sys.exit(f"paper_complexity.py must run under CPython 3.11 (got {sys.version.split()[0]})")


class PaperCognitiveComplexity(ast.NodeVisitor):
    """The paper's cognitive-complexity visitor, rule by rule. `depth` is the nesting level; a node
    without a visit_ method below is walked through all its fields (ast.NodeVisitor.generic_visit)
    without changing `depth`: expressions, lambdas, `def`, `class`, `except*` (P12) and so on."""

    def __init__(self):
        self.total = 0
        self.depth = 0

    def increment(self):
        """A structural increment: +1 plus the nesting level (P2)."""
        self.total += 1 + self.depth

    def nested(self, statements):
        """A statement list visited one level deeper (P3)."""
        self.depth += 1
        for statement in statements:
            self.visit(statement)
        self.depth -= 1

    def visit_If(self, node):
        # P4: the test is never visited; an `orelse` that is exactly one If (an elif, or an `else:`
        # holding only an `if`) continues the chain at the same level.
        self.increment()
        self.nested(node.body)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            self.visit(node.orelse[0])
        else:
            self.nested(node.orelse)

    def visit_loop(self, node):
        # P5: target, iterable and test are never visited.
        self.increment()
        self.nested(node.body)
        self.nested(node.orelse)

    visit_For = visit_AsyncFor = visit_While = visit_loop

    def visit_Try(self, node):
        # P6: no increment for `try` itself; each handler +1 + level, its type and name never visited.
        self.nested(node.body)
        for handler in node.handlers:
            self.increment()
            self.nested(handler.body)
        self.nested(node.orelse)
        self.nested(node.finalbody)

    def visit_with(self, node):
        # P7: the items are never visited.
        self.nested(node.body)

    visit_With = visit_AsyncWith = visit_with

    def visit_BoolOp(self, node):
        # P8: operands − 1, flat.
        self.total += max(0, len(node.values) - 1)
        self.generic_visit(node)

    def visit_IfExp(self, node):
        # P9
        self.increment()
        self.generic_visit(node)

    def visit_comprehension(self, node):
        # P10: the `for` and each of its `if`s.
        for _ in range(1 + len(node.ifs)):
            self.increment()
        self.generic_visit(node)

    def visit_Match(self, node):
        # P11: every case body is visited twice, one level deeper and then at the same level (with the
        # subject, patterns and guards) by the walk of the Match node's fields.
        for case in node.cases:
            self.increment()
            self.nested(case.body)
        self.generic_visit(node)


def paper_tree(source):
    """The tree the paper measures (P1): ast.parse of ast.unparse(ast.parse(source)), or of the source
    itself when that fails; raises when CPython does not parse the source. (When ast.parse(source)
    fails, the paper's standardize_code_formatting strips comments, with tokenize or a line scanner,
    before the paper tries again: that only concerns programs CPython rejects, which have no CC here,
    so it is not reproduced.)"""
    try:
        return ast.parse(ast.unparse(ast.parse(source)))
    except Exception:
        return ast.parse(source)


def record(ident, source):
    if not source:
        return {"id": ident, "source": source, "none": "empty program"}
    try:
        tree = paper_tree(source)
    except PARSE_ERRORS as error:
        return {"id": ident, "source": source, "none": f"{type(error).__name__}: {error}"}
    visitor = PaperCognitiveComplexity()
    visitor.visit(tree)
    return {"id": ident, "source": source, "cc": visitor.total}


def emit(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=True))
    sys.stdout.write("\n")


def main():
    # Deep trees of the test suite (nested brackets, long elif chains) need more than the default 1,000.
    sys.setrecursionlimit(20000)
    for line in sys.stdin:
        request = line.rstrip("\n")
        if not request:
            continue
        if request.startswith("{"):
            program = json.loads(request)
            emit(record(program["id"], program["source"]))
            continue
        try:
            with tokenize.open(request) as handle:
                source = handle.read()
        except (SyntaxError, UnicodeDecodeError, OSError) as error:
            emit({"id": request, "unreadable": f"{type(error).__name__}: {error}"})
            continue
        count, segments = def_segments(source)
        emit({**record(request, source), "functions": count})
        for name, segment in segments:
            emit(record(f"{request}::{name}", segment))
    sys.stdout.flush()


main()
