import type { CorruptionFamily } from "../types.js";
import { accumulatorInitialization } from "./accumulator-initialization.js";
import { arithmeticOperators } from "./arithmetic-operators.js";
import { booleanConstants } from "./boolean-constants.js";
import { comparisonOperators } from "./comparison-operators.js";
import { conditionalInversion } from "./conditional-inversion.js";
import { copyRemoval } from "./copy-removal.js";
import { edgeCaseGuardBlocks } from "./edge-case-guard-blocks.js";
import { edgeCaseGuards } from "./edge-case-guards.js";
import { functionCallSubstitution } from "./function-call-substitution.js";
import { listIndexing } from "./list-indexing.js";
import { numericConstants } from "./numeric-constants.js";
import { rangeBounds } from "./range-bounds.js";
import { rangeStep } from "./range-step.js";
import { sliceBounds } from "./slice-bounds.js";
import { sortOrder } from "./sort-order.js";

/** The 14 in-domain families of docs/tasks.md#corruption-families, in the order docs/tasks.md lists them. */
export const IN_DOMAIN_FAMILIES: readonly CorruptionFamily[] = [
  comparisonOperators,
  rangeBounds,
  sortOrder,
  accumulatorInitialization,
  arithmeticOperators,
  edgeCaseGuards,
  listIndexing,
  functionCallSubstitution,
  copyRemoval,
  booleanConstants,
  numericConstants,
  sliceBounds,
  conditionalInversion,
  rangeStep,
];

/**
 * In-domain families outside the `in-domain` group, selected by name with `--families`: variants that
 * make larger edits than the paper's benchmark has (see each module).
 */
export const OPTIONAL_IN_DOMAIN_FAMILIES: readonly CorruptionFamily[] = [edgeCaseGuardBlocks];
