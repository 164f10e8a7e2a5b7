/**
 * `minedit eval study`: flags → src/eval/study-job.ts → exit code.
 */
import type { EvalStudyRequest, SettingOverride } from "../eval/study-job.js";
import { normalizeReasoning } from "../eval/study-settings.js";
import type { StdIo } from "../io/std-io.js";
import { STATISTICS_OPTIONS, type StatisticsValues, statistics } from "./eval-flags.js";
import { EXIT, runCommand, usageError } from "./failures.js";

export function evalStudyHelp(): string {
  return `Usage: minedit eval study [RUN ...] [--summary FILE ...] --out DIR [options]

The over-editing paper's evaluation over many settings (model × prompt × reasoning × size): run
directories of \`minedit eval run\` and summary files of published per-setting results, together.
Writes DIR/study.json, study.md (also printed) and study.html:
  per setting     Pass@1, excess, added CC, over-edit share (passing repairs with excess > 0), with
                  intervals for runs (Tables 17, 18)
  per prompt      means over settings with bootstrap intervals over settings (Figure 3)
  matched pairs   same model, reasoning and size under prompts A and B: mean change with a paired
                  bootstrap interval, settings better/worse, two-sided Wilcoxon signed-rank and sign-test
                  p-values, for each metric (Appendix C.3)
  reasoning       reasoning − no reasoning on the tasks both repair, per family and prompt (Figure 4; runs)
  size            metrics by model size per model series (Figure 5)
  k samples       runs with k > 1 samples per task: mean Pass@1 and unbiased pass@k (Table 19)
A run's identity comes from its run.json: model, prompt, reasoning (the reasoning_effort it was sampled
with) and size (read from the model name, "14B"). Two settings with the same identity are refused.

Options:
  --summary FILE        CSV or JSONL rows: model, prompt, pass1 (required); reasoning, size, excess,
                        added_cc, over_edit, tasks (n), samples (k), temperature, label (optional).
                        Repeatable.
                        datasets/published/ has the paper's Tables 17 and 18.
  --setting DIR:K=V,…   a run's identity where its run.json is silent or wrong: model, prompt, reasoning
                        (off, on or an effort), size (billions), name. Repeatable.
  --pair A,B            the prompts compared, A → B (default: generic,explicit; the paper-generic and
                        paper-explicit prompts count as generic and explicit)
  --out DIR             where to write (required)
  --resamples N, --bootstrap-seed N, --level X   the bootstrap (default 2000, 0, 0.95)
  -h, --help            this help

Examples:
  minedit eval study runs/qwen-generic runs/qwen-explicit --summary datasets/published/over-editing-table17.csv --out study
  minedit eval study runs/* --setting runs/a:reasoning=high,size=14 --out study

Exit codes: ${EXIT.ok} done; ${EXIT.usage} usage error (bad flag or file, settings that cannot be told apart); ${EXIT.internal} internal error.
`;
}

const STUDY_OPTIONS = {
  summary: { type: "string", multiple: true },
  setting: { type: "string", multiple: true },
  pair: { type: "string" },
  out: { type: "string", short: "o" },
  ...STATISTICS_OPTIONS,
} as const;

/** `DIR:model=…,prompt=…,reasoning=…,size=…,name=…` → the directory and its identity's overrides. */
function parseSetting(text: string): [string, SettingOverride] {
  const colon = text.lastIndexOf(":");
  if (colon <= 0) throw usageError(`--setting: expected DIR:key=value,…, got ${JSON.stringify(text)}`);
  const dir = text.slice(0, colon);
  const override: SettingOverride = {};
  for (const part of text.slice(colon + 1).split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw usageError(`--setting ${dir}: expected key=value, got ${JSON.stringify(part)}`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "model" || key === "prompt" || key === "name") {
      if (value === "") throw usageError(`--setting ${dir}: ${key} must not be empty`);
      override[key] = value;
    } else if (key === "reasoning") override.reasoning = normalizeReasoning(value);
    else if (key === "size") {
      const size = Number(value);
      if (value === "" || !Number.isFinite(size) || size <= 0)
        throw usageError(
          `--setting ${dir}: size must be a positive number of billions, got ${JSON.stringify(value)}`,
        );
      override.size = size;
    } else throw usageError(`--setting ${dir}: unknown key "${key}" (model, prompt, reasoning, size, name)`);
  }
  return [dir, override];
}

export async function runStudy(argv: readonly string[], io: StdIo): Promise<number> {
  return runCommand({
    name: "eval study",
    argv,
    io,
    options: STUDY_OPTIONS,
    help: evalStudyHelp,
    prepare: async (
      values: StatisticsValues & { summary?: string[]; setting?: string[]; pair?: string; out?: string },
      positionals,
    ): Promise<EvalStudyRequest> => {
      if (values.out === undefined) throw usageError("--out DIR is required");
      const summaries = values.summary ?? [];
      if (positionals.length === 0 && summaries.length === 0)
        throw usageError("expected run directories or --summary files");
      const pair = (values.pair ?? "generic,explicit").split(",").map((p) => p.trim());
      if (pair.length !== 2 || pair[0] === "" || pair[1] === "" || pair[0] === pair[1])
        throw usageError(`--pair: expected two different prompts A,B, got ${JSON.stringify(values.pair)}`);
      const overrides = new Map<string, SettingOverride>();
      for (const text of values.setting ?? []) {
        const [dir, override] = parseSetting(text);
        overrides.set(dir, { ...(overrides.get(dir) ?? {}), ...override });
      }
      return {
        runs: positionals,
        summaries,
        overrides,
        pair: pair as [string, string],
        outDir: values.out,
        statistics: statistics(values).statistics,
      };
    },
    execute: async (request) => (await import("../eval/study-job.js")).runEvalStudy(request, io),
    close: async () => {},
  });
}
