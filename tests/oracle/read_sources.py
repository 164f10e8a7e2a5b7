#!/usr/bin/env python3
"""Reads file paths on stdin and writes `{"path", "source"}` JSON lines: each file decoded the way
CPython decodes source (PEP 263 cookie or BOM, else UTF-8), or `{"path", "error"}`."""
import json
import sys
import tokenize

for line in sys.stdin:
    path = line.rstrip("\n")
    if not path:
        continue
    try:
        with tokenize.open(path) as handle:
            out = {"path": path, "source": handle.read()}
    except (SyntaxError, UnicodeDecodeError, OSError) as error:
        out = {"path": path, "error": f"{type(error).__name__}: {error}"}
    sys.stdout.write(json.dumps(out, ensure_ascii=True) + "\n")
