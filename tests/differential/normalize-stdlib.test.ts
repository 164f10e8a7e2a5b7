/**
 * SPEC §2.2 differential test: norm(X) and tokens(X) from the TypeScript normalizer against CPython 3.11
 * (the installed python3) over the whole standard library — every module as one program, and every
 * function in it as a program of its own. Writes the full report to .cache/normalize-stdlib-report.md.
 *
 * The bar is a 99.9% match rate, and every remaining mismatch must be listed with its explanation in
 * known-mismatches.json; an unexplained mismatch fails the test.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { normalizePython } from "../../src/core/normalize.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { pythonTokens } from "../../src/core/python/tokenize.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const ORACLE = join(here, "..", "oracle", "normalize_oracle.py");
const SHARDS = 2;

type OracleRecord =
  | { id: string; source: string; norm: string; tokens_sha1: string; token_count: number }
  | { id: string; source: string; error: string }
  | { id: string; unreadable: string };

type Outcome = { id: string; kind: "file" | "function"; matched: boolean; problem?: string };

const stdlib = spawnSync("python3", ["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"])
  .stdout.toString()
  .trim();

function stdlibFiles(): string[] {
  const found = spawnSync("find", [stdlib, "-name", "*.py", "-not", "-path", "*/site-packages/*"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return found.stdout.toString().trim().split("\n").sort();
}

function tokensSha1(tokens: string[]): string {
  // Python encodes with surrogatepass; lone surrogates never survive CPython's own parse of a file,
  // so plain UTF-8 is the same bytes here.
  return createHash("sha1").update(tokens.join("\0"), "utf8").digest("hex");
}

function firstDifference(expected: string, actual: string): string {
  const a = expected.split("\n");
  const b = actual.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}: CPython ${JSON.stringify(a[i])} / ours ${JSON.stringify(b[i])}`;
  }
  return "identical text";
}

function compare(record: OracleRecord): Outcome | null {
  if ("unreadable" in record) return null;
  const kind = record.id.includes("::") ? "function" : "file";
  const id = relative(stdlib, record.id);
  let norm: string | null = null;
  let tokens: string[] = [];
  let failure: string | null = null;
  try {
    norm = normalizePython(record.source);
    tokens = pythonTokens(norm);
  } catch (error) {
    failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  if ("error" in record) {
    return failure !== null
      ? { id, kind, matched: true }
      : { id, kind, matched: false, problem: `accepted, but CPython rejects it (${record.error})` };
  }
  if (failure !== null || norm === null) {
    return { id, kind, matched: false, problem: `rejected (${failure}), but CPython accepts it` };
  }
  if (norm !== record.norm) {
    return { id, kind, matched: false, problem: `norm differs at ${firstDifference(record.norm, norm)}` };
  }
  if (tokens.length !== record.token_count || tokensSha1(tokens) !== record.tokens_sha1) {
    return {
      id,
      kind,
      matched: false,
      problem: `same norm, tokens differ (${tokens.length} vs ${record.token_count})`,
    };
  }
  return { id, kind, matched: true };
}

async function runShard(files: string[], onRecord: (record: OracleRecord) => void): Promise<void> {
  const child = spawn("python3", [ORACLE], { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.end(files.join("\n"));
  const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) onRecord(JSON.parse(line) as OracleRecord);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`normalize_oracle.py exited with ${code}`);
}

const outcomes: Outcome[] = [];
const known = JSON.parse(readFileSync(join(here, "known-mismatches.json"), "utf8")) as Record<string, string>;

beforeAll(async () => {
  await loadPythonGrammar();
  const files = stdlibFiles();
  const shards = Array.from({ length: SHARDS }, (_, i) => files.filter((_f, j) => j % SHARDS === i));
  await Promise.all(
    shards.map((shard) =>
      runShard(shard, (record) => {
        const outcome = compare(record);
        if (outcome !== null) outcomes.push(outcome);
      }),
    ),
  );
  outcomes.sort((a, b) => a.id.localeCompare(b.id));
  writeReport();
}, 1_800_000);

function rate(kind?: "file" | "function"): { matched: number; total: number; rate: number } {
  const scope = kind === undefined ? outcomes : outcomes.filter((o) => o.kind === kind);
  const matched = scope.filter((o) => o.matched).length;
  return { matched, total: scope.length, rate: scope.length === 0 ? 0 : matched / scope.length };
}

function writeReport(): void {
  const lines = [
    "# norm/tokens vs CPython 3.11 over the standard library",
    "",
    `stdlib: ${stdlib}`,
    "",
    "| programs | matched | total | rate |",
    "| --- | --- | --- | --- |",
  ];
  for (const [label, kind] of [
    ["whole modules", "file"],
    ["functions", "function"],
    ["all", undefined],
  ] as const) {
    const r = rate(kind);
    lines.push(`| ${label} | ${r.matched} | ${r.total} | ${(100 * r.rate).toFixed(3)}% |`);
  }
  lines.push("", "## Mismatches", "");
  for (const o of outcomes.filter((x) => !x.matched)) {
    lines.push(`- \`${o.id}\` — ${o.problem}`, `  - explanation: ${known[o.id] ?? "**UNEXPLAINED**"}`);
  }
  mkdirSync(join(root, ".cache"), { recursive: true });
  const text = lines.join("\n");
  writeFileSync(join(root, ".cache", "normalize-stdlib-report.md"), `${text}\n`);
  console.log(text);
}

describe("norm(X) and tokens(X) match CPython 3.11 on the standard library", () => {
  test("the corpus is the real standard library", () => {
    expect(rate("file").total).toBeGreaterThan(1500);
    expect(rate("function").total).toBeGreaterThan(30_000);
  });

  test("at least 99.9% of modules and functions match exactly", () => {
    expect(rate().rate).toBeGreaterThanOrEqual(0.999);
    expect(rate("function").rate).toBeGreaterThanOrEqual(0.999);
  });

  test("every remaining mismatch is explained in known-mismatches.json", () => {
    const unexplained = outcomes.filter((o) => !o.matched && known[o.id] === undefined);
    expect(unexplained.map((o) => `${o.id}: ${o.problem}`)).toEqual([]);
  });
});
