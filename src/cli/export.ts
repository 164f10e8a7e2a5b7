/**
 * `minedit export`: training sets from repair tasks (docs/export.md), in the files TRL, LlamaFactory, verl and
 * OpenRLHF read. Parse the flags → open the inputs and the output → run the export (src/export/) →
 * commit the files atomically → summary and exit code.
 *
 * Decisions the issue leaves open, and why:
 * - rSFT and DPO rank passing candidates by d(M, G), the distance to the reference repair, as the paper's
 *   §4.1 says (see src/export/selection.ts); the excess e(M) breaks ties and is exported with the rows.
 * - Candidates beyond `--per-task` for a task are not scored (counted as skipped): N is the sampling
 *   budget of the recipe, and a file with more samples should not silently change it.
 * - Bad input rows are reported and skipped, and make the exit code 1 (as in `minedit score`); tasks that
 *   yield no rSFT row or no DPO pair are data, not errors: they are counted in the summary.
 * - Sandbox faults (INFRA_ERROR) are neither passing nor failing candidates; the summary warns when
 *   there were any, since the selection then saw fewer candidates.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { type Config, DISTANCE_SCOPES, REWARD_VARIANTS } from "../config.js";
import { PROMPT_STYLES, type PromptStyle } from "../core/prompt/repair-prompt.js";
import { isMineditError } from "../errors.js";
import type { ExportJob, ExportJobRequest } from "../export/export-job.js";
import { EXPORT_NAME, type ExportFormat, FORMAT_NAMES } from "../export/format.js";
import { EXPORT_FORMATS } from "../export/formats.js";
import type { GenerateRequest } from "../export/generated-candidates.js";
import type { LintExportSettings } from "../export/lint-export.js";
import { EXPORT_KINDS, type ExportKind, isLintKind, LINT_FIXERS } from "../export/records.js";
import type { ExportSettings } from "../export/run-export.js";
import { REJECTED_MODES, type RejectedMode } from "../export/selection.js";
import { parseSplitSpec, type SplitWeight } from "../export/splits.js";
import type { StdIo } from "../io/std-io.js";
import { executionLimits } from "../scoring/limits.js";
import { version } from "../version.js";
import { ENDPOINT_OPTIONS, endpointHelp, generationSource, generationTarget } from "./endpoint-flags.js";
import { EXIT, type FlagValues, runCommand, usageError } from "./failures.js";
import {
  buildConfig,
  numberFlag,
  REPAIR_REWARD_FLAGS,
  SCORING_OPTIONS,
  scoringFlagValues,
} from "./scoring-flags.js";

const DEFAULTS = {
  splits: "train=1",
  seed: 0,
  perTask: 8,
  keep: 3,
  rejected: "largest-edit",
  prompt: "generic",
};

const OPTIONS = {
  kind: { type: "string" },
  format: { type: "string" },
  tasks: { type: "string", multiple: true },
  candidates: { type: "string" },
  out: { type: "string", short: "o" },
  name: { type: "string" },
  style: { type: "string" },
  prompt: { type: "string" },
  splits: { type: "string" },
  seed: { type: "string" },
  "include-ood": { type: "boolean" },
  "per-task": { type: "string" },
  keep: { type: "string" },
  rejected: { type: "string" },
  // Scoring (rsft, dpo): the same flags and meaning as `minedit score`.
  ...SCORING_OPTIONS,
  fixer: { type: "string" },
  // rsft/dpo candidates sampled from an endpoint: the same flags and meaning as `eval run`'s.
  generate: { type: "boolean" },
  samples: { type: "string" },
  "sampling-seed": { type: "string" },
  journal: { type: "string" },
  ...ENDPOINT_OPTIONS,
  help: { type: "boolean", short: "h" },
} as const;

type Values = FlagValues<typeof OPTIONS>;

function formatKinds(format: ExportFormat): string {
  return format.kinds.join(", ");
}

/** `minedit export --help`. */
export function exportHelp(): string {
  const f = EXPORT_FORMATS;
  return `Usage: minedit export --kind KIND --format FORMAT --tasks TASKS.jsonl --out DIR [options]

Exports training data from repair tasks (a corrupted program C, its tests and the gold repair G), as
in the over-editing paper (§4.1). Every row's prompt is the paper's repair prompt: its system prompt,
the task's statement, the corrupted program and the request (--prompt), then "Wrap your response in
\`\`\`python and \`\`\`". Rows carry task_id and prompt_id (sha256 of the prompt messages).

Kinds:
  sft    prompt → the gold program (the programmatic minimal repair)
  rsft   rejection-sampled SFT: N sampled candidates per task (--per-task) are scored like the reward
         server does (tests in the bubblewrap sandbox); of the passing ones, the k (--keep) closest to the
         reference repair (smallest d(M, G), the normalized token edit distance; ties: smaller excess
         e(M) = d(M,C) − d(G,C), then input order) become rows, with their scores
  dpo    chosen = the smallest-edit passing candidate, rejected = the largest-edit passing one (strictly
         farther from G) or, with --rejected failing, the first failing one; both sides' reward, d(M, G),
         excess and verdict are in the row (for DPOP / weighted losses). Tasks without a valid pair are
         counted in the summary.
  grpo   prompts only; the task id in the row is all the reward call needs (verl: reward_model.ground_truth
         and extra_info.task_id; TRL: the task_id column; OpenRLHF: label). Serve the same task file with
         \`minedit serve --tasks TASKS.jsonl\`.
  Lint corpora (LintEval §4.4), from lint tasks (\`minedit lint tasks\`) and revisions of them:
  alq       A+L→A′: the LintEval prompt (the file, its alerts with lines, and the four requirements:
            preserve functionality, reduce alerts, avoid new alerts, edit minimally) → the refactored file
  qa        Q→A: problem statement → the original solution (all tasks; with revisions given, only the
            tasks that have a kept revision, so qa, qa-prime and alq cover the same problems)
  qa-prime  Q→A′: problem statement → the refactored solution
  Revisions come from --candidates (a teacher's completions, the rsft shapes) and/or --fixer clang-tidy.
  A revision is kept only if it passes its tests (sandbox, 10 s and 1 GiB per run) and reduces alerts
  (Fixed − New > 0, alerts matched on rule id and sanitized message); per task the highest net reduction
  wins, then the smallest unified diff (added + deleted lines), then the smallest token distance.

Formats (OUT/NAME/SPLIT.jsonl or .parquet, plus OUT/NAME/minedit-export.json, the manifest):
  hf            TRL / Hugging Face JSONL (${formatKinds(f.hf)}); --style conversational (messages, default)
                or standard (text). OUT/README.md is a dataset card whose YAML configs make
                load_dataset("OUT", "NAME") work; every hf export under OUT is one config.
  llamafactory  LlamaFactory JSONL (${formatKinds(f.llamafactory)}); --style sharegpt (default) or alpaca.
                Entries "minedit_NAME_SPLIT" are merged into OUT/dataset_info.json (ranking: true for dpo);
                train with dataset_dir: OUT, dataset: minedit_NAME_train.
  verl          verl Parquet (${formatKinds(f.verl)}) with nested columns: grpo rows have data_source,
                prompt (list of {role, content}), ability, reward_model {style, ground_truth = task_id},
                extra_info {task_id, problem_id, prompt_id, split, index, ...}; sft/rsft rows have
                messages (system, user, assistant) for verl's multi-turn SFT.
  openrlhf      OpenRLHF JSONL (${formatKinds(f.openrlhf)}): sft/rsft input/output, dpo prompt/chosen/rejected,
                grpo input/label (= task_id); --style conversational (for --apply_chat_template, default)
                or standard.

Inputs:
  --tasks FILE        task file (JSONL), the format \`minedit serve\` loads: task_id, statement, corrupted,
                      gold, entry_point, tests, and optionally problem_id, split, source, corruptions.
                      Repeatable. Tasks whose split is "ood" are left out unless --include-ood.
  --candidates FILE   rsft/dpo: sampled completions, JSONL or Parquet (.parquet), one of
                        {"task_id": "t1", "completion": "..."}              one row per completion
                        {"task_id": "t1", "completions": ["...", "..."]}  one row per task
                        {"task_id": "t1", "error": "HTTP 500 ..."}        a sample that failed at the API
                        verl generation output (a "responses" list; task id from extra_info.task_id or
                        reward_model.ground_truth, as in a grpo verl export)
                        an eval run: its directory or its samples.jsonl (\`minedit eval run\`; each sample's
                        extracted program, in a \`\`\`python block, is the completion; API_ERROR and MISSING
                        samples are counted, not scored)
                      A completion may also be a list of chat messages (its last assistant message).
  --generate          rsft/dpo: sample the candidates from an OpenAI-compatible endpoint instead (vLLM,
                      SGLang, OpenAI, ...), with the rows' own prompt (--prompt): N per task (--samples),
                      journalled so that a killed export resumes without asking a finished request again,
                      then scored and selected as above. The response of a row is the completion without
                      its reasoning (what follows the last </think>; reasoning_content is never in it).
  --samples N         samples per task (default: ${DEFAULTS.perTask}, the paper's N); every one is scored
  --journal FILE      the generation journal (default: OUT/.journal/NAME.jsonl); exports may share one
  --sampling-seed N   the requests' seed (--seed places problems in splits)
${endpointHelp("--samples", "--sampling-seed")}
Options:
  --out DIR, -o DIR   output directory (created; files of a previous export with the same NAME are replaced
                      atomically)
  --name NAME         export name: directory and config name (default: the kind)
  --style STYLE       row style of the format (see Formats)
  --prompt STYLE      ${PROMPT_STYLES.join(" | ")}: the paper's generic request, or with the preservation clause
                      "but keep as much of the original code as possible" (default: ${DEFAULTS.prompt});
                      paper-* are the authors' evaluation prompts byte for byte (docs/eval.md)
                      for rsft/dpo, give the prompt the candidates were sampled with
  --splits SPEC       splits by problem, e.g. train=0.9,test=0.1 (weights sum to 1; default: ${DEFAULTS.splits}).
                      A problem's split is a hash of (seed, problem_id): all variants of a problem share
                      it, and it does not depend on the other problems.
  --seed N            seed of the split assignment (default: ${DEFAULTS.seed})
  --include-ood       also export tasks whose split is "ood" (held-out corruption families)
  --per-task N        rsft/dpo: candidates scored per task at most; more are skipped (default: ${DEFAULTS.perTask})
  --keep K            rsft: passing candidates kept per task (default: ${DEFAULTS.keep})
  --rejected MODE     dpo: ${REJECTED_MODES.join(" | ")} (default: ${DEFAULTS.rejected})
  --fixer NAME        alq/qa/qa-prime: also take the rule-based fixer's output as a revision: ${LINT_FIXERS.join(" | ")}
                      (clang-tidy --fix with minedit's configuration, in the sandbox; C++ tasks only)
  Scoring (rsft, dpo), as in \`minedit score\`:
  --variant NAME      ${REWARD_VARIANTS.join(" | ")}; --lambda-exec N, --lambda-edit N, --lambda-cc N,
                      --failure-reward N, --scope ${DISTANCE_SCOPES.join("|")} (rewards written with the rows)
  --cpu-time-ms N, --wall-time-ms N, --memory-mb N   limits of one test run (the CPU limit, the wall
                      backstop, memory; see \`minedit score --help\`); --concurrency N sandbox runs at once and
                      --threads N worker threads (default: available parallelism, ${availableParallelism()} here)
  --config FILE.json  a configuration object (see \`minedit score --help\`); flags override it
  -h, --help          show this help

Examples:
  minedit export --kind sft --format hf --tasks tasks.jsonl --splits train=0.9,test=0.1 --out data/hf
  minedit export --kind grpo --format verl --tasks tasks.jsonl --splits train=0.95,test=0.05 --out data/verl
  minedit export --kind rsft --format llamafactory --tasks tasks.jsonl --candidates samples.jsonl --out data/lf
  minedit export --kind dpo --format hf --tasks datasets/tasks/in-domain.jsonl --generate \\
    --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-4B-Instruct-2507 --samples 8 --temperature 1 --out data/hf
  minedit export --kind rsft --format verl --tasks datasets/tasks/in-domain.jsonl --candidates runs/base --out data/verl
  minedit export --kind dpo --format openrlhf --tasks tasks.jsonl --candidates gen.parquet \\
    --rejected failing --prompt explicit --out data/openrlhf
  minedit export --kind alq --format hf --tasks datasets/lint/tasks/cpp.jsonl --fixer clang-tidy \\
    --candidates teacher.jsonl --splits train=0.9,test=0.1 --out data/lint
  docs/export.md has the trainer command lines that read each of these.

Exit codes:
  ${EXIT.ok}  exported; no input row was bad
  ${EXIT.badRows}  exported; some rows were bad, reported on stderr (FILE:LINE: reason) and skipped, or some
     candidate samples have no completion (failed at the API: with --generate, run again to ask them again)
  ${EXIT.usage}  usage error (bad flag or value, unreadable input, sandbox not available, endpoint refused or
     unreachable); nothing written (with --generate, the journal keeps what was generated)
  ${EXIT.internal}  internal error (a bug, or minedit is not built); nothing written
`;
}

const usage = usageError;

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw usage(`${flag}: expected ${allowed.join(", ")}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function positiveInteger(flag: string, text: string, minimum: number): number {
  const value = numberFlag(flag, text);
  if (!Number.isInteger(value) || value < minimum) {
    throw usage(`${flag}: expected an integer ≥ ${minimum}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** Validates the flags into an export request; throws usage errors. */
async function request(
  values: Values,
  positionals: string[],
  env: NodeJS.ProcessEnv,
): Promise<ExportJobRequest> {
  if (positionals.length > 0) throw usage(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.kind === undefined) throw usage(`missing --kind (${EXPORT_KINDS.join(", ")})`);
  if (values.format === undefined) throw usage(`missing --format (${FORMAT_NAMES.join(", ")})`);
  const kind: ExportKind = oneOf("--kind", values.kind, EXPORT_KINDS);
  const format = EXPORT_FORMATS[oneOf("--format", values.format, FORMAT_NAMES)];
  if (!format.kinds.includes(kind)) {
    throw usage(`--format ${format.name} does not hold ${kind} data (it holds ${formatKinds(format)})`);
  }
  const style =
    values.style === undefined ? (format.styles[0] as string) : oneOf("--style", values.style, format.styles);
  const lintKind = isLintKind(kind);
  if (lintKind && values.prompt !== undefined) {
    throw usage(`--prompt is for repair kinds; ${kind} rows use the LintEval prompts`);
  }
  if (!lintKind && values.fixer !== undefined)
    throw usage("--fixer is only used by --kind alq, qa and qa-prime");
  const fixer = values.fixer === undefined ? null : oneOf("--fixer", values.fixer, LINT_FIXERS);
  const prompt: PromptStyle = oneOf("--prompt", values.prompt ?? DEFAULTS.prompt, PROMPT_STYLES);
  const splitSpec = values.splits ?? DEFAULTS.splits;
  let splits: SplitWeight[];
  try {
    splits = parseSplitSpec(splitSpec);
  } catch (error) {
    if (isMineditError(error)) throw usage(`--splits: ${error.rawMessage}`);
    throw error;
  }
  const seed = values.seed === undefined ? DEFAULTS.seed : positiveInteger("--seed", values.seed, 0);
  const perTaskFlag = values.generate === true ? "--samples" : "--per-task";
  const perTaskText = values.generate === true ? values.samples : values["per-task"];
  const perTask = perTaskText === undefined ? DEFAULTS.perTask : positiveInteger(perTaskFlag, perTaskText, 1);
  const keep = values.keep === undefined ? DEFAULTS.keep : positiveInteger("--keep", values.keep, 1);
  const rejected: RejectedMode = oneOf("--rejected", values.rejected ?? DEFAULTS.rejected, REJECTED_MODES);
  const name = values.name ?? kind;
  if (!EXPORT_NAME.test(name))
    throw usage(`--name: use letters, digits, '_', '-' and '.'; got ${JSON.stringify(name)}`);
  if (values.out === undefined) throw usage("missing --out DIR");
  const taskFiles = values.tasks ?? [];
  if (taskFiles.length === 0) throw usage("missing --tasks FILE (a task file, JSONL)");
  const needsCandidates = kind === "rsft" || kind === "dpo";
  const generating = values.generate === true;
  if (generating && !needsCandidates) throw usage(`--generate samples rsft/dpo candidates; not for ${kind}`);
  if (generating && values.candidates !== undefined)
    throw usage("give --candidates FILE or --generate, not both");
  if (needsCandidates && !generating && values.candidates === undefined)
    throw usage(`--kind ${kind} needs --candidates FILE (or --generate to sample them from an endpoint)`);
  if (!needsCandidates && !lintKind && values.candidates !== undefined) {
    throw usage(`--candidates is only used by --kind rsft and dpo (and alq, qa, qa-prime), not ${kind}`);
  }
  if ((kind === "alq" || kind === "qa-prime") && values.candidates === undefined && fixer === null) {
    throw usage(
      `--kind ${kind} needs revisions: --candidates FILE (a teacher's completions) and/or --fixer clang-tidy`,
    );
  }
  if (!generating) {
    for (const flag of ["samples", "sampling-seed", "journal", ...Object.keys(ENDPOINT_OPTIONS)] as const) {
      if (values[flag as keyof Values] !== undefined)
        throw usage(`--${flag} is for --generate (sampling the candidates from an endpoint)`);
    }
  } else if (values["per-task"] !== undefined) {
    throw usage("with --generate, --samples N sets the candidates per task; drop --per-task");
  }
  const stdinUsers = [...taskFiles, values.candidates].filter((f) => f === "-").length;
  if (stdinUsers > 1) throw usage("only one input can be read from stdin (-)");
  if (kind !== "rsft" && values.keep !== undefined) throw usage("--keep is only used by --kind rsft");
  if (kind !== "dpo" && values.rejected !== undefined) throw usage("--rejected is only used by --kind dpo");
  if (!needsCandidates && values["per-task"] !== undefined)
    throw usage("--per-task is only used by rsft and dpo");

  if (lintKind) {
    for (const flag of REPAIR_REWARD_FLAGS) {
      if (values[flag] !== undefined)
        throw usage(`--${flag} is a repair-reward flag; ${kind} does not use it`);
    }
  }
  const config: Config = await buildConfig(scoringFlagValues(values));
  const settings: ExportSettings = {
    kind,
    format,
    style,
    prompt,
    name,
    splits,
    splitSpec,
    seed,
    includeOod: values["include-ood"] === true,
    perTask,
    keep,
    rejected,
    config,
    mineditVersion: version(),
  };
  const lint: LintExportSettings | null = isLintKind(kind)
    ? {
        kind,
        format,
        style,
        name,
        splits,
        splitSpec,
        seed,
        includeOod: settings.includeOod,
        fixer,
        limits: executionLimits(config),
        concurrency: config.sandbox.executionConcurrency,
        mineditVersion: settings.mineditVersion,
      }
    : null;
  let generate: GenerateRequest | null = null;
  if (generating) {
    const seed = { flag: "--sampling-seed", text: values["sampling-seed"] };
    const target = generationTarget(values, env, " (the model to sample candidates from)", seed);
    generate = {
      source: generationSource(target, values, env),
      samples: perTask,
      journalPath: values.journal ?? join(values.out, ".journal", `${name}.jsonl`),
    };
  }
  return { settings, lint, outDir: values.out, taskFiles, candidatesFile: values.candidates, generate };
}

/** Runs `minedit export` and returns the exit code. Never throws. */
export function runExportCommand(argv: readonly string[], io: StdIo): Promise<number> {
  return runCommand({
    name: "export",
    argv,
    io,
    options: OPTIONS,
    help: exportHelp,
    // The export's machinery (the metrics pool, the sandbox, the formats' writers) loads once the flags are valid.
    prepare: async (values: Values, positionals) => {
      const job = await request(values, positionals, process.env);
      return (await import("../export/export-job.js")).openExportJob(job, io);
    },
    execute: async (job: ExportJob) => {
      const { runExportJob } = await import("../export/export-job.js");
      const { badRows, withoutCompletion } = await runExportJob(job, io);
      return badRows > 0 || withoutCompletion > 0 ? EXIT.badRows : EXIT.ok;
    },
    close: (job: ExportJob) => job.close(),
  });
}
