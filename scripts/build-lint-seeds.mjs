#!/usr/bin/env node
/**
 * Collects the C++ and Java lint seed programs into one JSONL file per language.
 *
 * Source layout (written for this project; docs/lint.md, issue 6 item 7):
 *
 *   datasets/lint/<language>/NN_slug/      language: cpp | java; NN two digits, slug lower-case words joined by "_"
 *     problem.json   {"id": "lint/<language>/NN-slug", "statement": ...}
 *     tests.json     [{"input": str, "output": str}, ...]   3-6 stdin/stdout cases
 *     solution.cpp   (cpp) or Main.java (java, `public class Main`): a correct solution that a linter has
 *                    something to say about
 *
 * Output: datasets/lint/cpp.jsonl and datasets/lint/java.jsonl, one row per problem in directory order:
 *
 *   {"problem_id", "language", "statement", "solution", "tests": {"style": "stdio", "cases": [...]}}
 *
 * The rows are what `minedit lint tasks` builds lint tasks from. This script checks the layout and that the
 * cases assert something (not every expected output is empty or equal to its input). The expected outputs
 * come from Python references (scripts/lint-seed-references.py); that every solution passes its own tests
 * in the sandbox is checked by tests/runners/compiled.test.ts, which also runs both scripts' checks.
 *
 * Usage: node scripts/build-lint-seeds.mjs [--check]
 *   --check   compare with the JSONL files on disk instead of writing them (exit 1 if stale or invalid)
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const LINT_DIR = join(ROOT, "datasets", "lint");
const LANGUAGES = { cpp: "solution.cpp", java: "Main.java" };
/** What the shipped data set promises (checked, so losing a directory fails loudly). */
const MIN_PROBLEMS = 20;
const MIN_CASES = 3;
const MAX_CASES = 6;

function fail(message) {
  console.error(`build-lint-seeds: ${message}`);
  process.exit(1);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    fail(`${path}: ${error.message}`);
  }
}

/** The rows of one language, validated. */
function collect(language) {
  const solutionFile = LANGUAGES[language];
  const dir = join(LINT_DIR, language);
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const rows = [];
  for (const name of names) {
    const where = `datasets/lint/${language}/${name}`;
    const match = /^(\d{2})_([a-z0-9]+(?:_[a-z0-9]+)*)$/.exec(name);
    if (match === null) fail(`${where}: the directory name must be NN_slug`);
    const problem = readJson(join(dir, name, "problem.json"));
    const expectedId = `lint/${language}/${match[1]}-${match[2].replaceAll("_", "-")}`;
    if (problem.id !== expectedId) fail(`${where}/problem.json: id must be ${JSON.stringify(expectedId)}`);
    if (typeof problem.statement !== "string" || problem.statement.trim() === "") {
      fail(`${where}/problem.json: statement must be a non-empty string`);
    }
    const cases = readJson(join(dir, name, "tests.json"));
    if (!Array.isArray(cases) || cases.length < MIN_CASES || cases.length > MAX_CASES) {
      fail(`${where}/tests.json: must be a list of ${MIN_CASES}-${MAX_CASES} cases`);
    }
    for (const [index, testCase] of cases.entries()) {
      const keys = Object.keys(testCase ?? {})
        .sort()
        .join(",");
      if (
        keys !== "input,output" ||
        typeof testCase.input !== "string" ||
        typeof testCase.output !== "string"
      ) {
        fail(`${where}/tests.json: case ${index + 1} must be {"input": string, "output": string}`);
      }
    }
    if (cases.every((c) => c.output.trim() === ""))
      fail(`${where}/tests.json: every expected output is empty`);
    if (cases.every((c) => c.output.trim() === c.input.trim()))
      fail(`${where}/tests.json: every case echoes its input`);
    const solutionPath = join(dir, name, solutionFile);
    if (!existsSync(solutionPath)) fail(`${where}: ${solutionFile} is missing`);
    rows.push({
      problem_id: problem.id,
      language,
      statement: problem.statement,
      solution: readFileSync(solutionPath, "utf8"),
      tests: { style: "stdio", cases: cases.map(({ input, output }) => ({ input, output })) },
    });
  }
  if (rows.length < MIN_PROBLEMS)
    fail(`datasets/lint/${language}: ${rows.length} problems, at least ${MIN_PROBLEMS} expected`);
  return rows;
}

const check = process.argv.includes("--check");
let stale = false;
for (const language of Object.keys(LANGUAGES)) {
  const rows = collect(language);
  const text = `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`;
  const out = join(LINT_DIR, `${language}.jsonl`);
  if (check) {
    if (!existsSync(out) || readFileSync(out, "utf8") !== text) {
      console.error(
        `build-lint-seeds: datasets/lint/${language}.jsonl is stale; run node scripts/build-lint-seeds.mjs`,
      );
      stale = true;
    }
  } else {
    writeFileSync(out, text);
    console.error(`build-lint-seeds: wrote datasets/lint/${language}.jsonl (${rows.length} problems)`);
  }
}
if (stale) process.exit(1);
