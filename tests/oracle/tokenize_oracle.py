#!/usr/bin/env python3
"""Test oracle for src/core/python/tokenize.ts: CPython 3.11 `tokenize.generate_tokens`.

Reads stdin, one JSON request per line, and writes one JSON line per request, in order:
  - `{"id", "path"}`: read the file's bytes, decode them with `tokenize.detect_encoding` (PEP 263
    cookie / BOM; line endings are kept as they are, unlike `tokenize.open`, so CRLF files stay CRLF),
    and tokenize the text; then, if it parses, tokenize `ast.unparse(ast.parse(text))` too. Answer
    `{"id", "text"?, "raw", "unparsed_text"?, "unparsed"?, "parse_error"?}`, where `text` is sent only
    when the decoded text is not simply the file's bytes read as UTF-8 (another encoding, or a BOM),
    or `{"id", "read_error"}` when the file cannot be read or decoded;
  - `{"id", "source"}`: tokenize the given text. Answer `{"id", "raw"}`;
  - `{"id", "word_ranges": true}`: answer `{"id", "word_ranges"}`, the inclusive code-point ranges that
    `re`'s `\\w` matches (what tokenize's Name pattern is made of).

A tokenization result is `{"tokens": [...], "starts": [...]}` — the strings of the tokens kept by the
reward (all but COMMENT, NL, ENCODING, ENDMARKER, INDENT, DEDENT) and the UTF-16 offset in the text
where each starts — or `{"error": "<ExceptionClass>: <message>"}` when tokenize raises.

The text is split into lines the way `io.StringIO(text).readline` does (after each "\\n" only).
"""

import ast
import gc
import io
import json
import re
import sys
import tokenize

if sys.version_info[:2] != (3, 11):
    sys.exit(f"tokenize_oracle.py must run under CPython 3.11 (got {sys.version.split()[0]})")

DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}


def utf16_len(s):
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def tokens_of(text):
    """Kept token strings and their UTF-16 start offsets, or the error tokenize raised."""
    lines = io.StringIO(text).readlines()
    ascii_only = text.isascii()
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + (len(line) if ascii_only else utf16_len(line)))
    line_starts.append(line_starts[-1])  # the empty line tokenize reads at EOF
    try:
        kept = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t[0] not in DROPPED]
    except (tokenize.TokenError, IndentationError) as e:
        return {"error": f"{type(e).__name__}: {e.args[0]}"}
    strings = [t[1] for t in kept]
    if ascii_only:
        starts = [line_starts[t[2][0] - 1] + t[2][1] for t in kept]
    else:
        # Columns count code points; offsets count UTF-16 units (lines past the end are empty).
        starts = [
            line_starts[row - 1] + utf16_len(lines[row - 1][:col] if row <= len(lines) else "")
            for row, col in (t[2] for t in kept)
        ]
    return {"tokens": strings, "starts": starts}


def with_unparsed(answer, text):
    try:
        unparsed = ast.unparse(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        answer["parse_error"] = f"{type(e).__name__}: {e}"
        return answer
    answer["unparsed_text"] = unparsed
    answer["unparsed"] = tokens_of(unparsed)
    return answer


def answer_path(request):
    path = request["path"]
    try:
        with open(path, "rb") as f:
            data = f.read()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as e:
        return {"id": request["id"], "read_error": f"{type(e).__name__}: {e}"}
    answer = {"id": request["id"]}
    # The TypeScript side reads the file as UTF-8 itself; send the text only when that would differ.
    if encoding != "utf-8":
        answer["text"] = text
    answer["raw"] = tokens_of(text)
    return with_unparsed(answer, text)


def word_ranges():
    word = re.compile(r"\w")
    ranges = []
    start = None
    for cp in range(0x110000):
        if word.match(chr(cp)):
            if start is None:
                start = cp
        elif start is not None:
            ranges.append([start, cp - 1])
            start = None
    if start is not None:
        ranges.append([start, 0x10FFFF])
    return ranges


def main():
    # Allocation-heavy and cycle-free: the collector only costs time here.
    gc.disable()
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "path" in request:
            answer = answer_path(request)
        elif request.get("word_ranges"):
            answer = {"id": request["id"], "word_ranges": word_ranges()}
        else:
            answer = {"id": request["id"], "raw": tokens_of(request["source"])}
        out.write(json.dumps(answer))
        out.write("\n")


if __name__ == "__main__":
    main()
