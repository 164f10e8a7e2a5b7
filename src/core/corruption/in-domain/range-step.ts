/**
 * In-domain family 14, "Range Step Modification" (docs/tasks.md#corruption-families; paper A.1): alter the step of a built-in
 * `range()` call, e.g. `range(0, n, 1)` ↔ `range(0, n, 2)`.
 *
 * - `range(a, b, s)` with a literal step, maybe negated: `s` ± 1, never reaching 0 (a `ValueError`, not a
 *   wrong step) nor changing sign (`1` → `2` only, `-1` → `-2` only). A computed step is left alone: no
 *   edit of it can be known not to make it 0.
 * - `range(a, b)` → `range(a, b, 2)`: a step added where the default 1 was implied.
 * - `range(n)` → `range(0, n, 2)`: the same, writing out the implied start a step needs.
 * Positional arguments only, and `range` not rebound by the program.
 */
import {
  builtinCallsTo,
  decimalIntValue,
  insertAfter,
  onlyPositional,
  replaceNode,
  shiftIntegerLiteral,
} from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const rangeStep: CorruptionFamily = {
  name: "range_step",
  title: "Range Step Modification",
  domain: "in-domain",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const { args } of builtinCallsTo(root, ["range"])) {
      if (!onlyPositional(args, 1, 3) || args.bareGenerator) continue;
      const [first, stop, step] = args.positional;
      if (step !== undefined) {
        const value = decimalIntValue(step);
        if (value === null) continue;
        for (const shifted of [value + 1, value - 1]) {
          if (shifted === 0 || Math.sign(shifted) !== Math.sign(value)) continue;
          const spelled =
            step.type === "integer" ? shiftIntegerLiteral(step.text, shifted - value) : String(shifted);
          if (spelled !== null) sites.push(replaceNode(step, spelled));
        }
      } else if (stop !== undefined) {
        sites.push(insertAfter(stop, ", 2"));
      } else if (first !== undefined) {
        sites.push(replaceNode(first, `0, ${source.slice(first.startIndex, first.endIndex)}, 2`));
      }
    }
    return sites;
  },
};
