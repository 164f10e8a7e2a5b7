/**
 * The problem-source importers (src/importers/) on fixtures written for this project in each source's
 * format (tests/fixtures/importers/, a few good rows and one or two bad ones each): every field mapping,
 * format detection, bad rows reported by line and reason while the good ones import, the JSON → Python
 * literal printer against CPython (`ast.literal_eval` of the literal equals `json.loads` of the JSON),
 * docstrings and the standard-library list against CPython, and every imported gold program run against
 * its tests in the real sandbox (and every corrupted one failing them), so the fixtures are real.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import {
  isStandardLibraryModule,
  nonStandardLibraries,
  standardLibraryModules,
} from "../../src/core/python/stdlib-modules.js";
import { ErrorCode, isMineditError } from "../../src/errors.js";
import { runPythonTests } from "../../src/runners/python.js";
import { type BwrapSandbox, createBwrapSandbox } from "../../src/sandbox/bwrap.js";
import { runtimeForLibraries } from "../../src/sandbox/runtime-for-libraries.js";
import { DEFAULT_LIMITS } from "../../src/sandbox/sandbox.js";
import {
  detectFormat,
  importFile,
  importRow,
  isImportFormat,
} from "../../src/tasks/importers/import-file.js";
import {
  JsonNumber,
  parseLosslessJson,
  parseLosslessJsonArray,
  toPlainJson,
} from "../../src/tasks/importers/json-lossless.js";
import { pythonLiteral } from "../../src/tasks/importers/python-literal.js";
import { cleandoc } from "../../src/tasks/importers/python-source.js";
import { runnerTests } from "../../src/tasks/importers/runner-tests.js";
import type { ImportedRow, ImportFormat, Problem } from "../../src/tasks/importers/types.js";
import { bigCodeBenchFile } from "../setup/external-data.js";
import { skipFor } from "../setup/skip.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/importers/", import.meta.url));
const SEED = fileURLToPath(new URL("../../datasets/seed/problems.jsonl", import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
/** BigCodeBench's own release file (MINEDIT_DATA_DIR), read where it is, or why it is not on this machine. */
const BCB = bigCodeBenchFile();

/** The raw rows of a JSONL fixture by line number, to compare the mapping against. */
function rawRows(name: string): Map<number, Record<string, unknown>> {
  const rows = new Map<number, Record<string, unknown>>();
  readFileSync(fixture(name), "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() !== "") rows.set(i + 1, JSON.parse(line));
    });
  return rows;
}

async function collect(path: string, format?: ImportFormat): Promise<ImportedRow[]> {
  const rows: ImportedRow[] = [];
  for await (const row of importFile(path, format)) rows.push(row);
  return rows;
}

const problemsOf = (rows: ImportedRow[]) =>
  rows.flatMap((r) => ("problem" in r ? [{ line: r.line, problem: r.problem }] : []));
const errorsOf = (rows: ImportedRow[]) => rows.flatMap((r) => ("error" in r ? [[r.line, r.error]] : []));
const problemAt = (rows: ImportedRow[], line: number): Problem => {
  const row = rows.find((r) => r.line === line);
  if (row === undefined || !("problem" in row))
    throw new Error(`line ${line} did not import: ${JSON.stringify(row)}`);
  return row.problem;
};

/** Runs python3 (the oracle) on a script with JSON on stdin, JSON on stdout. */
function python(script: string, input: unknown): unknown {
  const r = spawnSync("python3", ["-c", script], { input: JSON.stringify(input), maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString());
}

const FIXTURE_FILES = {
  bigcodebench: "bigcodebench.jsonl",
  humaneval: "humaneval.jsonl",
  mbpp: "mbpp.jsonl",
  "deepcoder-stdio": "deepcoder-stdio.jsonl",
  "deepcoder-fn": "deepcoder-fn.json",
  corrupted: "corrupted.jsonl",
} as const;
const imported = new Map<string, ImportedRow[]>();

beforeAll(async () => {
  await loadPythonGrammar();
  for (const [key, file] of Object.entries(FIXTURE_FILES)) imported.set(key, await collect(fixture(file)));
});

const rowsOf = (key: keyof typeof FIXTURE_FILES): ImportedRow[] => imported.get(key) ?? [];

describe("bigcodebench", () => {
  const raw = rawRows("bigcodebench.jsonl");

  test("maps every field; statement is instruct_prompt, else the entry point's docstring", () => {
    const rows = rowsOf("bigcodebench");
    const first = raw.get(1) ?? {};
    expect(problemAt(rows, 1)).toEqual({
      problemId: "bigcodebench/MineditBCB/1",
      statement: first.instruct_prompt,
      entryPoint: "task_func",
      solution: `${first.complete_prompt}${first.canonical_solution}`,
      tests: { style: "unittest", code: first.test },
      source: "bigcodebench",
      libraries: ["collections", "re", "unittest"],
      runtime: "stdlib",
    });
    const second = problemAt(rows, 2);
    expect(second.statement).toBe(docstringOracle(second.solution, "task_func"));
    expect(second.statement.startsWith("Summarise temperature readings")).toBe(true);
    // libs given as an array, joined with what the program and the tests import.
    expect(second.libraries).toEqual(["statistics", "unittest"]);
  });

  test("a program that does not parse and tests without TestCases are reported by line", () => {
    expect(errorsOf(rowsOf("bigcodebench"))).toEqual([
      [
        3,
        "the program complete_prompt + canonical_solution does not parse as Python 3.11: invalid syntax at line 3: the program ends too early",
      ],
      [4, 'field "test" defines no TestCases(unittest.TestCase) class'],
    ]);
  });

  test("libs: a Python list literal, a JSON list, an array; anything else is rejected naming the field", () => {
    const base = raw.get(1) ?? {};
    const libs = (value: unknown) => importRow("bigcodebench", { ...base, libs: value }).libraries;
    expect(libs("['pandas', \"numpy\"]")).toEqual(["collections", "numpy", "pandas", "re", "unittest"]);
    expect(libs('["scipy"]')).toContain("scipy");
    expect(libs([])).toEqual(["collections", "re", "unittest"]);
    expect(() => libs("pandas numpy")).toThrow('field "libs": expected a list literal of module names');
    expect(() => libs("[1, 2]")).toThrow('field "libs"');
    expect(() => libs(3)).toThrow('field "libs": expected a list of module names');
  });
});

describe("humaneval", () => {
  const raw = rawRows("humaneval.jsonl");

  test("gold = prompt + canonical_solution, tests = test (assert), statement = the docstring", () => {
    const rows = rowsOf("humaneval");
    for (const line of [1, 2]) {
      const row = raw.get(line) ?? {};
      const problem = problemAt(rows, line);
      expect(problem).toEqual({
        problemId: `humaneval/${row.task_id}`,
        statement: docstringOracle(problem.solution, String(row.entry_point)),
        entryPoint: row.entry_point,
        solution: `${row.prompt}${row.canonical_solution}`,
        tests: { style: "assert", code: row.test },
        source: "humaneval",
        libraries: line === 2 ? ["typing"] : [],
        runtime: "stdlib",
      });
    }
    expect(problemAt(rows, 1).statement.startsWith("Return the length of the longest run")).toBe(true);
  });

  test("tests without check() and a missing entry_point are reported by line", () => {
    expect(errorsOf(rowsOf("humaneval"))).toEqual([
      [3, 'field "test" defines no check(candidate) function'],
      [4, 'missing field "entry_point"'],
    ]);
  });

  test("an entry point the program does not define is rejected", () => {
    const row = { ...(raw.get(1) ?? {}), entry_point: "longest_run" };
    expect(() => importRow("humaneval", row)).toThrow('does not define the entry point "longest_run"');
  });
});

describe("mbpp", () => {
  const raw = rawRows("mbpp.jsonl");

  test("gold = code; the asserts go into check(candidate) after the setup code; entry = first defined callee", () => {
    const rows = rowsOf("mbpp");
    expect(problemAt(rows, 1)).toEqual({
      problemId: "mbpp/9001",
      statement: raw.get(1)?.text,
      entryPoint: "sum_even_digits",
      solution: raw.get(1)?.code,
      tests: {
        style: "assert",
        code:
          "def check(candidate):\n" +
          "    assert sum_even_digits(2486) == 20\n" +
          "    assert sum_even_digits(1357) == 0\n" +
          "    assert sum_even_digits(0) == 0\n",
      },
      source: "mbpp",
      libraries: [],
      runtime: "stdlib",
    });
    // `isclose` is called first but the program does not define it; `_disc` is defined but not called.
    const ring = problemAt(rows, 2);
    expect(ring.entryPoint).toBe("ring_area");
    expect(ring.tests).toEqual({
      style: "assert",
      code:
        "import math\nfrom math import isclose\n\n\ndef check(candidate):\n" +
        "    assert isclose(ring_area(2, 1), 3 * math.pi)\n" +
        "    assert isclose(ring_area(5, 5), 0.0)\n" +
        "    assert isclose(ring_area(3, 0), 9 * math.pi)\n" +
        // challenge_test_list is kept too
        "    assert isclose(ring_area(10, 9), 19 * math.pi)\n",
    });
    expect(ring.libraries).toEqual(["math"]);
  });

  test("an ill-typed test_list and Python 2 code are reported by line", () => {
    expect(errorsOf(rowsOf("mbpp"))).toEqual([
      [
        3,
        `field "test_list": expected an array of assert lines, got string "assert reverse_words('a b') == 'b a'"`,
      ],
      [
        4,
        "field \"code\" does not parse as Python 3.11: invalid syntax: Missing parentheses in call to 'print' at line 2",
      ],
    ]);
  });

  test("an assert over several lines is re-printed on one line; a non-assert line is rejected", () => {
    const base = raw.get(1) ?? {};
    const multi = importRow("mbpp", { ...base, test_list: ["assert sum_even_digits(\n    28\n) == 10"] });
    expect(multi.tests).toEqual({
      style: "assert",
      code: "def check(candidate):\n    assert sum_even_digits(28) == 10\n",
    });
    expect(() => importRow("mbpp", { ...base, test_list: ["print(sum_even_digits(2))"] })).toThrow(
      'field "test_list[0]": expected one assert statement',
    );
    expect(() => importRow("mbpp", { ...base, test_list: ["assert len([1]) == 1"] })).toThrow(
      'no assert in field "test_list" calls a function that field "code" defines',
    );
    expect(() => importRow("mbpp", { ...base, test_list: [] })).toThrow('field "test_list": no asserts');
    expect(importRow("mbpp", { ...base, challenge_test_list: null }).problemId).toBe("mbpp/9001");
  });
});

describe("deepcoder: stdin/stdout cases", () => {
  const raw = rawRows("deepcoder-stdio.jsonl");

  test("DeepCoder row: the first solution that parses, stdin cases, an id from the statement", () => {
    const row = raw.get(1) ?? {};
    const solutions = JSON.parse(String(row.solutions)) as string[];
    const statement = String(row.problem);
    const hash = createHash("sha256").update(statement).digest("hex").slice(0, 16);
    expect(problemAt(rowsOf("deepcoder-stdio"), 1)).toEqual({
      problemId: `deepcoder/statement-${hash}`,
      statement,
      entryPoint: "",
      solution: solutions[1],
      tests: {
        style: "stdio",
        cases: (JSON.parse(String(row.tests)) as { input: string; output: string }[]).map(
          ({ input, output }) => ({
            input,
            output,
          }),
        ),
      },
      source: "deepcoder",
      libraries: [],
      runtime: "stdlib",
    });
  });

  test("TACO row: {inputs, outputs} without fn_name, lists of lines joined with newlines", () => {
    const row = raw.get(2) ?? {};
    expect(problemAt(rowsOf("deepcoder-stdio"), 2)).toEqual({
      problemId: "deepcoder/taco-17",
      statement: row.question,
      entryPoint: "",
      solution: (row.solutions as string[])[0],
      tests: {
        style: "stdio",
        cases: [
          { input: "level\nrobot\nnoon\nEND\n", output: "level\nnoon\n2\n" },
          { input: "abc\nEND", output: "0\n" },
          { input: "a\nEND\n", output: "a\n1" },
        ],
      },
      source: "deepcoder",
      libraries: [],
      runtime: "stdlib",
    });
  });

  test("tests as an object in the row, prompt and canonical_solution (line 5, after a blank line)", () => {
    const problem = problemAt(rowsOf("deepcoder-stdio"), 5);
    expect(problem.problemId).toBe("deepcoder/cc-42");
    expect(problem.solution).toBe(raw.get(5)?.canonical_solution);
    expect(problem.tests).toEqual({ style: "stdio", cases: raw.get(5)?.test_cases });
  });

  test("bad JSON in the tests and an empty case list are reported by line", () => {
    expect(errorsOf(rowsOf("deepcoder-stdio"))).toEqual([
      [3, "field \"tests\": invalid JSON: expected ',' or '}' at line 1 column 36"],
      [6, 'field "test_cases": no test cases'],
    ]);
  });
});

describe("deepcoder: function calls (a JSON array file)", () => {
  const raw = JSON.parse(readFileSync(fixture("deepcoder-fn.json"), "utf8")) as Record<string, unknown>[];

  test("LiveCodeBench row: class Solution, JSON-lines inputs, func_name from metadata", () => {
    const problem = problemAt(rowsOf("deepcoder-fn"), 2);
    expect(problem).toEqual({
      problemId: "deepcoder/lcb-3001",
      statement: raw[0]?.question,
      entryPoint: "Solution",
      solution: raw[0]?.solution,
      tests: {
        style: "assert",
        code:
          "def check(candidate):\n" +
          "    assert candidate().widestGap([3, 1, 4, 1, 5], 2) == 4\n" +
          "    assert candidate().widestGap([5, 4, 3], 1) == 0\n" +
          "    assert candidate().widestGap([1, 100, 2, 200], 1) == 198\n",
      },
      source: "deepcoder",
      libraries: ["typing"],
      runtime: "stdlib",
    });
  });

  test("TACO row: fn_name in an inline object, exact big ints and floats, APPS-wrapped outputs", () => {
    const problem = problemAt(rowsOf("deepcoder-fn"), 27);
    expect(problem.entryPoint).toBe("scale");
    expect(problem.tests).toEqual({
      style: "assert",
      code:
        "def check(candidate):\n" +
        "    assert candidate([1, 2, 3], 2) in ([[2, 4, 6]], [2, 4, 6])\n" +
        "    assert candidate([12345678901234567890, -1], 3) in ([[37037036703703703670, -3]], [37037036703703703670, -3])\n" +
        "    assert candidate([0.5, 1.0], 4) in ([[2.0, 4.0]], [2.0, 4.0])\n" +
        "    assert candidate([], 7) in ([[]], [])\n",
    });
  });

  test("nested values: null, booleans, dicts, quotes, escapes and non-ASCII text", () => {
    const problem = problemAt(rowsOf("deepcoder-fn"), 37);
    expect(problem.tests.style === "assert" && problem.tests.code).toContain(
      "assert candidate({'name': 'émile\\n\\\\tab', 'active': False, 'tags': None}) == {'NAME': 'ÉMILE\\n\\\\TAB', 'active': False, 'tags': 0}",
    );
  });

  test("a missing function and a non-object element are reported at the element's line", () => {
    expect(errorsOf(rowsOf("deepcoder-fn"))).toEqual([
      [43, 'the solution defines neither a function "double" nor a class Solution with a method "double"'],
      [53, "expected a JSON object, got number"],
    ]);
  });

  test("importRow with tests as a JSON string keeps big ints exact; mixed case types are rejected", () => {
    const row = {
      problem: "Add one.",
      solution: "def inc(x):\n    return x + 1\n",
      tests:
        '{"fn_name": "inc", "inputs": [[98765432109876543210987]], "outputs": [98765432109876543210988]}',
    };
    const tests = importRow("deepcoder", row).tests;
    expect(tests).toEqual({
      style: "assert",
      code: "def check(candidate):\n    assert candidate(98765432109876543210987) == 98765432109876543210988\n",
    });
    const mixed = JSON.stringify([
      { input: "1", output: "2", testtype: "functional" },
      { input: "1\n", output: "2\n", testtype: "stdin" },
    ]);
    expect(() => importRow("deepcoder", { ...row, tests: mixed })).toThrow(
      "mixes stdin and functional test cases",
    );
    const unnamed = JSON.stringify([{ input: "1", output: "2", testtype: "functional" }]);
    expect(() => importRow("deepcoder", { ...row, tests: unnamed })).toThrow("need a function name");
    expect(() => importRow("deepcoder", { ...row, tests: '{"inputs": [1], "outputs": []}' })).toThrow(
      "1 inputs but 0 outputs",
    );
    expect(() => importRow("deepcoder", { problem: "x", solutions: "[]", tests: row.tests })).toThrow(
      'field "solutions": no solution program',
    );
    expect(() => importRow("deepcoder", { ...row, solution: ["print 1", "exec 'x'"] })).toThrow(
      'none of the 2 programs parses; the first: field "solution"[0] does not parse as Python 3.11',
    );
  });
});

describe("corrupted", () => {
  const raw = rawRows("corrupted.jsonl");

  test("unittest and assert styles detected from test_code; corrupted program and families kept", () => {
    const rows = rowsOf("corrupted");
    const first = raw.get(1) ?? {};
    expect(problemAt(rows, 1)).toEqual({
      problemId: "corrupted/mut-1",
      statement: first.problem,
      entryPoint: "clamp_scores",
      solution: first.canonical_solution,
      tests: { style: "unittest", code: first.test_code },
      source: "corrupted",
      libraries: ["unittest"],
      runtime: "stdlib",
      corrupted: {
        program: first.corrupted_solution,
        families: ["comparison_operators", "comparison_operators"],
      },
    });
    const second = raw.get(2) ?? {};
    expect(problemAt(rows, 2)).toEqual({
      problemId: "corrupted/mut-2",
      statement: second.prompt,
      // No entry_point field: the canonical solution's only function.
      entryPoint: "running_totals",
      solution: second.canonical_solution,
      tests: { style: "assert", code: second.test_code },
      source: "corrupted",
      libraries: [],
      runtime: "stdlib",
      corrupted: { program: second.corrupted_solution, families: ["accumulator_initialization"] },
    });
  });

  test("tests of no known style and a corruption that changes nothing are reported by line", () => {
    expect(errorsOf(rowsOf("corrupted"))).toEqual([
      [
        3,
        'field "test_code" defines neither a TestCases(unittest.TestCase) class nor a check(candidate) function',
      ],
      [4, 'field "corrupted_solution" is the canonical solution once normalized: nothing to repair'],
    ]);
  });

  test("mutation_types as a JSON string or one name; neither field is an error", () => {
    const base = { ...(raw.get(2) ?? {}) };
    delete base.mutation_type;
    const families = (value: unknown) =>
      importRow("corrupted", { ...base, mutation_types: value }).corrupted?.families;
    expect(families('["a", "b"]')).toEqual(["a", "b"]);
    expect(families("range_bounds")).toEqual(["range_bounds"]);
    expect(() => families([])).toThrow('field "mutation_types": expected at least one family');
    expect(() => importRow("corrupted", base)).toThrow('missing field "mutation_type" (or "mutation_types")');
  });
});

describe("minedit seed problems", () => {
  test("all 60 seed problems import with their fields unchanged", async () => {
    const rows = await collect(SEED);
    expect(errorsOf(rows)).toEqual([]);
    const raw = rawRowsOf(SEED);
    expect(rows).toHaveLength(raw.length);
    for (const [i, { problem }] of problemsOf(rows).entries()) {
      const row = raw[i] as Record<string, unknown>;
      expect(problem).toMatchObject({
        problemId: `minedit/${row.problem_id}`,
        statement: row.statement,
        entryPoint: row.entry_point,
        solution: row.solution,
        tests: row.tests,
        source: "minedit",
      });
    }
  });

  test("stdio tests with a tolerance, and bad test shapes naming the nested field", () => {
    const row = {
      problem_id: "p",
      statement: "Echo.",
      entry_point: "",
      solution: "print(input())\n",
      tests: { style: "stdio", cases: [{ input: "1\n", output: "1\n" }], float_tolerance: 0.001 },
    };
    expect(importRow("minedit", row).tests).toEqual(row.tests);
    const withTests = (tests: unknown) => () => importRow("minedit", { ...row, tests });
    expect(withTests({ style: "stdio", cases: [] })).toThrow('field "tests.cases": expected test cases');
    expect(withTests({ style: "stdio", cases: [{ input: 1, output: "" }] })).toThrow(
      'field "tests.cases[0].input": expected a string, got number 1',
    );
    expect(withTests({ style: "pytest", code: "" })).toThrow(
      'field "tests.style": expected "unittest", "assert" or "stdio"',
    );
    expect(withTests({ style: "assert" })).toThrow('missing field "tests.code"');
    expect(withTests("x")).toThrow('field "tests": expected an object');
  });
});

function rawRowsOf(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

describe("format detection and file handling", () => {
  test("each fixture's rows are detected as their format", () => {
    const expected: Record<keyof typeof FIXTURE_FILES, ImportFormat> = {
      bigcodebench: "bigcodebench",
      humaneval: "humaneval",
      mbpp: "mbpp",
      "deepcoder-stdio": "deepcoder",
      "deepcoder-fn": "deepcoder",
      corrupted: "corrupted",
    };
    for (const [key, format] of Object.entries(expected)) {
      expect(rowsOf(key as keyof typeof FIXTURE_FILES).length).toBeGreaterThan(0);
      for (const { problem } of problemsOf(rowsOf(key as keyof typeof FIXTURE_FILES))) {
        expect(problem.source).toBe(format);
      }
    }
    for (const row of rawRows("deepcoder-stdio.jsonl").values()) expect(detectFormat(row)).toBe("deepcoder");
    expect(detectFormat(rawRowsOf(SEED)[0] ?? {})).toBe("minedit");
  });

  test("precedence: sources that copy each other's fields", () => {
    const humaneval = rawRows("humaneval.jsonl").get(1) ?? {};
    // A corrupted HumanEval row keeps the HumanEval fields.
    expect(detectFormat({ ...humaneval, corrupted_solution: "x" })).toBe("corrupted");
    // BigCodeBench rows have every HumanEval field too.
    expect(detectFormat({ ...humaneval, complete_prompt: "x" })).toBe("bigcodebench");
    expect(detectFormat(humaneval)).toBe("humaneval");
    // minedit needs tests with a style; a DeepCoder row with an id and a solution is not minedit.
    expect(detectFormat({ problem_id: "x", solution: "", problem: "p", tests: "[]" })).toBe("deepcoder");
    expect(detectFormat({ text: "t", code: "c", test_list: [] })).toBe("mbpp");
    expect(detectFormat({ task_id: 1, code: "x" })).toBeNull();
    expect(isImportFormat("mbpp")).toBe(true);
    expect(isImportFormat("apps")).toBe(false);
  });

  test("--format overrides detection: every row is then judged by that format's fields", async () => {
    const rows = await collect(fixture("humaneval.jsonl"), "mbpp");
    expect(rows.map((r) => ("error" in r ? r.error : "imported"))).toEqual(
      Array(4).fill('missing field "text"'),
    );
  });

  test("bad JSON, non-objects, duplicates and an undetectable format", async () => {
    const dir = mkdtempSync(join(tmpdir(), "minedit-importers-"));
    try {
      const humaneval = readFileSync(fixture("humaneval.jsonl"), "utf8").split("\n")[0];
      const file = join(dir, "mixed.jsonl");
      writeFileSync(file, `\uFEFF{"task_id": 1,\n[1, 2]\n\n${humaneval}\r\n${humaneval}\n"text"\n`);
      const rows = await collect(file);
      expect(
        rows.map((r) => [r.line, "error" in r ? r.error.replace(/:.*/, "") : r.problem.problemId]),
      ).toEqual([
        [1, "invalid JSON"],
        [2, "expected a JSON object, got array"],
        [4, "humaneval/MineditEval/0"],
        [5, 'duplicate problem id "humaneval/MineditEval/0" (first at line 4)'],
        [6, "expected a JSON object, got string"],
      ]);
      const unknown = join(dir, "unknown.jsonl");
      writeFileSync(unknown, 'not json\n{"name": "x", "value": 1}\n');
      await expect(collect(unknown)).rejects.toThrow(
        `${unknown}:2: cannot tell the format from the fields (name, value)`,
      );
      const brokenArray = join(dir, "broken.json");
      writeFileSync(brokenArray, '[\n  {"task_id": 1},\n  {"task_id": 2,,}\n]\n');
      expect(await collect(brokenArray)).toEqual([
        { line: 3, error: "invalid JSON: expected a string key at line 3 column 17" },
      ]);
      await expect(collect(join(dir, "missing.jsonl"))).rejects.toSatisfy(
        (e: unknown) => isMineditError(e) && e.code === ErrorCode.NotFound,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("JSONL DeepCoder rows with tests as an object are re-read losslessly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "minedit-importers-"));
    try {
      const file = join(dir, "inline.jsonl");
      writeFileSync(
        file,
        '{"id": 7, "problem": "Negate.", "solution": "def neg(x):\\n    return -x\\n", ' +
          '"tests": {"fn_name": "neg", "inputs": [[18446744073709551617], [2.0]], "outputs": [-18446744073709551617, -2.0]}}\n',
      );
      const [row] = await collect(file);
      expect(row).toEqual({
        line: 1,
        problem: expect.objectContaining({
          problemId: "deepcoder/7",
          entryPoint: "neg",
          tests: {
            style: "assert",
            code:
              "def check(candidate):\n" +
              "    assert candidate(18446744073709551617) == -18446744073709551617\n" +
              "    assert candidate(2.0) == -2.0\n",
          },
        }),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("gzip sources (BigCodeBench's own .jsonl.gz, a gzipped JSON array) import as their text does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "minedit-importers-"));
    try {
      const text = readFileSync(fixture("bigcodebench.jsonl"));
      const gz = join(dir, "BigCodeBench.jsonl.gz");
      writeFileSync(gz, gzipSync(text));
      expect(await collect(gz)).toEqual(rowsOf("bigcodebench"));
      // Told by the content, not the name.
      const named = join(dir, "plain-name.jsonl");
      writeFileSync(named, gzipSync(text));
      expect(await collect(named, "bigcodebench")).toEqual(rowsOf("bigcodebench"));
      const array = join(dir, "fn.json.gz");
      writeFileSync(array, gzipSync(readFileSync(fixture("deepcoder-fn.json"))));
      expect(await collect(array)).toEqual(await collect(fixture("deepcoder-fn.json")));
      const torn = join(dir, "torn.jsonl.gz");
      writeFileSync(torn, gzipSync(text).subarray(0, 200));
      await expect(collect(torn)).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a problem's runtime: stdlib when every library is standard, else bigcodebench", () => {
    const row = rawRows("bigcodebench.jsonl").get(1) ?? {};
    expect(importRow("bigcodebench", row).runtime).toBe("stdlib");
    const pandas = {
      ...row,
      complete_prompt: `import pandas as pd\n${row.complete_prompt}`,
    };
    expect(importRow("bigcodebench", pandas)).toMatchObject({
      runtime: "bigcodebench",
      libraries: expect.arrayContaining(["pandas"]),
    });
    // Declared in `libs` only, or a submodule (sklearn.cluster), or one no runtime provides.
    expect(importRow("bigcodebench", { ...row, libs: "['numpy', 're']" }).runtime).toBe("bigcodebench");
    expect(runtimeForLibraries(["sklearn.cluster", "os"])).toBe("bigcodebench");
    expect(runtimeForLibraries(["tensorflow"])).toBe("bigcodebench");
    expect(runtimeForLibraries(["os", "unittest.mock"])).toBe("stdlib");
    const corrupted = rawRows("corrupted.jsonl").get(1) ?? {};
    const withNumpy = {
      ...corrupted,
      canonical_solution: `import numpy as np\n${corrupted.canonical_solution}`,
      corrupted_solution: `import numpy as np\n${corrupted.corrupted_solution}`,
    };
    expect(importRow("corrupted", withNumpy).runtime).toBe("bigcodebench");
    expect(runnerTests(importRow("corrupted", withNumpy)).runtime).toBe("bigcodebench");
    expect(runnerTests(importRow("corrupted", corrupted)).runtime).toBeUndefined();
  });

  test("a file laid out like BigCodeBench's release (.jsonl.gz, its row schema): every task imports", async () => {
    // tests/fixtures/importers/bigcodebench-release.jsonl: three tasks written for this project in the
    // release's schema (string `libs` and `doc_struct`, `BigCodeBench/N` ids), so the path the real file
    // takes is tested in every run; the expectations below are written out by hand.
    const text = readFileSync(fixture("bigcodebench-release.jsonl"), "utf8");
    const raw = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, string>);
    const dir = mkdtempSync(join(tmpdir(), "minedit-importers-"));
    try {
      const gz = join(dir, "BigCodeBench.jsonl.gz");
      writeFileSync(gz, gzipSync(text));
      const rows = await collect(gz);
      expect(errorsOf(rows)).toEqual([]);
      expect(
        problemsOf(rows).map(({ problem }) => [problem.problemId, problem.runtime, problem.libraries]),
      ).toEqual([
        ["bigcodebench/BigCodeBench/9001", "stdlib", ["collections", "itertools", "unittest"]],
        ["bigcodebench/BigCodeBench/9002", "bigcodebench", ["numpy", "pandas", "unittest"]],
        // numpy only in the tests: the sandbox still needs it.
        ["bigcodebench/BigCodeBench/9003", "bigcodebench", ["numpy", "random", "unittest"]],
      ]);
      raw.forEach((row, i) => {
        expect(problemAt(rows, i + 1)).toMatchObject({
          statement: row.instruct_prompt,
          entryPoint: "task_func",
          solution: `${row.complete_prompt}${row.canonical_solution}`,
          tests: { style: "unittest", code: row.test },
          source: "bigcodebench",
        });
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(
    "BigCodeBench's own BigCodeBench.jsonl.gz: all 1,140 tasks import, most in the bigcodebench runtime",
    skipFor(BCB.reason),
    async () => {
      const rows = await collect(BCB.value ?? "");
      const problems = rows.flatMap((r) => ("problem" in r ? [r.problem] : []));
      expect(problems).toHaveLength(1140);
      const stdlib = problems.filter((p) => p.runtime === "stdlib").length;
      expect(stdlib).toBeGreaterThan(250);
      expect(stdlib).toBeLessThan(400);
      expect(problems.find((p) => p.problemId === "bigcodebench/BigCodeBench/0")?.runtime).toBe("stdlib");
    },
  );

  test("importRow throws an InvalidArgument error naming the field", () => {
    const row = rawRows("humaneval.jsonl").get(1) ?? {};
    const reasonOf = (r: Record<string, unknown>): [string, string | undefined] => {
      try {
        importRow("humaneval", r);
      } catch (e) {
        if (isMineditError(e) && e.code === ErrorCode.InvalidArgument) return [e.rawMessage, e.field];
        throw e;
      }
      throw new Error("imported");
    };
    expect(reasonOf({ ...row, prompt: 3 })).toEqual([
      'field "prompt": expected a string, got number 3',
      "prompt",
    ]);
    expect(reasonOf({ ...row, canonical_solution: "" })).toEqual([
      'field "canonical_solution": expected a non-empty string, got string ""',
      "canonical_solution",
    ]);
    expect(reasonOf({ ...row, task_id: 1.5 })).toEqual([
      'field "task_id": expected a non-empty string or an integer, got number 1.5',
      "task_id",
    ]);
    expect(reasonOf({ ...row, test: "def check(candidate):\n  assert (\n" })[0]).toMatch(
      /^field "test" does not parse as Python 3.11/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// JSON → Python literals, against CPython

/** A seeded PRNG (mulberry32), so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NUMBER_TEXTS = [
  "0",
  "-0",
  "7",
  "-13",
  "9007199254740993",
  "-12345678901234567890123456789",
  "1.0",
  "-0.0",
  "0.1",
  "1e5",
  "1E-7",
  "2.5e+300",
  "1e400",
  "-1e400",
  "4.9e-324",
  "1e-400",
  "123456789.123456789e-5",
  "100000000000000000000.0",
];
const STRING_CHARS = [
  "a",
  "Z",
  " ",
  "'",
  '"',
  "\\",
  "\n",
  "\r",
  "\t",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u00a0",
  "é",
  "ß",
  "\u2028",
  "\u200b",
  "中",
  "😀",
  "\ud800",
  "\udc00",
  "\uffff",
  "\ufeff",
  "\u{10ffff}",
  "{",
  "}",
  "#",
];

function randomJson(next: () => number, depth: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const kind = depth > 3 ? Math.floor(next() * 4) : Math.floor(next() * 6);
  switch (kind) {
    case 0:
      return pick(["null", "true", "false"]);
    case 1:
      return next() < 0.5 ? pick(NUMBER_TEXTS) : String((next() - 0.5) * 10 ** Math.floor(next() * 40 - 20));
    case 2:
    case 3: {
      const length = Math.floor(next() * 6);
      let s = "";
      for (let i = 0; i < length; i++) s += pick(STRING_CHARS);
      return JSON.stringify(s);
    }
    case 4: {
      const items = Array.from({ length: Math.floor(next() * 4) }, () => randomJson(next, depth + 1));
      return `[${items.join(", ")}]`;
    }
    default: {
      const keys = ["a", "__proto__", "1", "b c", "é", "", "a"];
      const entries = Array.from(
        { length: Math.floor(next() * 4) },
        () => `${JSON.stringify(pick(keys))}: ${randomJson(next, depth + 1)}`,
      );
      return `{${entries.join(", ")}}`;
    }
  }
}

const LITERAL_ORACLE = `
import ast, json, math, sys
req = json.loads(sys.stdin.buffer.read().decode("utf-8"))

def same(a, b):
    """Equal and of the same types all the way down (1 is not 1.0, 0.0 is not -0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return set(a) == set(b) and all(same(a[k], b[k]) for k in a)
    return a == b

out = []
for text, lossless, plain in req:
    want = json.loads(text)
    exact = same(want, ast.literal_eval(lossless))
    # JSON.parse reads every number as a double: compare with json.loads doing the same.
    rounded = json.loads(text, parse_int=lambda s: int(float(s)))
    out.append([exact, rounded == ast.literal_eval(plain)])
print(json.dumps(out))
`;

describe("JSON → Python literal", () => {
  test("ast.literal_eval(literal) equals json.loads(text) for 400 generated values (lossless: same types)", () => {
    const next = prng(20240611);
    const texts = Array.from({ length: 400 }, () => randomJson(next, 0));
    texts.push('{"a": 1, "a": [2.0]}', '"\\ud800\\uffff\\udc00"', '"\\ud83d\\ude00"', "[[[[[]]]]]", "{}");
    const request = texts.map((text) => [
      text,
      pythonLiteral(parseLosslessJson(text)),
      pythonLiteral(JSON.parse(text)),
    ]);
    const verdicts = python(LITERAL_ORACLE, request) as [boolean, boolean][];
    const failures = verdicts.flatMap(([exact, plain], i) => (exact && plain ? [] : [request[i]]));
    expect(failures).toEqual([]);
  });

  test("literals read as Python writes them", () => {
    const literal = (text: string) => pythonLiteral(parseLosslessJson(text));
    expect(literal('[null, true, false, -0, 1.0, 1e400, "it\'s", {"k": []}]')).toBe(
      "[None, True, False, 0, 1.0, 1e999, \"it's\", {'k': []}]",
    );
    expect(literal("123456789012345678901234567890")).toBe("123456789012345678901234567890");
    expect(pythonLiteral(2 ** 70)).toBe("1180591620717411303424");
    expect(() => literal("1".repeat(4301))).toThrow("exceeds Python's 4300-digit limit");
    expect(() => pythonLiteral(Number.NaN)).toThrow(RangeError);
    expect(pythonLiteral(parseLosslessJson(`${"[".repeat(100)}${"]".repeat(100)}`))).toHaveLength(200);
    expect(() => pythonLiteral(parseLosslessJson(`${"[".repeat(101)}${"]".repeat(101)}`))).toThrow(
      "nests deeper than 100 levels",
    );
    expect(() => pythonLiteral(undefined)).toThrow(TypeError);
  });

  test("the lossless reader accepts and rejects what JSON.parse does, and reads the same values", () => {
    const next = prng(7);
    for (let i = 0; i < 200; i++) {
      const text = randomJson(next, 0);
      expect(toPlainJson(parseLosslessJson(text))).toEqual(JSON.parse(text));
    }
    const texts = [
      "",
      " ",
      "01",
      "1.",
      ".5",
      "+1",
      "-",
      "1e",
      "[1,]",
      '{"a":1,}',
      "NaN",
      "Infinity",
      '"\\x41"',
      '"a\nb"',
      "tru",
      "[1] 2",
      "{'a':1}",
      '"\\ud800"',
      " [ ] ",
      '["\\u12"]',
      '{"a" 1}',
      "[1 2]",
      '"\\/"',
      "-0.0e-0",
    ];
    for (const text of texts) {
      let native = true;
      try {
        JSON.parse(text);
      } catch {
        native = false;
      }
      let ours = true;
      try {
        parseLosslessJson(text);
      } catch {
        ours = false;
      }
      expect([text, ours]).toEqual([text, native]);
    }
    const proto = toPlainJson(parseLosslessJson('{"__proto__": {"x": 1}}'));
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto as object)).toEqual(["__proto__"]);
    expect(parseLosslessJson("1.50")).toEqual(new JsonNumber("1.50"));
    expect(parseLosslessJsonArray('[\n1,\n\n  {"a": 2}]').map((e) => e.line)).toEqual([2, 4]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Docstrings and the standard-library list, against CPython

const DOCSTRING_ORACLE = `
import ast, inspect, json, sys
req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
out = []
for kind, text, name in req:
    if kind == "cleandoc":
        out.append(inspect.cleandoc(text))
    else:
        tree = ast.parse(text)
        fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
        out.append(ast.get_docstring(fn))
print(json.dumps(out))
`;

function docstringOracle(program: string, name: string): string {
  return (python(DOCSTRING_ORACLE, [["function", program, name]]) as string[])[0] as string;
}

describe("CPython parity of the helpers", () => {
  test("cleandoc matches inspect.cleandoc", () => {
    const docs = [
      "",
      "one line",
      "  first\n    indented\n      more\n    back\n",
      "\n\n   Title\n\n   body\twith tab\n\t  tabbed line\n   \n",
      "x\n  \n    y\n",
      "   \n   \n",
    ];
    expect(docs.map(cleandoc)).toEqual(
      python(
        DOCSTRING_ORACLE,
        docs.map((d) => ["cleandoc", d, ""]),
      ),
    );
  });

  test("the standard-library list is CPython 3.11's sys.stdlib_module_names", () => {
    const names = python("import json, sys; print(json.dumps(sorted(sys.stdlib_module_names)))", null);
    expect([...standardLibraryModules()].sort()).toEqual(names);
    expect(isStandardLibraryModule("os.path")).toBe(true);
    expect(nonStandardLibraries(["pandas", "re", "numpy.linalg", "collections"])).toEqual([
      "pandas",
      "numpy.linalg",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Execution: the fixtures are real problems

describe("execution in the sandbox", () => {
  let sandbox: BwrapSandbox;
  beforeAll(async () => {
    sandbox = await createBwrapSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  test("every imported gold program passes its tests; every corrupted program fails them", async () => {
    const problems = Object.keys(FIXTURE_FILES).flatMap((key) =>
      problemsOf(rowsOf(key as keyof typeof FIXTURE_FILES)).map((p) => p.problem),
    );
    expect(problems).toHaveLength(14);
    const runs = problems.flatMap((problem) => [
      { problem, program: problem.solution, gold: true },
      ...(problem.corrupted === undefined
        ? []
        : [{ problem, program: problem.corrupted.program, gold: false }]),
    ]);
    const limits = { ...DEFAULT_LIMITS, wallTimeMs: 15_000 };
    const verdicts: string[] = [];
    // Two at a time: the machine has two cores.
    for (let i = 0; i < runs.length; i += 2) {
      const batch = runs.slice(i, i + 2);
      const outcomes = await Promise.all(
        batch.map((run) => runPythonTests(sandbox, run.program, runnerTests(run.problem), limits)),
      );
      outcomes.forEach((outcome, j) => {
        const run = batch[j] as (typeof runs)[number];
        verdicts.push(
          `${run.problem.problemId} ${run.gold ? "gold" : "corrupted"}: ${outcome.verdict} ${outcome.detail}`.trim(),
        );
        expect(outcome.testsTotal).toBeGreaterThan(0);
      });
    }
    expect(verdicts).toEqual(
      runs.map((run) =>
        run.gold
          ? `${run.problem.problemId} gold: PASSED`
          : expect.stringMatching(new RegExp(`^${run.problem.problemId} corrupted: FAILED_TESTS`)),
      ),
    );
  });
});
