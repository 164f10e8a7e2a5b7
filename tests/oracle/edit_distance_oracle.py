#!/usr/bin/env python3
"""Test oracle for docs/reward.md#distance-and-scope: d(X, Y) computed by CPython 3.11 itself.

Reads one JSON list of [X, Y] program pairs on stdin and writes the JSON list of d(X, Y):
tokens(P) = the token strings of tokenize.generate_tokens(ast.unparse(ast.parse(P))) without COMMENT,
NL, ENCODING, ENDMARKER, INDENT and DEDENT; d = Levenshtein(tokens(X), tokens(Y)) / max(|X|, |Y|), with a
textbook dynamic program; 0 when both are empty.
"""

import ast
import io
import json
import sys
import tokenize

if sys.version_info[:2] != (3, 11):
    sys.exit(f"edit_distance_oracle.py must run under CPython 3.11 (got {sys.version.split()[0]})")

DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}


def tokens(source):
    norm = ast.unparse(ast.parse(source))
    return [t.string for t in tokenize.generate_tokens(io.StringIO(norm).readline) if t.type not in DROPPED]


def levenshtein(a, b):
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
        previous = current
    return previous[-1]


def distance(x, y):
    a, b = tokens(x), tokens(y)
    longest = max(len(a), len(b))
    return 0.0 if longest == 0 else levenshtein(a, b) / longest


print(json.dumps([distance(x, y) for x, y in json.load(sys.stdin)]))
