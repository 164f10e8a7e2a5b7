/**
 * JSON values as Python 3.11 literals: `ast.literal_eval(pythonLiteral(v))` equals `json.loads` of the
 * JSON text `v` was read from (tests/unit/importers.test.ts checks this against python3). Used to write
 * the asserts of DeepCoder-style function-call tests.
 */
import { INT_MAX_STR_DIGITS, reprFloat, reprStr, STR_SEPARATOR } from "../../core/python/literals.js";
import { JsonNumber } from "./json-lossless.js";

/**
 * How deeply a value may nest. CPython's tokenizer refuses more than 200 nested brackets in a line
 * ("too many nested parentheses"), and the literal sits inside a call and a tuple; real test data
 * nests a few levels.
 */
export const MAX_LITERAL_DEPTH = 100;

/**
 * The Python literal of a JSON value: `null`/`true`/`false` → `None`/`True`/`False`, strings as Python
 * `repr` writes them, arrays → lists, objects → dicts with str keys. A {@link JsonNumber} keeps its
 * type as `json.loads` reads it (an int, arbitrarily large, or a float); a plain JavaScript number (from
 * `JSON.parse`) is an int when integral, else a float.
 *
 * @throws RangeError for what Python cannot compile as a literal of the same value: an int of more than
 *   4,300 digits (`json.loads` refuses it too), NaN, nesting deeper than {@link MAX_LITERAL_DEPTH};
 *   TypeError for a value that is not JSON.
 */
export function pythonLiteral(value: unknown): string {
  return literal(value, 0);
}

function literal(value: unknown, depth: number): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return pythonStr(value);
  if (value instanceof JsonNumber) {
    if (!value.isInteger) return floatLiteral(Number(value.text));
    return intLiteral(value.text);
  }
  if (typeof value === "number") {
    // Integral doubles print exactly (BigInt), so Python compares the very value JSON.parse produced.
    return Number.isInteger(value) ? intLiteral(BigInt(value).toString()) : floatLiteral(value);
  }
  if (typeof value !== "object") throw new TypeError(`not a JSON value: ${typeof value}`);
  if (depth >= MAX_LITERAL_DEPTH)
    throw new RangeError(`the value nests deeper than ${MAX_LITERAL_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, depth + 1)).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([key, item]) => `${pythonStr(key)}: ${literal(item, depth + 1)}`).join(", ")}}`;
}

function intLiteral(decimal: string): string {
  const digits = decimal.replace(/^-/, "");
  if (digits.length > INT_MAX_STR_DIGITS) {
    throw new RangeError(
      `an integer of ${digits.length} digits exceeds Python's ${INT_MAX_STR_DIGITS}-digit limit`,
    );
  }
  return decimal === "-0" ? "0" : decimal;
}

function floatLiteral(value: number): string {
  if (Number.isNaN(value)) throw new RangeError("NaN has no Python literal");
  // repr() prints `inf`, a name; json.loads reads `1e400` as inf, and so does Python's `1e999`.
  if (!Number.isFinite(value)) return value > 0 ? "1e999" : "-1e999";
  return reprFloat(value);
}

/**
 * `repr()` of a JavaScript string read from JSON. reprStr takes the AST convention, where U+FFFF after a
 * lone high surrogate may be a separator; a real U+FFFF there is written doubled (literals.ts).
 */
function pythonStr(value: string): string {
  return reprStr(value.replace(/[\ud800-\udbff](?=\uffff)/g, `$&${STR_SEPARATOR}`));
}
