#!/usr/bin/env python3
"""Test oracle: dump CPython 3.11 `ast` trees as JSON shaped like src/core/python/ast.ts.

Reads stdin, one request per line:
  - a file path, read with `tokenize.open` (PEP 263 coding cookie / BOM detection), or
  - a JSON object `{"path": <label>, "source": <python source>}` for in-memory sources, or
  - a JSON object `{"path": <label>, "ast_expr": <python expression>}` evaluated (with `ast` in scope)
    to build a tree the parser never produces, e.g. a NaN constant.

Writes one JSON line per request, in order:
  - `{"path", "ast", "unparsed"}`   — the tree and `ast.unparse(tree)`;
  - `{"path", "ast", "unparse_error"}` — parsed, but `ast.unparse` raised (e.g. a backslash that
    cannot be avoided inside an f-string expression); the TypeScript port must raise too;
  - `{"path", "error"}`             — the source could not be read or parsed.
A str constant holding a high surrogate code point directly followed by a low one (`'\\ud800\\udc80'`)
would read back from UTF-16 (JSON, JavaScript) as one astral character; such strs are written in the
convention of ast.ts (`STR_SEPARATOR` in src/core/python/literals.ts): U+FFFF goes between a high
surrogate and a following low surrogate or U+FFFF, so the port receives the same code points.

Shape of the tree (see ast.ts): `ctx`, positions, `type_comment` and `type_ignores` are dropped;
operators are class-name strings; `ExceptHandler.type` is renamed `exc_type`; the helper nodes
without a `type` tag in ast.ts (comprehension, arguments, arg, keyword, alias, withitem, match_case)
are plain objects. Constants are tagged unions; floats that JSON cannot hold (inf, nan) are written
as the strings "inf", "-inf" and "nan", which the TypeScript side revives. Output is `ensure_ascii`
so that lone surrogates in Python strings survive as `\\udXXX` escapes (JSON.parse keeps them).
"""

import ast
import gc
import io
import json
import math
import re
import sys
import tokenize

if sys.version_info[:2] != (3, 11):
    sys.exit(f"ast_json.py must run under CPython 3.11 (got {sys.version.split()[0]})")

# Nodes that ast.ts models without a `type` discriminator.
_UNTAGGED = frozenset(
    ["comprehension", "arguments", "arg", "keyword", "alias", "withitem", "match_case"]
)
# Node fields that ast.ts leaves out.
_DROPPED = frozenset(["ctx", "type_comment", "type_ignores"])
# Fields holding a single operator node (or a list of them, for Compare.ops).
_OPERATOR_BASES = (ast.operator, ast.unaryop, ast.boolop, ast.cmpop)


# Where ast.ts puts a separator: after a high surrogate, before a low surrogate or a U+FFFF.
_NEEDS_SEPARATOR = re.compile("(?<=[\ud800-\udbff])(?=[\udc00-\udfff\uffff])")


def _separate_surrogates(s):
    """A str in the convention of ast.ts: U+FFFF keeps separate surrogate code points from merging."""
    return _NEEDS_SEPARATOR.sub("\uffff", s)


def _number(value):
    """A float for JSON: finite values as numbers (repr round-trips exactly), others as strings."""
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


def constant_value(value):
    """Python constant → ConstantValue of ast.ts. `bool` is tested before `int` (it subclasses it)."""
    if value is None:
        return {"kind": "None"}
    if value is ...:
        return {"kind": "Ellipsis"}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, int):
        return {"kind": "int", "value": str(value)}
    if isinstance(value, float):
        return {"kind": "float", "value": _number(value)}
    if isinstance(value, complex):
        if value.real != 0 or math.copysign(1.0, value.real) < 0:
            raise ValueError(f"complex constant with a real part: {value!r}")
        return {"kind": "complex", "imag": _number(value.imag)}
    if isinstance(value, str):
        return {"kind": "str", "value": _separate_surrogates(value)}
    if isinstance(value, bytes):
        # One JavaScript code unit per byte.
        return {"kind": "bytes", "value": value.decode("latin-1")}
    raise ValueError(f"unsupported constant {value!r}")


# Per node class: an operator's name (a str), or (name, tagged, ((field, json_key), ...)).
_SPECS = {}


def _spec(cls):
    if issubclass(cls, _OPERATOR_BASES):
        spec = cls.__name__
    else:
        name = cls.__name__
        fields = tuple(
            (f, "exc_type" if name == "ExceptHandler" and f == "type" else f)
            for f in cls._fields
            if f not in _DROPPED
        )
        spec = (name, name not in _UNTAGGED, fields)
    _SPECS[cls] = spec
    return spec


def to_json(node):
    """Convert an AST node (or a list of them) into plain JSON-ready data."""
    if node is None:
        return None
    cls = node.__class__
    if cls is list:
        return [to_json(item) for item in node]
    if cls is str or cls is int:
        return node
    spec = _SPECS.get(cls) or _spec(cls)
    if spec.__class__ is str:
        return spec
    name, tagged, fields = spec
    if name == "Constant":
        return {"type": name, "value": constant_value(node.value), "kind": node.kind}
    if name == "MatchSingleton":
        return {"type": name, "value": constant_value(node.value)}
    out = {"type": name} if tagged else {}
    for field, key in fields:
        out[key] = to_json(getattr(node, field, None))
    return out


def read_source(path):
    # tokenize.open: detect the encoding from a BOM or a coding cookie, like the interpreter.
    with tokenize.open(path) as f:
        return f.read()


def handle(line):
    line = line.rstrip("\n")
    if line.startswith("{"):
        request = json.loads(line)
        path = request.get("path", "<source>")
        if "ast_expr" in request:
            tree = eval(request["ast_expr"], {"ast": ast})
            return _unparsed({"path": path, "ast": to_json(tree)}, tree)
        source = request["source"]
    else:
        path = line
        try:
            source = read_source(path)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as e:
            return {"path": path, "error": f"{type(e).__name__}: {e}"}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        return {"path": path, "error": f"{type(e).__name__}: {e}"}
    return _unparsed({"path": path, "ast": to_json(tree)}, tree)


def _unparsed(result, tree):
    """Add `ast.unparse(tree)` (or its error) to `result`."""
    try:
        result["unparsed"] = ast.unparse(tree)
    except (ValueError, RecursionError) as e:
        result["unparse_error"] = f"{type(e).__name__}: {e}"
    return result


def main():
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
    out = sys.stdout
    # Trees and their JSON are acyclic and freed by reference counting; the cyclic collector would
    # rescan millions of live nodes over and over (it doubled the run time). Collect now and then for
    # whatever cycles ast.unparse leaves behind.
    gc.disable()
    for count, line in enumerate(stdin, 1):
        if count % 100 == 0:
            gc.collect()
        if not line.strip():
            continue
        out.write(json.dumps(handle(line), ensure_ascii=True, separators=(",", ":")))
        out.write("\n")
    out.flush()


if __name__ == "__main__":
    main()
