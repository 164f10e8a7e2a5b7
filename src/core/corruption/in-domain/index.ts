import type { CorruptionFamily } from "../types.js";
import { accumulatorInitialization } from "./accumulator-initialization.js";
import { arithmeticOperators } from "./arithmetic-operators.js";
import { booleanConstants } from "./boolean-constants.js";
import { comparisonOperators } from "./comparison-operators.js";
import { conditionalInversion } from "./conditional-inversion.js";
import { copyRemoval } from "./copy-removal.js";
import { edgeCaseGuards } from "./edge-case-guards.js";
import { functionCallSubstitution } from "./function-call-substitution.js";
import { listIndexing } from "./list-indexing.js";
import { numericConstants } from "./numeric-constants.js";
import { rangeBounds } from "./range-bounds.js";
import { rangeStep } from "./range-step.js";
import { sliceBounds } from "./slice-bounds.js";
import { sortOrder } from "./sort-order.js";

/** The 14 in-domain families of SPEC §3, in the SPEC's order. */
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
