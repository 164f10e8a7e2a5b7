import type { CorruptionFamily } from "../types.js";
import { absWrapping } from "./abs-wrapping.js";
import { anyAllSwap } from "./any-all-swap.js";
import { appendExtendToggle } from "./append-extend-toggle.js";
import { breakContinueSwap } from "./break-continue-swap.js";
import { comprehensionFilterRemoval } from "./comprehension-filter-removal.js";
import { dictGetDefault } from "./dict-get-default.js";
import { dictIterationVariant } from "./dict-iteration-variant.js";
import { enumerateStartShift } from "./enumerate-start-shift.js";
import { findIndexSwap } from "./find-index-swap.js";
import { joinSeparator } from "./join-separator.js";
import { minMaxSwap } from "./min-max-swap.js";
import { negativeIndexShift } from "./negative-index-shift.js";
import { noneComparison } from "./none-comparison.js";
import { rangeLenEndpoint } from "./range-len-endpoint.js";
import { roundIntSwap } from "./round-int-swap.js";
import { setListCastSwap } from "./set-list-cast-swap.js";
import { sortedKeyToggle } from "./sorted-key-toggle.js";
import { stringCaseSwap } from "./string-case-swap.js";
import { stripVariant } from "./strip-variant.js";
import { zipArgumentOrder } from "./zip-argument-order.js";

/** The 20 held-out (OOD) families of docs/tasks.md#corruption-families, in the order docs/tasks.md lists them. */
export const OOD_FAMILIES: readonly CorruptionFamily[] = [
  minMaxSwap,
  absWrapping,
  appendExtendToggle,
  enumerateStartShift,
  breakContinueSwap,
  dictGetDefault,
  stringCaseSwap,
  stripVariant,
  joinSeparator,
  sortedKeyToggle,
  setListCastSwap,
  roundIntSwap,
  comprehensionFilterRemoval,
  findIndexSwap,
  anyAllSwap,
  zipArgumentOrder,
  rangeLenEndpoint,
  negativeIndexShift,
  dictIterationVariant,
  noneComparison,
];
