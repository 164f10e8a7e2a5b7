/**
 * `match` statement patterns (PEP 634) → CPython 3.11 `ast.pattern`.
 *
 * tree-sitter-python leaves some pattern syntax as anonymous tokens: the sign of a negative literal is a
 * `-` sibling of the number, and the wildcard `_` may be a bare token. Both are read from siblings here.
 */
import type { Node } from "web-tree-sitter";
import type { Expr, Pattern } from "./ast.js";
import { convertExpression, EXPRESSION_CONVERTERS, identifier } from "./convert-expression.js";
import { convertStrings } from "./convert-string.js";
import { childrenOf, namedChildrenOf, reject } from "./cst.js";

/** The pattern of one `case` clause: several top-level patterns (`case a, *b:`) form a sequence. */
export function convertPattern(patterns: Node[], clause: Node): Pattern {
  const [first] = patterns;
  if (first === undefined) reject(clause, "case needs a pattern");
  const topLevelComma = childrenOf(clause).some((c) => c.type === ",");
  if (patterns.length === 1 && !topLevelComma) {
    const pattern = convertCasePattern(first);
    if (pattern.type === "MatchStar") reject(first, "a star pattern must be inside a sequence");
    return pattern;
  }
  return { type: "MatchSequence", patterns: patterns.map(convertCasePattern) };
}

function convertCasePattern(node: Node): Pattern {
  if (node.type !== "case_pattern") return convertPatternNode(node);
  const inner = namedChildrenOf(node);
  if (inner.length === 0) {
    if (node.text.trim() === "_") return { type: "MatchAs", pattern: null, name: null };
    reject(node, "empty pattern");
  }
  if (inner.length !== 1 || inner[0] === undefined) reject(node, "malformed pattern");
  return convertPatternNode(inner[0]);
}

function convertPatternNode(node: Node): Pattern {
  switch (node.type) {
    case "case_pattern":
      return convertCasePattern(node);
    case "dotted_name": {
      const names = namedChildrenOf(node);
      if (names.length === 1 && names[0] !== undefined) {
        const name = identifier(names[0]);
        return name === "_"
          ? { type: "MatchAs", pattern: null, name: null }
          : { type: "MatchAs", pattern: null, name };
      }
      return { type: "MatchValue", value: dottedValue(node) };
    }
    case "integer":
    case "float":
      return { type: "MatchValue", value: signedNumber(node) };
    case "string":
    case "concatenated_string": {
      // ast.parse accepts an f-string here; only the compiler rejects it.
      return {
        type: "MatchValue",
        value: convertStrings(node.type === "string" ? [node] : namedChildrenOf(node), EXPRESSION_CONVERTERS),
      };
    }
    case "none":
      return { type: "MatchSingleton", value: { kind: "None" } };
    case "true":
      return { type: "MatchSingleton", value: { kind: "bool", value: true } };
    case "false":
      return { type: "MatchSingleton", value: { kind: "bool", value: false } };
    case "complex_pattern":
      return { type: "MatchValue", value: complexValue(node) };
    case "union_pattern":
      return convertUnion(node);
    case "as_pattern": {
      const parts = namedChildrenOf(node);
      const pattern = parts[0];
      const alias = parts[parts.length - 1];
      if (parts.length !== 2 || pattern === undefined || alias === undefined)
        reject(node, "malformed as-pattern");
      const name = identifier(
        alias.type === "as_pattern_target" ? (namedChildrenOf(alias)[0] ?? alias) : alias,
      );
      if (name === "_") reject(alias, "cannot use '_' as a target");
      return { type: "MatchAs", pattern: convertCasePattern(pattern), name };
    }
    case "tuple_pattern":
    case "list_pattern": {
      const elements = namedChildrenOf(node);
      const hasComma = childrenOf(node).some((c) => c.type === ",");
      // `(p)` is a group, not a one-element sequence; `[p]` always is a sequence.
      if (node.type === "tuple_pattern" && elements.length === 1 && !hasComma && elements[0] !== undefined) {
        return convertCasePattern(elements[0]);
      }
      return { type: "MatchSequence", patterns: elements.map(convertCasePattern) };
    }
    case "splat_pattern": {
      const [name] = namedChildrenOf(node);
      if (name === undefined) return { type: "MatchStar", name: null };
      const id = identifier(name);
      return { type: "MatchStar", name: id === "_" ? null : id };
    }
    case "dict_pattern":
      return convertMapping(node);
    case "class_pattern":
      return convertClassPattern(node);
    default:
      reject(node, `unexpected ${node.type} in pattern`);
  }
}

function dottedValue(node: Node): Expr {
  const [head, ...rest] = namedChildrenOf(node).map(identifier);
  if (head === undefined) reject(node, "empty name");
  let value: Expr = { type: "Name", id: head };
  for (const attr of rest) value = { type: "Attribute", value, attr };
  return value;
}

function isMinus(node: Node | null): boolean {
  return node !== null && !node.isNamed && node.type === "-";
}

function signedNumber(node: Node): Expr {
  const value = convertExpression(node);
  return isMinus(node.previousSibling) ? { type: "UnaryOp", op: "USub", operand: value } : value;
}

/** `-1 + 2j`: real part (maybe negative), then `+` or `-`, then an imaginary literal. */
function complexValue(node: Node): Expr {
  const numbers = namedChildrenOf(node);
  const [real, imaginary] = numbers;
  if (numbers.length !== 2 || real === undefined || imaginary === undefined)
    reject(node, "malformed complex literal");
  const operator = imaginary.previousSibling;
  if (operator === null || (operator.type !== "+" && operator.type !== "-"))
    reject(node, "malformed complex literal");
  const imag = convertExpression(imaginary);
  if (imag.type !== "Constant" || imag.value.kind !== "complex")
    reject(imaginary, "imaginary number required in complex literal");
  const left = signedNumber(real);
  const leftConstant = left.type === "UnaryOp" ? left.operand : left;
  if (leftConstant.type !== "Constant" || leftConstant.value.kind === "complex") {
    reject(real, "real number required in complex literal");
  }
  return { type: "BinOp", left, op: operator.type === "+" ? "Add" : "Sub", right: imag };
}

function convertUnion(node: Node): Pattern {
  const patterns: Pattern[] = [];
  for (const child of namedChildrenOf(node)) {
    const pattern = convertPatternNode(child);
    if (pattern.type === "MatchOr" && child.type === "union_pattern") patterns.push(...pattern.patterns);
    else patterns.push(pattern);
  }
  return { type: "MatchOr", patterns };
}

function convertMapping(node: Node): Pattern {
  const keys: Expr[] = [];
  const patterns: Pattern[] = [];
  let rest: string | null = null;
  let pendingKey: Expr | null = null;
  const children = node.children;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (child === null || child === undefined) continue;
    const fieldName = node.fieldNameForChild(i);
    if (fieldName === "key") {
      if (child.type === "-") continue; // the sign of a negative numeric key
      pendingKey = mappingKey(child);
    } else if (fieldName === "value") {
      if (pendingKey === null) reject(child, "mapping pattern value without key");
      keys.push(pendingKey);
      patterns.push(convertCasePattern(child));
      pendingKey = null;
    } else if (child.type === "splat_pattern") {
      const [name] = namedChildrenOf(child);
      if (name === undefined) reject(child, "expected a name after **");
      rest = identifier(name);
    }
  }
  return { type: "MatchMapping", keys, patterns, rest };
}

function mappingKey(node: Node): Expr {
  const pattern = convertPatternNode(node);
  if (pattern.type === "MatchValue") return pattern.value;
  if (pattern.type === "MatchSingleton") return { type: "Constant", value: pattern.value, kind: null };
  reject(node, "mapping pattern keys may only match literals and attribute lookups");
}

function convertClassPattern(node: Node): Pattern {
  const [nameNode, ...args] = namedChildrenOf(node);
  if (nameNode === undefined || nameNode.type !== "dotted_name")
    reject(node, "class pattern needs a class name");
  const patterns: Pattern[] = [];
  const kwdAttrs: string[] = [];
  const kwdPatterns: Pattern[] = [];
  for (const arg of args) {
    const inner = arg.type === "case_pattern" ? namedChildrenOf(arg)[0] : arg;
    if (inner !== undefined && inner.type === "keyword_pattern") {
      const [key, value] = namedChildrenOf(inner);
      if (key === undefined || value === undefined) reject(inner, "malformed keyword pattern");
      kwdAttrs.push(identifier(key));
      kwdPatterns.push(convertPatternNode(value));
    } else {
      if (kwdAttrs.length > 0) reject(arg, "positional patterns follow keyword patterns");
      patterns.push(convertCasePattern(arg));
    }
  }
  return {
    type: "MatchClass",
    cls: dottedValue(nameNode),
    patterns,
    kwd_attrs: kwdAttrs,
    kwd_patterns: kwdPatterns,
  };
}
