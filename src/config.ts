/**
 * The one configuration schema of the minedit service. It is parsed once in `main` (from file, flags and
 * environment, which is the caller's business: this module does no I/O) and passed down.
 *
 * Every section is a strict object with defaults, so `parseConfig({})` yields a complete config, and a
 * misspelt key is an error rather than a silently ignored setting. New sections are added to
 * {@link ConfigSchema} as `<Section>Schema.prefault({})`, following `reward` and `pool`.
 */
import { availableParallelism } from "node:os";
import { z } from "zod";
import { ErrorCode, MineditError } from "./errors.js";

/** The paper's reward ablation (Table 5), chosen per server and overridable per request (docs/reward.md#the-formula). */
export const REWARD_VARIANTS = ["full", "correctness_only", "edit_only", "edit_plus_cc"] as const;
export type RewardVariant = (typeof REWARD_VARIANTS)[number];

/** What X and Y are when measuring d(X, Y) (docs/reward.md#distance-and-scope). */
export const DISTANCE_SCOPES = ["program", "function_body"] as const;
export type DistanceScope = (typeof DISTANCE_SCOPES)[number];

/**
 * The end-of-turn and end-of-sequence texts of the common chat templates: ChatML / Qwen (`<|im_end|>`,
 * `<|endoftext|>`), Llama 3 (`<|eot_id|>`, `<|eom_id|>`, `<|end_of_text|>`), Llama 2 / Mistral (`</s>`),
 * Gemma (`<end_of_turn>`, `<eos>`), Phi-3 and gpt-oss (`<|end|>`, `<|return|>`), DeepSeek
 * (`<｜end▁of▁sentence｜>`, `<|EOT|>`). Removed from the end of a completion before the program is
 * extracted (src/core/extract-program.ts); `reward.endOfTurnMarkers` replaces the list.
 */
export const DEFAULT_END_OF_TURN_MARKERS: readonly string[] = Object.freeze([
  "<|im_end|>",
  "<|endoftext|>",
  "<|eot_id|>",
  "<|eom_id|>",
  "<|end_of_text|>",
  "</s>",
  "<end_of_turn>",
  "<eos>",
  "<|end|>",
  "<|return|>",
  "<｜end▁of▁sentence｜>",
  "<|EOT|>",
]);

// Field schemas without defaults: shared by the config section (which adds defaults) and by per-request
// overrides (where a missing field means "keep the server's value", so it must not be defaulted).
// zod 4's `z.number()` already rejects NaN and ±Infinity.
const rewardFields = {
  variant: z.enum(REWARD_VARIANTS),
  /** Reward for passing the tests, before the edit penalty. */
  lambdaExec: z.number(),
  /** Weight of the excess edit distance. Non-negative: a negative weight would reward over-editing. */
  lambdaEdit: z.number().min(0),
  /** Weight of added cognitive complexity in `edit_plus_cc`. Non-negative for the same reason. */
  lambdaCc: z.number().min(0),
  /** Reward of every failing verdict (tests fail, timeout, memory, crash, unparsable, no code). */
  failureReward: z.number(),
  scope: z.enum(DISTANCE_SCOPES),
};

/**
 * The lint reward (docs/lint.md, src/core/lint/reward.ts) for `lint_refactor` tasks: a passing revision A′ of
 * A scores `lambdaExec + lambdaFix · clip((Fixed − New) / max(1, |Orig|), −1, 1) − lambdaEdit · d(A, A′)`;
 * a failing one scores the reward section's `failureReward`. Defaults keep "do nothing" at exactly
 * λexec = 0.1 and every passing revision that adds no alert above a failure (λexec − λedit = −0.15 > −0.2).
 */
export const LintRewardConfigSchema = z.strictObject({
  /** Reward for a revision that passes its tests, before the alert and edit terms. */
  lambdaExec: z.number().default(0.1),
  /** Weight of the net fraction of alerts fixed. Non-negative: a negative weight would reward new alerts. */
  lambdaFix: z.number().min(0).default(1.0),
  /** Weight of the token edit distance d(A, A′). Non-negative: a negative weight would reward rewrites. */
  lambdaEdit: z.number().min(0).default(0.25),
});
export type LintRewardConfig = z.output<typeof LintRewardConfigSchema>;

/**
 * The reward section (docs/reward.md#the-formula). Defaults are the over-editing paper's (§4.1, App. D.1): λexec = 0.1,
 * λedit = 1.0, failure = −0.2.
 *
 * `lambdaCc` defaults to 0: the paper's `Lev. + CogC` ablation does not publish its weight, so no value
 * is given by the source, and 0 keeps `edit_plus_cc` equal to `full` until an operator picks a weight
 * deliberately. Set it explicitly when running that ablation.
 */
export const RewardConfigSchema = z.strictObject({
  variant: rewardFields.variant.default("full"),
  lambdaExec: rewardFields.lambdaExec.default(0.1),
  lambdaEdit: rewardFields.lambdaEdit.default(1.0),
  lambdaCc: rewardFields.lambdaCc.default(0.0),
  failureReward: rewardFields.failureReward.default(-0.2),
  scope: rewardFields.scope.default("program"),
  /** Texts removed from the end of a completion before its program is extracted (see the default list). */
  endOfTurnMarkers: z.array(z.string().min(1)).default(() => [...DEFAULT_END_OF_TURN_MARKERS]),
  /** Lint tasks (`kind: "lint_refactor"`); `failureReward` above applies to them too. */
  lint: LintRewardConfigSchema.prefault({}),
});
export type RewardConfig = z.output<typeof RewardConfigSchema>;

/** A per-request override of the reward section: any subset of its fields, no defaults. */
export const RewardOverrideSchema = z.strictObject({
  variant: rewardFields.variant.optional(),
  lambdaExec: rewardFields.lambdaExec.optional(),
  lambdaEdit: rewardFields.lambdaEdit.optional(),
  lambdaCc: rewardFields.lambdaCc.optional(),
  failureReward: rewardFields.failureReward.optional(),
  scope: rewardFields.scope.optional(),
});
export type RewardOverride = z.output<typeof RewardOverrideSchema>;

/** The worker pool that runs tokenization and Levenshtein work (piscina). */
export const PoolConfigSchema = z.strictObject({
  /** Worker threads; defaults to the parallelism Node reports for this process when the config is parsed. */
  threads: z
    .number()
    .int()
    .positive()
    .default(() => availableParallelism()),
  /**
   * Analyzed programs (norm, tokens, CC) each worker thread keeps across calls, by estimated bytes
   * (src/core/analyzed-program-cache.ts): a program seen again is not parsed again. 0 turns it off.
   */
  programCacheBytes: z
    .number()
    .int()
    .nonnegative()
    .default(32 * 1024 * 1024),
  /**
   * Scores each worker thread keeps, by (task, reward config, program extracted from the completion), for
   * the calls that need no norm(M) back — offline scoring and exports (src/core/score-memo.ts): a program
   * scored before for the task is not analyzed again, whatever prose surrounds it. A few hundred bytes an
   * entry. 0 turns it off. Where it is used, it stands in for the program cache.
   */
  scoreMemoEntries: z.number().int().nonnegative().default(131_072),
});
export type PoolConfig = z.output<typeof PoolConfigSchema>;

/** TLS for the gRPC server: PEM files read once at start-up. */
export const ServerTlsConfigSchema = z.strictObject({
  /** PEM certificate chain presented to clients. */
  certFile: z.string().min(1),
  /** PEM private key of that certificate. */
  keyFile: z.string().min(1),
});
export type ServerTlsConfig = z.output<typeof ServerTlsConfigSchema>;

/** The gRPC server (docs/design.md): where it listens, how large a batch it accepts, TLS and token auth. */
export const ServerConfigSchema = z.strictObject({
  /** Interface to bind. The loopback default keeps an unauthenticated server off the network. */
  host: z.string().min(1).default("127.0.0.1"),
  /** TCP port; 0 asks the OS for a free one (the bound port is reported by `startServer`). */
  port: z.number().int().min(0).max(65535).default(50051),
  /** Most rollouts one ScoreBatch request (or one ScoreStream message, or one stream's in-flight
   *  rollouts) may carry; more is `RESOURCE_EXHAUSTED`. 4096 covers e.g. 512 prompts × 8 samples. */
  maxBatchRollouts: z.number().int().positive().default(4096),
  /** Largest request message accepted, in bytes. gRPC's usual 4 MiB is too small for a batch of 4096
   *  rollouts with inline tasks; 64 MiB is not. Larger messages fail with `RESOURCE_EXHAUSTED`. */
  maxReceiveMessageBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  /** Serve TLS with this certificate; absent: plaintext (insecure) HTTP/2. */
  tls: ServerTlsConfigSchema.optional(),
  /** When set, every call except health checks must carry `authorization: Bearer <authToken>`. */
  authToken: z.string().min(1).optional(),
  /** Also answer OpenRLHF's remote reward protocol (HTTP/JSON `POST /get_reward`) on this TCP port of
   *  `host`; 0 picks a free one. Absent (the default): off, so no second port opens unasked. */
  openrlhfPort: z.number().int().min(0).max(65535).optional(),
  /** OpenRLHF (≥ 0.9.1) sends one HTTP request per sample, hundreds at once: requests arriving within this
   *  many milliseconds of the first one of a window are scored in one scorer call (so identical samples of
   *  a GRPO group run once). 0: every request is scored on its own. */
  openrlhfCoalesceMs: z.number().int().min(0).max(10_000).default(20),
  /** Most rollouts one coalesced scorer call holds; a window that reaches it is scored at once. A single
   *  request larger than this (OpenRLHF 0.9.0's batched form) is scored alone. */
  openrlhfCoalesceMaxRollouts: z.number().int().positive().default(512),
  /** Reward (and 0 score) of an INFRA_ERROR sample that no scored sample of its task in the same request
   *  can stand in for: every sample of OpenRLHF ≥ 0.9.1, which sends one sample per request. Absent: the
   *  `reward.failureReward` (−0.2), so a sandbox fault never earns more than a failure (a value above it
   *  would reward whatever makes the sandbox fail). */
  openrlhfInfraErrorReward: z.number().optional(),
  /** Every `POST /get_reward` is answered within this many milliseconds of its arrival: OpenRLHF gives up
   *  on a request after a fixed 180 s (aiohttp `total=180`), retries it 5 times 1 s apart ignoring
   *  Retry-After, and then trains on a missing reward, which crashes later. So instead of refusing an
   *  overloaded request (429) the endpoint waits for room until the budget runs out, and a sample not
   *  scored by then is answered as an INFRA_ERROR (the `openrlhfInfraErrorReward`, `extra_logs.infra_error`
   *  = 1). 0: no budget (an overloaded server answers 429 with Retry-After). */
  openrlhfRequestBudgetMs: z.number().int().min(0).default(150_000),
  /** Close each client connection (HTTP/2 GOAWAY) after this many milliseconds, so that clients
   *  re-resolve and spread over the replicas of a scaled-out deployment (deploy/): calls in flight on it
   *  finish first. Absent (the default): connections live as long as the client keeps them. */
  maxConnectionAgeMs: z.number().int().positive().optional(),
  /** Serve Prometheus metrics (`GET /metrics`, docs/service.md) on this TCP port of `host`; 0 picks a free
   *  one. Absent (the default): off. */
  metricsPort: z.number().int().min(0).max(65535).optional(),
  /** Least severity of the JSON log lines (pino) on stderr. Program text is logged only at `debug`/`trace`. */
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** On SIGTERM/SIGINT, how long calls in flight may take to finish before they are ended with UNAVAILABLE. */
  drainTimeoutMs: z.number().int().min(0).default(10_000),
  /** Most rollouts admitted and not yet scored, over all calls of both endpoints: a call that would go
   *  beyond it is refused with RESOURCE_EXHAUSTED and a retry hint, so memory stays bounded under a flood.
   *  A call arriving when nothing is in flight is always admitted (a batch is bounded by maxBatchRollouts). */
  maxQueuedRollouts: z.number().int().positive().default(16_384),
  /** The retry hint an overloaded server gives (gRPC trailer `grpc-retry-pushback-ms`, HTTP `Retry-After`). */
  overloadRetryAfterMs: z.number().int().positive().default(1_000),
});
export type ServerConfig = z.output<typeof ServerConfigSchema>;

/** The Docker backend's settings (docs/sandbox.md#docker; src/sandbox/docker.ts). */
export const DockerConfigSchema = z.strictObject({
  /** The daemon's socket. */
  socketPath: z.string().min(1).default("/var/run/docker.sock"),
  /**
   * The image of each task runtime, pinned by ID (`sha256:…`, what sandbox/docker/build-image.sh prints);
   * checked at start-up. A runtime without one is refused at load, like one that is not installed.
   */
  images: z
    .record(z.string(), z.string().regex(/^sha256:[0-9a-f]{64}$/, "expected an image ID, sha256:…"))
    .default({}),
  /** The OCI runtime of every container: "runsc" for gVisor (the daemon must know it); absent: runc. */
  ociRuntime: z.string().min(1).optional(),
  /** cgroup memory limit (memory + swap) of each container: the fork server, its imports and one run. */
  containerMemoryBytes: z
    .number()
    .int()
    .positive()
    .default(2 * 1024 * 1024 * 1024),
  /** CPU quota of each container, in CPUs. */
  cpusPerContainer: z.number().positive().default(1),
});

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/**
 * The fields of every limit profile, without defaults (the `sandbox` keys reuse them): the limits of one
 * run as the sandbox takes them (src/sandbox/sandbox.ts `ExecutionLimits` is these plus the CPU and idle
 * time). Units in the names.
 */
const runLimitFields = {
  /** Wall-clock limit from start to kill, sandbox start-up included. */
  wallTimeMs: z.number().int().positive(),
  /** Address-space limit of each process (RLIMIT_AS semantics: virtual memory, not resident; a JVM's heap
   *  where the profile says so). */
  memoryBytes: z.number().int().positive(),
  /** Processes and threads alive at once in the sandbox, the runtime's own included. */
  maxProcesses: z.number().int().positive(),
  /** Largest file a process may write (RLIMIT_FSIZE). */
  maxFileBytes: z.number().int().positive(),
  /** Stdout plus stderr bytes kept; a run that writes more is killed and marked `outputTruncated`. */
  maxOutputBytes: z.number().int().positive(),
};
/** The fields of every limit profile (see `runLimitFields`). */
export type RunLimits = { [K in keyof typeof runLimitFields]: z.output<(typeof runLimitFields)[K]> };

/** A limit profile: one run's limits with these defaults. */
function runLimits(d: RunLimits) {
  return z.strictObject({
    wallTimeMs: runLimitFields.wallTimeMs.default(d.wallTimeMs),
    memoryBytes: runLimitFields.memoryBytes.default(d.memoryBytes),
    maxProcesses: runLimitFields.maxProcesses.default(d.maxProcesses),
    maxFileBytes: runLimitFields.maxFileBytes.default(d.maxFileBytes),
    maxOutputBytes: runLimitFields.maxOutputBytes.default(d.maxOutputBytes),
  });
}

/** An analyzer's profile: a run analyzes several files, so its wall time is `wallTimeMs + files × wallTimePerFileMs`. */
function analyzerLimits(d: RunLimits & { wallTimePerFileMs: number }) {
  return runLimits(d).extend({
    /** Wall time added per file analyzed in the run (`wallTimeMs` is the tool's start-up). */
    wallTimePerFileMs: z.number().int().min(0).default(d.wallTimePerFileMs),
  });
}

/** The fields of the `tests` profile: a run's limits plus its CPU time. */
const testLimitFields = {
  ...runLimitFields,
  /** CPU-time limit (user + system, every process of the run); 0: none, the wall limit alone. */
  cpuTimeMs: z.number().int().min(0),
};

/**
 * The limits of every kind of sandboxed run, as named profiles (docs/sandbox.md#limits): the one home of
 * each limit's default. A new kind of run adds its profile here and reads it where it runs.
 */
export const LimitsConfigSchema = z.strictObject({
  /**
   * One test program of a rollout (each stdio case is its own program), wherever rollouts are scored:
   * the service, `score`, `export`, `tasks build`, the workers. With `cpuTimeMs` the CPU time is the time
   * limit that does not grow when the machine is busy, and `wallTimeMs` the least wall-clock backstop
   * (src/scoring/limits.ts raises it with the oversubscription of the cores); with `cpuTimeMs` 0, the
   * wall-clock limit alone.
   */
  tests: runLimits({
    wallTimeMs: 10_000,
    memoryBytes: GIB,
    maxProcesses: 64,
    maxFileBytes: 16 * MIB,
    maxOutputBytes: MIB,
  })
    .extend({ cpuTimeMs: testLimitFields.cpuTimeMs.default(10_000) })
    .prefault({}),
  /** The C++ and Java compile stage of a test run (src/runners/compiled.ts): its wall budget, on top of the
   *  run's own. Generous for g++/javac on a loaded machine; a compile that needs longer (a template bomb)
   *  is the candidate's COMPILE_ERROR. */
  compile: z.strictObject({ wallTimeMs: runLimitFields.wallTimeMs.default(30_000) }).prefault({}),
  /** The tests of a lint revision in `lint report` and `lint tasks`: LintEval's limits (docs/lint.md),
   *  wall-clock only. */
  lintTests: runLimits({
    wallTimeMs: 10_000,
    memoryBytes: GIB,
    maxProcesses: 64,
    maxFileBytes: 16 * MIB,
    maxOutputBytes: MIB,
  }).prefault({}),
  /** Pylint over up to 16 files (src/analyzers/pylint.ts). Generous: the analysis shares the cores with
   *  the tests. */
  pylint: analyzerLimits({
    wallTimeMs: 60_000,
    wallTimePerFileMs: 20_000,
    memoryBytes: 2 * GIB,
    maxProcesses: 16,
    maxFileBytes: 16 * MIB,
    maxOutputBytes: 64 * MIB,
  }).prefault({}),
  /** clang-tidy over one file: seconds per file (every check walks the AST of `<bits/stdc++.h>`). */
  clangTidy: analyzerLimits({
    wallTimeMs: 30_000,
    wallTimePerFileMs: 120_000,
    memoryBytes: 4 * GIB,
    maxProcesses: 16,
    maxFileBytes: 16 * MIB,
    maxOutputBytes: 64 * MIB,
  }).prefault({}),
  /** PMD over up to 64 files in one JVM; `memoryBytes` is the JVM's heap (the address space adds the
   *  JVM's reservations, as for the Java runner). */
  pmd: analyzerLimits({
    wallTimeMs: 180_000,
    wallTimePerFileMs: 5_000,
    memoryBytes: GIB,
    maxProcesses: 64,
    maxFileBytes: 16 * MIB,
    maxOutputBytes: 64 * MIB,
  }).prefault({}),
  /** `clang-tidy --fix` on one file (src/lint/clang-tidy-fix.ts); the fixed file comes back on stdout. */
  clangTidyFix: runLimits({
    wallTimeMs: 150_000,
    memoryBytes: 4 * GIB,
    maxProcesses: 16,
    maxFileBytes: 16 * MIB,
    maxOutputBytes: 16 * MIB,
  }).prefault({}),
  /** Compiling the Python test harness to bytecode, once per sandbox (src/runners/python.ts); its
   *  output is the base64 bytecode. */
  harnessCompile: runLimits({
    wallTimeMs: 30_000,
    memoryBytes: GIB,
    maxProcesses: 16,
    maxFileBytes: MIB,
    maxOutputBytes: 4 * MIB,
  }).prefault({}),
  /** The run that checks a new bubblewrap sandbox works (`python3 -c pass`) before it is used. */
  sandboxProbe: runLimits({
    wallTimeMs: 30_000,
    memoryBytes: GIB,
    maxProcesses: 16,
    maxFileBytes: MIB,
    maxOutputBytes: 64 * 1024,
  }).prefault({}),
  /** `minedit runtime`'s check that every module of a task runtime imports in the sandbox (one run
   *  imports them all: minutes and GiBs for the data-science runtimes). */
  runtimeCheck: runLimits({
    wallTimeMs: 300_000,
    memoryBytes: 4 * GIB,
    maxProcesses: 64,
    maxFileBytes: 16 * MIB,
    maxOutputBytes: MIB,
  }).prefault({}),
});
export type LimitsConfig = z.output<typeof LimitsConfigSchema>;
/** The profile of one analyzer (see {@link LimitsConfigSchema} `pylint`, `clangTidy`, `pmd`). */
export type AnalyzerLimitsConfig = LimitsConfig["pylint"];

/** Every profile at its default: for runs outside a configured service (the lint commands, setup checks). */
export const DEFAULT_LIMITS_CONFIG: LimitsConfig = (() => {
  const profiles = LimitsConfigSchema.parse({});
  for (const profile of Object.values(profiles)) Object.freeze(profile);
  return Object.freeze(profiles);
})();

/**
 * Test execution (docs/sandbox.md): which backend isolates candidates (the embedded bubblewrap sandbox or
 * Docker), the interpreter, warm interpreters, retries of runs the sandbox broke, the result cache and how
 * many runs go at once. The limits of each run are the `limits` section's `tests` profile.
 */
export const SandboxConfigSchema = z.strictObject({
  /**
   * Where candidates run: "bwrap" (bubblewrap, embedded: nothing to start) or "docker" (a container per
   * execution slot through the Docker daemon, `docker` below; optionally gVisor's runsc).
   */
  backend: z.enum(["bwrap", "docker"]).default("bwrap"),
  docker: DockerConfigSchema.prefault({}),
  /** The CPython that runs candidates, exposed inside the sandbox as `python3`. */
  pythonPath: z.string().min(1).default("/usr/bin/python3"),
  // The limits of one test program, from before the limit profiles: each still sets its field of
  // `limits.tests` (and wins over it: the command-line flags write these keys). Validated here, so an error
  // names the key the user wrote.
  wallTimeMs: testLimitFields.wallTimeMs.optional(),
  cpuTimeMs: testLimitFields.cpuTimeMs.optional(),
  memoryBytes: testLimitFields.memoryBytes.optional(),
  maxProcesses: testLimitFields.maxProcesses.optional(),
  maxFileBytes: testLimitFields.maxFileBytes.optional(),
  maxOutputBytes: testLimitFields.maxOutputBytes.optional(),
  /**
   * Run Python executions in warm interpreters: per concurrent execution, one long-lived sandbox whose
   * fork server forks each run from an interpreter that has already started (and is cleaned after each
   * run). Off: every execution starts a fresh sandbox and interpreter (slower, same results).
   */
  warmInterpreters: z.boolean().default(true),
  /**
   * Runs of a rollout that the sandbox broke (it did not start, or the harness died before the program
   * ran) are retried this many times, each on a fresh sandbox, before the rollout is `INFRA_ERROR`: most
   * trainers cannot mask a sample, so a transient fault should not reach them. Unusable tests are never
   * retried (they fail the same way every time).
   */
  infraRetries: z.number().int().min(0).max(5).default(1),
  /**
   * Test outcomes kept across scoring calls, by content (task tests and runtime, normalized program,
   * limits, harness): an identical execution later is answered from memory (`cached: true`), and one
   * asked for while an identical run is under way joins that run. Estimated bytes; 0 turns both off (every
   * call then runs its own executions). TIMEOUT and INFRA_ERROR are never kept.
   */
  resultCacheBytes: z
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  /** Sandboxed runs at once; defaults to twice the parallelism Node reports: with CPU-time limits a run
   *  that sleeps or waits leaves its core to another, and on the BigCodeBench step (benchmarks/README.md)
   *  2 × cores was the fastest of 1, 2, 4 and 8 × cores. */
  executionConcurrency: z
    .number()
    .int()
    .positive()
    .default(() => 2 * availableParallelism()),
});
/** The keys of `sandbox` that moved to `limits.tests` (still accepted as input, absent from the output). */
const LEGACY_TEST_LIMIT_KEYS = [
  "wallTimeMs",
  "cpuTimeMs",
  "memoryBytes",
  "maxProcesses",
  "maxFileBytes",
  "maxOutputBytes",
] as const;
export type SandboxConfig = Omit<
  z.output<typeof SandboxConfigSchema>,
  (typeof LEGACY_TEST_LIMIT_KEYS)[number]
>;

/**
 * How a task's limits follow its gold program's measured time (the ground-truth gate,
 * src/scoring/task-gate.ts): `min(ceiling, max(floor, factor × gold))`, for the wall-clock backstop and,
 * where the sandbox measures it, the CPU time — as evalplus and BigCodeBench time tests against the
 * reference solution instead of one limit for every task.
 */
export const CalibrationConfigSchema = z.strictObject({
  factor: z.number().min(1).default(4),
  wallFloorMs: z.number().int().positive().default(3000),
  wallCeilingMs: z.number().int().positive().default(60_000),
  cpuFloorMs: z.number().int().positive().default(1000),
  cpuCeilingMs: z.number().int().positive().default(60_000),
});
export type CalibrationConfig = z.output<typeof CalibrationConfigSchema>;

/** The task store: JSONL files loaded at start (empty: the shipped demo tasks). */
export const TasksConfigSchema = z.strictObject({
  files: z.array(z.string().min(1)).default([]),
  /**
   * Run every repair task's gold and corrupted program once when the store loads (remembered on disk by
   * content): a task whose gold fails or whose corrupted program passes is refused, and the gold's time
   * calibrates the task's limits. Only when tests are executed.
   */
  gate: z.boolean().default(true),
  /**
   * Run an inline task's gold against its tests once per task content, beside its first rollouts, and
   * answer INVALID_TASK (no reward) for every rollout of a task whose gold fails
   * (src/scoring/inline-gold-check.ts). Off: such a task's rollouts all get the failure reward. Only when
   * tests are executed.
   */
  inlineGoldCheck: z.boolean().default(true),
  /** Where gate results are remembered; empty: `~/.cache/minedit/task-gate`. */
  gateCacheDir: z.string().default(""),
  calibration: CalibrationConfigSchema.prefault({}),
});
export type TasksConfig = z.output<typeof TasksConfigSchema>;

/** A Redis URL: `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. */
const RedisUrlSchema = z.string().refine((text) => {
  try {
    const url = new URL(text);
    return (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname !== "";
  } catch {
    return false;
  }
}, "expected redis://HOST:PORT (or rediss:// for TLS)");

/**
 * The distributed job queue (src/queue/, docs/deploy.md): with a `url`, `minedit serve` hands every
 * distinct repair execution to BullMQ workers (`minedit worker`) through Redis instead of running it in
 * its own sandbox; metrics, rewards and lint rollouts stay at the front. Without one (the default) nothing
 * changes: one process scores and executes.
 */
export const QueueConfigSchema = z.strictObject({
  /** The Redis holding the queue and the shared result cache; absent: no queue (single-machine mode). */
  url: RedisUrlSchema.optional(),
  /** BullMQ's key prefix: every key of the queue starts with `<prefix>:<name>:`. */
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default("minedit"),
  /** The BullMQ queue. Its waiting jobs, `<prefix>:<name>:prioritized` and `:wait`, are what an autoscaler watches. */
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default("executions"),
  /** `minedit serve` also runs a worker in its own process, with `sandbox.executionConcurrency` slots. */
  worker: z.boolean().default(false),
  /** How long a deterministic outcome stays in the shared result cache (never TIMEOUT or INFRA_ERROR);
   *  0 turns the shared cache off. */
  resultTtlMs: z
    .number()
    .int()
    .min(0)
    .default(60 * 60 * 1000),
  /** A call without a deadline waits at most this long for its jobs; workers skip a job once every call
   *  waiting for it is past its deadline (or gone). */
  jobDeadlineMs: z
    .number()
    .int()
    .positive()
    .default(10 * 60 * 1000),
  /** BullMQ's job lock: a worker renews it every half of this; a worker that stops renewing (killed,
   *  partitioned) loses its jobs to the others after at most this plus `stalledIntervalMs`. */
  lockMs: z.number().int().min(1000).default(15_000),
  /** How often workers look for stalled jobs (locks that expired) and put them back in the queue. */
  stalledIntervalMs: z.number().int().min(100).default(5_000),
  /** Times a job may lose its worker before it fails (the rollout is then INFRA_ERROR). */
  maxStalledCount: z.number().int().min(0).default(2),
  /** How often a front checks that the jobs it waits for still exist (re-adding those Redis lost) and a
   *  worker that the calls of a running job still want it (stopping it when none does). */
  pollMs: z.number().int().min(50).default(1_000),
  /** How long calls in flight ride out a Redis outage before they fail with UNAVAILABLE. New calls fail
   *  at once while Redis is unreachable. */
  outageToleranceMs: z.number().int().min(0).default(15_000),
  /** Approximate length BullMQ trims the queue's event stream to (fronts learn of results from it). */
  eventsMaxLen: z.number().int().min(1000).default(100_000),
});
export type QueueConfig = z.output<typeof QueueConfigSchema>;

/** The whole service configuration. */
export const ConfigSchema = z
  .strictObject({
    reward: RewardConfigSchema.prefault({}),
    pool: PoolConfigSchema.prefault({}),
    server: ServerConfigSchema.prefault({}),
    sandbox: SandboxConfigSchema.prefault({}),
    limits: LimitsConfigSchema.prefault({}),
    tasks: TasksConfigSchema.prefault({}),
    queue: QueueConfigSchema.prefault({}),
  })
  .transform(({ sandbox, limits, ...sections }) => {
    // The test limits a config still sets under `sandbox` (see SandboxConfigSchema) go to `limits.tests`.
    const tests = { ...limits.tests };
    const rest: Record<string, unknown> = { ...sandbox };
    for (const key of LEGACY_TEST_LIMIT_KEYS) {
      const value = sandbox[key];
      if (value !== undefined) tests[key] = value;
      delete rest[key];
    }
    return { ...sections, sandbox: rest as SandboxConfig, limits: { ...limits, tests } };
  });
export type Config = z.output<typeof ConfigSchema>;

/** Renders a zod path as a dotted field name: `reward.lambdaEdit`, `items[2].id`. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") {
      out += `[${key}]`;
    } else {
      out += out === "" ? String(key) : `.${String(key)}`;
    }
  }
  return out;
}

/**
 * Turns a zod failure into an `InvalidArgument` {@link MineditError} whose message names every offending
 * field (`reward.lambdaEdit: Invalid input: expected number, received string`) and whose `field` is the
 * first one. `prefix` is prepended to every path.
 */
function invalidArgument(error: z.ZodError, prefix: readonly string[]): MineditError {
  const fields: string[] = [];
  const lines = error.issues.map((issue) => {
    let path: PropertyKey[] = [...prefix, ...issue.path];
    // An unknown key is reported on its parent object; name the key itself, which is what the user typed.
    if (issue.code === "unrecognized_keys" && issue.keys.length === 1) {
      path = [...path, issue.keys[0] as string];
    }
    const field = fieldPath(path);
    fields.push(field);
    return `${field === "" ? "(config)" : field}: ${issue.message}`;
  });
  const first = fields[0];
  return new MineditError(
    ErrorCode.InvalidArgument,
    lines.join("; "),
    first === undefined || first === "" ? undefined : { field: first },
  );
}

/**
 * Validates a raw configuration object (already read from file/flags/env by the caller) and fills in
 * defaults. `undefined` means "no configuration" and yields all defaults.
 *
 * @throws MineditError with code `InvalidArgument`, naming the offending field path.
 */
export function parseConfig(input: unknown): Config {
  const result = ConfigSchema.safeParse(input === undefined ? {} : input);
  if (!result.success) {
    throw invalidArgument(result.error, []);
  }
  return result.data;
}

/**
 * Applies a per-request reward override on top of the server's reward section. The override is any
 * subset of the reward fields, validated exactly like the config; `undefined` means no override. Fields
 * absent from the override (or explicitly `undefined`) keep the base value.
 *
 * @param fieldPrefix dotted prefix for field names in error messages (default `reward`), so a request
 *   handler can report e.g. `reward_override.lambdaEdit`.
 * @throws MineditError with code `InvalidArgument`, naming the offending field path.
 */
export function mergeRewardOverride(
  base: RewardConfig,
  override: unknown,
  fieldPrefix = "reward",
): RewardConfig {
  if (override === undefined) {
    return base;
  }
  const result = RewardOverrideSchema.safeParse(override);
  if (!result.success) {
    throw invalidArgument(result.error, fieldPrefix === "" ? [] : fieldPrefix.split("."));
  }
  const merged: RewardConfig = { ...base };
  const o = result.data;
  if (o.variant !== undefined) merged.variant = o.variant;
  if (o.lambdaExec !== undefined) merged.lambdaExec = o.lambdaExec;
  if (o.lambdaEdit !== undefined) merged.lambdaEdit = o.lambdaEdit;
  if (o.lambdaCc !== undefined) merged.lambdaCc = o.lambdaCc;
  if (o.failureReward !== undefined) merged.failureReward = o.failureReward;
  if (o.scope !== undefined) merged.scope = o.scope;
  return merged;
}
