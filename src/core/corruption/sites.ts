/**
 * Small helpers the corruption families share for finding nodes and describing edits on the tree-sitter
 * tree. Families stay declarative: "which nodes, which replacement"; the engine does the rest.
 *
 * Why one long file: a flat library of small, independent finders that many families combine; split by
 * family, the shared ones would have no home.
 */
import type { Node } from "web-tree-sitter";
import type { CorruptionSite } from "./types.js";

/** Every named or anonymous descendant of `root` (itself included) whose type is one of `types`, in source order. */
export function nodesOfType(root: Node, ...types: string[]): Node[] {
  const wanted = new Set(types);
  const found: Node[] = [];
  const cursor = root.walk();
  // Pre-order walk with the cursor: no per-node child arrays, and source order for free.
  for (;;) {
    if (wanted.has(cursor.nodeType)) found.push(cursor.currentNode);
    if (cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        cursor.delete();
        return found;
      }
    }
  }
}

/** The site that replaces the whole of `node` with `replacement`. */
export function replaceNode(node: Node, replacement: string): CorruptionSite {
  return { start: node.startIndex, end: node.endIndex, replacement };
}

/** The site that inserts `text` right before `node` (an empty range). */
export function insertBefore(node: Node, text: string): CorruptionSite {
  return { start: node.startIndex, end: node.startIndex, replacement: text };
}

/**
 * Whether `node` lies inside a string literal, i.e. in an f-string replacement field. Families skip such
 * nodes: CPython 3.11 tokenizes a whole f-string as one STRING token (so an edit there would count as one
 * token however large it is), and 3.11 forbids reusing the f-string's quote inside a field, which an
 * inserted string literal could do.
 */
export function isInsideString(node: Node): boolean {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (up.type === "string") return true;
  }
  return false;
}

/** {@link nodesOfType} without the nodes inside f-string replacement fields ({@link isInsideString}). */
export function codeNodesOfType(root: Node, ...types: string[]): Node[] {
  return nodesOfType(root, ...types).filter((node) => !isInsideString(node));
}

/** The arguments of a call, sorted into the kinds families match on (comments dropped). */
export type CallArguments = {
  /** Positional arguments in order; a lone generator argument, `f(x for x in y)`, is the one positional. */
  positional: Node[];
  /** `name=value` arguments, in order. */
  keywords: Node[];
  /** Whether the call unpacks `*args` or `**kwargs`, so its real arguments are unknown. */
  hasSplat: boolean;
  /** Whether the only argument is a generator written without its own parentheses, `f(x for x in y)`. */
  bareGenerator: boolean;
};

/** Sorts the arguments of `call` (a tree-sitter `call` node) by kind. */
export function callArguments(call: Node): CallArguments {
  const list = call.childForFieldName("arguments");
  const result: CallArguments = { positional: [], keywords: [], hasSplat: false, bareGenerator: false };
  if (list === null) return result;
  if (list.type === "generator_expression") {
    result.positional.push(list);
    result.bareGenerator = true;
    return result;
  }
  for (const child of list.namedChildren) {
    if (child === null || child.type === "comment") continue;
    if (child.type === "keyword_argument") result.keywords.push(child);
    else if (child.type.endsWith("splat")) result.hasSplat = true;
    else result.positional.push(child);
  }
  return result;
}

/** Whether the call has only positional arguments, between `min` and `max` of them (no keywords, no splats). */
export function onlyPositional(args: CallArguments, min: number, max: number = min): boolean {
  return (
    args.keywords.length === 0 &&
    !args.hasSplat &&
    args.positional.length >= min &&
    args.positional.length <= max
  );
}

/** The `name=value` argument of a call with the given name, or null. */
export function keywordArgument(args: CallArguments, name: string): Node | null {
  return args.keywords.find((keyword) => keyword.childForFieldName("name")?.text === name) ?? null;
}

/** A call found by {@link callsTo} or {@link methodCallsTo}: the call, the identifier naming it, its arguments. */
export type FoundCall = { call: Node; name: Node; args: CallArguments };

/** Calls of a bare name in `names` (`max(...)`, not `obj.max(...)`), in source order, outside f-string fields. */
export function callsTo(root: Node, names: readonly string[]): FoundCall[] {
  const found: FoundCall[] = [];
  for (const call of codeNodesOfType(root, "call")) {
    const callee = call.childForFieldName("function");
    if (callee?.type === "identifier" && names.includes(callee.text)) {
      found.push({ call, name: callee, args: callArguments(call) });
    }
  }
  return found;
}

/** Method calls `obj.m(...)` with `m` in `names`, in source order, outside f-string fields; `name` is `m`. */
export function methodCallsTo(root: Node, names: readonly string[]): FoundCall[] {
  const found: FoundCall[] = [];
  for (const call of codeNodesOfType(root, "call")) {
    const callee = call.childForFieldName("function");
    const method = callee?.type === "attribute" ? callee.childForFieldName("attribute") : null;
    if (method != null && names.includes(method.text)) {
      found.push({ call, name: method, args: callArguments(call) });
    }
  }
  return found;
}

/** Displays and comprehensions of lists, tuples, dicts and sets: primaries, and never numbers. */
const CONTAINER_LITERAL_TYPES = [
  "list",
  "tuple",
  "dictionary",
  "set",
  "list_comprehension",
  "set_comprehension",
  "dictionary_comprehension",
] as const;

/** Node types that bind at least as tightly as any operator, so their text can stand as an operand. */
const PRIMARY_TYPES = new Set([
  "identifier",
  "attribute",
  "subscript",
  "call",
  "integer",
  "float",
  "string",
  "concatenated_string",
  "true",
  "false",
  "none",
  "ellipsis",
  ...CONTAINER_LITERAL_TYPES,
  "generator_expression",
  "parenthesized_expression",
]);

/**
 * The source text of `node` ready to be an operand anywhere (next to `+`, `**`, a call's `(`...): the text
 * as is for a primary, else in parentheses, so moving it does not regroup the expression around it.
 */
export function operandText(node: Node, source: string): string {
  const text = source.slice(node.startIndex, node.endIndex);
  return PRIMARY_TYPES.has(node.type) ? text : `(${text})`;
}

/**
 * The value of a decimal integer literal, optionally negated (`3`, `1_000`, `-2`), or null for anything
 * else (hex/octal/binary spellings included: families that shift a constant only handle the plain ones).
 */
export function decimalIntValue(node: Node): number | null {
  if (node.type === "unary_operator" && node.childForFieldName("operator")?.type === "-") {
    const argument = node.childForFieldName("argument");
    const value = argument === null ? null : decimalIntValue(argument);
    return value === null || argument?.type !== "integer" ? null : -value;
  }
  if (node.type !== "integer" || !/^[0-9][0-9_]*$/.test(node.text)) return null;
  const value = Number(node.text.replaceAll("_", ""));
  return Number.isSafeInteger(value) ? value : null;
}

// ---------------------------------------------------------------------------------------------------------
// Helpers of the in-domain families and the engine.

/** The site that inserts `text` right after `node` (an empty range). */
export function insertAfter(node: Node, text: string): CorruptionSite {
  return { start: node.endIndex, end: node.endIndex, replacement: text };
}

/** The site that deletes `source[start, end)`. */
export function deleteRange(start: number, end: number): CorruptionSite {
  return { start, end, replacement: "" };
}

/**
 * The site that puts the keyword `word` (e.g. `not`) in front of `node`, followed by a space, and preceded
 * by one when the previous character would otherwise glue to it (`if(x)` must become `if not (x)`).
 */
export function insertWordBefore(node: Node, source: string, word: string): CorruptionSite {
  const previous = source[node.startIndex - 1] ?? " ";
  return insertBefore(node, `${/[\p{L}\p{N}_]/u.test(previous) ? " " : ""}${word} `);
}

/** The node's named children without comments and line continuations. */
export function syntaxChildren(node: Node): Node[] {
  return node.namedChildren.filter(
    (child): child is Node =>
      child !== null && child.type !== "comment" && child.type !== "line_continuation",
  );
}

/** The child in field `name` of `parent` is `node` (web-tree-sitter hands out a fresh object per access). */
function isField(parent: Node, name: string, node: Node): boolean {
  return parent.childForFieldName(name)?.equals(node) ?? false;
}

/** Parents whose identifier children are all bindings: parameter lists, unpacking targets, `global`. */
const BINDING_PARENTS = new Set([
  "parameters",
  "lambda_parameters",
  "list_splat_pattern",
  "dictionary_splat_pattern",
  "pattern_list",
  "tuple_pattern",
  "list_pattern",
  "as_pattern_target",
  "splat_pattern",
  "global_statement",
  "nonlocal_statement",
]);

/** Whether the identifier `id` is a place where a name is bound (assigned, defined, imported, a parameter). */
function isBinding(id: Node): boolean {
  const parent = id.parent;
  if (parent === null) return false;
  switch (parent.type) {
    case "function_definition":
    case "class_definition":
    case "default_parameter":
    case "typed_default_parameter":
    case "named_expression":
      return isField(parent, "name", id);
    case "typed_parameter":
      return parent.namedChildren[0]?.equals(id) ?? false;
    case "assignment":
    case "augmented_assignment":
    case "for_statement":
    case "for_in_clause":
      return isField(parent, "left", id);
    case "aliased_import":
      return isField(parent, "alias", id);
    case "dotted_name": {
      // `import os.path` binds `os`; `from m import name` binds `name`; `case name:` captures `name`.
      const owner = parent.parent;
      const first = parent.namedChildren[0]?.equals(id) ?? false;
      if (owner?.type === "import_statement") return first;
      if (owner?.type === "import_from_statement") {
        return owner.childrenForFieldName("name").some((name) => name?.equals(parent) ?? false);
      }
      return owner?.type === "case_pattern" && parent.namedChildCount === 1;
    }
    default:
      return BINDING_PARENTS.has(parent.type);
  }
}

const boundNamesByTree = new WeakMap<Node["tree"], ReadonlySet<string>>();

/**
 * Every name the program binds anywhere (assignments, parameters, `def`/`class`, imports, loop and `with`
 * targets, `global`), plus `*` when it has a wildcard import. Families use it to tell a call of the
 * built-in `range`/`sorted`/`max` from a call of a function the program defines under that name.
 * `root` may be any node of the program. Cached per tree: every family of one `findSites` pass asks.
 */
export function boundNames(root: Node): ReadonlySet<string> {
  const cached = boundNamesByTree.get(root.tree);
  if (cached !== undefined) return cached;
  // Always the whole module, whatever node was passed: the cache is per tree.
  const module = root.tree.rootNode;
  const names = new Set<string>();
  for (const id of nodesOfType(module, "identifier")) if (isBinding(id)) names.add(id.text);
  if (nodesOfType(module, "wildcard_import").length > 0) names.add("*");
  boundNamesByTree.set(root.tree, names);
  return names;
}

/**
 * Whether `name` surely means the built-in: the program never binds it, and has no wildcard import that
 * could (`from numpy import *` rebinds `max`, `sum`, `round`...).
 */
export function isBuiltinName(root: Node, name: string): boolean {
  const bound = boundNames(root);
  return !bound.has(name) && !bound.has("*");
}

/** {@link callsTo} restricted to names that mean the built-in ({@link isBuiltinName}). */
export function builtinCallsTo(root: Node, names: readonly string[]): FoundCall[] {
  return callsTo(
    root,
    names.filter((name) => isBuiltinName(root, name)),
  );
}

/** Binary operators that bind at least as tightly as `+`, so `a OP b + 1` still means `(a OP b) + 1`. */
const ADDITIVE_OR_TIGHTER = new Set(["+", "-", "*", "/", "//", "%", "@", "**"]);

/** Whether ` + 1` can be appended to `node`'s text and still apply to the whole of `node`. */
export function isAdditiveOperand(node: Node): boolean {
  if (PRIMARY_TYPES.has(node.type) || node.type === "unary_operator" || node.type === "await") return true;
  const operator = node.type === "binary_operator" ? node.childForFieldName("operator") : null;
  return operator !== null && ADDITIVE_OR_TIGHTER.has(operator.type);
}

/**
 * The integer literal `text` plus `delta`, spelled like the original (same base and prefix case, digits in
 * the original letter case, `_` thousands grouping kept for a decimal that had it), or null for an
 * imaginary literal or a result below zero.
 */
export function shiftIntegerLiteral(text: string, delta: number): string | null {
  const match = /^(0[xXoObB])?([0-9a-fA-F_]+)$/.exec(text);
  if (match === null) return null; // `1j` is an `integer` node in tree-sitter-python
  const prefix = match[1] ?? "";
  const digits = (match[2] ?? "").replaceAll("_", "");
  const value = BigInt(prefix === "" ? digits.replace(/^0+(?=.)/, "") : `${prefix.toLowerCase()}${digits}`);
  const shifted = value + BigInt(delta);
  if (shifted < 0n) return null;
  const radix = { "": 10, x: 16, o: 8, b: 2 }[prefix.slice(1).toLowerCase() as "" | "x" | "o" | "b"];
  let body = shifted.toString(radix);
  if (/[A-F]/.test(digits)) body = body.toUpperCase();
  if (prefix === "" && text.includes("_")) body = body.replace(/\B(?=(\d{3})+$)/g, "_");
  return `${prefix}${body}`;
}

/**
 * The float literal `text` plus `tenths` × 0.1, computed in decimal so `0.25 + 0.1` is `0.35` (not
 * `0.35000000000000003`), keeping the literal's number of decimals (at least one) and a missing leading
 * zero (`.5` → `.6`). Null for exponent or imaginary spellings (`1e-9` is a scale, not a quantity a
 * ±0.1 nudge is meant for), underscores, or a result below zero.
 */
export function shiftFloatLiteral(text: string, tenths: number): string | null {
  const match = /^([0-9]*)\.([0-9]*)$/.exec(text);
  if (match === null) return null;
  const whole = match[1] ?? "";
  const fraction = match[2] ?? "";
  const decimals = Math.max(1, fraction.length);
  const unit = 10n ** BigInt(decimals);
  const value = BigInt(whole === "" ? "0" : whole) * unit + BigInt(fraction.padEnd(decimals, "0"));
  const shifted = value + BigInt(tenths) * (unit / 10n);
  if (shifted < 0n) return null;
  const wholeOut = (shifted / unit).toString();
  const fractionOut = (shifted % unit).toString().padStart(decimals, "0");
  return `${whole === "" && wholeOut === "0" ? "" : wholeOut}.${fractionOut}`;
}

/**
 * Off-by-one edits of an integer-valued expression (range bounds, indices, slice bounds), one site per
 * direction:
 * - a decimal literal, maybe negated: the literal ± 1, never crossing or reaching zero from the other
 *   side (`0` → `1` only, `-1` → `-2` only), so an index never changes which end it counts from;
 * - `X + k` / `X - k` with a decimal literal `k`: `k` ± 1, and `X` alone when that makes `k` zero (so the
 *   family can undo an existing `+ 1`, e.g. `range(n + 1)` → `range(n)`);
 * - anything else that binds at least as tightly as `+`: `X + 1` and `X - 1`;
 * - a loosely binding expression (`a if c else b`, `a or b`): no site (it would need parentheses).
 */
export function offByOneSites(node: Node, source: string): CorruptionSite[] {
  const value = decimalIntValue(node);
  if (value !== null) {
    const sites: CorruptionSite[] = [];
    for (const shifted of [value + 1, value - 1]) {
      if (value >= 0 ? shifted < 0 : shifted >= 0) continue;
      const spelled =
        node.type === "integer" ? shiftIntegerLiteral(node.text, shifted - value) : String(shifted);
      if (spelled !== null) sites.push(replaceNode(node, spelled));
    }
    return sites;
  }
  const left = node.type === "binary_operator" ? node.childForFieldName("left") : null;
  const operator = node.type === "binary_operator" ? node.childForFieldName("operator") : null;
  const right = node.type === "binary_operator" ? node.childForFieldName("right") : null;
  const amount = right?.type === "integer" ? decimalIntValue(right) : null;
  if (left !== null && operator !== null && right !== null && amount !== null) {
    if (operator.type === "+" || operator.type === "-") {
      const signed = operator.type === "+" ? amount : -amount;
      const gap = source.slice(operator.endIndex, right.startIndex);
      return [signed + 1, signed - 1].map((shifted) =>
        shifted === 0
          ? deleteRange(left.endIndex, node.endIndex)
          : {
              start: operator.startIndex,
              end: node.endIndex,
              replacement: `${shifted > 0 ? "+" : "-"}${gap}${Math.abs(shifted)}`,
            },
      );
    }
  }
  return isAdditiveOperand(node) ? [insertAfter(node, " + 1"), insertAfter(node, " - 1")] : [];
}

/**
 * The range covering the whole source lines of a statement, from its line's start to past its last line
 * break, or null when other code shares those lines (so deleting them would cut that code too).
 */
export function statementLines(node: Node, source: string): { start: number; end: number } | null {
  const start = source.lastIndexOf("\n", node.startIndex - 1) + 1;
  if (!/^[ \t\f]*$/.test(source.slice(start, node.startIndex))) return null;
  const lineBreak = source.indexOf("\n", node.endIndex);
  const lineEnd = lineBreak < 0 ? source.length : lineBreak;
  if (!/^[ \t\f]*(#.*)?\r?$/.test(source.slice(node.endIndex, lineEnd))) return null;
  return { start, end: lineBreak < 0 ? source.length : lineBreak + 1 };
}

/** The whitespace before `offset` on its line, or null when code precedes it on that line. */
export function indentationAt(source: string, offset: number): string | null {
  const lineStart = source.lastIndexOf("\n", offset - 1) + 1;
  const before = source.slice(lineStart, offset);
  return /^[ \t]*$/.test(before) ? before : null;
}

/** The program's line break: `\r\n` when it uses them, else `\n`. */
export function lineBreakOf(source: string): string {
  return source.includes("\r\n") ? "\r\n" : "\n";
}

/**
 * The conditions of `if`/`elif`/`while` statements, conditional expressions (`a if COND else b`) and
 * comprehension filters (`for x in xs if COND`), in source order, outside f-string fields.
 */
export function conditionsOf(root: Node): Node[] {
  const conditions: Node[] = [];
  for (const node of codeNodesOfType(
    root,
    "if_statement",
    "elif_clause",
    "while_statement",
    "conditional_expression",
    "if_clause",
  )) {
    // Neither conditional_expression nor if_clause names its condition: it is their 2nd / 1st expression.
    const condition =
      node.type === "conditional_expression"
        ? (syntaxChildren(node)[1] ?? null)
        : node.type === "if_clause"
          ? (syntaxChildren(node)[0] ?? null)
          : node.childForFieldName("condition");
    if (condition !== null) conditions.push(condition);
  }
  return conditions;
}

// ---------------------------------------------------------------------------------------------------------
// Helpers of the OOD families (usable by any family).

/** Literal node types whose value is a string, a container or a comprehension, never a number. */
export const SEQUENCE_LITERAL_TYPES: ReadonlySet<string> = new Set([
  "string",
  "concatenated_string",
  ...CONTAINER_LITERAL_TYPES,
]);
const SEQUENCE_BUILTINS = new Set(["str", "list", "tuple", "sorted", "repr", "chr", "format"]);
const STRING_METHODS = new Set([
  "join",
  "lower",
  "upper",
  "casefold",
  "title",
  "capitalize",
  "strip",
  "lstrip",
  "rstrip",
  "replace",
  "format",
  "ljust",
  "rjust",
  "center",
  "zfill",
  "split",
  "encode",
  "decode",
]);

/**
 * Whether `node` visibly evaluates to a string or a sequence rather than a number, so `+`, `*` and `%` on
 * it are concatenation, repetition or formatting: it is, through parentheses, nested binary operators and
 * both branches of `x if c else y`, a string or container literal or comprehension, a slice `s[a:b]`, a
 * call of `str`/`list`/`tuple`/`sorted`/`repr`/`chr`/`format`, or a call of a string method such as
 * `.join`, `.lower` or `.strip`. A name's type is unknown, so `word * n` is not visibly a sequence.
 */
export function isVisiblySequence(node: Node | null): boolean {
  if (node === null) return false;
  if (SEQUENCE_LITERAL_TYPES.has(node.type)) return true;
  switch (node.type) {
    case "parenthesized_expression":
      return node.namedChildren.some(isVisiblySequence);
    case "binary_operator":
      return (
        isVisiblySequence(node.childForFieldName("left")) ||
        isVisiblySequence(node.childForFieldName("right"))
      );
    case "conditional_expression": {
      const [body, , orelse] = syntaxChildren(node);
      return isVisiblySequence(body ?? null) || isVisiblySequence(orelse ?? null);
    }
    case "subscript":
      return node.childrenForFieldName("subscript").some((index) => index?.type === "slice");
    case "call": {
      const callee = node.childForFieldName("function");
      if (callee?.type === "identifier") return SEQUENCE_BUILTINS.has(callee.text);
      const method = callee?.type === "attribute" ? callee.childForFieldName("attribute") : null;
      return method != null && STRING_METHODS.has(method.text);
    }
    default:
      return false;
  }
}

/**
 * Sites that swap a called name for its partner in `swap` (`any` ↔ `all`, `.lower()` ↔ `.upper()`): one
 * per call that `find` ({@link builtinCallsTo} or {@link methodCallsTo}) returns for the table's names and
 * whose arguments `accepts` allows, in source order.
 */
export function calleeSwapSites(
  root: Node,
  find: (root: Node, names: readonly string[]) => FoundCall[],
  swap: Readonly<Record<string, string>>,
  accepts: (args: CallArguments) => boolean,
): CorruptionSite[] {
  return find(root, Object.keys(swap))
    .filter(({ args }) => accepts(args))
    .map(({ name }) => replaceNode(name, swap[name.text] ?? name.text));
}

/**
 * The site that replaces a call of exactly one positional argument by that argument, parenthesized when it
 * is not a primary (`abs(x)` → `x`, `copy.copy(a + b)` → `(a + b)`), or null for any other call.
 */
export function unwrapCallSite({ call, args }: FoundCall, source: string): CorruptionSite | null {
  const [argument] = args.positional;
  if (argument === undefined || !onlyPositional(args, 1)) return null;
  return replaceNode(call, operandText(argument, source));
}
