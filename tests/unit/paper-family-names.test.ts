/**
 * The paper's `mutate_*` family names → minedit's families (src/core/corruption/paper-names.ts), their
 * domain and their Table 10 category (src/core/task-stats.ts): a table written out by hand from reading
 * what each upstream method mutates; every name the upstream code defines and the paper's 400 tasks use
 * (read at run time from MINEDIT_FYP_DIR, a copy of nreHieW/fyp: tests/setup/external-data.ts) must have a counterpart; and importing a row in
 * the paper's format (`tasks build --format corrupted`) names minedit's families.
 */
import { describe, expect, it } from "vitest";
import { familyFromSourceName, PAPER_FAMILY_NAMES } from "../../src/core/corruption/paper-names.js";
import { familyByName } from "../../src/core/corruption/registry.js";
import { familyCategory } from "../../src/core/task-stats.js";
import { importRow } from "../../src/tasks/importers/import-file.js";
import { type Found, fypFile, paperTasks } from "../setup/external-data.js";
import { skipFor } from "../setup/skip.js";

const P = "Predicate/control flow";
const C = "Computation/value";
const B = "Boundary/iteration";
const A = "API/data semantics";

/** Paper name, minedit family, domain, Table 10 category: by hand. */
const EXPECTED: readonly [string, string, string, string][] = [
  ["mutate_comparison_operators", "comparison_operators", "in-domain", P],
  ["mutate_range_bounds", "range_bounds", "in-domain", B],
  ["mutate_sort_order", "sort_order", "in-domain", A],
  ["mutate_accumulator_init", "accumulator_initialization", "in-domain", C],
  ["mutate_arithmetic_operators", "arithmetic_operators", "in-domain", C],
  ["mutate_edge_case_guards", "edge_case_guards", "in-domain", P],
  ["mutate_list_indexing", "list_indexing", "in-domain", B],
  ["mutate_function_call_name", "function_call_substitution", "in-domain", A],
  ["mutate_remove_copy_calls", "copy_removal", "in-domain", A],
  ["mutate_boolean_constants", "boolean_constants", "in-domain", P],
  ["mutate_numeric_constants", "numeric_constants", "in-domain", C],
  ["mutate_slice_bounds", "slice_bounds", "in-domain", B],
  ["mutate_conditional_inversion", "conditional_inversion", "in-domain", P],
  ["mutate_range_step", "range_step", "in-domain", B],
  ["mutate_min_max_usage", "min_max_swap", "ood", A],
  ["mutate_abs_usage", "abs_wrapping", "ood", C],
  ["mutate_append_extend", "append_extend_toggle", "ood", A],
  ["mutate_enumerate_start", "enumerate_start_shift", "ood", B],
  ["mutate_break_to_continue", "break_continue_swap", "ood", P],
  ["mutate_dict_get_default", "dict_get_default", "ood", C],
  ["mutate_string_lower_upper", "string_case_swap", "ood", A],
  ["mutate_strip_variant", "strip_variant", "ood", A],
  ["mutate_join_separator", "join_separator", "ood", C],
  ["mutate_sorted_toggle_key_len", "sorted_key_toggle", "ood", A],
  ["mutate_set_vs_list_cast", "set_list_cast_swap", "ood", A],
  ["mutate_round_to_int", "round_int_swap", "ood", C],
  ["mutate_comp_filter_remove", "comprehension_filter_removal", "ood", P],
  ["mutate_find_vs_index", "find_index_swap", "ood", A],
  ["mutate_any_all_swap", "any_all_swap", "ood", P],
  ["mutate_zip_arg_order", "zip_argument_order", "ood", B],
  ["mutate_len_range_endpoint", "range_len_endpoint", "ood", B],
  ["mutate_negative_indexing_shift", "negative_index_shift", "ood", B],
  ["mutate_dict_items_variant", "dict_iteration_variant", "ood", A],
  ["mutate_none_equality_operator", "none_comparison", "ood", P],
];

/** Family, domain and category of a paper name, as minedit resolves them. */
function resolved(name: string): [string, string, string, string] {
  const family = familyFromSourceName(name);
  return [name, family, familyByName(family)?.domain ?? "unknown", familyCategory(family)];
}

/** Every `mutate_*` name upstream defines or its 400 tasks use (MINEDIT_FYP_DIR), or why it is not here. */
function upstreamNames(): Found<string[]> {
  const sources = [
    "partial_edits/utils/code_corruptor.py",
    "train/environments/deepcoder_minimal_edit/partial_edits_utils/code_corruptor.py",
  ].map(fypFile);
  const tasks = paperTasks();
  const missing = [...sources, tasks].find((found) => found.reason !== undefined);
  if (missing?.reason !== undefined) return { reason: missing.reason };
  const names = new Set<string>();
  for (const source of sources) {
    for (const match of (source.value ?? "").matchAll(/def (mutate_\w+)\(/g)) names.add(match[1] as string);
  }
  for (const line of (tasks.value ?? "").split("\n")) {
    if (line.trim() === "") continue;
    const row = JSON.parse(line) as { mutation_type?: string; mutation_types?: string[] };
    for (const name of [...(row.mutation_types ?? []), ...(row.mutation_type ? [row.mutation_type] : [])]) {
      names.add(name);
    }
  }
  return { value: [...names].sort() };
}

const UPSTREAM = upstreamNames();

describe("the paper's family names", () => {
  it("map to the families, domains and categories written out by hand", () => {
    expect(EXPECTED.map(([name]) => resolved(name))).toEqual(EXPECTED);
    // the table has exactly these names, and no two paper names share a family
    expect(Object.keys(PAPER_FAMILY_NAMES).sort()).toEqual(EXPECTED.map(([name]) => name).sort());
    expect(new Set(EXPECTED.map(([, family]) => family)).size).toBe(EXPECTED.length);
  });

  it("leave minedit's own names and unknown names as written", () => {
    expect(resolved("numeric_constants")).toEqual(["numeric_constants", "numeric_constants", "in-domain", C]);
    expect(resolved("mutate_made_up")).toEqual(["mutate_made_up", "mutate_made_up", "unknown", "Other"]);
    // a prototype's name must not resolve
    expect(familyFromSourceName("toString")).toBe("toString");
  });

  it("cover every name upstream defines and its 400 tasks use", skipFor(UPSTREAM.reason), () => {
    const names = UPSTREAM.value ?? [];
    // 14 in-domain + 20 held-out methods; the 400 tasks use 12 of them
    expect(names).toHaveLength(34);
    const unmapped = names.filter((name) => {
      const [, family, domain, category] = resolved(name);
      return familyByName(family) === undefined || domain === "unknown" || category === "Other";
    });
    expect(unmapped).toEqual([]);
  });

  it("are replaced by minedit's when a paper row is imported", () => {
    const row = {
      task_id: "BigCodeBench/x",
      prompt: "Double x.",
      canonical_solution: "def task_func(x):\n    return x * 2\n",
      corrupted_solution: "def task_func(x):\n    return x * 3 if x > 0 else x * 2\n",
      test_code:
        "import unittest\nclass TestCases(unittest.TestCase):\n    def test(self):\n        self.assertEqual(task_func(2), 4)\n",
    };
    const families = (fields: Record<string, unknown>) =>
      importRow("corrupted", { ...row, ...fields }).corrupted?.families;
    expect(families({ mutation_type: "mutate_numeric_constants" })).toEqual(["numeric_constants"]);
    expect(
      families({ mutation_types: ["mutate_edge_case_guards", "mutate_min_max_usage", "made_up"] }),
    ).toEqual(["edge_case_guards", "min_max_swap", "made_up"]);
  });
});
