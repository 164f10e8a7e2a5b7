#!/usr/bin/env python3
"""Test oracle for docs/reward.md#normalization-and-tokens: CPython 3.11's norm(X) and tokens(X) over a corpus of Python files.

Reads file paths on stdin (one per line). For each file it writes one JSON line for the whole file and
one for every function in it (each `def`, cut out with its own lines and dedented, so that methods and
nested functions become stand-alone programs):

  {"id", "source", "norm", "tokens_sha1", "token_count"}   CPython parsed it
  {"id", "source", "error"}                               CPython rejected it (SyntaxError/ValueError)
  {"id", "unreadable"}                                    CPython cannot decode the file as source

A file's line (not a function's) also has "functions": how many defs its tree holds, so that the reader
can check that a line came for each of them.

`tokens` are the token strings of tokenize.generate_tokens(norm), minus COMMENT, NL, ENCODING,
ENDMARKER, INDENT and DEDENT. They are sent as the SHA-1 of the strings joined by NUL, to keep the
stream small; with `--tokens` the full list is sent instead (used to explain a mismatch).
"""

import ast
import hashlib
import io
import json
import sys
import tokenize

from def_segments import def_segments

if sys.version_info[:2] != (3, 11):
    sys.exit(f"normalize_oracle.py must run under CPython 3.11 (got {sys.version.split()[0]})")

DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
FULL_TOKENS = "--tokens" in sys.argv


def tokens_of(text):
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in DROPPED]


def record(ident, source):
    try:
        norm = ast.unparse(ast.parse(source))
        tokens = tokens_of(norm)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return {"id": ident, "source": source, "error": f"{type(error).__name__}: {error}"}
    out = {"id": ident, "source": source, "norm": norm, "token_count": len(tokens)}
    if FULL_TOKENS:
        out["tokens"] = tokens
    else:
        out["tokens_sha1"] = hashlib.sha1("\0".join(tokens).encode("utf-8", "surrogatepass")).hexdigest()
    return out


def emit(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=True))
    sys.stdout.write("\n")


def main():
    sys.setrecursionlimit(10000)
    for line in sys.stdin:
        path = line.rstrip("\n")
        if not path:
            continue
        if path.startswith("{"):
            request = json.loads(path)
            emit(record(request["id"], request["source"]))
            continue
        try:
            with tokenize.open(path) as handle:
                source = handle.read()
        except (SyntaxError, UnicodeDecodeError, OSError) as error:
            emit({"id": path, "unreadable": f"{type(error).__name__}: {error}"})
            continue
        count, segments = def_segments(source)
        emit({**record(path, source), "functions": count})
        for name, segment in segments:
            emit(record(f"{path}::{name}", segment))
    sys.stdout.flush()


main()
