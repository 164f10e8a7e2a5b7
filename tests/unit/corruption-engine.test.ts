/**
 * The corruption engine (docs/tasks.md#corruption-families) and the family registry: determinism, disjoint corruptions, exact
 * reversal, uniform and weighted choice, the paper mix, the `{ ok: false }` reasons, and — over the 60 shipped seed solutions — that
 * every corrupted program parses under CPython 3.11 (one python3 process, `ast.parse` on each) and
 * differs from the gold program there too.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, test } from "vitest";
import {
  applyCorruptions,
  type CorruptionVariant,
  corruptionVariants,
  corruptProgram,
  findSites,
  revertCorruptions,
  seededRandom,
} from "../../src/core/corruption/engine.js";
import {
  IN_DOMAIN_FAMILIES,
  OPTIONAL_IN_DOMAIN_FAMILIES,
} from "../../src/core/corruption/in-domain/index.js";
import { OOD_FAMILIES } from "../../src/core/corruption/ood/index.js";
import {
  ALL_FAMILIES,
  defaultCorruptionMix,
  familyByName,
  KNOWN_FAMILIES,
  mixFamilies,
  mixWeights,
  PAPER_COUNT_WEIGHTS,
  PAPER_FAMILY_WEIGHTS,
  parseCorruptionCount,
  parseCorruptionMix,
  parseFamilySpec,
} from "../../src/core/corruption/registry.js";
import type { AppliedCorruption, CorruptionFamily, CorruptionSite } from "../../src/core/corruption/types.js";
import { normalizedTokenDistance, tokenLevenshtein } from "../../src/core/distance.js";
import { normalizeProgram, programTokens } from "../../src/core/normalize.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { PySyntaxError } from "../../src/core/python/syntax-error.js";

type SeedProblem = { problem_id: string; solution: string };

const PROBLEMS: SeedProblem[] = readFileSync(
  new URL("../../datasets/seed/problems.jsonl", import.meta.url),
  "utf8",
)
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as SeedProblem);

function named(...names: string[]): CorruptionFamily[] {
  return names.map((name) => {
    const family = familyByName(name);
    if (family === undefined) throw new Error(`no family ${name}`);
    return family;
  });
}

/** The in-domain sites of every seed solution, and training-style variants (1–10 corruptions) of each. */
const SITES = new Map<string, Map<string, CorruptionSite[]>>();
const VARIANTS = new Map<string, CorruptionVariant[]>();

beforeAll(async () => {
  await loadPythonGrammar();
  for (const { problem_id, solution } of PROBLEMS) {
    const sites = findSites(solution, IN_DOMAIN_FAMILIES);
    SITES.set(problem_id, sites);
    const options = {
      families: IN_DOMAIN_FAMILIES,
      count: { min: 1, max: 10 },
      variants: 5,
      seed: problem_id,
    };
    VARIANTS.set(problem_id, corruptionVariants(solution, { ...options, sites }).variants);
  }
});

function expectConsistentRecords(gold: string, program: string, applied: readonly AppliedCorruption[]): void {
  const lines = gold.split("\n");
  for (const [index, record] of applied.entries()) {
    expect(gold.slice(record.start, record.end)).toBe(record.original);
    expect(record.corrupted).not.toBe(record.original);
    const line = lines[record.line - 1] ?? "";
    const lineStart = lines.slice(0, record.line - 1).reduce((sum, text) => sum + text.length + 1, 0);
    expect(lineStart + record.column).toBe(record.start);
    expect(line.length).toBeGreaterThanOrEqual(record.column);
    const next = applied[index + 1];
    // Source order, and no two corruptions overlap or even touch.
    if (next !== undefined) expect(record.end).toBeLessThan(next.start);
  }
  expect(applyCorruptions(gold, applied)).toBe(program);
  expect(revertCorruptions(program, applied)).toBe(gold);
}

describe("corruptProgram", () => {
  const gold = PROBLEMS[0]?.solution ?? "";

  test("is deterministic for a seed, numeric or string alike", () => {
    const first = corruptProgram(gold, { families: IN_DOMAIN_FAMILIES, count: 2, seed: 7 });
    const again = corruptProgram(gold, { families: IN_DOMAIN_FAMILIES, count: 2, seed: "7" });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
  });

  test("different seeds give different corruptions", () => {
    const sites = findSites(gold, IN_DOMAIN_FAMILIES);
    const programs = new Set<string>();
    for (let seed = 0; seed < 20; seed += 1) {
      const result = corruptProgram(gold, { families: IN_DOMAIN_FAMILIES, count: 1, seed, sites });
      if (!result.ok) throw new Error(result.reason);
      expectConsistentRecords(gold, result.program, result.applied);
      programs.add(result.program);
    }
    expect(programs.size).toBeGreaterThanOrEqual(12);
  });

  test("precomputed sites give the same result as finding them again", () => {
    const sites = findSites(gold, IN_DOMAIN_FAMILIES);
    for (const seed of ["a", "b", "c"]) {
      expect(corruptProgram(gold, { families: IN_DOMAIN_FAMILIES, count: 3, seed, sites })).toEqual(
        corruptProgram(gold, { families: IN_DOMAIN_FAMILIES, count: 3, seed }),
      );
    }
  });

  test("records each corruption at its place in the gold program", () => {
    const program =
      "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total < 10\n";
    const result = corruptProgram(program, { families: named("comparison_operators"), count: 1, seed: 1 });
    expect(result).toEqual({
      ok: true,
      program: program.replace("total < 10", "total <= 10"),
      applied: [
        {
          family: "comparison_operators",
          line: 5,
          column: 17,
          start: program.indexOf("<"),
          end: program.indexOf("<") + 1,
          original: "<",
          corrupted: "<=",
        },
      ],
    });
  });

  test("chooses a family uniformly, then a site uniformly within it", () => {
    // One comparison site; six numeric sites (each literal ± 1): the comparison should come up half the
    // time, each numeric edit a twelfth.
    const program = "x = a < b\ny = [1, 2, 3]\n";
    const families = named("comparison_operators", "numeric_constants");
    const sites = findSites(program, families);
    expect(sites.get("comparison_operators")).toHaveLength(1);
    expect(sites.get("numeric_constants")).toHaveLength(6);
    const counts = new Map<string, number>();
    const draws = 2400;
    for (let seed = 0; seed < draws; seed += 1) {
      const result = corruptProgram(program, { families, count: 1, seed, sites });
      if (!result.ok) throw new Error(result.reason);
      counts.set(result.program, (counts.get(result.program) ?? 0) + 1);
    }
    expect(counts.size).toBe(7);
    const chiSquare = [...counts].reduce((sum, [corrupted, observed]) => {
      const expected = corrupted.includes("<=") ? draws / 2 : draws / 12;
      return sum + (observed - expected) ** 2 / expected;
    }, 0);
    // 6 degrees of freedom: 22.46 is the 99.9th percentile.
    expect(chiSquare).toBeLessThan(22.46);
  });

  test("with weights, chooses a family in proportion to its weight, and never one of weight 0", () => {
    // One comparison site, six numeric sites, one boolean site: weights 3 : 1 : 0.
    const program = "x = a < b\ny = [1, 2, 3]\nz = True\n";
    const families = named("comparison_operators", "numeric_constants", "boolean_constants");
    const weights = { comparison_operators: 3, numeric_constants: 1, boolean_constants: 0 };
    const sites = findSites(program, families);
    const counts = new Map<string, number>();
    const draws = 2000;
    for (let seed = 0; seed < draws; seed += 1) {
      const result = corruptProgram(program, { families, count: 1, seed, sites, weights });
      if (!result.ok) throw new Error(result.reason);
      const family = result.applied[0]?.family ?? "";
      counts.set(family, (counts.get(family) ?? 0) + 1);
    }
    expect(counts.get("boolean_constants")).toBeUndefined();
    const comparisons = counts.get("comparison_operators") ?? 0;
    const chiSquare = (comparisons - 1500) ** 2 / 1500 + (draws - comparisons - 500) ** 2 / 500;
    // 1 degree of freedom: 10.83 is the 99.9th percentile.
    expect(chiSquare).toBeLessThan(10.83);
    // Four disjoint sites without the boolean one: four corruptions take them all, five are too many.
    const four = corruptProgram(program, { families, count: 4, seed: 0, sites, weights });
    expect(four.ok && four.applied.map((a) => a.family)).toEqual([
      "comparison_operators",
      "numeric_constants",
      "numeric_constants",
      "numeric_constants",
    ]);
    expect(corruptProgram(program, { families, count: 5, seed: 0, sites, weights })).toEqual({
      ok: false,
      reason: "only 4 non-overlapping sites for 5 corruptions",
    });
    expect(
      corruptProgram(program, {
        families: named("boolean_constants"),
        count: 1,
        seed: 0,
        weights: { boolean_constants: 0 },
      }),
    ).toEqual({ ok: false, reason: "every requested family has weight 0: boolean_constants" });
  });

  test("rejects a requested family without a weight, or with a negative one", () => {
    const families = named("comparison_operators", "numeric_constants");
    for (const weights of [{ comparison_operators: 1 }, { comparison_operators: 1, numeric_constants: -1 }]) {
      expect(() => corruptProgram("x = a < 1\n", { families, count: 1, seed: 0, weights })).toThrow(
        /numeric_constants needs a weight/,
      );
    }
  });

  test("never picks overlapping sites, and never runs into a dead end", () => {
    // List indexing and numeric constants both have sites on the `0` and the `1`; with `i` and the two `+`
    // at most 5 disjoint corruptions exist, and asking for 5 must always succeed.
    const program = "y = xs[0] + xs[i] + xs[1]\n";
    const families = named("list_indexing", "numeric_constants", "arithmetic_operators");
    const sites = findSites(program, families);
    for (let seed = 0; seed < 200; seed += 1) {
      const result = corruptProgram(program, { families, count: 5, seed, sites });
      if (!result.ok) throw new Error(result.reason);
      expect(result.applied).toHaveLength(5);
      expectConsistentRecords(program, result.program, result.applied);
    }
    const tooMany = corruptProgram(program, { families, count: 6, seed: 0, sites });
    expect(tooMany).toEqual({ ok: false, reason: "only 5 non-overlapping sites for 6 corruptions" });
  });

  test("says why nothing could be produced", () => {
    expect(corruptProgram("pass\n", { families: [], count: 1, seed: 0 })).toEqual({
      ok: false,
      reason: "no corruption families requested",
    });
    expect(
      corruptProgram("pass\n", { families: named("comparison_operators", "range_step"), count: 1, seed: 0 }),
    ).toEqual({
      ok: false,
      reason: "no site for any of: comparison_operators, range_step",
    });
    expect(
      corruptProgram("x = a < b\n", { families: named("comparison_operators"), count: 2, seed: 0 }),
    ).toEqual({
      ok: false,
      reason: "only 1 non-overlapping site for 2 corruptions",
    });
  });

  test("gives up when no combination parses, though each edit alone does", () => {
    // Deleting either statement leaves a valid function; deleting both leaves an empty body.
    const program = "def f():\n    a\n    # keep\n    b\n";
    const deleteLines: CorruptionFamily = {
      name: "delete_lines",
      title: "test only",
      domain: "in-domain",
      findSites: () => [
        { start: program.indexOf("    a"), end: program.indexOf("    #"), replacement: "" },
        { start: program.indexOf("    b"), end: program.length, replacement: "" },
      ],
    };
    expect(findSites(program, [deleteLines]).get("delete_lines")).toHaveLength(2);
    expect(corruptProgram(program, { families: [deleteLines], count: 2, seed: 0 })).toEqual({
      ok: false,
      reason: "no draw of 2 corruptions gave a program that parses (32 draws)",
    });
  });

  test("rejects a bad count and an unparsable gold program", () => {
    expect(() => corruptProgram("x = 1\n", { families: IN_DOMAIN_FAMILIES, count: 0, seed: 0 })).toThrow(
      RangeError,
    );
    expect(() => corruptProgram("x = 1\n", { families: IN_DOMAIN_FAMILIES, count: 1.5, seed: 0 })).toThrow(
      RangeError,
    );
    expect(() => corruptProgram("x = (1\n", { families: IN_DOMAIN_FAMILIES, count: 1, seed: 0 })).toThrow(
      PySyntaxError,
    );
    expect(() => findSites("def f(:\n", IN_DOMAIN_FAMILIES)).toThrow(PySyntaxError);
  });
});

describe("reversal", () => {
  const gold = "a = xs[0]\nb = a < 3\n";
  const applied: AppliedCorruption[] = [
    { family: "list_indexing", line: 1, column: 7, start: 7, end: 8, original: "0", corrupted: "0 + 1" },
    {
      family: "comparison_operators",
      line: 2,
      column: 6,
      start: 16,
      end: 17,
      original: "<",
      corrupted: "<=",
    },
  ];

  test("maps offsets through the edits before each one", () => {
    expect(applyCorruptions(gold, applied)).toBe("a = xs[0 + 1]\nb = a <= 3\n");
    expect(revertCorruptions("a = xs[0 + 1]\nb = a <= 3\n", [...applied].reverse())).toBe(gold);
  });

  test("refuses records that do not match the program", () => {
    expect(() => revertCorruptions("a = xs[0]\nb = a <= 3\n", applied)).toThrow(/does not read/);
    expect(() => applyCorruptions("a = xs[1]\nb = a < 3\n", applied)).toThrow(/does not read/);
  });
});

describe("corruptionVariants", () => {
  test("gives distinct programs, deterministically", () => {
    const { problem_id, solution } = PROBLEMS[1] ?? { problem_id: "", solution: "" };
    const options = {
      families: IN_DOMAIN_FAMILIES,
      count: { min: 1, max: 2 },
      variants: 6,
      seed: problem_id,
    };
    const first = corruptionVariants(solution, options);
    expect(first.reason).toBeNull();
    expect(first.variants).toHaveLength(6);
    expect(new Set(first.variants.map((v) => normalizeProgram(v.program).normalized)).size).toBe(6);
    for (const variant of first.variants) expect([1, 2]).toContain(variant.applied.length);
    expect(corruptionVariants(solution, options)).toEqual(first);
  });

  test("draws the count by the range's weights, among the counts the program allows", () => {
    const program = "x = a < b\ny = c < d\n";
    const families = named("comparison_operators");
    const ones = (weights: readonly number[]) => {
      let count = 0;
      for (let seed = 0; seed < 1000; seed += 1) {
        const count2 = { min: 1, max: 2, weights };
        const { variants } = corruptionVariants(program, { families, count: count2, variants: 1, seed });
        if (variants[0]?.applied.length === 1) count += 1;
      }
      return count;
    };
    // 3 : 1 → three quarters single corruptions (± 4.5 standard deviations of 13.7).
    expect(Math.abs(ones([3, 1]) - 750)).toBeLessThan(62);
    expect(ones([0, 1])).toBe(0);
    expect(ones([1, 0])).toBe(1000);
    // One site only: 2 is impossible, so every draw has 1 whatever the weights.
    const single = corruptionVariants("x = a < b\n", {
      families,
      count: { min: 1, max: 2, weights: [0, 1] },
      variants: 1,
      seed: 0,
    });
    expect(single.variants[0]?.applied).toHaveLength(1);
    for (const weights of [[1], [1, -1], [0, 0], [1, Number.NaN]]) {
      expect(() =>
        corruptionVariants(program, { families, count: { min: 1, max: 2, weights }, variants: 1, seed: 0 }),
      ).toThrow(/count weights for 1-2 must be 2 numbers/);
    }
  });

  test("says when fewer variants exist than asked for", () => {
    const options = { families: named("comparison_operators"), count: 1, variants: 3, seed: 0 };
    const { variants, reason } = corruptionVariants("x = a < b\n", options);
    expect(variants.map((v) => v.program)).toEqual(["x = a <= b\n"]);
    expect(reason).toBe("only 1 distinct variant in 24 draws");
    expect(corruptionVariants("pass\n", options)).toEqual({
      variants: [],
      reason: "no site for any of: comparison_operators",
    });
  });
});

describe("over the 60 seed solutions (1–10 in-domain corruptions, 5 variants each)", () => {
  test("every variant is disjoint, recorded at its gold place, and reverts exactly", () => {
    expect(PROBLEMS).toHaveLength(60);
    for (const { problem_id, solution } of PROBLEMS) {
      const variants = VARIANTS.get(problem_id) ?? [];
      expect(variants.length, problem_id).toBe(5);
      for (const { program, applied } of variants) {
        expect(applied.length).toBeGreaterThanOrEqual(1);
        expect(applied.length).toBeLessThanOrEqual(10);
        expectConsistentRecords(solution, program, applied);
      }
    }
  });

  test("a single corruption is a small token edit, as in the paper's Table 8", () => {
    const distances: number[] = [];
    const normalized: number[] = [];
    for (const { problem_id, solution } of PROBLEMS) {
      const gold = programTokens(solution);
      for (let k = 0; k < 5; k += 1) {
        const sites = SITES.get(problem_id) ?? new Map();
        const seed = `${problem_id}/${k}`;
        const result = corruptProgram(solution, { families: IN_DOMAIN_FAMILIES, count: 1, seed, sites });
        if (!result.ok) throw new Error(result.reason);
        const corrupted = programTokens(result.program);
        distances.push(tokenLevenshtein(gold, corrupted));
        normalized.push(normalizedTokenDistance(gold, corrupted));
      }
    }
    distances.sort((a, b) => a - b);
    expect(distances[0]).toBeGreaterThanOrEqual(1);
    // Median one or two token edits; guard additions and removals are the long tail.
    expect(distances[Math.floor(distances.length / 2)]).toBeLessThanOrEqual(2);
    expect(distances.filter((d) => d <= 4).length / distances.length).toBeGreaterThan(0.8);
    // d(G, C) as the reward sees it: the paper's median normalized gold distance is 0.014.
    normalized.sort((a, b) => a - b);
    expect(normalized[Math.floor(normalized.length / 2)]).toBeLessThan(0.03);
  });

  test("CPython 3.11 parses every corrupted program and sees it differ from the gold one", () => {
    const programs = PROBLEMS.flatMap(({ problem_id, solution }) =>
      (VARIANTS.get(problem_id) ?? []).map((variant) => ({ gold: solution, corrupted: variant.program })),
    );
    const script = [
      "import ast, json, sys",
      "out = []",
      "for item in json.load(sys.stdin):",
      "    try:",
      "        corrupted = ast.unparse(ast.parse(item['corrupted']))",
      "    except SyntaxError as error:",
      "        out.append({'error': str(error)})",
      "        continue",
      "    out.append({'norm': corrupted, 'gold': ast.unparse(ast.parse(item['gold']))})",
      "json.dump(out, sys.stdout)",
    ].join("\n");
    const run = spawnSync("python3", ["-c", script], {
      input: JSON.stringify(programs),
      maxBuffer: 256 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr.toString()}`);
    const answers = JSON.parse(run.stdout.toString()) as Array<{
      error?: string;
      norm?: string;
      gold?: string;
    }>;
    expect(answers).toHaveLength(programs.length);
    for (const [index, answer] of answers.entries()) {
      const corrupted = programs[index]?.corrupted ?? "";
      expect(answer.error, corrupted).toBeUndefined();
      expect(answer.norm).not.toBe(answer.gold);
      // Our normalizer agrees with CPython on the corrupted program, so its token check was sound.
      expect(normalizeProgram(corrupted).normalized).toBe(answer.norm);
    }
  });
});

describe("seededRandom", () => {
  test("is mulberry32 over the FNV-1a hash of the seed text: deterministic, in [0, 1)", () => {
    const a = seededRandom("seed");
    const b = seededRandom("seed");
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(seededRandom(1)()).not.toBe(seededRandom(2)());
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.05);
  });
});

describe("registry", () => {
  test("lists the 14 in-domain families, then the held-out ones, each name once", () => {
    expect(ALL_FAMILIES.slice(0, 14)).toEqual([...IN_DOMAIN_FAMILIES]);
    expect(ALL_FAMILIES.slice(14)).toEqual([...OOD_FAMILIES]);
    expect(new Set(ALL_FAMILIES.map((f) => f.name)).size).toBe(ALL_FAMILIES.length);
    for (const family of ALL_FAMILIES) expect(family.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(familyByName("range_step")?.title).toBe("Range Step Modification");
    expect(familyByName("nope")).toBeUndefined();
  });

  test("knows the optional variants by name, in no group", () => {
    expect(KNOWN_FAMILIES).toEqual([...ALL_FAMILIES, ...OPTIONAL_IN_DOMAIN_FAMILIES]);
    expect(familyByName("edge_case_guard_blocks")?.title).toBe("Edge Case Guard Blocks");
    expect(parseFamilySpec("in-domain,edge_case_guard_blocks").map((f) => f.name)).toEqual([
      ...IN_DOMAIN_FAMILIES.map((f) => f.name),
      "edge_case_guard_blocks",
    ]);
    expect(parseFamilySpec("all").map((f) => f.name)).not.toContain("edge_case_guard_blocks");
  });

  test("the paper mix: a weight for each in-domain family, counts for the 1-2 range", () => {
    expect(Object.keys(PAPER_FAMILY_WEIGHTS).sort()).toEqual(IN_DOMAIN_FAMILIES.map((f) => f.name).sort());
    // Table 9 lists no conditional inversion and no range step.
    expect(PAPER_FAMILY_WEIGHTS.conditional_inversion).toBe(0);
    expect(PAPER_FAMILY_WEIGHTS.range_step).toBe(0);
    for (const [name, weight] of Object.entries(PAPER_FAMILY_WEIGHTS)) {
      if (name !== "conditional_inversion" && name !== "range_step") expect(weight, name).toBeGreaterThan(0);
    }
    expect(PAPER_COUNT_WEIGHTS[0]).toBeGreaterThan(PAPER_COUNT_WEIGHTS[1]);
    expect(defaultCorruptionMix(IN_DOMAIN_FAMILIES)).toBe("paper");
    expect(defaultCorruptionMix(named("comparison_operators"))).toBe("paper");
    expect(defaultCorruptionMix(OOD_FAMILIES)).toBe("uniform");
    expect(defaultCorruptionMix(parseFamilySpec("in-domain,edge_case_guard_blocks"))).toBe("uniform");
    expect(defaultCorruptionMix(ALL_FAMILIES)).toBe("uniform");
    expect(mixWeights("uniform", OOD_FAMILIES, { min: 1, max: 2 })).toEqual({});
    expect(mixWeights("paper", IN_DOMAIN_FAMILIES, { min: 1, max: 2 })).toEqual({
      families: PAPER_FAMILY_WEIGHTS,
      counts: PAPER_COUNT_WEIGHTS,
    });
    expect(mixWeights("paper", IN_DOMAIN_FAMILIES, { min: 1, max: 10 })).toEqual({
      families: PAPER_FAMILY_WEIGHTS,
    });
    expect(() => mixWeights("paper", named("min_max_swap"), { min: 1, max: 2 })).toThrow(
      /in-domain families only, not for min_max_swap/,
    );
    expect(() => mixWeights("paper", named("range_step"), { min: 1, max: 2 })).toThrow(
      /never draws range_step/,
    );
    expect(parseCorruptionMix(" paper ")).toBe("paper");
    expect(() => parseCorruptionMix("table9")).toThrow(/valid: paper, uniform, blocks/);
  });

  test("the blocks mix: uniform, with edge_case_guards inserting and removing whole guards", () => {
    expect(parseCorruptionMix("blocks")).toBe("blocks");
    expect(mixWeights("blocks", IN_DOMAIN_FAMILIES, { min: 1, max: 2 })).toEqual({});
    expect(mixWeights("blocks", OOD_FAMILIES, { min: 1, max: 2 })).toEqual({});
    const swapped = mixFamilies("blocks", IN_DOMAIN_FAMILIES);
    expect(swapped.map((f) => f.name)).toEqual(IN_DOMAIN_FAMILIES.map((f) => f.name));
    expect(swapped.filter((f, i) => f !== IN_DOMAIN_FAMILIES[i]).map((f) => f.name)).toEqual([
      "edge_case_guards",
    ]);
    expect(mixFamilies("paper", IN_DOMAIN_FAMILIES)).toEqual([...IN_DOMAIN_FAMILIES]);
    expect(mixFamilies("uniform", OOD_FAMILIES)).toEqual([...OOD_FAMILIES]);

    const gold = [
      "def f(items, limit):",
      "    if not items:",
      "        return []",
      "    out = []",
      "    for item in items:",
      "        if item > limit or item is None:",
      "            break",
      "        out.append(item)",
      "    return out",
      "",
    ].join("\n");
    const edits = (families: readonly CorruptionFamily[]) =>
      [...(findSites(gold, families).get("edge_case_guards") ?? [])].map((site) =>
        tokenLevenshtein(
          programTokens(gold),
          programTokens(gold.slice(0, site.start) + site.replacement + gold.slice(site.end)),
        ),
      );
    // Token-level (the default families): every guard edit changes one to three tokens.
    const tokenLevel = edits(named("edge_case_guards"));
    expect(tokenLevel.length).toBeGreaterThan(4);
    expect(Math.max(...tokenLevel)).toBeLessThanOrEqual(3);
    // Blocks, in source order: a guard added at the top of the function (9 tokens), the first guard
    // removed (8) or negated (1), the second removed (12; its `or` test has no one-token negation), a
    // guard added at the top of the loop (7).
    const blocks = edits(mixFamilies("blocks", named("edge_case_guards")));
    expect(blocks).toEqual([9, 8, 1, 12, 7]);
  });

  test("parses --families", () => {
    expect(parseFamilySpec("in-domain")).toEqual([...IN_DOMAIN_FAMILIES]);
    expect(parseFamilySpec("ood")).toEqual([...OOD_FAMILIES]);
    expect(parseFamilySpec("all")).toEqual([...ALL_FAMILIES]);
    expect(parseFamilySpec(" range_step, comparison_operators,range_step ").map((f) => f.name)).toEqual([
      "range_step",
      "comparison_operators",
    ]);
    expect(() => parseFamilySpec("comparison_operators,bogus")).toThrow(
      /unknown corruption family "bogus".*range_step/,
    );
    expect(() => parseFamilySpec(" , ")).toThrow(/no corruption families/);
  });

  test("parses --corruptions", () => {
    expect(parseCorruptionCount("3")).toEqual({ min: 3, max: 3 });
    expect(parseCorruptionCount("1-2")).toEqual({ min: 1, max: 2 });
    expect(parseCorruptionCount(" 1 - 10 ")).toEqual({ min: 1, max: 10 });
    for (const bad of ["0", "2-1", "a", "1-", "-2", "1.5", ""]) {
      expect(() => parseCorruptionCount(bad), bad).toThrow(/invalid corruption count/);
    }
  });
});
