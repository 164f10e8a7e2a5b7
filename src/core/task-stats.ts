/**
 * The composition report of a repair-task set (docs/tasks.md#corruption-families; the over-editing paper's §3.1 "Benchmark
 * statistics" and appendix A.2, Tables 7–10), computed from task rows and the builder's rejection counts,
 * and rendered as Markdown tables or JSON.
 *
 * Definitions (the paper states them loosely; these are ours, documented so the numbers can be checked):
 * - Distances are those of the reward (docs/reward.md#distance-and-scope), on whole normalized programs: tokens(X) of norm(X).
 *   Gold token edit distance = Levenshtein(tokens(G), tokens(C)); normalized gold distance d(G, C) = that
 *   divided by the longer token count; the same over function bodies (scope `function_body`, the paper's
 *   `extract_function_body`: see normalize.ts and docs/reward.md "Distance and scope"), which is how the paper's
 *   Table 8 normalizes ("between the corrupted and canonical function bodies"); gold line edit distance = Levenshtein over the lines of norm(G) and
 *   norm(C), each line one symbol (a changed line costs 1).
 * - Functions: every `def` of norm(G) that is not nested inside another `def` (top-level functions and
 *   methods of classes; a nested function is part of its enclosing one), over the distinct gold programs
 *   (the tasks of one problem share their gold program, which counts once). A function's executable lines
 *   are the non-blank lines of norm(G) covered by its body's statements, its docstring excluded (norm has
 *   no comments; the `def` line itself is not counted). Its tokens are the tokens of norm(G) from its first
 *   executable statement to its end, NEWLINE tokens included (they are tokens of docs/reward.md#normalization-and-tokens too).
 * - Summaries: mean, and quantiles by linear interpolation between order statistics (NumPy's default,
 *   R type 7, Python's `statistics.quantiles(method="inclusive")`): q(p) = x[h] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])
 *   with h = (n − 1)p over the sorted values, 0-based.
 * - Shares of families are fractions of all corruption applications; "tasks" counts the tasks containing
 *   the family at least once, its share the fraction of tasks (a family can be applied twice in a task).
 *
 * Pure: no I/O. Needs `await loadPythonGrammar()` first (normalization and function measures parse).
 *
 * Why one long file: the statistics and their Markdown and JSON renderings are one report definition; a
 * number and its table change together.
 */
import type { Node } from "web-tree-sitter";
import type { FamilyDomain } from "./corruption/types.js";
import { tokenLevenshtein } from "./distance.js";
import { normalizeProgram, normalizePython, scopedNormalizedDistance } from "./normalize.js";
import { pythonParser } from "./python/grammar.js";
import { pythonTokensWithOffsets } from "./python/tokenize.js";

/** What the report needs of a task row. */
export type StatsTask = {
  taskId: string;
  problemId: string;
  split: string;
  gold: string;
  corrupted: string;
  /** The applied corruptions; only `family` is read. */
  corruptions: readonly { family: string }[];
};

/**
 * Why a candidate task was not kept, as the builder counts them. Problem-level reasons count problems
 * (no candidate was made for them); candidate-level reasons count candidates.
 */
export const REJECTION_REASONS = {
  still_passed: "candidate: the corrupted program still passed the tests",
  infra_error: "candidate: the sandbox failed while running the corrupted program",
  gold_failed: "problem: the gold program did not pass its own tests",
  gold_unparsable: "problem: the gold program cannot be normalized",
  no_site: "problem: no site for any requested corruption family",
  no_candidate: "problem: sites exist, but no corrupted program could be drawn from them",
} as const;
export type RejectionReason = keyof typeof REJECTION_REASONS;
export type RejectionCounts = Partial<Record<RejectionReason, number>>;

/** What the builder recorded about rejections in one split. */
export type SplitRejections = {
  counts: RejectionCounts;
  /** Problems the builder processed in this split (with or without a kept task). */
  problems: number;
  /** Problems with tasks in the file but no rejection record (e.g. the build log was deleted). */
  unrecorded?: number;
};

/** Name, title and domain of a corruption family, to label the tables (the engine's registry). */
export type FamilyInfo = { name: string; title: string; domain: FamilyDomain };

export type Summary = {
  count: number;
  mean: number | null;
  median: number | null;
  q1: number | null;
  q3: number | null;
  p95: number | null;
  min: number | null;
  max: number | null;
};

export type FamilyRow = {
  family: string;
  title: string;
  domain: FamilyDomain | "unknown";
  category: string;
  applications: number;
  /** applications / all applications of the split. */
  share: number;
  /** Tasks containing the family at least once. */
  tasks: number;
  /** tasks / tasks of the split. */
  taskShare: number;
};

export type CategoryRow = {
  category: string;
  families: string[];
  applications: number;
  share: number;
  tasks: number;
  taskShare: number;
};

export type SplitReport = {
  tasks: number;
  problems: number;
  applications: number;
  /** Tasks with k corruptions, ascending k. */
  corruptionsPerTask: { corruptions: number; tasks: number; share: number }[];
  families: FamilyRow[];
  categories: CategoryRow[];
  goldTokenEditDistance: Summary;
  normalizedGoldDistance: Summary;
  /** d(G, C) over function bodies (scope `function_body`), the paper's Table 8 normalization. */
  bodyNormalizedGoldDistance: Summary;
  goldLineEditDistance: Summary;
  /** Share of tasks whose gold repair needs at most n token edits, n = 1..4 (paper §3.1). */
  goldTokenEditsAtMost: { edits: number; share: number }[];
  functions: number;
  executableLinesPerFunction: Summary;
  tokensPerFunction: Summary;
  /** Tasks whose gold or corrupted program does not parse (left out of distances and function sizes). */
  unparsable: string[];
  /** Null when no rejection record exists for the split (a task file without its build log). */
  rejected: (SplitRejections & { total: number }) | null;
};

export type TaskReport = {
  tasks: number;
  problems: number;
  splits: Record<string, SplitReport>;
  /** Every split together (equal to the only split's report when there is one). */
  all: SplitReport;
};

/**
 * The paper's Table 10 categories for the in-domain families, extended to the held-out ones by the same
 * reading of what the bug breaks. Families not listed (e.g. named by an already-corrupted source) are
 * "Other".
 */
const CATEGORIES: readonly [string, readonly string[]][] = [
  [
    "Predicate/control flow",
    [
      "comparison_operators",
      "edge_case_guards",
      "boolean_constants",
      "conditional_inversion",
      "break_continue_swap",
      "any_all_swap",
      "none_comparison",
      "comprehension_filter_removal",
    ],
  ],
  [
    "Computation/value",
    [
      "arithmetic_operators",
      "numeric_constants",
      "accumulator_initialization",
      "abs_wrapping",
      "round_int_swap",
      "dict_get_default",
      "join_separator",
    ],
  ],
  [
    "Boundary/iteration",
    [
      "range_bounds",
      "list_indexing",
      "slice_bounds",
      "range_step",
      "enumerate_start_shift",
      "range_len_endpoint",
      "negative_index_shift",
      "zip_argument_order",
    ],
  ],
  [
    "API/data semantics",
    [
      "function_call_substitution",
      "sort_order",
      "copy_removal",
      "min_max_swap",
      "append_extend_toggle",
      "string_case_swap",
      "strip_variant",
      "sorted_key_toggle",
      "set_list_cast_swap",
      "find_index_swap",
      "dict_iteration_variant",
    ],
  ],
];
const OTHER_CATEGORY = "Other";

/** The Table 10 category of a family name. */
export function familyCategory(family: string): string {
  for (const [category, families] of CATEGORIES) if (families.includes(family)) return category;
  return OTHER_CATEGORY;
}

// ---- numbers ------------------------------------------------------------------------------------------

/** Quantile `p` ∈ [0, 1] of ascending `sorted` (non-empty) by linear interpolation (see the module doc). */
export function quantile(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const low = Math.floor(h);
  const a = sorted[low] as number;
  const b = sorted[Math.min(low + 1, sorted.length - 1)] as number;
  return a + (h - low) * (b - a);
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) {
    return { count: 0, mean: null, median: null, q1: null, q3: null, p95: null, min: null, max: null };
  }
  const sorted = [...values].sort((x, y) => x - y);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / sorted.length;
  return {
    count: sorted.length,
    mean,
    median: quantile(sorted, 0.5),
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    p95: quantile(sorted, 0.95),
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
  };
}

// ---- programs -----------------------------------------------------------------------------------------

export type FunctionMeasure = { name: string; executableLines: number; tokens: number };

/**
 * Executable lines and tokens of each function of `program` (see the module doc), in source order.
 * Throws `PySyntaxError` when the program does not parse.
 */
export function functionMeasures(program: string): FunctionMeasure[] {
  const norm = normalizePython(program);
  const { starts } = pythonTokensWithOffsets(norm);
  const tree = pythonParser().parse(norm);
  if (tree === null) throw new Error("tree-sitter gave up on a normalized program");
  try {
    const lines = norm.split("\n");
    const measures: FunctionMeasure[] = [];
    for (const fn of outermostFunctions(tree.rootNode)) {
      const body = fn.childForFieldName("body");
      const statements = body === null ? [] : body.namedChildren.filter((n): n is Node => n !== null);
      const executable = isDocstring(statements[0]) ? statements.slice(1) : statements;
      const rows = new Set<number>();
      for (const statement of executable) {
        for (let row = statement.startPosition.row; row <= statement.endPosition.row; row++) {
          if ((lines[row] ?? "").trim() !== "") rows.add(row);
        }
      }
      const first = executable[0];
      let tokens = 0;
      if (first !== undefined) {
        // The function's last NEWLINE token starts right where its last statement ends.
        const from = first.startIndex;
        const to = fn.endIndex;
        for (const start of starts) if (start >= from && start <= to) tokens += 1;
      }
      measures.push({ name: fn.childForFieldName("name")?.text ?? "", executableLines: rows.size, tokens });
    }
    return measures;
  } finally {
    tree.delete();
  }
}

function outermostFunctions(root: Node): Node[] {
  const found: Node[] = [];
  const visit = (node: Node) => {
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === "function_definition") found.push(child);
      else visit(child);
    }
  };
  visit(root);
  return found;
}

function isDocstring(statement: Node | undefined): boolean {
  if (statement === undefined || statement.type !== "expression_statement") return false;
  const only = statement.namedChildren;
  return only.length === 1 && (only[0]?.type === "string" || only[0]?.type === "concatenated_string");
}

/** Per-task measures, or null when a program does not parse. */
type TaskMeasures = {
  tokenEdits: number;
  normalized: number;
  bodyNormalized: number;
  lineEdits: number;
  functions: FunctionMeasure[];
};

function measureTask(task: StatsTask): TaskMeasures | null {
  let gold: string;
  let corrupted: string;
  try {
    gold = normalizePython(task.gold);
    corrupted = normalizePython(task.corrupted);
  } catch {
    return null;
  }
  const goldTokens = pythonTokensWithOffsets(gold).tokens;
  const corruptedTokens = pythonTokensWithOffsets(corrupted).tokens;
  const tokenEdits = tokenLevenshtein(goldTokens, corruptedTokens);
  const longest = Math.max(goldTokens.length, corruptedTokens.length);
  const goldBody = normalizeProgram(task.gold, "function_body");
  const corruptedBody = normalizeProgram(task.corrupted, "function_body");
  return {
    tokenEdits,
    normalized: longest === 0 ? 0 : tokenEdits / longest,
    bodyNormalized: scopedNormalizedDistance(goldBody, corruptedBody),
    lineEdits: tokenLevenshtein(gold.split("\n"), corrupted.split("\n")),
    functions: functionMeasures(task.gold),
  };
}

// ---- the report ---------------------------------------------------------------------------------------

export type TaskStatsOptions = {
  /** Rejections per split, from the build log; a split without an entry reports `rejected: null`. */
  rejections?: ReadonlyMap<string, SplitRejections>;
  /** Titles and domains of known families (the engine's registry); others show their name. */
  families?: readonly FamilyInfo[];
};

/** Computes the report of a task set. Tasks are grouped by `split`; `all` covers every task. */
export function computeTaskStats(tasks: readonly StatsTask[], options: TaskStatsOptions = {}): TaskReport {
  const info = new Map((options.families ?? []).map((f) => [f.name, f]));
  const measures = new Map(tasks.map((t) => [t, measureTask(t)]));
  const bySplit = new Map<string, StatsTask[]>();
  for (const task of tasks) bySplit.set(task.split, [...(bySplit.get(task.split) ?? []), task]);
  // Splits that were built but kept no task still have rejections worth showing.
  for (const split of options.rejections?.keys() ?? []) if (!bySplit.has(split)) bySplit.set(split, []);
  const splits: Record<string, SplitReport> = {};
  for (const split of [...bySplit.keys()].sort()) {
    splits[split] = splitReport(bySplit.get(split) ?? [], measures, info, options.rejections?.get(split));
  }
  let allRejections: SplitRejections | undefined;
  if (options.rejections !== undefined && options.rejections.size > 0) {
    allRejections = { counts: {}, problems: 0, unrecorded: 0 };
    for (const r of options.rejections.values()) {
      for (const [reason, n] of Object.entries(r.counts) as [RejectionReason, number][]) {
        allRejections.counts[reason] = (allRejections.counts[reason] ?? 0) + n;
      }
      allRejections.problems += r.problems;
      allRejections.unrecorded = (allRejections.unrecorded ?? 0) + (r.unrecorded ?? 0);
    }
  }
  const all = splitReport(tasks, measures, info, allRejections);
  return { tasks: tasks.length, problems: all.problems, splits, all };
}

function splitReport(
  tasks: readonly StatsTask[],
  measures: ReadonlyMap<StatsTask, TaskMeasures | null>,
  info: ReadonlyMap<string, FamilyInfo>,
  rejections: SplitRejections | undefined,
): SplitReport {
  const n = tasks.length;
  const fraction = (count: number, of: number) => (of === 0 ? 0 : count / of);

  const perTask = new Map<number, number>();
  const applications = new Map<string, number>();
  const containing = new Map<string, number>();
  for (const task of tasks) {
    perTask.set(task.corruptions.length, (perTask.get(task.corruptions.length) ?? 0) + 1);
    for (const { family } of task.corruptions) applications.set(family, (applications.get(family) ?? 0) + 1);
    for (const family of new Set(task.corruptions.map((c) => c.family))) {
      containing.set(family, (containing.get(family) ?? 0) + 1);
    }
  }
  const totalApplications = [...applications.values()].reduce((a, b) => a + b, 0);

  const families: FamilyRow[] = [...applications.entries()]
    .map(([family, count]) => {
      const known = info.get(family);
      return {
        family,
        title: known?.title ?? family,
        domain: known?.domain ?? ("unknown" as const),
        category: familyCategory(family),
        applications: count,
        share: fraction(count, totalApplications),
        tasks: containing.get(family) ?? 0,
        taskShare: fraction(containing.get(family) ?? 0, n),
      };
    })
    // As Table 9: most applied first; ties by name so the order is stable.
    .sort((a, b) => b.applications - a.applications || a.family.localeCompare(b.family));

  const categoryNames = [...CATEGORIES.map(([name]) => name), OTHER_CATEGORY];
  const categories: CategoryRow[] = [];
  for (const category of categoryNames) {
    const members = families.filter((f) => f.category === category);
    if (members.length === 0) continue;
    const memberNames = new Set(members.map((f) => f.family));
    const count = members.reduce((sum, f) => sum + f.applications, 0);
    const withCategory = tasks.filter((t) => t.corruptions.some((c) => memberNames.has(c.family))).length;
    categories.push({
      category,
      families: members.map((f) => f.family),
      applications: count,
      share: fraction(count, totalApplications),
      tasks: withCategory,
      taskShare: fraction(withCategory, n),
    });
  }

  const tokenEdits: number[] = [];
  const normalized: number[] = [];
  const bodyNormalized: number[] = [];
  const lineEdits: number[] = [];
  const lines: number[] = [];
  const tokens: number[] = [];
  const unparsable: string[] = [];
  const golds = new Set<string>();
  for (const task of tasks) {
    const m = measures.get(task);
    if (m === null || m === undefined) {
      unparsable.push(task.taskId);
      continue;
    }
    tokenEdits.push(m.tokenEdits);
    normalized.push(m.normalized);
    bodyNormalized.push(m.bodyNormalized);
    lineEdits.push(m.lineEdits);
    // Function sizes describe the problems: a gold program shared by several tasks counts once.
    if (golds.has(task.gold)) continue;
    golds.add(task.gold);
    for (const f of m.functions) {
      lines.push(f.executableLines);
      tokens.push(f.tokens);
    }
  }

  let rejected: SplitReport["rejected"] = null;
  if (rejections !== undefined) {
    const total = Object.values(rejections.counts).reduce((a, b) => a + (b ?? 0), 0);
    rejected = { ...rejections, total };
  }

  return {
    tasks: n,
    problems: new Set(tasks.map((t) => t.problemId)).size,
    applications: totalApplications,
    corruptionsPerTask: [...perTask.entries()]
      .sort(([a], [b]) => a - b)
      .map(([corruptions, count]) => ({ corruptions, tasks: count, share: fraction(count, n) })),
    families,
    categories,
    goldTokenEditDistance: summarize(tokenEdits),
    normalizedGoldDistance: summarize(normalized),
    bodyNormalizedGoldDistance: summarize(bodyNormalized),
    goldLineEditDistance: summarize(lineEdits),
    goldTokenEditsAtMost: [1, 2, 3, 4].map((edits) => ({
      edits,
      share: fraction(tokenEdits.filter((e) => e <= edits).length, tokenEdits.length),
    })),
    functions: lines.length,
    executableLinesPerFunction: summarize(lines),
    tokensPerFunction: summarize(tokens),
    unparsable,
    rejected,
  };
}

// ---- rendering ----------------------------------------------------------------------------------------

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function number(value: number | null, digits: number): string {
  if (value === null) return "–";
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

/**
 * A Markdown table; the first `textColumns` columns are left-aligned, the rest (numbers) right-aligned.
 * Cells are padded to the column width (at least 3, the shortest delimiter) the way the repository's
 * formatter (Biome) lays tables out, so a committed report stays formatted when it is rebuilt.
 */
export function table(header: string[], rows: string[][], textColumns = 1): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const pad = (cell: string, i: number) =>
    i < textColumns ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number);
  const line = (cells: string[]) => `| ${cells.map(pad).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (i < textColumns ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

function summaryRow(label: string, s: Summary, digits: number): string[] {
  return [label, ...[s.mean, s.median, s.q1, s.q3, s.p95, s.min, s.max].map((v) => number(v, digits))];
}

const SUMMARY_HEADER = ["Measure", "Mean", "Med.", "Q1", "Q3", "P95", "Min", "Max"];

function renderSplit(report: SplitReport, heading: string): string {
  const parts: string[] = [`${heading}`, ""];
  parts.push(
    `${report.tasks} tasks from ${report.problems} problems, ${report.applications} corruption applications.`,
  );
  if (report.unparsable.length > 0) {
    parts.push(
      "",
      `${report.unparsable.length} tasks do not parse and are left out of the distances and function sizes: ` +
        `${report.unparsable.join(", ")}.`,
    );
  }
  parts.push("", "**Corruptions per task**", "");
  parts.push(
    table(
      ["Corruptions", "Tasks", "Share"],
      report.corruptionsPerTask.map((r) => [String(r.corruptions), String(r.tasks), percent(r.share)]),
    ),
  );
  parts.push(
    "",
    "**Minimal-patch size** (gold patch = reversal of the corruptions; cf. paper Table 8, which normalizes " +
      "over function bodies)",
    "",
  );
  parts.push(
    table(SUMMARY_HEADER, [
      summaryRow("Gold token edit dist.", report.goldTokenEditDistance, 2),
      summaryRow("Normalized gold dist. d(G,C)", report.normalizedGoldDistance, 3),
      summaryRow("Normalized, function body", report.bodyNormalizedGoldDistance, 3),
      summaryRow("Gold line edit dist.", report.goldLineEditDistance, 2),
    ]),
  );
  parts.push(
    "",
    `Gold repairs needing at most 1, 2, 3, 4 token edits: ${report.goldTokenEditsAtMost
      .map((r) => percent(r.share))
      .join(", ")}.`,
  );
  parts.push(
    "",
    `**Function length** (${report.functions} functions of the distinct gold programs; cf. Table 7)`,
    "",
  );
  parts.push(
    table(SUMMARY_HEADER, [
      summaryRow("Executable lines", report.executableLinesPerFunction, 2),
      summaryRow("Python tokens", report.tokensPerFunction, 2),
    ]),
  );
  parts.push(
    "",
    "**Corruption families** (share of applications; tasks containing the family; cf. Table 9)",
    "",
  );
  parts.push(
    table(
      ["Corruption family", "Domain", "Applic.", "Share", "Tasks"],
      report.families.map((f) => [
        f.title,
        f.domain,
        String(f.applications),
        percent(f.share),
        `${f.tasks} (${percent(f.taskShare)})`,
      ]),
      2,
    ),
  );
  parts.push("", "**Bug categories** (cf. Table 10)", "");
  parts.push(
    table(
      ["Bug category", "Families", "Applic.", "Share", "Tasks"],
      report.categories.map((c) => [
        c.category,
        String(c.families.length),
        String(c.applications),
        percent(c.share),
        `${c.tasks} (${percent(c.taskShare)})`,
      ]),
    ),
  );
  parts.push("", "**Rejected candidates**", "");
  if (report.rejected === null) {
    parts.push("Not recorded (no build log next to the task file).");
  } else {
    const r = report.rejected;
    const rows = (Object.keys(REJECTION_REASONS) as RejectionReason[]).map((reason) => [
      `\`${reason}\``,
      REJECTION_REASONS[reason],
      String(r.counts[reason] ?? 0),
    ]);
    parts.push(
      `${r.problems} problems processed; ${r.total} rejections.` +
        (r.unrecorded ? ` ${r.unrecorded} problems have tasks but no rejection record.` : ""),
      "",
      table(["Reason", "Meaning", "Count"], rows, 2),
    );
  }
  return parts.join("\n");
}

/** The report as Markdown: one section for all tasks, then one per split when there are several. */
export function renderTaskReport(report: TaskReport, title: string): string {
  const sections = [`# ${title}`, ""];
  const names = Object.keys(report.splits);
  sections.push(
    `${report.tasks} tasks from ${report.problems} problems in ${names.length} split${names.length === 1 ? "" : "s"}` +
      (names.length > 0 ? ` (${names.map((s) => `\`${s}\``).join(", ")})` : "") +
      ".",
    "",
  );
  if (names.length <= 1) {
    sections.push(renderSplit(report.all, "## All tasks"));
  } else {
    sections.push(renderSplit(report.all, "## All splits"));
    for (const name of names) {
      sections.push("", renderSplit(report.splits[name] as SplitReport, `## Split \`${name}\``));
    }
  }
  return `${sections.join("\n")}\n`;
}
