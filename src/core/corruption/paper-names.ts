/**
 * The over-editing paper's names of its corruption families and minedit's family for each, so that the
 * paper's own task rows (`mutation_type` / `mutation_types` of nreHieW/fyp
 * `data/questions/corrupted_solutions_manual_easy_400.jsonl`) are grouped by domain and by Table 10
 * category like the tasks minedit builds, instead of landing in domain "unknown" and category "Other".
 *
 * The paper's names are the method names of its `CodeCorruptor` (nreHieW/fyp commit 5a4023e:
 * `partial_edits/utils/code_corruptor.py`, which `partial_edits/corrupt_data_manual.py` uses, holds the 14
 * in-domain ones; `train/environments/deepcoder_minimal_edit/partial_edits_utils/code_corruptor.py` adds
 * the 20 held-out ones). minedit's families were written from the same list, in the same order, so every
 * paper name has exactly one counterpart; the pairs below were checked against what each upstream method
 * mutates (e.g. `mutate_function_call_name` swaps mean→median, max→min, sum→len: minedit's
 * `function_call_substitution`, not `min_max_swap`, which is the held-out `mutate_min_max_usage`; the
 * paper's `mutate_edge_case_guards` edits a guard's condition token by token: `edge_case_guards`, not the
 * whole-guard `edge_case_guard_blocks`, which has no paper name). docs/tasks.md lists the table.
 *
 * Pure: no I/O.
 */

/** The paper's `mutate_*` name → minedit's family name. */
export const PAPER_FAMILY_NAMES: Readonly<Record<string, string>> = {
  // in-domain (the paper's benchmark and training families)
  mutate_comparison_operators: "comparison_operators",
  mutate_range_bounds: "range_bounds",
  mutate_sort_order: "sort_order",
  mutate_accumulator_init: "accumulator_initialization",
  mutate_arithmetic_operators: "arithmetic_operators",
  mutate_edge_case_guards: "edge_case_guards",
  mutate_list_indexing: "list_indexing",
  mutate_function_call_name: "function_call_substitution",
  mutate_remove_copy_calls: "copy_removal",
  mutate_boolean_constants: "boolean_constants",
  mutate_numeric_constants: "numeric_constants",
  mutate_slice_bounds: "slice_bounds",
  mutate_conditional_inversion: "conditional_inversion",
  mutate_range_step: "range_step",
  // held out (the paper's out-of-distribution families)
  mutate_min_max_usage: "min_max_swap",
  mutate_abs_usage: "abs_wrapping",
  mutate_append_extend: "append_extend_toggle",
  mutate_enumerate_start: "enumerate_start_shift",
  mutate_break_to_continue: "break_continue_swap",
  mutate_dict_get_default: "dict_get_default",
  mutate_string_lower_upper: "string_case_swap",
  mutate_strip_variant: "strip_variant",
  mutate_join_separator: "join_separator",
  mutate_sorted_toggle_key_len: "sorted_key_toggle",
  mutate_set_vs_list_cast: "set_list_cast_swap",
  mutate_round_to_int: "round_int_swap",
  mutate_comp_filter_remove: "comprehension_filter_removal",
  mutate_find_vs_index: "find_index_swap",
  mutate_any_all_swap: "any_all_swap",
  mutate_zip_arg_order: "zip_argument_order",
  mutate_len_range_endpoint: "range_len_endpoint",
  mutate_negative_indexing_shift: "negative_index_shift",
  mutate_dict_items_variant: "dict_iteration_variant",
  mutate_none_equality_operator: "none_comparison",
};

/**
 * minedit's family name for a family name an imported row gives: the counterpart of a paper name, any
 * other name unchanged (minedit's own names, or a name no table knows, which stays "unknown").
 */
export function familyFromSourceName(name: string): string {
  return Object.hasOwn(PAPER_FAMILY_NAMES, name) ? (PAPER_FAMILY_NAMES[name] as string) : name;
}
