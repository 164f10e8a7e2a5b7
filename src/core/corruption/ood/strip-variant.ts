/**
 * OOD family 8, "Strip Variant" (over-editing paper D.2): `strip` ↔ `lstrip` ↔ `rstrip`.
 *
 * A site is a method call named `strip`, `lstrip` or `rstrip` with at most one positional argument (the
 * characters to strip) and nothing else. Each call gives two sites, one per other variant, so `s.strip()`
 * can become `s.lstrip()` or `s.rstrip()` and `s.rstrip("\n")` can become `s.strip("\n")` or
 * `s.lstrip("\n")`.
 */
import { methodCallsTo, onlyPositional, replaceNode } from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

const VARIANTS = ["strip", "lstrip", "rstrip"];

export const stripVariant: CorruptionFamily = {
  name: "strip_variant",
  title: "Strip Variant",
  domain: "ood",
  findSites(root) {
    const sites: CorruptionSite[] = [];
    for (const { name, args } of methodCallsTo(root, VARIANTS)) {
      if (!onlyPositional(args, 0, 1) || args.bareGenerator) continue;
      for (const variant of VARIANTS) {
        if (variant !== name.text) sites.push(replaceNode(name, variant));
      }
    }
    return sites;
  },
};
