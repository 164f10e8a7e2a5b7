/**
 * The lint corpora of `minedit export` (alq, qa, qa-prime; src/export/lint-*.ts):
 * - selection on hand-made candidate sets whose right answer is known (a revision that breaks tests is
 *   rejected, one that adds alerts is rejected, the highest net reduction wins, ties go to the smallest
 *   diff, then the smallest token distance, then input order);
 * - the prompts (the LintEval parts, in order; Q→A and Q→A′ share one prompt);
 * - the CLI end to end on shipped Python lint tasks with a hand-written teacher file (real sandbox, real
 *   Pylint), and round trips of every format read back with real readers;
 * - `clang-tidy --fix` on a shipped C++ seed: the fixed file compiles and passes, and through the CLI it
 *   becomes the task's A′.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLintSandbox } from "../../src/analyzers/linter.js";
import { alqMessages, codeBlock, LINT_REQUIREMENTS, qaMessages } from "../../src/core/prompt/lint-prompt.js";
import { type Message, promptId } from "../../src/core/prompt/message.js";
import {
  compareLintCandidates,
  LINT_REJECTIONS,
  type LintCandidate,
  selectLintRevision,
} from "../../src/export/lint-selection.js";
import { clangTidyFix } from "../../src/lint/clang-tidy-fix.js";
import { runCppTests } from "../../src/runners/cpp.js";
import { DEFAULT_LIMITS } from "../../src/sandbox/sandbox.js";
import { type LintTask, lintTaskRow, parseLintTask } from "../../src/scoring/lint-task.js";
import { exportCli, readJsonl, tempDir, writeJsonl } from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const TASKS = (language: string) =>
  readJsonl(join(ROOT, "datasets", "lint", "tasks", `${language}.jsonl`)).map((row) => parseLintTask(row));
const PYTHON = TASKS("python");
const task = (tasks: LintTask[], id: string): LintTask => {
  const found = tasks.find((t) => t.taskId === id);
  if (found === undefined) throw new Error(`no task ${id}`);
  return found;
};

// ---- selection ---------------------------------------------------------------------------------------

const ORIGINAL = "int main() { return 0; }\n";

function candidate(order: number, fields: Partial<LintCandidate>): LintCandidate {
  return {
    origin: "teacher",
    order,
    program: `// revision ${order}\n${ORIGINAL}`,
    verdict: "PASSED",
    testsPassed: 3,
    testsTotal: 3,
    counts: { original: 5, fixed: 1, introduced: 0 },
    diffLines: 2,
    tokenDistance: 4,
    ...fields,
  };
}

describe("selectLintRevision", () => {
  it("rejects a revision that breaks its tests, even with the largest reduction", () => {
    const result = selectLintRevision(
      [
        candidate(0, { verdict: "FAILED_TESTS", testsPassed: 2, counts: null, diffLines: null }),
        candidate(1, { verdict: "COMPILE_ERROR", testsPassed: 0, counts: null, diffLines: null }),
        candidate(2, { counts: { original: 5, fixed: 1, introduced: 0 } }),
      ],
      ORIGINAL,
    );
    expect(result.chosen?.order).toBe(2);
    expect(result.rejected).toEqual({
      "fails its tests (FAILED_TESTS)": 1,
      "fails its tests (COMPILE_ERROR)": 1,
    });
  });

  it("rejects a revision that adds more alerts than it fixes, and one that only trades alerts", () => {
    const result = selectLintRevision(
      [
        candidate(0, { counts: { original: 5, fixed: 1, introduced: 3 } }),
        candidate(1, { counts: { original: 5, fixed: 2, introduced: 2 } }),
      ],
      ORIGINAL,
    );
    expect(result.chosen).toBeNull();
    expect(result.rejected).toEqual({ [LINT_REJECTIONS.addsAlerts]: 1, [LINT_REJECTIONS.noReduction]: 1 });
  });

  it("keeps a revision that adds alerts but still reduces them (net > 0)", () => {
    const result = selectLintRevision(
      [candidate(0, { counts: { original: 5, fixed: 3, introduced: 1 } })],
      ORIGINAL,
    );
    expect(result.chosen?.order).toBe(0);
  });

  it("the highest net reduction wins over a smaller diff", () => {
    const result = selectLintRevision(
      [
        candidate(0, { counts: { original: 5, fixed: 2, introduced: 0 }, diffLines: 1 }),
        candidate(1, { counts: { original: 5, fixed: 4, introduced: 1 }, diffLines: 30 }),
        candidate(2, { counts: { original: 5, fixed: 2, introduced: 1 }, diffLines: 1 }),
      ],
      ORIGINAL,
    );
    expect(result.chosen?.order).toBe(1);
    expect(result.qualified).toBe(3);
  });

  it("ties on net reduction go to the smallest diff, then the smallest token distance, then input order", () => {
    const net3 = { original: 5, fixed: 3, introduced: 0 };
    const pick = (cands: LintCandidate[]) => selectLintRevision(cands, ORIGINAL).chosen?.order;
    expect(
      pick([candidate(0, { counts: net3, diffLines: 9 }), candidate(1, { counts: net3, diffLines: 4 })]),
    ).toBe(1);
    expect(
      pick([
        candidate(0, { counts: net3, diffLines: 4, tokenDistance: 12 }),
        candidate(1, { counts: net3, diffLines: 4, tokenDistance: 7 }),
      ]),
    ).toBe(1);
    expect(
      pick([
        candidate(0, { counts: net3, diffLines: 4, tokenDistance: null }),
        candidate(1, { counts: net3, diffLines: 4, tokenDistance: 50 }),
      ]),
    ).toBe(1);
    expect(pick([candidate(0, { counts: net3 }), candidate(1, { counts: net3, origin: "clang-tidy" })])).toBe(
      0,
    );
  });

  it("names completions without code and revisions equal to the original", () => {
    const result = selectLintRevision(
      [
        candidate(0, { program: null }),
        candidate(1, { program: ORIGINAL }),
        candidate(2, { verdict: "INFRA_ERROR" }),
      ],
      ORIGINAL,
    );
    expect(result.chosen).toBeNull();
    expect(result.rejected).toEqual({
      [LINT_REJECTIONS.noCode]: 1,
      [LINT_REJECTIONS.unchanged]: 1,
      [LINT_REJECTIONS.infra]: 1,
    });
  });

  it("compareLintCandidates is a total order consistent with the selection", () => {
    const a = { ...candidate(0, {}), counts: { original: 5, fixed: 2, introduced: 0 }, diffLines: 3 };
    const b = { ...candidate(1, {}), counts: { original: 5, fixed: 2, introduced: 0 }, diffLines: 3 };
    expect(compareLintCandidates(a, b)).toBeLessThan(0);
    expect(compareLintCandidates(b, a)).toBeGreaterThan(0);
  });
});

// ---- prompts -------------------------------------------------------------------------------------------

describe("lint prompts", () => {
  const merge = task(PYTHON, "seed/001-merge-bookings:lint");

  it("A+L→A′ shows the file, every alert with its line and rule, then the four requirements", () => {
    const [system, user] = alqMessages(merge);
    expect(system?.role).toBe("system");
    const text = user?.content ?? "";
    const code = text.indexOf(codeBlock("python", merge.original));
    const alerts = text.indexOf("Lint alerts:");
    const requirements = text.indexOf("Requirements:");
    expect(code).toBeGreaterThan(0);
    expect(alerts).toBeGreaterThan(code);
    expect(requirements).toBeGreaterThan(alerts);
    for (const alert of merge.alerts) {
      expect(text).toContain(`- line ${alert.line}: [${alert.ruleId}] ${alert.message} (${alert.category})`);
    }
    LINT_REQUIREMENTS.forEach((requirement, i) => {
      expect(text).toContain(`${i + 1}. ${requirement}`);
    });
    expect(text).toContain("Pylint reports 2 lint alerts");
  });

  it("Q→A shows the statement only (no file, no alerts) and names the entry point", () => {
    const text = qaMessages(merge)[1]?.content ?? "";
    expect(text).toContain(merge.statement.trim());
    expect(text).toContain("`merge_bookings`");
    expect(text).not.toContain(merge.original);
    expect(text).not.toContain("C0114");
  });
});

// ---- the CLI on shipped tasks ------------------------------------------------------------------------

const THREE = ["seed/001-merge-bookings:lint", "seed/002-rle-compress:lint", "seed/003-roman-numerals:lint"];

/** A hand-written teacher file with known answers (see each comment). */
function teacher(): Record<string, unknown>[] {
  const merge = task(PYTHON, THREE[0] as string).original;
  const rle = task(PYTHON, THREE[1] as string).original;
  const roman = task(PYTHON, THREE[2] as string).original;
  const block = (code: string) => `Refactored:\n\n${codeBlock("python", code)}\n`;
  const rleDoc = rle.replace(
    "def rle_compress(text):\n",
    'def rle_compress(text):\n    """Compress runs."""\n',
  );
  return [
    {
      task_id: THREE[0],
      completions: [
        // Net 1: module docstring only.
        block(`"""Bookings."""\n\n\n${merge}`),
        // Net 2: both docstrings — the answer.
        block(
          `"""Bookings."""\n\n\n${merge.replace("def merge_bookings(slots):\n", 'def merge_bookings(slots):\n    """Merge."""\n')}`,
        ),
      ],
    },
    // Fixes both alerts but breaks the function: rejected.
    { task_id: THREE[1], completion: block(`"""RLE."""\n\n\n${rleDoc.replace('return ""', 'return "?"')}`) },
    // Fixes one alert: the answer.
    { task_id: THREE[1], completion: block(rleDoc) },
    // Fixes the module docstring but adds an unused import (net 0), and an empty block.
    { task_id: THREE[2], completions: [block(`"""Roman."""\nimport os\n\n${roman}`), "```python\n```"] },
  ];
}

describe("minedit export --kind alq|qa|qa-prime", () => {
  let dir: ReturnType<typeof tempDir>;
  let tasksFile: string;
  let teacherFile: string;
  beforeAll(() => {
    dir = tempDir("lint-corpora");
    tasksFile = join(dir.path, "tasks.jsonl");
    teacherFile = join(dir.path, "teacher.jsonl");
    writeJsonl(
      tasksFile,
      THREE.map((id) => lintTaskRow(task(PYTHON, id))),
    );
    writeJsonl(teacherFile, teacher());
  });
  afterAll(() => dir.remove());

  it("alq (hf): the best passing, alert-reducing revision per task; rejections counted by reason", async () => {
    const out = join(dir.path, "hf");
    const run = await exportCli([
      "--kind",
      "alq",
      "--format",
      "hf",
      "--tasks",
      tasksFile,
      "--candidates",
      teacherFile,
      "--out",
      out,
    ]);
    expect(run.stderr).toContain("rows: 2 from 2 tasks; 1 task without a row");
    expect(run.stderr).toContain("fails its tests (FAILED_TESTS) 1");
    expect(run.stderr).toContain(`${LINT_REJECTIONS.noReduction} 1`);
    expect(run.stderr).toContain(`${LINT_REJECTIONS.noCode} 1`);
    expect(run.status).toBe(0);
    const rows = readJsonl(join(out, "alq", "train.jsonl"));
    expect(rows.map((r) => r.task_id)).toEqual(THREE.slice(0, 2));
    const [merge, rle] = rows;
    expect(merge).toMatchObject({
      revision: "teacher",
      original_alerts: 2,
      fixed: 2,
      new: 0,
      net_fixed: 2,
      diff_lines: 4,
    });
    expect(rle).toMatchObject({
      fixed: 1,
      new: 0,
      net_fixed: 1,
      diff_lines: 1,
      tests_passed: 7,
      tests_total: 7,
    });
    const prompt = merge?.prompt as Message[];
    expect(prompt).toEqual(alqMessages(task(PYTHON, THREE[0] as string)));
    expect(merge?.prompt_id).toBe(promptId(prompt));
    const completion = ((merge?.completion ?? []) as Message[])[0]?.content ?? "";
    expect(completion).toContain('"""Merge."""');
    expect(merge?.prompt_style).toBe("linteval");
  }, 60_000);

  it("qa without revisions: every task's original; with revisions: only tasks that have one", async () => {
    const out = join(dir.path, "lf");
    const all = await exportCli([
      "--kind",
      "qa",
      "--format",
      "llamafactory",
      "--tasks",
      tasksFile,
      "--out",
      out,
    ]);
    expect(all.status).toBe(0);
    const rows = readJsonl(join(out, "qa", "train.jsonl"));
    expect(rows.map((r) => r.task_id)).toEqual(THREE);
    const first = rows[0] as { messages: { role: string; content: string }[]; system: string };
    expect(first.messages[1]?.content).toBe(codeBlock("python", task(PYTHON, THREE[0] as string).original));
    expect(first.system).toBe(qaMessages(task(PYTHON, THREE[0] as string))[0]?.content);
    const info = JSON.parse(readFileSync(join(out, "dataset_info.json"), "utf8")) as Record<
      string,
      { file_name: string }
    >;
    expect(info.minedit_qa_train?.file_name).toBe("qa/train.jsonl");

    const restricted = join(dir.path, "openrlhf");
    const some = await exportCli([
      "--kind",
      "qa",
      "--format",
      "openrlhf",
      "--tasks",
      tasksFile,
      "--candidates",
      teacherFile,
      "--out",
      restricted,
    ]);
    expect(some.status).toBe(0);
    const kept = readJsonl(join(restricted, "qa", "train.jsonl"));
    expect(kept.map((r) => r.task_id)).toEqual(THREE.slice(0, 2));
    expect(kept[0]).toMatchObject({ revision: "original", fixed: 0, diff_lines: 0 });
    expect(((kept[0]?.output ?? []) as Message[])[0]?.content).toBe(
      codeBlock("python", task(PYTHON, THREE[0] as string).original),
    );
  }, 60_000);

  it("qa-prime (verl Parquet): the refactored file under the Q prompt, lint columns as int64", async () => {
    const out = join(dir.path, "verl");
    const run = await exportCli([
      "--kind",
      "qa-prime",
      "--format",
      "verl",
      "--tasks",
      tasksFile,
      "--candidates",
      teacherFile,
      "--out",
      out,
      "--splits",
      "train=0.5,test=0.5",
      "--seed",
      "3",
    ]);
    expect(run.status).toBe(0);
    const files = ["train", "test"].map((split) => join(out, "qa-prime", `${split}.parquet`));
    const rows: Record<string, unknown>[] = [];
    for (const file of files) {
      try {
        rows.push(...(await parquetReadObjects({ file: await asyncBufferFromFile(file) })));
      } catch {
        // An empty split has no file.
      }
    }
    expect(rows.map((r) => (r.extra_info as { task_id: string }).task_id).sort()).toEqual(THREE.slice(0, 2));
    const merge = rows.find((r) => (r.extra_info as { task_id: string }).task_id === THREE[0]) as {
      messages: { role: string; content: string }[];
      extra_info: Record<string, unknown>;
    };
    expect(merge.messages.slice(0, 2)).toEqual(qaMessages(task(PYTHON, THREE[0] as string)));
    expect(merge.messages[2]?.content).toContain('"""Merge."""');
    expect(merge.extra_info.net_fixed).toBe(2n);
    expect(merge.extra_info.revision).toBe("teacher");
    expect(merge.extra_info.prompt_id).toBe(promptId(merge.messages.slice(0, 2) as Message[]));
  }, 60_000);

  it("usage errors: alq without revisions, --fixer on a repair kind, --prompt on a lint kind", async () => {
    const out = join(dir.path, "bad");
    const noRevisions = await exportCli([
      "--kind",
      "alq",
      "--format",
      "hf",
      "--tasks",
      tasksFile,
      "--out",
      out,
    ]);
    expect(noRevisions.status).toBe(2);
    expect(noRevisions.stderr).toContain("needs revisions");
    const fixer = await exportCli([
      "--kind",
      "sft",
      "--format",
      "hf",
      "--tasks",
      tasksFile,
      "--fixer",
      "clang-tidy",
      "--out",
      out,
    ]);
    expect(fixer.status).toBe(2);
    const prompt = await exportCli([
      "--kind",
      "qa",
      "--format",
      "hf",
      "--tasks",
      tasksFile,
      "--prompt",
      "explicit",
      "--out",
      out,
    ]);
    expect(prompt.status).toBe(2);
  });
});

// ---- clang-tidy --fix --------------------------------------------------------------------------------

describe("clang-tidy --fix on a shipped C++ seed", () => {
  const gcd = task(TASKS("cpp"), "lint/cpp/03-gcd-lcm:lint");

  it("the fixed file compiles and passes; through the CLI it becomes the task's A′", async () => {
    const sandbox = await createLintSandbox();
    try {
      const fixed = await clangTidyFix(sandbox, gcd.original);
      expect(fixed).not.toBe(gcd.original);
      expect(gcd.tests.style).toBe("stdio");
      if (gcd.tests.style !== "stdio") return;
      const outcome = await runCppTests(sandbox, fixed, gcd.tests, DEFAULT_LIMITS);
      expect(outcome.verdict).toBe("PASSED");
    } finally {
      await sandbox.close();
    }

    const dir = tempDir("lint-fixer");
    try {
      const tasksFile = join(dir.path, "cpp.jsonl");
      writeJsonl(tasksFile, [lintTaskRow(gcd)]);
      const out = join(dir.path, "out");
      const run = await exportCli([
        "--kind",
        "alq",
        "--format",
        "openrlhf",
        "--tasks",
        tasksFile,
        "--fixer",
        "clang-tidy",
        "--out",
        out,
      ]);
      expect(run.status).toBe(0);
      expect(run.stderr).toContain("1 from clang-tidy --fix");
      const [row] = readJsonl(join(out, "alq", "train.jsonl"));
      expect(row).toMatchObject({ task_id: gcd.taskId, language: "cpp", revision: "clang-tidy" });
      expect(row?.net_fixed as number).toBeGreaterThan(0);
      expect(row?.original_alerts).toBe(gcd.alerts.length);
    } finally {
      dir.remove();
    }
  }, 90_000);
});
