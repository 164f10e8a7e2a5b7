/**
 * The direct parser (src/core/python/direct/) against CPython 3.11 on programs that are *almost* right:
 * real standard-library functions cut short (as a model's output is at its token limit) and with one
 * token deleted, repeated, swapped, inserted or replaced. It has three answers, and each is checked:
 *
 * - it accepts: CPython accepts too, with the same norm and tokens;
 * - it rejects (`PySyntaxError`, without asking tree-sitter): CPython rejects too;
 * - it leaves the program to the fallback (null): no claim, but the share is reported.
 *
 * The standard library itself (valid programs) is checked by normalize-stdlib.test.ts, which runs the
 * same parser; this file is about the errors. The corpus is drawn with a fixed seed from whatever the
 * oracle's library holds, so it is the same on every run of one machine.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { seededRandom } from "../../src/core/corruption/engine.js";
import { parseDirect } from "../../src/core/python/direct/direct-parse.js";
import { lexPython } from "../../src/core/python/direct/lexer.js";
import { PySyntaxError } from "../../src/core/python/syntax-error.js";
import { pythonTokens } from "../../src/core/python/tokenize.js";
import { unparse } from "../../src/core/python/unparse.js";

const here = dirname(fileURLToPath(import.meta.url));
const ORACLE = join(here, "..", "oracle", "normalize_oracle.py");
const INVENTORY = join(here, "..", "oracle", "stdlib_inventory.py");

/** How many stdlib files the functions are drawn from, and how many variants each function gets. */
const FILES = 120;
const TRUNCATIONS = 4;
const MUTATIONS = 6;

type OracleRecord = { id: string; source: string; norm?: string; tokens?: string[]; error?: string };

function runOracle(input: string): OracleRecord[] {
  const run = spawnSync("python3", [ORACLE, "--tokens"], { input, maxBuffer: 1 << 30 });
  if (run.status !== 0) throw new Error(`normalize_oracle.py failed: ${run.stderr.toString()}`);
  return run.stdout
    .toString()
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as OracleRecord);
}

/** Tokens a mutation may insert or put in another token's place: the ones whose place matters most. */
const INSERTABLE = [
  ":",
  ",",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "=",
  "==",
  ":=",
  "*",
  "**",
  ".",
  "->",
  "@",
  ";",
  "if",
  "else",
  "for",
  "in",
  "not",
  "is",
  "lambda",
  "yield",
  "await",
  "return",
  "pass",
  "and",
  "or",
  "x",
  "1",
  "'s'",
  "f'{x}'",
  "\n",
  "\n    ",
  "\\\n",
];

/** The functions of FILES seeded stdlib files (each a program of its own, cut out by the oracle). */
function baseFunctions(): OracleRecord[] {
  const inventory = spawnSync("python3", ["-I", "-S", INVENTORY], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (inventory.status !== 0) throw new Error(`stdlib_inventory.py failed: ${inventory.stderr}`);
  const files = (JSON.parse(inventory.stdout) as { files: string[] }).files;
  const next = seededRandom(18);
  const chosen = new Set<string>();
  while (chosen.size < Math.min(FILES, files.length))
    chosen.add(files[Math.floor(next() * files.length)] as string);
  const records = runOracle([...chosen].join("\n"));
  // Functions that CPython parses and that are not too long to mutate usefully.
  return records.filter((r) => r.id.includes("::") && r.norm !== undefined && r.source.length < 4000);
}

/** Truncations and single-token mutations of each function. */
function variants(functions: readonly OracleRecord[]): { id: string; source: string }[] {
  const next = seededRandom(2026);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const out: { id: string; source: string }[] = [];
  for (const fn of functions) {
    const { source } = fn;
    for (let k = 0; k < TRUNCATIONS; k++) {
      const at = 1 + Math.floor(next() * (source.length - 1));
      out.push({ id: `${fn.id}#${out.length}:cut${at}`, source: source.slice(0, at) });
    }
    let spans: [number, number][];
    try {
      const tokens = lexPython(source);
      spans = tokens.starts.map((start, i) => [start, tokens.ends[i] as number] as [number, number]);
      spans = spans.filter(([start, end]) => end > start);
    } catch {
      continue;
    }
    for (let k = 0; k < MUTATIONS && spans.length > 1; k++) {
      const i = Math.floor(next() * (spans.length - 1));
      const [start, end] = spans[i] as [number, number];
      const [nextStart, nextEnd] = spans[i + 1] as [number, number];
      const token = source.slice(start, end);
      const kind = pick(["delete", "repeat", "swap", "insert", "replace"] as const);
      let mutated: string;
      if (kind === "delete") mutated = source.slice(0, start) + source.slice(end);
      else if (kind === "repeat") mutated = `${source.slice(0, end)} ${token}${source.slice(end)}`;
      else if (kind === "swap")
        mutated =
          source.slice(0, start) +
          source.slice(nextStart, nextEnd) +
          source.slice(end, nextStart) +
          token +
          source.slice(nextEnd);
      else if (kind === "insert")
        mutated = `${source.slice(0, start)}${pick(INSERTABLE)} ${source.slice(start)}`;
      else mutated = source.slice(0, start) + pick(INSERTABLE) + source.slice(end);
      out.push({ id: `${fn.id}#${out.length}:${kind}${i}`, source: mutated });
    }
  }
  return out;
}

type Verdict =
  | { kind: "accepted"; norm: string; tokens: string[] }
  | { kind: "rejected" }
  | { kind: "fallback" };

function direct(source: string): Verdict {
  try {
    const module = parseDirect(source.replace(/\r\n?/g, "\n"));
    if (module === null) return { kind: "fallback" };
    const norm = unparse(module);
    return { kind: "accepted", norm, tokens: pythonTokens(norm) };
  } catch (error) {
    if (error instanceof PySyntaxError) return { kind: "rejected" };
    throw error;
  }
}

describe("the direct parser on programs cut short or with one token changed, against CPython 3.11", () => {
  const corpus = variants(baseFunctions());
  const oracle = new Map(
    runOracle(corpus.map((v) => JSON.stringify(v)).join("\n")).map((record) => [record.id, record]),
  );
  const outcomes = corpus.map((variant) => {
    const expected = oracle.get(variant.id);
    if (expected === undefined) throw new Error(`no oracle answer for ${variant.id}`);
    return { variant, expected, actual: direct(variant.source) };
  });

  test("the corpus holds enough of every answer to mean something", () => {
    const count = (kind: Verdict["kind"]) => outcomes.filter((o) => o.actual.kind === kind).length;
    console.log(
      `direct parser on ${outcomes.length} variants: ${count("accepted")} accepted, ` +
        `${count("rejected")} rejected, ${count("fallback")} left to tree-sitter`,
    );
    expect(outcomes.length).toBeGreaterThan(2000);
    expect(count("accepted")).toBeGreaterThan(300);
    expect(count("rejected")).toBeGreaterThan(1000);
  });

  test("every program it accepts, CPython accepts, with the same norm and tokens", () => {
    const wrong = outcomes
      .filter((o) => o.actual.kind === "accepted")
      .filter((o) => {
        const { actual, expected } = o;
        return actual.kind === "accepted" && (actual.norm !== expected.norm || !sameTokens(actual, expected));
      })
      .map((o) => ({ id: o.variant.id, cpython: o.expected.error ?? o.expected.norm }));
    expect(wrong).toEqual([]);
  });

  test("every program it rejects by itself, CPython rejects", () => {
    const wrong = outcomes
      .filter((o) => o.actual.kind === "rejected" && o.expected.error === undefined)
      .map((o) => ({ id: o.variant.id, source: o.variant.source }));
    expect(wrong).toEqual([]);
  });
});

function sameTokens(actual: { tokens: string[] }, expected: OracleRecord): boolean {
  return JSON.stringify(actual.tokens) === JSON.stringify(expected.tokens);
}
