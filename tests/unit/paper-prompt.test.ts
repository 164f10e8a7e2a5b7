/**
 * The `paper-generic` and `paper-explicit` prompts (src/core/prompt/repair-prompt.ts): the messages the over-editing
 * paper's evaluation code sent, byte for byte. A small task's messages are written out by hand; then every
 * one of the paper's 400 tasks (nreHieW/fyp `data/questions/corrupted_solutions_manual_easy_400.jsonl`,
 * read at run time from MINEDIT_FYP_DIR, never copied here: tests/setup/external-data.ts) is imported as
 * `tasks build --format corrupted` imports it, and its prompt must equal what tests/oracle/paper_prompt.py
 * (our statement of the authors' template, run by CPython) builds from the raw upstream row. The same
 * comparison runs on hand-made rows everywhere; without MINEDIT_FYP_DIR the paper's rows skip, saying why.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../src/core/prompt/message.js";
import { type PromptStyle, promptMessages } from "../../src/core/prompt/repair-prompt.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { importRow } from "../../src/tasks/importers/import-file.js";
import { paperTasks } from "../setup/external-data.js";
import { skipFor } from "../setup/skip.js";

const ORACLE = join(import.meta.dirname, "..", "oracle", "paper_prompt.py");
const F = "```";

type UpstreamRow = Record<string, unknown> & { prompt: string; corrupted_solution: string };

function oracle(items: readonly { row: UpstreamRow; style: PromptStyle }[]): Message[][] {
  const run = spawnSync("python3", [ORACLE], {
    input: JSON.stringify(items),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Message[][];
}

/** The paper's 400 rows (MINEDIT_FYP_DIR), or why they are not on this machine. */
const PAPER = paperTasks();
const paperRows = (): UpstreamRow[] =>
  (PAPER.value ?? "")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as UpstreamRow);

/** Rows in the paper's shape, with the statement quirks that matter: a ``` fence at the end, spaces. */
const HAND_ROWS: UpstreamRow[] = [
  {
    task_id: "hand/0",
    prompt: `Double a number.\nYou should write self-contained code starting with:\n${F}\ndef task_func(x):\n${F}`,
    corrupted_solution: "def task_func(x):\n    return x * 3",
    canonical_solution: "def task_func(x):\n    return x * 2",
    test_code:
      "import unittest\nclass TestCases(unittest.TestCase):\n    def test_two(self):\n        self.assertEqual(task_func(2), 4)\n",
    mutation_type: "mutate_numeric_constants",
  },
  {
    task_id: "hand/1",
    prompt: "  Sum a list.  \n",
    corrupted_solution:
      "def task_func(xs):\n    total = 1\n    for x in xs:\n        total += x\n    return total\n",
    canonical_solution:
      "def task_func(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n",
    test_code:
      "import unittest\nclass TestCases(unittest.TestCase):\n    def test_sum(self):\n        self.assertEqual(task_func([1, 2]), 3)\n",
    mutation_types: ["mutate_accumulator_init"],
  },
];

beforeAll(async () => {
  await loadPythonGrammar();
});

describe("the paper's own prompts", () => {
  it("are the authors' template, written out by hand", () => {
    const generic = promptMessages("Add one", "def f(x):\n    return x", "paper-generic");
    expect(generic).toEqual([
      {
        role: "system",
        content:
          "You are a Python Expert specializing in code analysis and debugging. When provided with a problem statement, your task is to fix the code.\nDo not change the function signature, default arguments, or docstring. Use the docstring to understand the requirements of the function.",
      },
      {
        role: "user",
        content:
          "I am trying to implement a function with the following specifications:\nAdd one.\n\nThe function I have written so far is:\ndef f(x):\n    return x \n\nWhat is wrong? Fix and complete my function.Wrap your response in ```python and ```",
      },
    ]);
    const explicit = promptMessages("Add one.", "def f(x):\n    return x\n", "paper-explicit");
    expect(explicit).toEqual([
      {
        role: "system",
        content:
          "You are a Python Expert specializing in code analysis and debugging. When provided with a problem statement, your task is to fix the code while preserving as much of the original code as possible.\nDo not change the function signature, default arguments, or docstring. Use the docstring to understand the requirements of the function.\nIMPORTANT: Try to preserve the original code and the logic of the original code as much as possible.",
      },
      {
        role: "user",
        // a statement ending in "." still gets the template's "."; a trailing newline stays before " \n\n"
        content:
          "I am trying to implement a function with the following specifications:\nAdd one..\n\nThe function I have written so far is:\ndef f(x):\n    return x\n \n\nWhat is wrong? Fix and complete my function but keep as much of the original code as possible.Wrap your response in ```python and ```",
      },
    ]);
  });

  it("leave minedit's own generic and explicit prompts as they were", () => {
    const [system, user] = promptMessages("Add one", "def f(x):\n    return x", "explicit");
    expect(system?.content).toBe(
      "You are a Python Expert specializing in code analysis and debugging. When provided with a problem statement, your task is to fix the code.\nDo not change the function signature, default arguments, or docstring. Use the docstring to understand the requirements of the function.",
    );
    expect(user?.content).toBe(
      "I am trying to implement a function with the following specifications:\nAdd one.\n\nThe function I have written so far is:\n```python\ndef f(x):\n    return x\n```\n\nWhat is wrong? Fix and complete my function but keep as much of the original code as possible.\n\nWrap your response in ```python and ```",
    );
  });

  /** Rows whose prompts differ from what CPython's statement of the authors' template builds. */
  function differingPrompts(rows: readonly UpstreamRow[]): string[] {
    const styles: PromptStyle[] = ["paper-generic", "paper-explicit"];
    const items = rows.flatMap((row) => styles.map((style) => ({ row, style })));
    const expected = oracle(items);
    return items.flatMap(({ row, style }, i) => {
      // what `tasks build --format corrupted` keeps of the row: the statement and the corrupted program
      const problem = importRow("corrupted", row);
      expect(problem.statement).toBe(row.prompt);
      const ours = promptMessages(problem.statement, problem.corrupted?.program ?? "", style);
      return JSON.stringify(ours) === JSON.stringify(expected[i]) ? [] : [`${String(row.task_id)} ${style}`];
    });
  }

  it("equal CPython's from the raw row for hand-made rows in the paper's shape", () => {
    expect(differingPrompts(HAND_ROWS)).toEqual([]);
  });

  it("equal CPython's from the raw row for every imported paper task", skipFor(PAPER.reason), () => {
    const rows = paperRows();
    expect(rows).toHaveLength(400);
    expect(differingPrompts(rows)).toEqual([]);
  });
});
