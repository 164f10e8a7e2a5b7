/**
 * From a model completion to the candidate program M (docs/reward.md#from-completion-to-program-m).
 *
 * Rules, in order:
 * 0. End-of-turn markers at the very end of the completion (`<|im_end|>`, `<|eot_id|>`, `</s>`, … — see
 *    `DEFAULT_END_OF_TURN_MARKERS` in config.ts, the default of `reward.endOfTurnMarkers`), with the
 *    whitespace around them, are removed, repeatedly: trainers that decode with special tokens kept
 *    (OpenRLHF) hand over text ending in the chat template's end of turn.
 *    Every marker ends in `>`, and no Python program can end in `>`, so removing one never turns a program
 *    that parses into another program; it only rescues an unfenced answer that would otherwise not parse.
 * 1. If the completion contains `</think>`, only the text after the LAST `</think>` is considered
 *    (reasoning models often draft code while thinking; the answer comes after).
 * 2. The LAST fenced code block wins (models typically restate the final version last). A fence is a line
 *    that starts with at most 3 spaces, then 3 or more backticks, then an optional info string
 *    (```` ```python ````, ```` ```py ````, any ```` ```lang ````) that contains no backtick.
 * 3. Fence lines alternate open/close: a block closes at the next fence line (docs/reward.md: "closes at the next
 *    fence line"), whatever its length or info string. An unclosed last block runs to the end of the text.
 * 4. With no fence line at all, the whole remaining text is the candidate.
 * 5. An extraction that is empty or whitespace-only is `no_code`.
 *
 * Decisions the definition leaves open, and why:
 * - Only backtick fences. `~~~` fences are not recognised: a line such as `~~~x` is valid Python (bitwise
 *   not, three times) and would cut a program, whereas a line starting with ```` ``` ```` can never be
 *   Python code (backticks are not Python 3 tokens; such a line can only sit inside a string literal).
 * - Up to 3 leading spaces, as in CommonMark, because models nest code blocks inside numbered lists
 *   (`1. Fix:` followed by a fence indented by 3). A tab, or 4+ spaces, makes the line an ordinary line
 *   (CommonMark treats that as indented code) — this also keeps a ```` ``` ```` line inside an indented
 *   docstring from cutting the program.
 * - When the opening fence is indented by N spaces and EVERY non-blank line of the block is indented by
 *   at least N spaces, those N spaces are removed from each line (blank lines lose up to N). That is the
 *   list-container indentation, not program indentation; without removing it a listed block would be
 *   `UNPARSABLE` ("unexpected indent"). In every other case, and always for a fence at column 0, the
 *   program is the exact substring of the completion: no trimming, no line-ending changes.
 * - The program is the text between the opening fence line and the closing fence line, each content line
 *   with its own line terminator (CommonMark's definition), so `\r\n` endings are preserved as-is.
 *   CPython's string tokenizer translates `\r\n` and lone `\r` to `\n` before parsing, so downstream
 *   parsing must do the same.
 * - If the last block is empty, the result is `no_code` even when an earlier block had code: the definition
 *   says the last block is the candidate, and an empty final answer is the model's answer.
 */

export type ExtractedProgram = { kind: "code"; program: string } | { kind: "no_code" };

/** `completion` without the end-of-turn markers (and the whitespace around them) at its very end. */
export function stripEndOfTurn(completion: string, markers: readonly string[]): string {
  let text = completion;
  for (;;) {
    const trimmed = text.trimEnd();
    const marker = markers.find((m) => m !== "" && trimmed.endsWith(m));
    if (marker === undefined) return text;
    text = trimmed.slice(0, trimmed.length - marker.length);
  }
}

const THINK_CLOSE = "</think>";

/*
 * A fence line, as a regular expression on the line without its `\n`: /^( {0,3})`{3,}[^`]*$/ — leading
 * spaces (0–3), a run of 3+ backticks, then an info string without backticks. {@link fenceLines} finds them.
 */

/** A fence line: where it starts, where the next line starts, and how many spaces it is indented by. */
type Fence = { start: number; end: number; indent: number };

/**
 * The fence lines of `text` (lines split on `\n`; the rule is above), in order. Only
 * the lines that hold three backticks are looked at, found with `indexOf`: most completions have a few
 * fence lines among dozens of code lines, and cutting every line out of the text to test it against the
 * regular expression was a fifth of the cost of scoring a completion already seen (benchmarks/metrics:
 * the `extract` stage).
 */
function fenceLines(text: string): Fence[] {
  const fences: Fence[] = [];
  let from = 0;
  for (let at = text.indexOf("```", from); at >= 0; at = text.indexOf("```", from)) {
    const start = text.lastIndexOf("\n", at - 1) + 1;
    const nl = text.indexOf("\n", at);
    const end = nl === -1 ? text.length : nl + 1;
    // The first three backticks of a line decide: a fence line's run starts within 3 spaces of the line's
    // start, so no later run on the same line can start one.
    if (at - start <= 3 && isSpaces(text, start, at)) {
      let after = at + 3;
      while (text.charCodeAt(after) === 96) after++;
      // The info string holds no backtick (the line's `\r`, if any, is part of it, as in `[^`]*`).
      const rest = text.indexOf("`", after);
      if (rest === -1 || rest >= (nl === -1 ? text.length : nl))
        fences.push({ start, end, indent: at - start });
    }
    from = end;
  }
  return fences;
}

function isSpaces(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) !== 32) return false;
  return true;
}

/**
 * Removes `indent` leading spaces from every line of `block`, but only if every non-blank line has them
 * (see the module comment); otherwise returns `block` unchanged.
 */
function stripContainerIndent(block: string, indent: number): string {
  if (indent === 0) {
    return block;
  }
  const prefix = " ".repeat(indent);
  // Split keeping terminators, so the line endings survive untouched.
  const parts = block.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  for (const part of parts) {
    if (part.trim() !== "" && !part.startsWith(prefix)) {
      return block;
    }
  }
  return parts
    .map((part) => {
      let i = 0;
      while (i < indent && part[i] === " ") {
        i++;
      }
      return part.slice(i);
    })
    .join("");
}

/**
 * The answer of a completion without its inline reasoning: what follows the last `</think>` (rule 1),
 * leading whitespace removed; the whole text when it has none. What a training row keeps of a sampled
 * completion.
 */
export function answerAfterReasoning(completion: string): string {
  const thinkEnd = completion.lastIndexOf(THINK_CLOSE);
  return thinkEnd === -1 ? completion : completion.slice(thinkEnd + THINK_CLOSE.length).trimStart();
}

/**
 * Extracts the candidate program from a completion (docs/reward.md#from-completion-to-program-m). Pure and total: never throws.
 * `endOfTurnMarkers`: the configured `reward.endOfTurnMarkers` (no default here: core does not load the
 * config schema, which would double a metrics worker's start-up).
 *
 * @returns `{ kind: "code", program }` with the program text exactly as written (see the module comment
 *   for the one indentation exception), or `{ kind: "no_code" }` when the extraction is empty or
 *   whitespace-only.
 */
export function extractProgram(completion: string, endOfTurnMarkers: readonly string[]): ExtractedProgram {
  const answer = stripEndOfTurn(completion, endOfTurnMarkers);
  const thinkEnd = answer.lastIndexOf(THINK_CLOSE);
  const text = thinkEnd === -1 ? answer : answer.slice(thinkEnd + THINK_CLOSE.length);

  // Walk the fence lines, keeping only the bounds of the most recent block.
  let last: { from: number; to: number; indent: number } | null = null;
  let open: { from: number; indent: number } | null = null;
  for (const line of fenceLines(text)) {
    const indent = line.indent;
    if (open === null) {
      open = { from: line.end, indent };
    } else {
      last = { from: open.from, to: line.start, indent: open.indent };
      open = null;
    }
  }
  if (open !== null) {
    last = { from: open.from, to: text.length, indent: open.indent };
  }

  const program = last === null ? text : stripContainerIndent(text.slice(last.from, last.to), last.indent);
  return program.trim() === "" ? { kind: "no_code" } : { kind: "code", program };
}
