/**
 * A study (`minedit eval study`, docs/eval.md "Studies"): many settings — model × prompt × reasoning ×
 * size — read together, as the over-editing paper reads its 50 frontier settings:
 *
 * - per setting: Pass@1, excess, added CC and the over-edit share (Tables 17 and 18);
 * - per prompt: the means over settings with percentile-bootstrap intervals over settings (Figure 3);
 * - over matched pairs (same model, reasoning and size, prompt A vs B): mean change with a paired bootstrap
 *   interval over settings, settings improved, two-sided Wilcoxon signed-rank and sign-test p-values, for
 *   each metric (Appendix C.3);
 * - reasoning minus no reasoning on the tasks both variants repair, per family and prompt (Figure 4; run
 *   directories only: it needs per-task results);
 * - metrics against model size per model series and prompt (Figure 5);
 * - settings sampled k > 1 times per task: mean Pass@1 over samples and the unbiased pass@k (Table 19).
 *
 * Pure: no I/O (study-job.ts reads the runs and summary files and writes the outputs).
 */
import type { BootstrapOptions, Interval } from "../core/eval/bootstrap.js";
import { bootstrapByGroup } from "../core/eval/bootstrap.js";
import { mean } from "../core/eval/descriptive.js";
import { pairedMeanDifferenceInterval } from "../core/eval/paired-bootstrap.js";
import { signTest } from "../core/eval/sign-test.js";
import { wilcoxonSignedRank } from "../core/eval/signed-rank.js";
import { ErrorCode, MineditError } from "../errors.js";
import {
  type MetricValue,
  modelSeries,
  promptGroup,
  type SettingIdentity,
  type SettingMetrics,
  settingKey,
} from "./study-settings.js";

export const STUDY_VERSION = "minedit-eval-study/1";

/** The metrics a study compares, and which way is better. */
export const STUDY_METRICS = [
  { key: "pass1", label: "Pass@1", better: "higher" },
  { key: "excess", label: "Excess Lev.", better: "lower" },
  { key: "added_cc", label: "Added CC", better: "lower" },
  { key: "over_edit", label: "Over-edit", better: "lower" },
] as const;
export type StudyMetricKey = (typeof STUDY_METRICS)[number]["key"];

/** A run's result on one repair task: means over its passing samples (null: none passed). */
export type TaskResult = {
  task_id: string;
  families: readonly string[];
  excess: number | null;
  added_cc: number | null;
};

/** One setting, from a run directory or a summary row. */
export type StudySetting = SettingIdentity & {
  /** The name tables and figures show. */
  name: string;
  /** The run directory, or the summary file's FILE:LINE. */
  source: string;
  kind: "run" | "summary";
  metrics: SettingMetrics;
  tasks: number | null;
  samples: number | null;
  temperature: number | null;
  /** Runs with k > 1 samples per task: the unbiased pass@k at k = samples. */
  pass_at_k: { k: number; value: MetricValue | null } | null;
  /** Runs only: per evaluated repair task. */
  per_task: readonly TaskResult[] | null;
};

export type MatchedMetric = {
  metric: StudyMetricKey;
  /** Settings pairs with this metric under both prompts. */
  pairs: number;
  mean_a: number;
  mean_b: number;
  /** mean(B − A) with its paired bootstrap interval over settings. */
  change: Interval;
  /** Pairs that moved the better way, the worse way, not at all. */
  improved: number;
  worsened: number;
  unchanged: number;
  wilcoxon: { statistic: number; n: number; zeros: number; p_value: number; method: string };
  sign_test: { p_value: number };
};

export type ReasoningEffect = {
  model: string;
  size: number | null;
  prompt: string;
  reasoning: string;
  /** "all" or a family (tasks containing it). */
  family: string;
  /** Tasks both variants repair. */
  tasks: number;
  /** Mean over those tasks of reasoning − no reasoning; null without any. */
  excess: number | null;
  added_cc: number | null;
};

export type ScalingPoint = {
  series: string;
  prompt: string;
  reasoning: string | null;
  size: number;
  setting: string;
  pass1: number | null;
  excess: number | null;
  added_cc: number | null;
};

export type StudyReport = {
  v: typeof STUDY_VERSION;
  pair: [string, string];
  bootstrap: { resamples: number; seed: number; level: number };
  settings: (Omit<StudySetting, "per_task"> & { prompt_group: string })[];
  /** `settings`: all of the prompt's settings; `counts`: those with each metric (the mean's denominator). */
  prompt_means: {
    prompt: string;
    settings: number;
    metrics: Record<StudyMetricKey, Interval | null>;
    counts: Record<StudyMetricKey, number>;
  }[];
  matched: { pairs: { a: string; b: string }[]; metrics: MatchedMetric[] };
  reasoning: ReasoningEffect[];
  scaling: ScalingPoint[];
  repeated: {
    setting: string;
    samples: number;
    temperature: number | null;
    pass1: MetricValue | null;
    pass_at_k: MetricValue | null;
    excess: MetricValue | null;
    added_cc: MetricValue | null;
  }[];
};

export type StudyOptions = { pair: [string, string]; bootstrap: Required<BootstrapOptions> };

function invalid(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

/**
 * Refuses two settings that are the same model, prompt, reasoning and size, or that share a name: no table
 * could tell them apart.
 */
export function assertDistinctSettings(settings: readonly StudySetting[]): void {
  const seen = new Map<string, StudySetting>();
  for (const setting of settings) {
    const key = settingKey(setting);
    const before = seen.get(key);
    if (before !== undefined)
      throw invalid(
        `two settings are the same model, prompt, reasoning and size ("${setting.name}"): ${before.source} and ${setting.source}. ` +
          "Tell them apart with --setting DIR:reasoning=…,size=… (or model=…), or leave one out.",
      );
    seen.set(key, setting);
  }
  // Tables, pairs and chart marks are keyed by name, so two settings with one name (e.g. one model at two
  // sizes given in a summary's size column) would be merged there even though their identities differ.
  const named = new Map<string, StudySetting>();
  for (const setting of settings) {
    const before = named.get(setting.name);
    if (before !== undefined)
      throw invalid(
        `two settings are both named "${setting.name}": ${before.source} and ${setting.source}. ` +
          "Name one with --setting DIR:name=… (a run) or a label column (a summary row).",
      );
    named.set(setting.name, setting);
  }
}

const estimateOf = (setting: StudySetting, metric: StudyMetricKey): number | null =>
  setting.metrics[metric]?.estimate ?? null;

/** Per prompt (grouped as `promptGroup`), the mean of each metric over settings with its bootstrap interval. */
function promptMeans(settings: readonly StudySetting[], options: StudyOptions): StudyReport["prompt_means"] {
  const prompts = [...new Set(settings.map((s) => promptGroup(s.prompt, options.pair)))];
  const order = (p: string) => {
    const i = options.pair.indexOf(p);
    return i < 0 ? options.pair.length : i;
  };
  prompts.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  return prompts.map((prompt) => {
    const members = settings.filter((s) => promptGroup(s.prompt, options.pair) === prompt);
    const metrics = {} as Record<StudyMetricKey, Interval | null>;
    const counts = {} as Record<StudyMetricKey, number>;
    for (const { key } of STUDY_METRICS) {
      const values = members.flatMap((s) => {
        const v = estimateOf(s, key);
        return v === null ? [] : [[v]];
      });
      counts[key] = values.length;
      metrics[key] =
        values.length === 0 ? null : bootstrapByGroup(values, (sample) => mean(sample), options.bootstrap);
    }
    return { prompt, settings: members.length, metrics, counts };
  });
}

/** The settings of one model, reasoning and size under prompts A and B. */
function matchedPairs(
  settings: readonly StudySetting[],
  pair: [string, string],
): [StudySetting, StudySetting][] {
  const byKey = new Map<string, { a?: StudySetting; b?: StudySetting }>();
  for (const setting of settings) {
    const group = promptGroup(setting.prompt, pair);
    const side = group === pair[0] ? "a" : group === pair[1] ? "b" : null;
    if (side === null) continue;
    const key = JSON.stringify([setting.model, setting.reasoning, setting.size]);
    const entry = byKey.get(key) ?? {};
    if (entry[side] !== undefined)
      throw invalid(
        `"${setting.name}" (${setting.source}) and "${entry[side].name}" (${entry[side].source}) are both the ${side.toUpperCase()} prompt of one model, reasoning and size; ` +
          "pairing needs one each: leave one out or tell them apart with --setting DIR:reasoning=…,size=…",
      );
    entry[side] = setting;
    byKey.set(key, entry);
  }
  return [...byKey.values()].flatMap((e) =>
    e.a !== undefined && e.b !== undefined ? [[e.a, e.b] as [StudySetting, StudySetting]] : [],
  );
}

function matchedMetric(
  pairs: readonly [StudySetting, StudySetting][],
  metric: (typeof STUDY_METRICS)[number],
  options: StudyOptions,
): MatchedMetric | null {
  const values: [number, number][] = [];
  for (const [a, b] of pairs) {
    const va = estimateOf(a, metric.key);
    const vb = estimateOf(b, metric.key);
    if (va !== null && vb !== null) values.push([va, vb]);
  }
  if (values.length === 0) return null;
  const differences = values.map(([a, b]) => b - a);
  const wilcoxon = wilcoxonSignedRank(differences);
  const sign = signTest(differences);
  const higherIsBetter = metric.better === "higher";
  return {
    metric: metric.key,
    pairs: values.length,
    mean_a: mean(values.map(([a]) => a)) as number,
    mean_b: mean(values.map(([, b]) => b)) as number,
    change: pairedMeanDifferenceInterval(values, options.bootstrap),
    improved: higherIsBetter ? sign.positive : sign.negative,
    worsened: higherIsBetter ? sign.negative : sign.positive,
    unchanged: sign.ties,
    wilcoxon: {
      statistic: wilcoxon.statistic,
      n: wilcoxon.n,
      zeros: wilcoxon.zeros,
      p_value: wilcoxon.pValue,
      method: wilcoxon.method,
    },
    sign_test: { p_value: sign.pValue },
  };
}

/**
 * Reasoning minus no reasoning (Figure 4): for each model and size with a run without reasoning and a run
 * with it under the same prompt, over the tasks both repair, the mean difference of excess and added CC —
 * over all those tasks and per family (tasks containing it).
 */
function reasoningEffects(settings: readonly StudySetting[], pair: readonly string[]): ReasoningEffect[] {
  const out: ReasoningEffect[] = [];
  const runs = settings.filter((s) => s.per_task !== null);
  for (const base of runs.filter((s) => s.reasoning === null)) {
    for (const variant of runs) {
      if (
        variant.reasoning === null ||
        variant.model !== base.model ||
        variant.size !== base.size ||
        promptGroup(variant.prompt, pair) !== promptGroup(base.prompt, pair)
      )
        continue;
      const baseTasks = new Map((base.per_task ?? []).map((t) => [t.task_id, t]));
      const joint: { families: readonly string[]; excess: number; cc: number }[] = [];
      for (const task of variant.per_task ?? []) {
        const other = baseTasks.get(task.task_id);
        if (other === undefined || task.excess === null || other.excess === null) continue;
        if (task.added_cc === null || other.added_cc === null) continue;
        joint.push({
          families: task.families,
          excess: task.excess - other.excess,
          cc: task.added_cc - other.added_cc,
        });
      }
      const families = [...new Set(joint.flatMap((j) => j.families))].sort();
      for (const family of ["all", ...families]) {
        const members = family === "all" ? joint : joint.filter((j) => j.families.includes(family));
        out.push({
          model: base.model,
          size: base.size,
          prompt: promptGroup(base.prompt, pair),
          reasoning: variant.reasoning,
          family,
          tasks: members.length,
          excess: mean(members.map((m) => m.excess)),
          added_cc: mean(members.map((m) => m.cc)),
        });
      }
    }
  }
  return out;
}

/** Metrics against size (Figure 5): settings with a size, in series with at least two sizes. */
function scaling(settings: readonly StudySetting[], pair: readonly string[]): ScalingPoint[] {
  const points: ScalingPoint[] = settings.flatMap((s) => {
    const series = modelSeries(s.model);
    if (s.size === null || series === null) return [];
    return [
      {
        series,
        prompt: promptGroup(s.prompt, pair),
        reasoning: s.reasoning,
        size: s.size,
        setting: s.name,
        pass1: estimateOf(s, "pass1"),
        excess: estimateOf(s, "excess"),
        added_cc: estimateOf(s, "added_cc"),
      },
    ];
  });
  const sizes = new Map<string, Set<number>>();
  for (const p of points) sizes.set(p.series, (sizes.get(p.series) ?? new Set()).add(p.size));
  return points
    .filter((p) => (sizes.get(p.series)?.size ?? 0) >= 2)
    .sort((a, b) => a.series.localeCompare(b.series) || a.prompt.localeCompare(b.prompt) || a.size - b.size);
}

/** The whole study. Throws a usage error for settings that cannot be told apart. */
export function buildStudy(settings: readonly StudySetting[], options: StudyOptions): StudyReport {
  assertDistinctSettings(settings);
  const pairs = matchedPairs(settings, options.pair);
  return {
    v: STUDY_VERSION,
    pair: options.pair,
    bootstrap: options.bootstrap,
    settings: settings.map(({ per_task: _perTask, ...rest }) => ({
      ...rest,
      prompt_group: promptGroup(rest.prompt, options.pair),
    })),
    prompt_means: promptMeans(settings, options),
    matched: {
      pairs: pairs.map(([a, b]) => ({ a: a.name, b: b.name })),
      metrics: STUDY_METRICS.flatMap((metric) => matchedMetric(pairs, metric, options) ?? []),
    },
    reasoning: reasoningEffects(settings, options.pair),
    scaling: scaling(settings, options.pair),
    repeated: settings
      .filter((s) => (s.samples ?? 1) > 1)
      .map((s) => ({
        setting: s.name,
        samples: s.samples as number,
        temperature: s.temperature,
        pass1: s.metrics.pass1,
        pass_at_k: s.pass_at_k?.value ?? null,
        excess: s.metrics.excess,
        added_cc: s.metrics.added_cc,
      })),
  };
}
