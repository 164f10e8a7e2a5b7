/**
 * The over-editing paper's rule for the code of a model's answer, used by `minedit eval` to decide which
 * samples have no code at all (`NO_CODE`) exactly as the paper's evaluation did. Our implementation of
 * the rule of `extract_code_from_response` (nreHieW/fyp `partial_edits/utils/extract_utils.py`, commit
 * 5a4023e), which `partial_edits/generate_solutions.py` applies to every answer:
 *
 * 1. The answer is stripped. If the stripped text is a whole Python program, it is the code.
 * 2. Otherwise only what follows the last `</think>` is kept, and of that what follows the last
 *    `</thought>`.
 * 3. Closed fences: every match, left to right and not overlapping, of a fence opening — at the start of
 *    a line, three backticks, optionally `python` in any letter case, any whitespace (newlines included),
 *    then a newline — followed by the shortest text that ends at a newline followed by three backticks.
 *    Each block is stripped; the longest wins, the first of equally long ones.
 * 4. Else an opening with no close: everything after the first opening, to the end, stripped.
 * 5. Else there is no code: "".
 *
 * The paper's rule is written with Python's `str.strip`, `re` and `ast.parse`; where JavaScript's
 * built-ins differ, this port follows Python (tests/unit/paper-extract.test.ts checks it against CPython,
 * tests/oracle/paper_extract.py):
 * - whitespace (`str.strip`, `\s` of a `str` pattern) is Python's `str.isspace()` set, which has
 *   U+001C–U+001F and U+0085 and lacks U+FEFF, unlike JavaScript's `trim` and `\s`;
 * - "start of a line" (`^` under `re.MULTILINE`) is after `\n` only, not after `\r`, U+2028 or U+2029 as
 *   JavaScript's `m` flag would have it;
 * - "python" in any case matches ASCII letters only (CPython's case-insensitive matching has no other
 *   character that folds to p, y, t, h, o or n);
 * - "longest" counts code points, as Python's `len`, not UTF-16 units;
 * - "a whole Python program" is minedit's parser ({@link parsePython}), CPython 3.11's grammar; the
 *   paper's authors ran some CPython 3, whose grammar differs only in constructs a repair of these tasks
 *   does not use (e.g. 3.12's nested f-string quotes). Known remaining differences of that parser, none
 *   of which a model's repair plausibly contains: U+1C89/U+1C8A (letters since Unicode 16, unknown to
 *   CPython 3.11) start a name, and a vertical tab inside an f-string's braces is accepted.
 *
 * Pure: no I/O. Needs `await loadPythonGrammar()` first (the parse of step 1).
 */
import { parsePython } from "./python/parse.js";
import { PySyntaxError } from "./python/syntax-error.js";
import { TokenizeError } from "./python/tokenize.js";

/** The characters of CPython 3.11's `str.isspace()` (Unicode 14), as a regular-expression class body. */
const PYTHON_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

const SURROUNDING_SPACE = new RegExp(`^[${PYTHON_SPACE}]+|[${PYTHON_SPACE}]+$`, "g");

/** Python's `text.strip()`. */
export function pythonStrip(text: string): string {
  return text.replace(SURROUNDING_SPACE, "");
}

/**
 * A fence opening: at the start of the text or after `\n` (`(?<![^\n])`), three backticks, an optional
 * `python` in any ASCII case, Python whitespace, a newline.
 */
const OPENING = `(?<![^\\n])\`\`\`(?:[Pp][Yy][Tt][Hh][Oo][Nn])?[${PYTHON_SPACE}]*\\n`;
const CLOSED_BLOCK = new RegExp(`${OPENING}([\\s\\S]*?)\\n\`\`\``, "g");
/** `$` without the `m` flag is the end of the text, where the greedy block ends anyway. */
const UNCLOSED_BLOCK = new RegExp(`${OPENING}([\\s\\S]*)$`);

/**
 * U+FEFF, U+200B and U+2060 outside a literal or comment make CPython's `ast.parse` of a `str` fail
 * ("invalid non-printable character"), but minedit's parser skips them as blanks (tree-sitter-python
 * counts them as whitespace). U+00A0 is rejected and accepted by both in the same places (in a string or
 * comment: fine; anywhere else, a bytes literal included: an error), so the parse of step 1 sees it
 * instead. The returned code keeps the original characters.
 */
const ZERO_WIDTH = /[\ufeff\u200b\u2060]/g;

/** Whether `text` is a whole Python program (the paper's `ast.parse` succeeds on it). */
function parses(text: string): boolean {
  try {
    parsePython(text.replace(ZERO_WIDTH, "\u00a0"));
    return true;
  } catch (error) {
    if (error instanceof PySyntaxError || error instanceof TokenizeError) return false;
    throw error;
  }
}

/** Python's `len`: code points, a lone surrogate counting as one. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** What follows the last `marker` in `text`, or `text` when it has none. */
function afterLast(text: string, marker: string): string {
  const at = text.lastIndexOf(marker);
  return at === -1 ? text : text.slice(at + marker.length);
}

/**
 * The code of `answer` by the paper's rule (see the module doc); "" when the paper finds none — the
 * answer the paper would have run as an empty program and counted as a failure.
 */
export function paperExtractCode(answer: string): string {
  const stripped = pythonStrip(answer);
  if (parses(stripped)) return stripped;
  const text = afterLast(afterLast(stripped, "</think>"), "</thought>");
  let best: string | null = null;
  for (const match of text.matchAll(CLOSED_BLOCK)) {
    const block = pythonStrip(match[1] as string);
    if (best === null || codePoints(block) > codePoints(best)) best = block;
  }
  if (best !== null) return best;
  const unclosed = UNCLOSED_BLOCK.exec(text);
  return unclosed === null ? "" : pythonStrip(unclosed[1] as string);
}
