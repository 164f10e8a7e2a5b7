/**
 * `minedit eval run|compare|report`: held-out evaluation (docs/eval.md; issue 14). Parse the flags → one
 * function of src/eval/ (run-job.ts, report-job.ts) → exit code. The endpoint's base URL and API key may
 * come from the environment (`OPENAI_BASE_URL`, the variable `--api-key-env` names), read here and
 * nowhere else.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { DISTANCE_SCOPES, REWARD_VARIANTS } from "../config.js";
import { PROMPT_STYLES, type PromptStyle } from "../core/prompt/repair-prompt.js";
import { EXIT_INTERRUPTED, isMineditError } from "../errors.js";
import { DEFAULT_STATISTICS } from "../eval/report-schema.js";
import { RUN_FILES } from "../eval/run-files.js";
import type { EvalRunJob, EvalRunRequest } from "../eval/run-job.js";
import { defaultCandidatesRunName, defaultRunName } from "../eval/run-name.js";
import type { StdIo } from "../io/std-io.js";
import {
  ENDPOINT_OPTIONS,
  endpointHelp,
  generationSource,
  generationTarget,
  SAMPLING_FLAGS,
} from "./endpoint-flags.js";
import {
  fraction,
  integer,
  oneOf,
  STATISTICS_OPTIONS,
  type StatisticsValues,
  statistics,
} from "./eval-flags.js";
import { runStudy } from "./eval-study.js";
import { commandFailure, EXIT, type FlagValues, runCommand, usageError } from "./failures.js";
import { buildConfig, SCORING_OPTIONS, scoringFlagValues } from "./scoring-flags.js";

const usage = usageError;

const EXIT_CODES = `Exit codes:
  ${EXIT.ok}    done; every sample of the denominator has a completion
  ${EXIT.badRows}    done, but some samples are API_ERROR or MISSING (or candidate rows were bad); the report counts them
  ${EXIT.usage}    usage error (bad flag, unreadable file, endpoint refused the key/model/URL, no sandbox)
  ${EXIT.internal}    internal error
  ${EXIT_INTERRUPTED}  interrupted (Ctrl-C); the journal keeps every finished sample: run the same command to resume`;

export function evalHelp(): string {
  return `Usage: minedit eval <run|compare|report|study> [options]

Held-out evaluation of a repair model (docs/eval.md): Pass@1, excess edit distance and added cognitive
complexity per domain (in-domain / OOD) and corruption family, with bootstrap confidence intervals by
problem; paired comparisons of two runs; JSON, Markdown and one self-contained HTML page.

  minedit eval run --tasks T.jsonl --model M --base-url URL --out RUN   generate (OpenAI-compatible), score, report
  minedit eval run --tasks T.jsonl --candidates C.jsonl --out RUN       score completions made elsewhere
  minedit eval compare RUN_A RUN_B [--out DIR]                          paired comparison (B − A)
  minedit eval report RUN [RUN ...] [--out DIR]                         rebuild the report of one or more runs
  minedit eval study RUN ... [--summary FILE] --out DIR                 many settings: the paper's study tables and figures

\`minedit eval run --help\`, \`minedit eval compare --help\`, \`minedit eval report --help\`; docs/eval.md.
`;
}

export function evalRunHelp(): string {
  return `Usage: minedit eval run --tasks FILE --out DIR (--model M --base-url URL | --score-only | --candidates FILE) [options]

1. Loads the tasks (repair and lint task rows, as \`minedit serve\` loads them) and the retention suites.
2. Starts the scoring engine: its ground-truth gate runs every repair task's gold and corrupted program
   once; a task whose gold fails or whose corrupted program passes is excluded (listed in the report).
3. Generates the missing samples of the other tasks from an OpenAI-compatible endpoint (vLLM, SGLang,
   OpenAI, OpenRouter) with the official openai client, into the journal DIR/journal.jsonl. A sample's
   key is the hash of endpoint, model, API, sampling parameters, prompt and sample index: a sample is
   requested once however often the run is interrupted and resumed.
4. Scores every sample in the bubblewrap sandbox exactly as the reward server does, and writes
   DIR/run.json, tasks.jsonl, samples.jsonl and the report (report.json, report.md, report.html).
   The denominator is every served task × n: API errors, missing samples, truncations, NO_CODE,
   UNPARSABLE and sandbox faults count as failures and are shown as such. NO_CODE is the paper's:
   an answer that is not a Python program and has no \`\`\`python block (docs/eval.md).

Prompts are the export's (the paper's App. A.3): --prompt generic | explicit (preservation clause);
paper-generic | paper-explicit send the authors' evaluation prompt byte for byte (docs/eval.md).
Lint tasks get the A+L→A′ prompt, retention problems their benchmark's own prompt.

Generation:
${endpointHelp("--n", "--seed")}  --n N                   samples per task (default: 1); with n > 1 pass@k is reported too (--k)

Samples from elsewhere:
  --score-only            score what the journal has (no request is sent); --model/--base-url and the
                          sampling flags must be those of the run that generated them
  --candidates FILE       score completions made elsewhere: JSONL/Parquet rows {"task_id", "completion"},
                          {"task_id", "completions": [...]} or verl generation output, as \`export --candidates\`
  --journal FILE          the journal to use (default: DIR/journal.jsonl); runs may share one

Tasks and suites:
  --tasks FILE            task file (JSONL), repeatable: datasets/tasks/in-domain.jsonl, ood.jsonl, lint tasks
  --prompt STYLE          ${PROMPT_STYLES.join(" | ")} (default: generic)
  --bigcodebench FILE     performance retention on BigCodeBench's instruct prompts (BigCodeBench.jsonl.gz);
                          problems needing pandas & co. are excluded unless the bigcodebench runtime is installed
  --bigcodebench-limit N  its first N problems only
  --livecodebench FILE    performance retention on LiveCodeBench's released problems (JSON/JSONL)
  --livecodebench-limit N its first N problems only

Report:
  --name NAME             the run's name in reports (default: "MODEL · PROMPT · REASONING", e.g.
                          "qwen3-14b · explicit · high", leaving out the generic prompt and an unset
                          reasoning setting; with --candidates the file's name). Runs shown together
                          (report, compare) must have distinct names
  --out DIR               the run directory (required)
  --k LIST                pass@k to report besides pass@1, e.g. 5,10 (those ≤ n; default: 5,10)
  --resamples N           bootstrap resamples (default: ${DEFAULT_STATISTICS.resamples}); --bootstrap-seed N (default: 0);
  --level X               interval coverage (default: 0.95)

Scoring, as in \`minedit score\`:
  --scope ${DISTANCE_SCOPES.join("|")}   distance scope (default here: function_body, the paper's evaluation)
  --variant ${REWARD_VARIANTS.join("|")}, --lambda-exec N, --lambda-edit N, --lambda-cc N,
  --failure-reward N      reward settings (the report's metrics do not depend on them)
  --cpu-time-ms N, --wall-time-ms N, --memory-mb N   limits of one test run (the CPU limit, the wall
                          backstop, memory; see \`minedit score --help\`); --concurrency N sandbox runs at once and
  --threads N             worker threads (default: available parallelism, ${availableParallelism()} here)
  --config FILE.json      a configuration object (see \`minedit score --help\`); flags override it

Examples:
  vllm serve Qwen/Qwen3-4B-Instruct-2507 --port 8000 &
  minedit eval run --tasks datasets/tasks/in-domain.jsonl --tasks datasets/tasks/ood.jsonl \\
    --model Qwen/Qwen3-4B-Instruct-2507 --base-url http://127.0.0.1:8000/v1 --temperature 0 --out runs/base
  OPENAI_API_KEY=sk-... minedit eval run --tasks datasets/tasks/ood.jsonl --model gpt-4.1 \\
    --base-url https://api.openai.com/v1 --prompt explicit --n 4 --temperature 1 --out runs/gpt41-explicit
  minedit eval run --tasks datasets/tasks/ood.jsonl --candidates verl-gen.parquet --name rl-step-200 --out runs/rl200
  minedit eval run --tasks datasets/tasks/in-domain.jsonl --model base --base-url http://127.0.0.1:8000/v1 \\
    --bigcodebench "$MINEDIT_DATA_DIR/bigcodebench/BigCodeBench.jsonl.gz" --out runs/base

${EXIT_CODES}
`;
}

export function evalCompareHelp(): string {
  return `Usage: minedit eval compare RUN_A RUN_B [--out DIR] [options]

Paired comparison of two runs on the tasks both evaluated (B − A): per domain, per corruption family and
per family combination, and per retention suite —
  Δ Pass@1 with a paired cluster-bootstrap interval (problems resampled, both runs together),
  exact McNemar test on the paired outcomes, Holm-adjusted across families,
  Δ excess edit distance and Δ added CC over the tasks both runs repair, with paired bootstrap intervals,
  the minimum detectable effect of each for this number of tasks (α, power).
Writes DIR/compare.json, compare.md and compare.html (forest plot of the per-family deltas, pass rate vs
excess, in-domain vs OOD panels, and the samples of both runs side by side).

Options:
  --out DIR        where to write (default: RUN_B/compare-<name of RUN_A>)
  --alpha X        test level for Holm and the MDE (default: 0.05)
  --power X        power of the MDE (default: 0.8)
  --resamples N, --bootstrap-seed N, --level X, --k LIST   as for \`eval run\`
  -h, --help       this help

Example:
  minedit eval compare runs/base runs/rl200 --out runs/rl200-vs-base

${EXIT_CODES}
`;
}

export function evalReportHelp(): string {
  return `Usage: minedit eval report RUN [RUN ...] [--out DIR] [options]

Rebuilds report.json, report.md and report.html from run directories' tasks.jsonl and samples.jsonl
(nothing is generated or executed). With several runs, each table has a row per run (the paper's
layout for many models) and the charts a colour per run.

Options:
  --out DIR        where to write (default: the run directory; required with several runs)
  --resamples N, --bootstrap-seed N, --level X, --k LIST   as for \`eval run\`
  -h, --help       this help

Example:
  minedit eval report runs/base runs/sft runs/rl200 --out runs/table3

${EXIT_CODES}
`;
}

// ---- run ---------------------------------------------------------------------------------------------

const RUN_OPTIONS = {
  tasks: { type: "string", multiple: true },
  out: { type: "string", short: "o" },
  name: { type: "string" },
  ...ENDPOINT_OPTIONS,
  seed: { type: "string" },
  prompt: { type: "string" },
  n: { type: "string" },
  "score-only": { type: "boolean" },
  candidates: { type: "string" },
  journal: { type: "string" },
  bigcodebench: { type: "string" },
  "bigcodebench-limit": { type: "string" },
  livecodebench: { type: "string" },
  "livecodebench-limit": { type: "string" },
  ...STATISTICS_OPTIONS,
  ...SCORING_OPTIONS,
} as const;

type RunValues = FlagValues<typeof RUN_OPTIONS>;

async function runRequest(
  values: RunValues,
  positionals: string[],
  env: NodeJS.ProcessEnv,
): Promise<EvalRunRequest> {
  if (positionals.length > 0) throw usage(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.out === undefined) throw usage("missing --out DIR (the run directory)");
  const taskFiles = values.tasks ?? [];
  if (taskFiles.length === 0 && values.bigcodebench === undefined && values.livecodebench === undefined) {
    throw usage(
      "missing --tasks FILE (a task file, JSONL) or a retention suite (--bigcodebench, --livecodebench)",
    );
  }
  const prompt: PromptStyle = oneOf("--prompt", values.prompt ?? "generic", PROMPT_STYLES);
  const samples = integer("--n", values.n, 1, 1);
  const seed = { flag: "--seed", text: values.seed };
  let source: EvalRunRequest["source"];
  if (values.candidates !== undefined) {
    if (values["score-only"] === true)
      throw usage("--candidates already scores without generating; drop --score-only");
    for (const flag of ["model", "base-url", "seed", ...SAMPLING_FLAGS] as const) {
      if (values[flag] !== undefined)
        throw usage(`--${flag} is for generation; --candidates scores given completions`);
    }
    source = { kind: "candidates", file: values.candidates };
  } else {
    const target = generationTarget(values, env, " (or --candidates FILE)", seed);
    source =
      values["score-only"] === true
        ? { kind: "journal", target }
        : { kind: "generate", ...generationSource(target, values, env) };
  }
  const config = await buildConfig({
    ...scoringFlagValues(values),
    scope: values.scope ?? "function_body",
  });
  const retention: EvalRunRequest["retention"] = {};
  if (values.bigcodebench !== undefined) {
    const limit = values["bigcodebench-limit"];
    retention.bigcodebench = {
      path: values.bigcodebench,
      ...(limit === undefined ? {} : { limit: integer("--bigcodebench-limit", limit, 1, 1) }),
    };
  }
  if (values.livecodebench !== undefined) {
    const limit = values["livecodebench-limit"];
    retention.livecodebench = {
      path: values.livecodebench,
      ...(limit === undefined ? {} : { limit: integer("--livecodebench-limit", limit, 1, 1) }),
    };
  }
  const name =
    values.name ??
    (source.kind === "candidates"
      ? defaultCandidatesRunName(source.file, prompt)
      : defaultRunName(source.target.model, prompt, source.target.params));
  return {
    outDir: values.out,
    name,
    taskFiles,
    prompt,
    samples,
    source,
    journalPath: values.journal ?? join(values.out, RUN_FILES.journal),
    retention,
    config,
    ...statistics(values),
  };
}

async function runRun(argv: readonly string[], io: StdIo, env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand({
    name: "eval run",
    argv,
    io,
    options: RUN_OPTIONS,
    help: evalRunHelp,
    // The run's machinery (the scoring engine, the endpoint client) loads once the flags are valid.
    prepare: async (values: RunValues, positionals) => {
      const request = await runRequest(values, positionals, env);
      const { openEvalRun, runEvalRun } = await import("../eval/run-job.js");
      return { job: await openEvalRun(request, io), run: runEvalRun };
    },
    execute: ({ job, run }: { job: EvalRunJob; run: (job: EvalRunJob, io: StdIo) => Promise<number> }) =>
      run(job, io),
    close: async () => {},
  });
}

// ---- compare, report -----------------------------------------------------------------------------------

const COMPARE_OPTIONS = {
  out: { type: "string", short: "o" },
  alpha: { type: "string" },
  power: { type: "string" },
  ...STATISTICS_OPTIONS,
} as const;

async function runCompare(argv: readonly string[], io: StdIo): Promise<number> {
  return runCommand({
    name: "eval compare",
    argv,
    io,
    options: COMPARE_OPTIONS,
    help: evalCompareHelp,
    prepare: async (
      values: StatisticsValues & { out?: string; alpha?: string; power?: string },
      positionals,
    ) => {
      if (positionals.length !== 2)
        throw usage(`expected two run directories (RUN_A RUN_B), got ${positionals.length}`);
      return {
        runA: positionals[0] as string,
        runB: positionals[1] as string,
        outDir: values.out,
        alpha: fraction("--alpha", values.alpha, 0.05),
        power: fraction("--power", values.power, 0.8),
        ...statistics(values),
      };
    },
    execute: async (request) => (await import("../eval/report-job.js")).runEvalCompare(request, io),
    close: async () => {},
  });
}

const REPORT_OPTIONS = { out: { type: "string", short: "o" }, ...STATISTICS_OPTIONS } as const;

async function runReport(argv: readonly string[], io: StdIo): Promise<number> {
  return runCommand({
    name: "eval report",
    argv,
    io,
    options: REPORT_OPTIONS,
    help: evalReportHelp,
    prepare: async (values: StatisticsValues & { out?: string }, positionals) => {
      if (positionals.length === 0) throw usage("expected at least one run directory");
      if (positionals.length > 1 && values.out === undefined)
        throw usage("--out DIR is required with several runs");
      return { runs: positionals, outDir: values.out ?? (positionals[0] as string), ...statistics(values) };
    },
    execute: async (request) => (await import("../eval/report-job.js")).runEvalReport(request, io),
    close: async () => {},
  });
}

/** `minedit eval ...`: dispatches to the subcommand. */
export async function runEval(
  argv: readonly string[],
  io: StdIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "-h" || sub === "--help") {
    io.stdout.write(evalHelp());
    return EXIT.ok;
  }
  try {
    if (sub === "run") return await runRun(rest, io, env);
    if (sub === "compare") return await runCompare(rest, io);
    if (sub === "report") return await runReport(rest, io);
    if (sub === "study") return await runStudy(rest, io);
  } catch (error) {
    if (isMineditError(error)) return commandFailure(io, `eval ${sub}`, error);
    throw error;
  }
  io.stderr.write(
    `${sub === undefined ? "minedit eval: missing subcommand" : `minedit eval: unknown subcommand "${sub}"`} (run, compare, report, study)\n\n${evalHelp()}`,
  );
  return EXIT.usage;
}
