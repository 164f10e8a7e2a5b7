/**
 * The corruption engine (docs/tasks.md#corruption-families): finds where the families can corrupt a gold program, chooses among
 * those places with a seeded random generator, applies the edits and records them, so the gold patch is
 * the exact reversal of what was applied.
 *
 * How corruptions are chosen. The over-editing paper "samples one or two corruptions from the families"
 * (A.1) for each task; its family distribution (Table 9) is far from uniform because families differ in
 * how often they apply. We read it as: draw a *family* first, then a place within it. So each corruption
 * is drawn in two steps — a family uniformly among the requested families that still have a usable site,
 * then a site uniformly among that family's usable sites — which keeps rare but applicable families
 * (sort order, copy removal) from drowning under the ubiquitous ones (numeric constants). With `weights`
 * the family is drawn with probability proportional to its weight among those with a usable site instead,
 * and a family of weight 0 is never drawn (the registry's paper mix reproduces the paper's Table 9 this
 * way); the site is still uniform within the family. A site is
 * usable when it does not overlap or abut any site already chosen and, once chosen, still leaves enough
 * mutually disjoint sites for the corruptions left to draw (checked exactly: sites are intervals, and the
 * greedy earliest-end pick finds a largest disjoint set), so a draw never runs into a dead end.
 *
 * Randomness: the seed (a number or a string) is turned into its decimal/string text, hashed with 32-bit
 * FNV-1a, and the hash seeds mulberry32; every random choice takes the next mulberry32 number. The same
 * gold, families, count and seed therefore always give the same corruptions (on any platform: both are
 * pure 32-bit integer arithmetic), and `42` and `"42"` are the same seed.
 *
 * Pure: no I/O. Callers must `await loadPythonGrammar()` once per thread first.
 */
import { normalizeProgram } from "../normalize.js";
import { pythonParser } from "../python/grammar.js";
import { PySyntaxError } from "../python/syntax-error.js";
import { TokenizeError } from "../python/tokenize.js";
import type { AppliedCorruption, CorruptionFamily, CorruptionResult, CorruptionSite } from "./types.js";

/**
 * The usable sites of each family in `gold`, keyed by family name (every requested family has an entry,
 * maybe empty), in source order without duplicates. A site is usable when applying it alone gives a
 * program that parses as Python 3.11 and whose tokens differ from the gold program's.
 * Throws `PySyntaxError` when `gold` itself cannot be normalized.
 */
export function findSites(
  gold: string,
  families: readonly CorruptionFamily[],
): Map<string, CorruptionSite[]> {
  return collectSites(gold, families).sites;
}

/**
 * How many corruptions to apply: exactly `count`, or between `min` and `max` (inclusive): uniformly, or in
 * proportion to `weights`, one weight (finite, ≥ 0, not all 0) per count from `min` to `max`.
 */
export type CorruptionCount = number | { min: number; max: number; weights?: readonly number[] };

/**
 * Relative weight of each family in the family draw (see the module comment), by family name: every
 * requested family needs a finite weight ≥ 0, and 0 means it is never drawn. Without weights the draw is
 * uniform.
 */
export type FamilyWeights = Readonly<Record<string, number>>;

export type CorruptOptions = {
  families: readonly CorruptionFamily[];
  /** How many corruptions, at least 1. */
  count: number;
  seed: number | string;
  /** Family weights; uniform when absent. */
  weights?: FamilyWeights;
  /**
   * `findSites(gold, families)` computed once, to draw many corruptions of one program without finding
   * its sites again (the expensive part: every site is checked by parsing). Must come from the same gold.
   */
  sites?: ReadonlyMap<string, CorruptionSite[]>;
};

/**
 * Applies `count` disjoint corruptions drawn from `families` (see the module comment for how), checks
 * that the result parses and differs from `gold` in tokens, and records each corruption at its place in
 * `gold` (the `applied` list is in source order). `{ ok: false }` says why when it cannot be done: no
 * family applies, fewer disjoint sites than `count`, or no draw gave a program that parses.
 * Throws `PySyntaxError` when `gold` does not parse, and `RangeError` for a `count` below 1 or a requested
 * family without a weight ≥ 0 in `weights`.
 */
export function corruptProgram(gold: string, options: CorruptOptions): CorruptionResult {
  checkCount(options.count);
  const found = sitesOf(gold, options);
  const { sites, draw } = weighted(found.sites, options.weights);
  const tokens = found.tokens;
  const random = seededRandom(options.seed);
  return drawCorruption(gold, tokens, sites, options.count, random, draw).result;
}

export type VariantsOptions = {
  families: readonly CorruptionFamily[];
  count: CorruptionCount;
  /** How many distinct corrupted programs are wanted. */
  variants: number;
  seed: number | string;
  /** Family weights; uniform when absent. */
  weights?: FamilyWeights;
  /** How many draws to try before giving up on finding more distinct variants; default 8 × `variants`. */
  maxDraws?: number;
  /** As in {@link CorruptOptions}: the program's sites, found once. */
  sites?: ReadonlyMap<string, CorruptionSite[]>;
};

export type CorruptionVariant = { program: string; applied: AppliedCorruption[] };

/**
 * Up to `variants` corrupted versions of `gold` whose normalized programs all differ, drawn from one
 * seeded stream (deterministic). With a count range, each draw picks its count between `min` and the
 * smaller of `max` and the most disjoint sites the program has: uniformly, or by the range's `weights`
 * restricted to those counts (the smallest count when none of them has a weight above 0). `reason` is
 * null when all the variants were found, else says why fewer were (e.g. "only 2 distinct variants in 16
 * draws").
 * Throws like {@link corruptProgram}.
 */
export function corruptionVariants(
  gold: string,
  options: VariantsOptions,
): { variants: CorruptionVariant[]; reason: string | null } {
  const range: { min: number; max: number; weights?: readonly number[] } =
    typeof options.count === "number" ? { min: options.count, max: options.count } : options.count;
  checkCount(range.min);
  if (range.max < range.min) throw new RangeError(`count range ${range.min}-${range.max} is empty`);
  checkCountWeights(range);
  const found = sitesOf(gold, options);
  const { sites, draw } = weighted(found.sites, options.weights);
  const tokens = found.tokens;
  const random = seededRandom(options.seed);
  const most = mostDisjoint(candidatesOf(sites));
  const top = Math.min(range.max, Math.max(most, range.min));
  const counts = Array.from({ length: top - range.min + 1 }, (_, index) => index);
  // Counts above `top` cannot be drawn; the weights of the others keep their proportions.
  const countWeights = range.weights === undefined ? null : counts.map((i) => range.weights?.[i] ?? 0);
  const drawableCounts =
    countWeights === null ? counts : counts.filter((index) => (countWeights[index] ?? 0) > 0);
  const maxDraws = options.maxDraws ?? 8 * options.variants;
  const variants: CorruptionVariant[] = [];
  const seen = new Set<string>();
  let lastFailure: string | null = null;
  let draws = 0;
  while (variants.length < options.variants && draws < maxDraws) {
    draws += 1;
    const count =
      range.min + (drawableCounts.length === 0 ? 0 : pickIndex(drawableCounts, countWeights, random));
    const { result, normalized, hopeless } = drawCorruption(gold, tokens, sites, count, random, draw);
    if (!result.ok) {
      lastFailure = result.reason;
      // Nothing random made this fail (no site, too few sites): more draws cannot help.
      if (hopeless) break;
      continue;
    }
    if (normalized === null || seen.has(normalized)) continue;
    seen.add(normalized);
    variants.push({ program: result.program, applied: result.applied });
  }
  if (variants.length === options.variants) return { variants, reason: null };
  const reason =
    lastFailure !== null && variants.length === 0
      ? lastFailure
      : `only ${variants.length} distinct variant${variants.length === 1 ? "" : "s"} in ${draws} draws`;
  return { variants, reason };
}

/**
 * The corrupted program that `applied` (as recorded by {@link corruptProgram}) makes of `gold`.
 * Throws when a record does not match `gold` (its `original` is not the gold text at its place) or two
 * records overlap.
 */
export function applyCorruptions(gold: string, applied: readonly AppliedCorruption[]): string {
  const edits = [...applied].sort((a, b) => a.start - b.start);
  let previousEnd = -1;
  for (const edit of edits) {
    if (edit.start < previousEnd) throw new Error(`corruptions overlap at offset ${edit.start}`);
    if (gold.slice(edit.start, edit.end) !== edit.original) {
      throw new Error(
        `${edit.family} at line ${edit.line}: the gold program does not read ${JSON.stringify(edit.original)} there`,
      );
    }
    previousEnd = edit.end;
  }
  return applyEdits(
    gold,
    edits.map((edit) => ({ start: edit.start, end: edit.end, replacement: edit.corrupted })),
  );
}

/**
 * The gold program back from a corrupted one: every recorded edit undone. Offsets are recorded in the gold
 * program, so each is moved by the length changes of the edits before it. Throws when the corrupted
 * program does not read a record's `corrupted` text where that record says.
 */
export function revertCorruptions(corrupted: string, applied: readonly AppliedCorruption[]): string {
  const edits = [...applied].sort((a, b) => a.start - b.start);
  const reverts: CorruptionSite[] = [];
  let shift = 0;
  for (const edit of edits) {
    const start = edit.start + shift;
    const end = start + edit.corrupted.length;
    if (corrupted.slice(start, end) !== edit.corrupted) {
      throw new Error(
        `${edit.family} at line ${edit.line}: the corrupted program does not read ${JSON.stringify(edit.corrupted)} there`,
      );
    }
    reverts.push({ start, end, replacement: edit.original });
    shift += edit.corrupted.length - (edit.end - edit.start);
  }
  return applyEdits(corrupted, reverts);
}

// ---------------------------------------------------------------------------------------------------------

type FamilySites = ReadonlyMap<string, readonly CorruptionSite[]>;

function sitesOf(
  gold: string,
  options: { families: readonly CorruptionFamily[]; sites?: FamilySites },
): { tokens: string[]; sites: FamilySites } {
  if (options.sites === undefined) return collectSites(gold, options.families);
  return { tokens: normalizeProgram(gold).tokens, sites: options.sites };
}

function collectSites(
  gold: string,
  families: readonly CorruptionFamily[],
): { tokens: string[]; sites: Map<string, CorruptionSite[]> } {
  const tokens = normalizeProgram(gold).tokens;
  const tree = pythonParser().parse(gold);
  if (tree === null) throw new PySyntaxError("the parser gave up");
  const sites = new Map<string, CorruptionSite[]>();
  try {
    for (const family of families) {
      sites.set(family.name, usableSites(gold, tokens, family.findSites(tree.rootNode, gold), family.name));
    }
  } finally {
    tree.delete();
  }
  return { tokens, sites };
}

function usableSites(
  gold: string,
  tokens: readonly string[],
  found: CorruptionSite[],
  family: string,
): CorruptionSite[] {
  const seen = new Set<string>();
  const usable: CorruptionSite[] = [];
  for (const site of [...found].sort((a, b) => a.start - b.start || a.end - b.end)) {
    if (!(site.start >= 0 && site.start <= site.end && site.end <= gold.length)) {
      throw new Error(`${family} returned a site outside the program: [${site.start}, ${site.end})`);
    }
    const key = `${site.start}:${site.end}:${site.replacement}`;
    if (seen.has(key) || gold.slice(site.start, site.end) === site.replacement) continue;
    seen.add(key);
    if (normalizedIfChanged(applyEdits(gold, [site]), tokens) !== null) usable.push(site);
  }
  return usable;
}

/** norm(program) when `program` parses and its tokens differ from `goldTokens`, else null. */
function normalizedIfChanged(program: string, goldTokens: readonly string[]): string | null {
  let normalized: { normalized: string; tokens: string[] };
  try {
    normalized = normalizeProgram(program);
  } catch (error) {
    if (error instanceof PySyntaxError || error instanceof TokenizeError) {
      return null;
    }
    throw error;
  }
  return sameTokens(normalized.tokens, goldTokens) ? null : normalized.normalized;
}

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((token, index) => token === b[index]);
}

/** Applies non-overlapping edits, from the last to the first so earlier offsets stay valid. */
function applyEdits(source: string, edits: readonly CorruptionSite[]): string {
  let result = source;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    result = result.slice(0, edit.start) + edit.replacement + result.slice(edit.end);
  }
  return result;
}

type Candidate = { family: string; site: CorruptionSite };

/** The drawable family names in order, with their weights (null: uniform), and those of weight 0. */
type FamilyDraw = {
  families: readonly string[];
  weights: readonly number[] | null;
  excluded: readonly string[];
};

/**
 * The sites the draw may use and how families are drawn: all requested families uniformly without
 * `weights`, else the families of weight > 0 with their weights (the sites of weight-0 families are left
 * out, so they count neither as sites to draw nor for the disjoint-site feasibility checks).
 * Throws `RangeError` for a requested family without a finite weight ≥ 0.
 */
function weighted(
  sites: FamilySites,
  weights: FamilyWeights | undefined,
): { sites: FamilySites; draw: FamilyDraw } {
  if (weights === undefined) {
    return { sites, draw: { families: [...sites.keys()], weights: null, excluded: [] } };
  }
  const kept = new Map<string, readonly CorruptionSite[]>();
  const familyWeights: number[] = [];
  const excluded: string[] = [];
  for (const [family, list] of sites) {
    const weight = Object.hasOwn(weights, family) ? weights[family] : undefined;
    if (weight === undefined || !Number.isFinite(weight) || weight < 0) {
      throw new RangeError(`corruption family ${family} needs a weight ≥ 0, got ${String(weight)}`);
    }
    if (weight === 0) {
      excluded.push(family);
      continue;
    }
    kept.set(family, list);
    familyWeights.push(weight);
  }
  return { sites: kept, draw: { families: [...kept.keys()], weights: familyWeights, excluded } };
}

function checkCountWeights(range: { min: number; max: number; weights?: readonly number[] }): void {
  const weights = range.weights;
  if (weights === undefined) return;
  if (
    weights.length !== range.max - range.min + 1 ||
    !weights.every((w) => Number.isFinite(w) && w >= 0) ||
    !weights.some((w) => w > 0)
  ) {
    throw new RangeError(
      `count weights for ${range.min}-${range.max} must be ${range.max - range.min + 1} numbers ≥ 0, not all 0`,
    );
  }
}

function candidatesOf(sites: FamilySites): Candidate[] {
  return [...sites].flatMap(([family, list]) => list.map((site) => ({ family, site })));
}

/**
 * Two sites conflict when their closed ranges meet: overlapping, nested, or merely touching (an insertion
 * right at the end of a replaced token could glue to it), so each corruption owns its tokens alone.
 */
function conflicts(a: CorruptionSite, b: CorruptionSite): boolean {
  return a.start <= b.end && b.start <= a.end;
}

/** The size of a largest set of mutually non-conflicting sites (interval scheduling, earliest end first). */
function mostDisjoint(candidates: readonly Candidate[]): number {
  const byEnd = [...candidates].sort((a, b) => a.site.end - b.site.end || a.site.start - b.site.start);
  let count = 0;
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const { site } of byEnd) {
    if (site.start > lastEnd) {
      count += 1;
      lastEnd = site.end;
    }
  }
  return count;
}

/** How many draws may fail to parse as a whole before {@link drawCorruption} gives up. */
const MAX_ATTEMPTS = 32;

/**
 * One corrupted program: up to {@link MAX_ATTEMPTS} draws of `count` disjoint sites, the first whose
 * combined edit parses and changes the tokens wins. `normalized` is its norm (null on failure);
 * `hopeless` says a failure did not depend on the draw (no site, too few disjoint sites).
 */
function drawCorruption(
  gold: string,
  goldTokens: readonly string[],
  sites: FamilySites,
  count: number,
  random: () => number,
  draw: FamilyDraw,
): { result: CorruptionResult; normalized: string | null; hopeless: boolean } {
  const candidates = candidatesOf(sites);
  if (candidates.length === 0) {
    const names = [...sites.keys()];
    const reason =
      names.length > 0
        ? `no site for any of: ${names.join(", ")}`
        : draw.excluded.length > 0
          ? `every requested family has weight 0: ${draw.excluded.join(", ")}`
          : "no corruption families requested";
    return { result: { ok: false, reason }, normalized: null, hopeless: true };
  }
  const most = mostDisjoint(candidates);
  if (most < count) {
    const reason = `only ${most} non-overlapping site${most === 1 ? "" : "s"} for ${count} corruptions`;
    return { result: { ok: false, reason }, normalized: null, hopeless: true };
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const chosen = chooseSites(candidates, draw, count, random);
    const program = applyEdits(
      gold,
      chosen.map((c) => c.site),
    );
    const normalized = normalizedIfChanged(program, goldTokens);
    if (normalized !== null) {
      const applied = chosen.map((c) => recordOf(gold, c)).sort((a, b) => a.start - b.start);
      return { result: { ok: true, program, applied }, normalized, hopeless: false };
    }
  }
  const reason = `no draw of ${count} corruptions gave a program that parses (${MAX_ATTEMPTS} draws)`;
  return { result: { ok: false, reason }, normalized: null, hopeless: false };
}

/**
 * Draws `count` mutually disjoint candidates: each time a family among those with a usable candidate
 * (uniformly, or in proportion to its weight), then one of its usable candidates uniformly (see the module
 * comment). The caller has checked that `count` disjoint candidates exist, so every step has a usable one.
 */
function chooseSites(
  all: readonly Candidate[],
  draw: FamilyDraw,
  count: number,
  random: () => number,
): Candidate[] {
  const chosen: Candidate[] = [];
  let remaining = [...all];
  for (let step = 0; step < count; step += 1) {
    const stillNeeded = count - step - 1;
    const usable =
      stillNeeded === 0
        ? remaining
        : remaining.filter(
            (candidate) =>
              mostDisjoint(remaining.filter((other) => !conflicts(other.site, candidate.site))) >=
              stillNeeded,
          );
    const withSites = draw.families.flatMap((family, index) =>
      usable.some((c) => c.family === family) ? [index] : [],
    );
    const family = draw.families[pickIndex(withSites, draw.weights, random)];
    const inFamily = usable.filter((c) => c.family === family);
    const pick = inFamily[Math.floor(random() * inFamily.length)];
    if (pick === undefined)
      throw new Error("corruption engine: no usable site left (a bug: feasibility was checked)");
    chosen.push(pick);
    remaining = remaining.filter((other) => !conflicts(other.site, pick.site));
  }
  return chosen;
}

/**
 * One of `indices` (indices into the family list): uniformly without weights, as the engine always did
 * (so unweighted builds draw what they drew before weights existed); else with probability proportional
 * to `weights[index]`, by walking the cumulative weights.
 */
function pickIndex(
  indices: readonly number[],
  weights: readonly number[] | null,
  random: () => number,
): number {
  if (weights === null) return indices[Math.floor(random() * indices.length)] ?? -1;
  const total = indices.reduce((sum, index) => sum + (weights[index] ?? 0), 0);
  let point = random() * total;
  for (const index of indices) {
    point -= weights[index] ?? 0;
    if (point < 0) return index;
  }
  // Rounding can leave `point` a hair above the last cumulative weight.
  return indices[indices.length - 1] ?? -1;
}

function recordOf(gold: string, { family, site }: Candidate): AppliedCorruption {
  const lineStart = gold.lastIndexOf("\n", site.start - 1) + 1;
  let line = 1;
  for (
    let index = gold.indexOf("\n");
    index >= 0 && index < site.start;
    index = gold.indexOf("\n", index + 1)
  ) {
    line += 1;
  }
  return {
    family,
    line,
    column: site.start - lineStart,
    start: site.start,
    end: site.end,
    original: gold.slice(site.start, site.end),
    corrupted: site.replacement,
  };
}

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`corruption count must be an integer ≥ 1, got ${count}`);
}

/** mulberry32 seeded with the 32-bit FNV-1a hash of the seed's text: uniform numbers in [0, 1). */
export function seededRandom(seed: number | string): () => number {
  let state = fnv1a(String(seed));
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
