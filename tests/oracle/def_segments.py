"""Every def of a module cut out as a program of its own, as the differential oracles compare them
(normalize_oracle.py, paper_complexity.py): each `def`'s own lines (decorators excluded, as
ast.get_source_segment gives them), dedented, so that methods and nested functions stand alone."""

import ast
import textwrap

PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


def source_segment(lines, node):
    """ast.get_source_segment(source, node, padded=True) of CPython 3.11, line for line, on the source's
    lines split once (`ast._splitlines_no_ff(source)`): the library function splits the whole source again,
    a character at a time, on every call, which made cutting out every def of the standard library
    quadratic (90 % of the oracles' time; 123 s instead of 4 s for test_typing, test_socket and test_ssl)."""
    if getattr(node, "end_lineno", None) is None or getattr(node, "end_col_offset", None) is None:
        return None
    lineno, end_lineno = node.lineno - 1, node.end_lineno - 1
    col_offset, end_col_offset = node.col_offset, node.end_col_offset
    if end_lineno == lineno:
        return lines[lineno].encode()[col_offset:end_col_offset].decode()
    padding = ast._pad_whitespace(lines[lineno].encode()[:col_offset].decode())
    first = padding + lines[lineno].encode()[col_offset:].decode()
    last = lines[end_lineno].encode()[:end_col_offset].decode()
    return "".join([first, *lines[lineno + 1 : end_lineno], last])


def def_segments(source):
    """How many defs the tree holds, and each def's (name@line, dedented source). A def without a
    segment is counted but not cut out, which the readers' checks then report."""
    try:
        tree = ast.parse(source)
    except PARSE_ERRORS:
        return 0, []
    defs = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    lines = ast._splitlines_no_ff(source)
    segments = []
    for node in defs:
        segment = source_segment(lines, node)
        if segment is not None:
            segments.append((f"{node.name}@{node.lineno}", textwrap.dedent(segment)))
    return len(defs), segments
