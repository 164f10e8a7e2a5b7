/**
 * Performance retention (the over-editing paper's LiveCodeBench v6 check, §4.2 "RL preserves broader
 * coding ability"): plain generation problems — statement → program, judged by the problem's tests in the
 * sandbox — whose Pass@1 is compared with a base run's (`minedit eval compare BASE RUN`). Two suites:
 *
 * - `bigcodebench`: BigCodeBench's instruct prompts (the v0.1 `complete` split file,
 *   `BigCodeBench.jsonl.gz`, read at run time from where the user has it). Prompt: BigCodeBench's own chat
 *   prompt for instruct models (bigcodebench/provider/utility.py `make_raw_chat_prompt`: the instruction
 *   prefix, then `instruct_prompt` in a fence). Tests: its `TestCases` unittest class. Gold: the canonical
 *   solution, so the ground-truth gate checks each problem here first. Problems that import libraries
 *   beyond the standard library need the `bigcodebench` task runtime (sandbox/runtimes.json): with it
 *   installed their rows carry `runtime: "bigcodebench"`; without it they are excluded, and listed.
 * - `livecodebench`: LiveCodeBench's released problems (`code_generation_lite`, JSON or JSONL). Fields read:
 *   `question_id`, `question_title`, `question_content`, `starter_code`, `public_test_cases` and
 *   `private_test_cases` (JSON strings of `[{input, output, testtype}]`; the private ones may be
 *   base64 + zlib + pickle of that string, as the release stores them), `metadata` (JSON with
 *   `func_name` for functional problems), `platform`, `contest_date`, `difficulty`. Prompt: LiveCodeBench's
 *   code-generation prompt for chat models (lcb_runner/prompts/code_generation.py). `stdin` tests become
 *   stdio cases; `functional` tests call `Solution().<func_name>(*args)` with the JSON-decoded arguments
 *   (one per input line) and compare with the decoded output. The release has no reference solutions, so
 *   these tasks are scored without the gate. One difference from LiveCodeBench's harness: the program runs
 *   as written, without its implicit `from typing import *` preamble.
 *
 * A suite's tasks are generation tasks (eval-task.ts) in domain `retention:<suite>`, and rows the scoring
 * engine loads (corrupted program empty), written to the run directory.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync, inflateSync } from "node:zlib";
import type { Message } from "../core/prompt/message.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import { nonStandardLibraries } from "../core/python/stdlib-modules.js";
import { ErrorCode, MineditError } from "../errors.js";
import { fsReason } from "../io/inputs.js";
import { importRow } from "../tasks/importers/import-file.js";
import type { EvalTask } from "./eval-task.js";

export const RETENTION_SUITES = ["bigcodebench", "livecodebench"] as const;
export type RetentionSuite = (typeof RETENTION_SUITES)[number];

/** A suite's problems: the tasks to evaluate, the engine's task rows, and the problems left out. */
export type RetentionSet = {
  suite: RetentionSuite;
  tasks: EvalTask[];
  rows: Record<string, unknown>[];
  /** Problems that cannot be evaluated here, with why (they are listed as excluded). */
  excluded: { task: EvalTask; reason: string }[];
  /** Whether the engine's ground-truth gate applies (the suite has reference solutions). */
  gated: boolean;
};

/** BigCodeBench's instruction prefix for chat models (make_raw_chat_prompt). */
export const BIGCODEBENCH_INSTRUCTION =
  "Please provide a self-contained Python script that solves the following problem in a markdown code block:";

/** The BigCodeBench instruct prompt of a problem. */
export function bigCodeBenchMessages(instructPrompt: string): Message[] {
  return [
    { role: "user", content: `${BIGCODEBENCH_INSTRUCTION}\n\`\`\`\n${instructPrompt.trim()}\n\`\`\`\n` },
  ];
}

async function readText(path: string, what: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new MineditError(ErrorCode.InvalidArgument, `${what}: cannot read ${path}: ${fsReason(error)}`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new MineditError(
        ErrorCode.InvalidArgument,
        `${what}: ${path} is not valid gzip: ${(error as Error).message}`,
      );
    }
  }
  return bytes.toString("utf8");
}

/** Rows of a JSON array or JSONL text. */
function jsonRows(text: string, path: string, what: string): Record<string, unknown>[] {
  const trimmed = text.replace(/^\uFEFF/, "").trimStart();
  const fail = (where: string, error: unknown): never => {
    throw new MineditError(ErrorCode.InvalidArgument, `${what}: ${where}: ${(error as Error).message}`);
  };
  let values: unknown[];
  if (trimmed.startsWith("[")) {
    try {
      values = JSON.parse(trimmed) as unknown[];
    } catch (error) {
      return fail(path, error);
    }
  } else {
    values = [];
    trimmed.split("\n").forEach((line, index) => {
      if (line.trim() === "") return;
      try {
        values.push(JSON.parse(line));
      } catch (error) {
        fail(`${path}:${index + 1}`, error);
      }
    });
  }
  return values.filter(
    (v): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v),
  );
}

export type BigCodeBenchOptions = {
  /** Whether the `bigcodebench` runtime is installed (then problems with libraries are evaluated). */
  runtimeInstalled: boolean;
  /** The first `limit` problems of the file only. */
  limit?: number;
};

/**
 * The BigCodeBench suite from `path` (`BigCodeBench.jsonl.gz` or the uncompressed JSONL).
 *
 * @throws MineditError `InvalidArgument` when the file cannot be read.
 */
export async function loadBigCodeBench(path: string, options: BigCodeBenchOptions): Promise<RetentionSet> {
  await loadPythonGrammar();
  const rows = jsonRows(await readText(path, "--bigcodebench"), path, "--bigcodebench");
  const set: RetentionSet = { suite: "bigcodebench", tasks: [], rows: [], excluded: [], gated: true };
  for (const row of rows.slice(0, options.limit ?? rows.length)) {
    const problem = importRow("bigcodebench", row);
    const instruct =
      typeof row.instruct_prompt === "string" && row.instruct_prompt.trim() !== ""
        ? row.instruct_prompt
        : problem.statement;
    const task: EvalTask = {
      taskId: problem.problemId,
      kind: "generation",
      problemId: problem.problemId,
      domain: "retention:bigcodebench",
      families: [],
      messages: bigCodeBenchMessages(instruct),
      corrupted: "",
      gold: problem.solution,
      language: "python",
    };
    const libraries = nonStandardLibraries(problem.libraries ?? []);
    if (libraries.length > 0 && !options.runtimeInstalled) {
      set.excluded.push({
        task,
        reason: `needs ${libraries.join(", ")}: the bigcodebench task runtime is not installed (minedit setup --runtime bigcodebench)`,
      });
      continue;
    }
    set.tasks.push(task);
    set.rows.push({
      task_id: task.taskId,
      problem_id: task.problemId,
      statement: instruct,
      entry_point: problem.entryPoint,
      gold: problem.solution,
      corrupted: "",
      tests: problem.tests,
      split: "retention",
      source: "bigcodebench",
      ...(libraries.length > 0 ? { runtime: "bigcodebench" } : {}),
    });
  }
  return set;
}

// ---- LiveCodeBench -------------------------------------------------------------------------------------

/** LiveCodeBench's system prompt for chat models. */
export const LIVECODEBENCH_SYSTEM =
  "You are an expert Python programmer. You will be given a question (problem specification) and will " +
  "generate a correct Python program that matches the specification and passes all tests.";

/** The LiveCodeBench code-generation prompt of a problem. */
export function liveCodeBenchMessages(question: string, starterCode: string): Message[] {
  const format =
    starterCode.trim() !== ""
      ? "### Format: You will use the following starter code to write the solution to the problem and enclose " +
        `your code within delimiters.\n\`\`\`python\n${starterCode}\n\`\`\`\n\n`
      : "### Format: Read the inputs from stdin solve the problem and write the answer to stdout (do not " +
        "directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when " +
        "the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.\n" +
        "```python\n# YOUR CODE HERE\n```\n\n";
  return [
    { role: "system", content: LIVECODEBENCH_SYSTEM },
    {
      role: "user",
      content: `### Question:\n${question}\n\n${format}### Answer: (use the provided format with backticks)\n\n`,
    },
  ];
}

/**
 * A pickled Python `str` (protocols 2–5: PROTO, FRAME, SHORT_BINUNICODE / BINUNICODE / BINUNICODE8,
 * MEMOIZE / BINPUT, STOP) — what LiveCodeBench's release stores its private tests as, after base64 and
 * zlib. Anything else is refused (no general unpickler: a pickle can run code in Python).
 */
export function unpickleString(bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  let value: string | null = null;
  const fail = (why: string): never => {
    throw new MineditError(ErrorCode.InvalidArgument, `private_test_cases: not a pickled string (${why})`);
  };
  const need = (count: number) => {
    if (at + count > bytes.length) fail("truncated");
  };
  const text = (length: number) => {
    need(length);
    const s = Buffer.from(bytes.buffer, bytes.byteOffset + at, length).toString("utf8");
    at += length;
    return s;
  };
  while (at < bytes.length) {
    const op = bytes[at++] as number;
    switch (op) {
      case 0x80: // PROTO
        need(1);
        at += 1;
        break;
      case 0x95: // FRAME
        need(8);
        at += 8;
        break;
      case 0x8c: // SHORT_BINUNICODE
        need(1);
        value = text(bytes[at++] as number);
        break;
      case 0x58: // BINUNICODE
        need(4);
        at += 4;
        value = text(view.getUint32(at - 4, true));
        break;
      case 0x8d: {
        // BINUNICODE8
        need(8);
        const length = Number(view.getBigUint64(at, true));
        at += 8;
        value = text(length);
        break;
      }
      case 0x94: // MEMOIZE
        break;
      case 0x71: // BINPUT
        need(1);
        at += 1;
        break;
      case 0x2e: // STOP
        if (value === null) fail("no string before STOP");
        return value as string;
      default:
        fail(`opcode 0x${op.toString(16)}`);
    }
  }
  return fail("no STOP");
}

type LcbCase = { input: string; output: string; testtype: string };

function parseCases(value: unknown, field: string): LcbCase[] {
  if (value === undefined || value === null || value === "") return [];
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      try {
        parsed = JSON.parse(unpickleString(inflateSync(Buffer.from(value, "base64"))));
      } catch (error) {
        throw new MineditError(
          ErrorCode.InvalidArgument,
          `${field}: neither JSON nor base64-zlib-pickle: ${(error as Error).message}`,
        );
      }
    }
  }
  if (!Array.isArray(parsed))
    throw new MineditError(ErrorCode.InvalidArgument, `${field}: expected a list of cases`);
  return parsed.map((c, i) => {
    const item = c as Record<string, unknown>;
    if (typeof item?.input !== "string" || typeof item.output !== "string") {
      throw new MineditError(ErrorCode.InvalidArgument, `${field}[${i}]: expected {input, output, testtype}`);
    }
    return {
      input: item.input,
      output: item.output,
      testtype: typeof item.testtype === "string" ? item.testtype : "stdin",
    };
  });
}

/** The assert-style check of LiveCodeBench's functional tests. */
export function functionalCheck(funcName: string, cases: readonly LcbCase[]): string {
  const data = JSON.stringify(cases.map((c) => [c.input, c.output]));
  return [
    "def check(candidate):",
    "    import json",
    `    cases = json.loads(${JSON.stringify(data)})`,
    "    for given, expected in cases:",
    "        args = [json.loads(line) for line in given.split('\\n') if line.strip() != '']",
    `        assert getattr(candidate(), ${JSON.stringify(funcName)})(*args) == json.loads(expected)`,
    "",
  ].join("\n");
}

/**
 * The LiveCodeBench suite from `path` (JSON array or JSONL, optionally gzipped).
 *
 * @throws MineditError `InvalidArgument` when the file cannot be read or a row is malformed.
 */
export async function loadLiveCodeBench(
  path: string,
  options: { limit?: number } = {},
): Promise<RetentionSet> {
  const rows = jsonRows(await readText(path, "--livecodebench"), path, "--livecodebench");
  const set: RetentionSet = { suite: "livecodebench", tasks: [], rows: [], excluded: [], gated: false };
  rows.slice(0, options.limit ?? rows.length).forEach((row, index) => {
    const where = `${path}: row ${index + 1}`;
    const id =
      typeof row.question_id === "string" || typeof row.question_id === "number"
        ? String(row.question_id)
        : null;
    const question = typeof row.question_content === "string" ? row.question_content : null;
    if (id === null || question === null) {
      throw new MineditError(
        ErrorCode.InvalidArgument,
        `--livecodebench ${where}: needs question_id and question_content`,
      );
    }
    const starter = typeof row.starter_code === "string" ? row.starter_code : "";
    const taskId = `livecodebench/${id}`;
    const task: EvalTask = {
      taskId,
      kind: "generation",
      problemId: taskId,
      domain: "retention:livecodebench",
      families: [],
      messages: liveCodeBenchMessages(question, starter),
      corrupted: "",
      gold: "",
      language: "python",
    };
    let cases: LcbCase[];
    try {
      cases = [
        ...parseCases(row.public_test_cases, "public_test_cases"),
        ...parseCases(row.private_test_cases, "private_test_cases"),
      ];
    } catch (error) {
      set.excluded.push({ task, reason: (error as Error).message.replace(/^\[\w+\] /, "") });
      return;
    }
    if (cases.length === 0) {
      set.excluded.push({ task, reason: "no test cases" });
      return;
    }
    let tests: Record<string, unknown>;
    let entryPoint = "";
    if (cases.some((c) => c.testtype === "functional")) {
      let funcName: unknown;
      try {
        funcName = (
          JSON.parse(typeof row.metadata === "string" ? row.metadata : "{}") as Record<string, unknown>
        ).func_name;
      } catch {
        funcName = undefined;
      }
      if (typeof funcName !== "string" || funcName === "") {
        set.excluded.push({ task, reason: "functional tests without metadata.func_name" });
        return;
      }
      tests = { style: "assert", code: functionalCheck(funcName, cases) };
      entryPoint = "Solution";
    } else {
      tests = { style: "stdio", cases: cases.map((c) => ({ input: c.input, output: c.output })) };
    }
    set.tasks.push(task);
    set.rows.push({
      task_id: taskId,
      problem_id: taskId,
      statement: question,
      entry_point: entryPoint,
      gold: "",
      corrupted: "",
      tests,
      split: "retention",
      source: "livecodebench",
    });
  });
  return set;
}
