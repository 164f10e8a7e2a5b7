#!/usr/bin/env python3
"""Test oracle for src/core/paper-extract.ts: the over-editing paper's rule for "the code of an answer",
written here from its description (nreHieW/fyp `partial_edits/utils/extract_utils.py`,
`extract_code_from_response`, commit 5a4023e), so that CPython's own `str.strip`, `ast.parse` and `re`
decide every corner the TypeScript port must reproduce.

Reads one JSON list of answers on stdin; writes the JSON list of what the rule extracts ("" = no code).

The rule:
1. Strip the answer (str.strip: Python's whitespace). If that text is a whole Python program
   (ast.parse accepts it; any exception means it does not), it is the code.
2. Otherwise keep what follows the last "</think>", then what follows the last "</thought>".
3. Closed fences: every non-overlapping match, left to right, of a line starting with three backticks, an
   optional "python" in any case, whitespace, a newline, then the shortest text up to a newline followed
   by three backticks. Each block is stripped; the longest (in characters, the first of equals) wins.
4. Else the first fence opening (same opening) with no close: everything after it to the end, stripped.
5. Else "".
"""

import ast
import json
import re
import sys

OPENING = r"^```(?:python)?\s*\n"
FLAGS = re.IGNORECASE | re.MULTILINE


def parses(text):
    try:
        ast.parse(text)
    except BaseException:  # the rule counts every failure (ValueError for NUL bytes, RecursionError) as "no"
        return False
    return True


def extract(answer):
    text = answer.strip()
    if parses(text):
        return text
    for marker in ("</think>", "</thought>"):
        if marker in text:
            text = text.rsplit(marker, 1)[1]
    blocks = [block.strip() for block in re.findall(OPENING + r"([\s\S]*?)\n```", text, FLAGS)]
    if blocks:
        best = blocks[0]
        for block in blocks[1:]:
            if len(block) > len(best):
                best = block
        return best
    unclosed = re.search(OPENING + r"([\s\S]*)$", text, FLAGS)
    return unclosed.group(1).strip() if unclosed else ""


if __name__ == "__main__":
    if sys.version_info[:2] != (3, 11):
        sys.exit(f"paper_extract.py must run under CPython 3.11 (got {sys.version.split()[0]})")
    json.dump([extract(answer) for answer in json.load(sys.stdin)], sys.stdout, ensure_ascii=True)
