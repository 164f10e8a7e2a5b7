/**
 * Every corruption family by name, the family weights that reproduce the over-editing paper's mix, and
 * the parsers of the task builder's `--families`, `--family-weights` and `--corruptions` options (docs/tasks.md#corruption-families:
 * evaluation uses 1–2 corruptions per task, training 1–10).
 */
import type { FamilyWeights } from "./engine.js";
import { edgeCaseGuardsWithBlocks } from "./in-domain/edge-case-guard-blocks.js";
import { IN_DOMAIN_FAMILIES, OPTIONAL_IN_DOMAIN_FAMILIES } from "./in-domain/index.js";
import { OOD_FAMILIES } from "./ood/index.js";
import type { CorruptionFamily } from "./types.js";

/** The 14 in-domain families, then the 20 held-out ones, each in the order docs/tasks.md lists them: the `all` group. */
export const ALL_FAMILIES: readonly CorruptionFamily[] = [...IN_DOMAIN_FAMILIES, ...OOD_FAMILIES];

/**
 * Every family the engine knows: {@link ALL_FAMILIES}, then the optional in-domain variants that no group
 * includes and only their name selects (`edge_case_guard_blocks`).
 */
export const KNOWN_FAMILIES: readonly CorruptionFamily[] = [...ALL_FAMILIES, ...OPTIONAL_IN_DOMAIN_FAMILIES];

/** Family groups a `--families` list may name. */
const GROUPS: Readonly<Record<string, readonly CorruptionFamily[]>> = {
  "in-domain": IN_DOMAIN_FAMILIES,
  ood: OOD_FAMILIES,
  all: ALL_FAMILIES,
};

/** The family with this snake_case name, or undefined. */
export function familyByName(name: string): CorruptionFamily | undefined {
  return KNOWN_FAMILIES.find((family) => family.name === name);
}

/**
 * The families a `--families` value selects: a comma-separated list of family names and group names
 * (`in-domain`, `ood`, `all`), in the order written, each family once. Throws an Error naming the valid
 * choices for an empty list or an unknown name.
 */
export function parseFamilySpec(spec: string): CorruptionFamily[] {
  const items = spec
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  if (items.length === 0) throw new Error(`no corruption families given; ${validChoices()}`);
  const selected: CorruptionFamily[] = [];
  for (const item of items) {
    const group = GROUPS[item] ?? null;
    const family = group === null ? familyByName(item) : undefined;
    if (group === null && family === undefined) {
      throw new Error(`unknown corruption family "${item}"; ${validChoices()}`);
    }
    for (const chosen of group ?? [family as CorruptionFamily]) {
      if (!selected.includes(chosen)) selected.push(chosen);
    }
  }
  return selected;
}

function validChoices(): string {
  return `valid: ${Object.keys(GROUPS).join(", ")}, or family names ${KNOWN_FAMILIES.map((f) => f.name).join(", ")}`;
}

/**
 * The `--corruptions` value: `"3"` (exactly three per task) or `"1-2"` (between one and two, inclusive).
 * Throws an Error unless both ends are integers ≥ 1 with min ≤ max.
 */
export function parseCorruptionCount(spec: string): { min: number; max: number } {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(spec);
  const min = match === null ? Number.NaN : Number(match[1]);
  const max = match?.[2] === undefined ? min : Number(match[2]);
  if (!(min >= 1 && max >= min && Number.isSafeInteger(max))) {
    throw new Error(`invalid corruption count "${spec}": expected N or MIN-MAX with 1 ≤ MIN ≤ MAX, e.g. 1-2`);
  }
  return { min, max };
}

/**
 * How a build draws its corruptions:
 * - `paper`: the over-editing paper's mix (the weights below; token-level guard edits);
 * - `uniform`: each corruption's family uniformly among the families with a site, the count uniformly in
 *   its range;
 * - `blocks`: `uniform`, with `edge_case_guards` also inserting and removing whole guards (7–25 tokens;
 *   edge-case-guard-blocks.ts) — the engine's draw before the paper mix existed, so task sets built then
 *   rebuild byte for byte with it.
 */
export type CorruptionMix = "paper" | "uniform" | "blocks";

export const CORRUPTION_MIXES: readonly CorruptionMix[] = ["paper", "uniform", "blocks"];

/**
 * The family weights of the `paper` mix. The engine draws a family in proportion to its weight among
 * the families with a usable site, so these are not Table 9's shares themselves: a family that applies to
 * few programs (range bounds, list indexing) needs a larger weight to reach its share, one that applies
 * to most (numeric constants) a smaller one, and one whose corruptions often leave the tests passing a
 * larger one. Calibrated on BigCodeBench with scripts/build-paper-set.mjs (400 kept tasks, seed 0; the
 * figures are in docs/paper-set.md): edge-case guards 21.4 % of applications (Table 9: 22.7 %), arithmetic
 * 15.0 % (18.3 %), comparisons 14.5 % (13.2 %), numeric constants 13.6 % (11.3 %). Accumulator
 * initialization stays above the paper's 0.4 % (3.2 %) whatever its weight: some programs have no other
 * site, and the draw takes a family among those with a site.
 */
export const PAPER_FAMILY_WEIGHTS: FamilyWeights = {
  comparison_operators: 100,
  range_bounds: 55,
  sort_order: 67,
  accumulator_initialization: 0.03,
  arithmetic_operators: 80,
  edge_case_guards: 63,
  list_indexing: 30,
  function_call_substitution: 7.5,
  copy_removal: 0.3,
  boolean_constants: 6.6,
  numeric_constants: 0.15,
  slice_bounds: 0.2,
  conditional_inversion: 0,
  range_step: 0,
};

/**
 * The `paper` mix's weights of one and two corruptions, for the 1–2 range the paper's evaluation set
 * uses (other ranges draw their count uniformly). The paper has 232 tasks with one and 168 with two
 * (58 : 42); 60 : 40 gives 234 : 166 among kept tasks (two corruptions break the tests a little more
 * often), and with them Table 8's gold patch size: 1.65 token edits on average (paper 1.63).
 */
export const PAPER_COUNT_WEIGHTS: readonly [one: number, two: number] = [60, 40];

/** The `--mix` value: `paper`, `uniform` or `blocks`. Throws an Error naming the choices otherwise. */
export function parseCorruptionMix(spec: string): CorruptionMix {
  const value = spec.trim();
  if ((CORRUPTION_MIXES as readonly string[]).includes(value)) return value as CorruptionMix;
  throw new Error(`unknown corruption mix "${spec}"; valid: ${CORRUPTION_MIXES.join(", ")}`);
}

/**
 * The mix a build uses when none is asked for: `paper` when every family has a paper weight (the 14
 * in-domain families, or some of them), else `uniform` (held-out families, optional variants, mixtures).
 */
export function defaultCorruptionMix(families: readonly CorruptionFamily[]): CorruptionMix {
  return families.every((family) => Object.hasOwn(PAPER_FAMILY_WEIGHTS, family.name)) ? "paper" : "uniform";
}

/**
 * The families a build under `mix` hands the engine: `families` as given, except that `blocks` swaps
 * `edge_case_guards` for its whole-guard variant (same name, so rows record the same family).
 */
export function mixFamilies(mix: CorruptionMix, families: readonly CorruptionFamily[]): CorruptionFamily[] {
  if (mix !== "blocks") return [...families];
  return families.map((family) =>
    family.name === edgeCaseGuardsWithBlocks.name ? edgeCaseGuardsWithBlocks : family,
  );
}

/** The engine's weights of a mix: none (uniform) for `uniform` and `blocks`. */
export type MixWeights = { families?: FamilyWeights; counts?: readonly number[] };

/**
 * The engine's weights for `mix`, `families` and the corruption count range. Throws an Error naming the
 * families without a paper weight when `paper` is asked for them, or when the paper weights of all
 * `families` are 0.
 */
export function mixWeights(
  mix: CorruptionMix,
  families: readonly CorruptionFamily[],
  corruptions: { min: number; max: number },
): MixWeights {
  if (mix !== "paper") return {};
  const missing = families.filter((family) => !Object.hasOwn(PAPER_FAMILY_WEIGHTS, family.name));
  if (missing.length > 0) {
    throw new Error(
      `the paper mix has weights for the 14 in-domain families only, not for ${missing.map((f) => f.name).join(", ")}; use --mix uniform`,
    );
  }
  if (families.every((family) => PAPER_FAMILY_WEIGHTS[family.name] === 0)) {
    throw new Error(
      `the paper mix never draws ${families.map((f) => f.name).join(", ")} (weight 0: the paper has no such corruption); use --mix uniform`,
    );
  }
  const paperRange = corruptions.min === 1 && corruptions.max === 2;
  return { families: PAPER_FAMILY_WEIGHTS, ...(paperRange ? { counts: PAPER_COUNT_WEIGHTS } : {}) };
}
