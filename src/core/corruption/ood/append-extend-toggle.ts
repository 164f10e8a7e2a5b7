/**
 * OOD family 3, "Append/Extend Toggle" (over-editing paper D.2): `xs.append(v)` ↔ `xs.extend(v)`.
 *
 * The paper words it as `append(x)` ↔ `extend([x])`, but those two are the same operation, so such a
 * corruption could never fail a test and the task builder would discard every one. We swap the method
 * name and keep the argument, the real bug: `extend` splices an iterable (a string's characters, a
 * tuple's fields) where `append` adds one element, and `append` nests a list that `extend` would splice.
 * A site is a method call named `append` or `extend` with exactly one positional argument.
 */
import { calleeSwapSites, methodCallsTo, onlyPositional } from "../sites.js";
import type { CorruptionFamily } from "../types.js";

const SWAP: Record<string, string> = { append: "extend", extend: "append" };

export const appendExtendToggle: CorruptionFamily = {
  name: "append_extend_toggle",
  title: "Append/Extend Toggle",
  domain: "ood",
  findSites: (root) => calleeSwapSites(root, methodCallsTo, SWAP, (args) => onlyPositional(args, 1)),
};
