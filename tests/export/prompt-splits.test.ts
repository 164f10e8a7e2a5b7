/**
 * The paper's prompt (over-editing paper, Appendix A.3), prompt ids and the split assignment: pure
 * functions, checked against the paper's text and, for the hashes, against Python's hashlib (a trainer
 * recomputes prompt_id and the split in Python).
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { promptId, promptText } from "../../src/core/prompt/message.js";
import { PROMPT_STYLES, promptMessages, userMessage } from "../../src/core/prompt/repair-prompt.js";
import { assignSplit, parseSplitSpec, problemPosition } from "../../src/export/splits.js";

const CORRUPTED = "def add(a, b):\n    return a - b\n";

/** Runs a Python snippet with `input` as JSON on stdin; returns its JSON output. */
function python(code: string, input: unknown): unknown {
  const result = spawnSync("python3", ["-c", code], { input: JSON.stringify(input), encoding: "utf8" });
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout);
}

describe("the repair prompt", () => {
  it("is the paper's system prompt and user message, generic or with the preservation clause", () => {
    const [system, user] = promptMessages("Add two numbers", CORRUPTED, "generic");
    // Appendix A.3, verbatim.
    expect(system).toEqual({
      role: "system",
      content:
        "You are a Python Expert specializing in code analysis and debugging. When provided with a problem " +
        "statement, your task is to fix the code.\nDo not change the function signature, default arguments, " +
        "or docstring. Use the docstring to understand the requirements of the function.",
    });
    expect(user).toEqual({
      role: "user",
      content:
        "I am trying to implement a function with the following specifications:\nAdd two numbers.\n\n" +
        "The function I have written so far is:\n```python\ndef add(a, b):\n    return a - b\n```\n\n" +
        "What is wrong? Fix and complete my function.\n\nWrap your response in ```python and ```",
    });
    const explicit = userMessage("Add two numbers", CORRUPTED, "explicit");
    expect(explicit).toContain(
      "What is wrong? Fix and complete my function but keep as much of the original code as possible.",
    );
    // Only the request differs between the conditions.
    expect(explicit.replace(" but keep as much of the original code as possible", "")).toBe(user?.content);
  });

  it("does not double the period of a statement that has one, and closes the fence on its own line", () => {
    const text = userMessage("Add two numbers.  ", "def f(): pass", "generic");
    expect(text).toContain("specifications:\nAdd two numbers.\n\n");
    expect(text).toContain("```python\ndef f(): pass\n```");
  });

  it("gives prompt ids that Python's hashlib reproduces, distinct per prompt condition", () => {
    const prompts = PROMPT_STYLES.flatMap((style) => [
      promptMessages("Add two numbers", CORRUPTED, style),
      promptMessages("Non-ASCII: café – “quotes” \u2028 and \\ backslash\ttab", CORRUPTED, style),
    ]);
    const expected = python(
      "import hashlib, json, sys\n" +
        "print(json.dumps([hashlib.sha256(json.dumps(m, ensure_ascii=False, separators=(',', ':'))" +
        ".encode()).hexdigest() for m in json.load(sys.stdin)]))",
      prompts,
    );
    const ids = prompts.map(promptId);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(promptId(promptMessages("Add two numbers", CORRUPTED, "generic"))).toBe(ids[0]);
  });

  it("renders a standard (text) prompt as system prompt, blank line, user message", () => {
    const messages = promptMessages("S", CORRUPTED, "generic");
    expect(promptText(messages)).toBe(`${messages[0]?.content}\n\n${messages[1]?.content}`);
  });
});

describe("splits by problem", () => {
  it("parses NAME=WEIGHT lists whose weights sum to 1", () => {
    expect(parseSplitSpec("train=0.9,test=0.1")).toEqual([
      { name: "train", weight: 0.9 },
      { name: "test", weight: 0.1 },
    ]);
    expect(parseSplitSpec(" train = 0.7 , validation=0.2,test=.1")).toHaveLength(3);
    expect(parseSplitSpec("train=1")).toEqual([{ name: "train", weight: 1 }]);
  });

  it.each([
    ["train=0.9,test=0.05", "sum to 1"],
    ["train=0.5,train=0.5", "given twice"],
    ["train=0.5,test", "NAME=WEIGHT"],
    ["train=-0.5,test=1.5", "positive number"],
    ["train=0,test=1", "positive number"],
    ["tr ain=1", "split name"],
    ["../x=1", "split name"],
    ["train=0x1", "positive number"],
  ])("rejects %j (%s)", (spec, message) => {
    expect(() => parseSplitSpec(spec)).toThrow(message);
  });

  it("places a problem by a keyed hash that Python reproduces", () => {
    const ids = ["seed/001-merge-bookings", "p/ü", "42", ""];
    const expected = python(
      "import hashlib, json, sys\nids = json.load(sys.stdin)\n" +
        "print(json.dumps([int.from_bytes(hashlib.sha256(f'minedit-split\\0{s}\\0{p}'.encode())" +
        ".digest()[:6], 'big') / 2**48 for s in (0, 7) for p in ids]))",
      ids,
    );
    expect([0, 7].flatMap((seed) => ids.map((id) => problemPosition(id, seed)))).toEqual(expected);
  });

  it("is deterministic, depends on the seed, and follows the weights over many problems", () => {
    const splits = parseSplitSpec("train=0.8,test=0.2");
    const problems = Array.from({ length: 4000 }, (_, i) => `problem-${i}`);
    const first = problems.map((p) => assignSplit(p, splits, 1));
    expect(problems.map((p) => assignSplit(p, splits, 1))).toEqual(first);
    const share = first.filter((s) => s === "test").length / problems.length;
    // Binomial(4000, 0.2): the standard deviation of the share is 0.0063; 5 sigma.
    expect(Math.abs(share - 0.2)).toBeLessThan(0.032);
    const reseeded = problems.map((p) => assignSplit(p, splits, 2));
    expect(reseeded).not.toEqual(first);
  });
});
