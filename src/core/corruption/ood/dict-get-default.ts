/**
 * OOD family 6, "Dict Get Default" (over-editing paper D.2): change or inject the default of `d.get(k, v)`.
 *
 * A site is a method call `.get(...)` with one or two positional arguments and nothing else (`dict.get`
 * takes no keywords). The paper only says "modify or inject", so the rules are ours:
 * - `d.get(k)` → `d.get(k, 0)` (inject: the implicit `None` becomes a falsy number).
 * - An integer literal default moves by one with the in-domain off-by-one rule ({@link offByOneSites}:
 *   both ways, never changing sign, so `0` → `1` and `5` → `6` / `4`); a plain float moves by ±1.0 the
 *   same way ({@link shiftFloatLiteral}: `0.5` → `1.5`, `2.5` → `3.5` / `1.5`).
 * - `""` (any empty string) → `None`; a non-empty string → the empty string with the same prefix and quotes.
 * - `None` → `""`; `True` ↔ `False`.
 * - Anything else (a container literal such as `[]`/`{}`/`()`, a name, a call) → `None`.
 */
import type { Node } from "web-tree-sitter";
import {
  decimalIntValue,
  insertAfter,
  methodCallsTo,
  offByOneSites,
  onlyPositional,
  replaceNode,
  shiftFloatLiteral,
} from "../sites.js";
import type { CorruptionFamily, CorruptionSite } from "../types.js";

export const dictGetDefault: CorruptionFamily = {
  name: "dict_get_default",
  title: "Dict Get Default",
  domain: "ood",
  findSites(root, source) {
    const sites: CorruptionSite[] = [];
    for (const { args } of methodCallsTo(root, ["get"])) {
      if (!onlyPositional(args, 1, 2) || args.bareGenerator) continue;
      const [key, fallback] = args.positional;
      if (key === undefined) continue;
      if (fallback === undefined) {
        sites.push(insertAfter(key, ", 0"));
      } else if (decimalIntValue(fallback) !== null) {
        sites.push(...offByOneSites(fallback, source));
      } else {
        for (const replacement of changedDefaults(fallback, source)) {
          sites.push(replaceNode(fallback, replacement));
        }
      }
    }
    return sites;
  },
};

function changedDefaults(fallback: Node, source: string): string[] {
  const text = source.slice(fallback.startIndex, fallback.endIndex);
  switch (fallback.type) {
    case "float": {
      const shifted = [shiftFloatLiteral(text, 10), shiftFloatLiteral(text, -10)];
      const spelled = shifted.filter((value): value is string => value !== null);
      // An exponent spelling (`1e-9`) has no ±1 version: like any other value it becomes `None`.
      return spelled.length > 0 ? spelled : ["None"];
    }
    case "string": {
      const open = fallback.child(0);
      const close = fallback.child(fallback.childCount - 1);
      if (open === null || close === null || open.endIndex === close.startIndex) return ["None"];
      return [`${open.text}${close.text}`];
    }
    case "none":
      return ['""'];
    case "true":
      return ["False"];
    case "false":
      return ["True"];
    default:
      return ["None"];
  }
}
