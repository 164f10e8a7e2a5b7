/**
 * Every corruption family by name, and the parsers of the task builder's `--families` and `--corruptions`
 * options (SPEC §3: evaluation uses 1–2 corruptions per task, training 1–10).
 */
import { IN_DOMAIN_FAMILIES } from "./in-domain/index.js";
import { OOD_FAMILIES } from "./ood/index.js";
import type { CorruptionFamily } from "./types.js";

/** The 14 in-domain families, then the 20 held-out ones, each in SPEC order. */
export const ALL_FAMILIES: readonly CorruptionFamily[] = [...IN_DOMAIN_FAMILIES, ...OOD_FAMILIES];

/** Family groups a `--families` list may name. */
const GROUPS: Readonly<Record<string, readonly CorruptionFamily[]>> = {
  "in-domain": IN_DOMAIN_FAMILIES,
  ood: OOD_FAMILIES,
  all: ALL_FAMILIES,
};

/** The family with this snake_case name, or undefined. */
export function familyByName(name: string): CorruptionFamily | undefined {
  return ALL_FAMILIES.find((family) => family.name === name);
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
  return `valid: ${Object.keys(GROUPS).join(", ")}, or family names ${ALL_FAMILIES.map((f) => f.name).join(", ")}`;
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
