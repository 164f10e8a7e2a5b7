/**
 * The `minedit.v1.RewardService` handlers: validate the request, convert it into {@link RolloutInput}s,
 * call the injected {@link RolloutScorer}, and convert its outputs back into wire results.
 *
 * Contract (see proto/minedit/v1/reward.proto for the client's view):
 * - A malformed request fails the whole call with `INVALID_ARGUMENT` naming the first offending field in
 *   proto spelling (`rollouts[3].completion: required`) and changes nothing; no rollout of it is scored.
 * - More rollouts than `maxBatchRollouts` in one request (or one stream message) is `RESOURCE_EXHAUSTED`.
 * - When the call is cancelled or its deadline passes, the scorer's `AbortSignal` is aborted (reason: a
 *   `MineditError` `Cancelled` / `DeadlineExceeded`) so it stops its sandboxes; grpc-js has already told
 *   the client, so nothing more is sent.
 * - Any error becomes a status through `status.ts` only; a non-`MineditError` (a bug, in the scorer or
 *   here) is `INTERNAL` with a generic message, reported to `onInternalError`, and the server keeps serving.
 *
 * Why one long file: the validation of every wire field lives beside the handlers that need it (request
 * schemas beside their handler, CONTRIBUTING.md#house-rules), so the whole wire → input mapping reads in one place.
 */
import { create } from "@bufbuild/protobuf";
import type {
  handleBidiStreamingCall,
  handleUnaryCall,
  ServerDuplexStream,
  ServerUnaryCall,
  sendUnaryData,
} from "@grpc/grpc-js";
import { type RewardOverride as ConfigRewardOverride, RewardOverrideSchema } from "../config.js";
import { type Verdict as CoreVerdict, VERDICTS } from "../core/reward.js";
import { ErrorCode, MineditError } from "../errors.js";
import {
  DistanceScope,
  LintLanguage,
  type LintTask,
  type RewardOverride,
  RewardVariant,
  type Rollout,
  type RolloutResult,
  RolloutResultSchema,
  type ScoreBatchRequest,
  type ScoreBatchResponse,
  ScoreBatchResponseSchema,
  type ScoreStreamRequest,
  type ScoreStreamResponse,
  ScoreStreamResponseSchema,
  type Task,
  Verdict,
} from "../gen/minedit/v1/reward_pb.js";
import type { PythonTests } from "../runners/python.js";
import { isRuntimeName, RUNTIME_NAMES } from "../sandbox/runtimes.js";
import type { RolloutInput, RolloutOutput, RolloutScorer, RolloutTask } from "../scoring/rollout.js";
import type { Decoded } from "./service-definition.js";
import { toGrpcStatus } from "./status.js";

/** Where an unexpected error happened, for the log line. `ref` is the reference the client was given. */
export type InternalErrorContext = { method: string; ref: string };

export type RewardServiceOptions = {
  scorer: RolloutScorer;
  /** Most rollouts per ScoreBatch request, per ScoreStream message and in flight per stream. */
  maxBatchRollouts: number;
  /** Called with every error that was not a `MineditError` (it reached the client as a generic INTERNAL). */
  onInternalError: (error: unknown, context: InternalErrorContext) => void;
};

/** The handler object for `server.addService(rewardServiceDefinition, ...)`. */
export type RewardServiceHandlers = {
  scoreBatch: handleUnaryCall<Decoded<ScoreBatchRequest>, ScoreBatchResponse>;
  scoreStream: handleBidiStreamingCall<Decoded<ScoreStreamRequest>, ScoreStreamResponse>;
};

// ---------------------------------------------------------------------------------------------------
// Request validation. Field names in messages use the proto spelling, which is what the client wrote.

function invalid(field: string, message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, `${field}: ${message}`, { field });
}

/** The message of a request that decoded, or `INVALID_ARGUMENT` for bytes that are not one. */
function requireDecoded<T>(decoded: Decoded<T>, typeName: string): T {
  if (!decoded.ok) {
    throw new MineditError(ErrorCode.InvalidArgument, `request is not a valid ${typeName}: ${decoded.error}`);
  }
  return decoded.message;
}

function checkBatchSize(count: number, limit: number, what: string): void {
  if (count > limit) {
    throw new MineditError(
      ErrorCode.ResourceExhausted,
      `${what} has ${count} rollouts, more than the server's limit of ${limit} (server.maxBatchRollouts); split it`,
      { field: "rollouts" },
    );
  }
}

// Python 3.11's `keyword.kwlist`: identifiers that cannot name a function.
const PYTHON_KEYWORDS: ReadonlySet<string> = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for " +
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);
// Python's identifier grammar (PEP 3131): XID_Start or "_", then XID_Continue. The entry point is
// spliced into test harness code, so anything else is refused at the boundary.
const PYTHON_IDENTIFIER = /^[\p{XID_Start}_]\p{XID_Continue}*$/u;

function parseTests(task: Pick<Task, "tests" | "entryPoint">, path: string): PythonTests {
  const tests = task.tests;
  if (tests === undefined) throw invalid(`${path}.tests`, "required");
  const style = tests.style;
  switch (style.case) {
    case "unittest":
      if (style.value.code === "") throw invalid(`${path}.tests.unittest.code`, "required");
      return { style: "unittest", code: style.value.code };
    case "assert":
      if (style.value.code === "") throw invalid(`${path}.tests.assert.code`, "required");
      if (task.entryPoint === "") throw invalid(`${path}.entry_point`, "required for assert tests");
      return { style: "assert", code: style.value.code, entryPoint: task.entryPoint };
    case "stdio": {
      const { cases, floatTolerance } = style.value;
      if (cases.length === 0) throw invalid(`${path}.tests.stdio.cases`, "at least one case is required");
      const out: PythonTests = {
        style: "stdio",
        cases: cases.map((c) => ({ input: c.input, output: c.output })),
      };
      if (floatTolerance !== undefined) {
        if (!Number.isFinite(floatTolerance) || floatTolerance < 0) {
          throw invalid(
            `${path}.tests.stdio.float_tolerance`,
            `must be a finite number >= 0, got ${floatTolerance}`,
          );
        }
        out.floatTolerance = floatTolerance;
      }
      return out;
    }
    case undefined:
      throw invalid(`${path}.tests`, "one of unittest, assert or stdio is required");
    default: {
      const unreachable: never = style;
      throw invalid(`${path}.tests`, `unknown test style ${String(unreachable)}`);
    }
  }
}

function checkEntryPoint(entryPoint: string, path: string): void {
  if (entryPoint !== "" && (!PYTHON_IDENTIFIER.test(entryPoint) || PYTHON_KEYWORDS.has(entryPoint))) {
    throw invalid(`${path}.entry_point`, `not a Python identifier: ${JSON.stringify(entryPoint)}`);
  }
}

function parseTask(task: Task, path: string): RolloutTask {
  const entryPoint = task.entryPoint;
  checkEntryPoint(entryPoint, path);
  const tests = parseTests(task, path);
  const inline: RolloutTask = {
    kind: "inline",
    corrupted: task.corrupted,
    gold: task.gold,
    tests,
    entryPoint,
  };
  if (task.runtime === undefined) return inline;
  if (!isRuntimeName(task.runtime)) {
    throw invalid(
      `${path}.runtime`,
      `unknown runtime ${JSON.stringify(task.runtime)} (known: ${RUNTIME_NAMES.join(", ")}; leave it unset to pick it from the task's imports)`,
    );
  }
  return { ...inline, runtime: task.runtime };
}

const LINT_LANGUAGES: Readonly<Record<number, "python" | "cpp" | "java">> = {
  [LintLanguage.PYTHON]: "python",
  [LintLanguage.CPP]: "cpp",
  [LintLanguage.JAVA]: "java",
};

function parseLintTask(task: LintTask, path: string): RolloutTask {
  const language = LINT_LANGUAGES[task.language];
  if (language === undefined) {
    throw invalid(
      `${path}.language`,
      task.language === LintLanguage.UNSPECIFIED ? "required" : `unknown value ${task.language}`,
    );
  }
  if (task.original.trim() === "") throw invalid(`${path}.original`, "required");
  checkEntryPoint(task.entryPoint, path);
  const tests = parseTests(task, path);
  if (language !== "python" && tests.style !== "stdio") {
    throw invalid(`${path}.tests`, `${language} lint tasks need stdio tests`);
  }
  return { kind: "inline_lint", language, original: task.original, tests, entryPoint: task.entryPoint };
}

function parseRollout(rollout: Rollout, path: string): RolloutInput {
  if (rollout.id === "") throw invalid(`${path}.id`, "required");
  // `completion` is proto3 `optional`, so "unset" (a client bug) and "" (the model produced nothing,
  // scored as NO_CODE) are distinguishable.
  if (rollout.completion === undefined) throw invalid(`${path}.completion`, "required");
  let task: RolloutTask;
  const ref = rollout.taskRef;
  switch (ref.case) {
    case "taskId":
      if (ref.value === "") throw invalid(`${path}.task_id`, "must not be empty");
      task = { kind: "stored", taskId: ref.value };
      break;
    case "task":
      task = parseTask(ref.value, `${path}.task`);
      break;
    case "lintTask":
      task = parseLintTask(ref.value, `${path}.lint_task`);
      break;
    case undefined:
      throw invalid(path, "one of task_id, task or lint_task is required");
    default: {
      const unreachable: never = ref;
      throw invalid(path, `unknown task reference ${String(unreachable)}`);
    }
  }
  return { id: rollout.id, completion: rollout.completion, task, groupId: rollout.groupId };
}

/**
 * Validates and converts the rollouts of one request. `busyIds` are ids that may not be reused (the
 * stream's rollouts still being scored); ids must also be unique within the request, because results are
 * matched to rollouts by id.
 */
function parseRollouts(rollouts: readonly Rollout[], busyIds: ReadonlySet<string>): RolloutInput[] {
  const seen = new Map<string, number>();
  return rollouts.map((rollout, i) => {
    const input = parseRollout(rollout, `rollouts[${i}]`);
    const first = seen.get(input.id);
    if (first !== undefined) {
      throw invalid(`rollouts[${i}].id`, `duplicate of rollouts[${first}].id (${JSON.stringify(input.id)})`);
    }
    if (busyIds.has(input.id)) {
      throw invalid(`rollouts[${i}].id`, `${JSON.stringify(input.id)} is still being scored on this stream`);
    }
    seen.set(input.id, i);
    return input;
  });
}

const VARIANTS: Readonly<Record<number, ConfigRewardOverride["variant"]>> = {
  [RewardVariant.FULL]: "full",
  [RewardVariant.CORRECTNESS_ONLY]: "correctness_only",
  [RewardVariant.EDIT_ONLY]: "edit_only",
  [RewardVariant.EDIT_PLUS_CC]: "edit_plus_cc",
};
const SCOPES: Readonly<Record<number, ConfigRewardOverride["scope"]>> = {
  [DistanceScope.PROGRAM]: "program",
  [DistanceScope.FUNCTION_BODY]: "function_body",
};
// Config (camelCase) → proto (snake_case) field names, for error messages.
const OVERRIDE_FIELDS: Readonly<Record<string, string>> = {
  variant: "variant",
  lambdaExec: "lambda_exec",
  lambdaEdit: "lambda_edit",
  lambdaCc: "lambda_cc",
  failureReward: "failure_reward",
  scope: "scope",
};

/**
 * Converts a wire override into the config's override, validated by the config's own schema (one
 * definition of what a valid weight is). `undefined` when nothing is overridden. Enum value 0
 * (UNSPECIFIED) means "keep the server's value", like an unset field; an unknown number is refused
 * (proto3 enums are open, so a newer client may send one).
 */
function parseOverride(override: RewardOverride | undefined): ConfigRewardOverride | undefined {
  if (override === undefined) return undefined;
  const prefix = "reward_override";
  const raw: Record<string, unknown> = {};
  if (override.variant !== undefined && override.variant !== RewardVariant.UNSPECIFIED) {
    const variant = VARIANTS[override.variant];
    if (variant === undefined) throw invalid(`${prefix}.variant`, `unknown value ${override.variant}`);
    raw.variant = variant;
  }
  if (override.scope !== undefined && override.scope !== DistanceScope.UNSPECIFIED) {
    const scope = SCOPES[override.scope];
    if (scope === undefined) throw invalid(`${prefix}.scope`, `unknown value ${override.scope}`);
    raw.scope = scope;
  }
  if (override.lambdaExec !== undefined) raw.lambdaExec = override.lambdaExec;
  if (override.lambdaEdit !== undefined) raw.lambdaEdit = override.lambdaEdit;
  if (override.lambdaCc !== undefined) raw.lambdaCc = override.lambdaCc;
  if (override.failureReward !== undefined) raw.failureReward = override.failureReward;
  if (Object.keys(raw).length === 0) return undefined;

  const result = RewardOverrideSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const key = String(issue?.path[0] ?? "");
    const value = raw[key];
    throw invalid(
      `${prefix}.${OVERRIDE_FIELDS[key] ?? key}`,
      `${issue?.message ?? "invalid value"} (got ${String(value)})`,
    );
  }
  return result.data;
}

// ---------------------------------------------------------------------------------------------------
// Results.

const WIRE_VERDICT: Readonly<Record<CoreVerdict, Verdict>> = {
  PASSED: Verdict.PASSED,
  FAILED_TESTS: Verdict.FAILED_TESTS,
  UNPARSABLE: Verdict.UNPARSABLE,
  NO_CODE: Verdict.NO_CODE,
  TIMEOUT: Verdict.TIMEOUT,
  MEMORY_LIMIT: Verdict.MEMORY_LIMIT,
  RUNTIME_ERROR: Verdict.RUNTIME_ERROR,
  COMPILE_ERROR: Verdict.COMPILE_ERROR,
  INFRA_ERROR: Verdict.INFRA_ERROR,
  INVALID_TASK: Verdict.INVALID_TASK,
};

function brokenResult(id: string, why: string): MineditError {
  return new MineditError(
    ErrorCode.Internal,
    `the scorer returned an invalid result for rollout "${id}": ${why}`,
  );
}

function requireCount(id: string, name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > 0xffffffff) {
    throw brokenResult(id, `${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

/**
 * The wire form of one scorer output. The public contract (reward absent exactly for INFRA_ERROR and
 * INVALID_TASK, non-negative test counts) is checked here rather than trusted, so a scorer bug surfaces
 * as INTERNAL instead of as a silently wrong reward in someone's training run.
 */
function toWireResult(out: RolloutOutput): RolloutResult {
  if (!(VERDICTS as readonly string[]).includes(out.verdict)) {
    throw brokenResult(out.id, `unknown verdict ${String(out.verdict)}`);
  }
  if ((out.reward === null) !== (out.verdict === "INFRA_ERROR" || out.verdict === "INVALID_TASK")) {
    throw brokenResult(out.id, `reward ${out.reward} with verdict ${out.verdict}`);
  }
  if (out.reward !== null && !Number.isFinite(out.reward)) {
    throw brokenResult(out.id, `reward must be finite, got ${out.reward}`);
  }
  const c = out.components;
  return create(RolloutResultSchema, {
    id: out.id,
    ...(out.reward === null ? {} : { reward: out.reward }),
    verdict: WIRE_VERDICT[out.verdict],
    ...(c === null
      ? {}
      : {
          components: {
            dModel: c.dModel,
            dGold: c.dGold,
            excess: c.excess,
            ...(c.addedCc === undefined ? {} : { addedCc: c.addedCc }),
          },
        }),
    testsPassed: requireCount(out.id, "testsPassed", out.testsPassed),
    testsTotal: requireCount(out.id, "testsTotal", out.testsTotal),
    timings: out.timings,
    cached: out.cached,
    detail: out.detail,
    rewardVersion: out.rewardVersion,
    groupId: out.groupId,
    ...(out.lintComponents === undefined ? {} : { lintComponents: wireLintComponents(out) }),
  });
}

/** Lint components on the wire: counts must be uint32, distances finite. */
function wireLintComponents(out: RolloutOutput) {
  const c = out.lintComponents;
  if (c === undefined) return undefined;
  if (!Number.isFinite(c.dEdit) || !Number.isFinite(c.net)) {
    throw brokenResult(out.id, `lint components must be finite, got dEdit ${c.dEdit}, net ${c.net}`);
  }
  return {
    alertsOriginal: requireCount(out.id, "alertsOriginal", c.alertsOriginal),
    alertsFixed: requireCount(out.id, "alertsFixed", c.alertsFixed),
    alertsNew: requireCount(out.id, "alertsNew", c.alertsNew),
    dEdit: c.dEdit,
    net: c.net,
  };
}

// ---------------------------------------------------------------------------------------------------
// Cancellation.

const DEADLINE_SLACK_MS = 5;

type CancellableCall = {
  cancelled: boolean;
  getDeadline(): Date | number;
  on(event: "cancelled", listener: () => void): unknown;
  off(event: "cancelled", listener: () => void): unknown;
};

/**
 * An AbortController aborted when the call is cancelled or its deadline passes. grpc-js reports both as
 * "cancelled" (and also after it sent the final status, when there is nothing left to stop); the reason
 * tells the scorer which one it was. `dispose` detaches from the call.
 */
function abortOnCancel(call: CancellableCall): {
  signal: AbortSignal;
  /** The call's deadline in epoch ms, or undefined when it has none (handed to the scorer). */
  deadlineMs: number | undefined;
  abort(reason: unknown): void;
  dispose(): void;
} {
  const controller = new AbortController();
  const onCancelled = (): void => {
    const deadline = call.getDeadline();
    const deadlineMs = deadline instanceof Date ? deadline.getTime() : deadline;
    controller.abort(
      // Slack: grpc-js's deadline timer may fire a millisecond before Date.now() reaches the deadline.
      Number.isFinite(deadlineMs) && Date.now() >= deadlineMs - DEADLINE_SLACK_MS
        ? new MineditError(ErrorCode.DeadlineExceeded, "the call's deadline passed")
        : new MineditError(ErrorCode.Cancelled, "the client cancelled the call"),
    );
  };
  call.on("cancelled", onCancelled);
  if (call.cancelled) onCancelled();
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : deadline;
  return {
    signal: controller.signal,
    deadlineMs: Number.isFinite(deadlineMs) ? deadlineMs : undefined,
    abort: (reason) => controller.abort(reason),
    dispose: () => call.off("cancelled", onCancelled),
  };
}

// ---------------------------------------------------------------------------------------------------
// Handlers.

/** Builds the RewardService handlers around a scorer. */
export function rewardServiceHandlers(options: RewardServiceOptions): RewardServiceHandlers {
  const { scorer, maxBatchRollouts, onInternalError } = options;

  /** The status for `error`, logging it when it is a bug. */
  function statusFor(error: unknown, method: string) {
    const status = toGrpcStatus(error);
    if (status.internalRef !== undefined) onInternalError(error, { method, ref: status.internalRef });
    return status;
  }

  async function scoreBatch(
    call: ServerUnaryCall<Decoded<ScoreBatchRequest>, ScoreBatchResponse>,
    callback: sendUnaryData<ScoreBatchResponse>,
  ): Promise<void> {
    const abort = abortOnCancel(call);
    try {
      const request = requireDecoded(call.request, "minedit.v1.ScoreBatchRequest");
      checkBatchSize(request.rollouts.length, maxBatchRollouts, "the batch");
      const inputs = parseRollouts(request.rollouts, new Set());
      const override = parseOverride(request.rewardOverride);

      const wanted = new Set(inputs.map((input) => input.id));
      const results = new Map<string, RolloutResult>();
      if (inputs.length > 0) {
        for await (const out of scorer.score(inputs, override, abort.signal, abort.deadlineMs)) {
          if (abort.signal.aborted) return;
          if (!wanted.has(out.id) || results.has(out.id)) {
            throw brokenResult(out.id, "unexpected or repeated id");
          }
          results.set(out.id, toWireResult(out));
        }
      }
      // The client is gone (cancelled or past its deadline): grpc-js already sent the status.
      if (abort.signal.aborted) return;
      const ordered = inputs.map((input) => {
        const result = results.get(input.id);
        if (result === undefined) throw brokenResult(input.id, "the scorer finished without a result for it");
        return result;
      });
      callback(null, create(ScoreBatchResponseSchema, { results: ordered }));
    } catch (error) {
      if (abort.signal.aborted) return;
      // Stop whatever the scorer may still be running for this call.
      abort.abort(error);
      callback(statusFor(error, "ScoreBatch"));
    } finally {
      abort.dispose();
    }
  }

  function scoreStream(call: ServerDuplexStream<Decoded<ScoreStreamRequest>, ScoreStreamResponse>): void {
    const abort = abortOnCancel(call);
    const busyIds = new Set<string>();
    let messageIndex = 0;
    let halfClosed = false;
    let finished = false;

    /** Ends the call with an error status once; aborts the call's remaining work. */
    const fail = (error: unknown): void => {
      if (finished || abort.signal.aborted) return;
      finished = true;
      abort.abort(error);
      call.emit("error", statusFor(error, "ScoreStream"));
    };
    const maybeEnd = (): void => {
      if (finished || !halfClosed || busyIds.size > 0) return;
      finished = true;
      abort.dispose();
      call.end();
    };

    const run = async (inputs: RolloutInput[], override: ConfigRewardOverride | undefined): Promise<void> => {
      const remaining = new Set(inputs.map((input) => input.id));
      try {
        for await (const out of scorer.score(inputs, override, abort.signal, abort.deadlineMs)) {
          if (finished || abort.signal.aborted) return;
          if (!remaining.delete(out.id)) throw brokenResult(out.id, "unexpected or repeated id");
          busyIds.delete(out.id);
          call.write(create(ScoreStreamResponseSchema, { result: toWireResult(out) }));
          if (call.isPaused() && busyIds.size < maxBatchRollouts) call.resume();
        }
        if (finished || abort.signal.aborted) return;
        const [missing] = remaining;
        if (missing !== undefined) throw brokenResult(missing, "the scorer finished without a result for it");
        maybeEnd();
      } catch (error) {
        fail(error);
      }
    };

    call.on("data", (decoded: Decoded<ScoreStreamRequest>) => {
      const index = messageIndex++;
      if (finished || abort.signal.aborted) return;
      try {
        const request = requireDecoded(decoded, "minedit.v1.ScoreStreamRequest");
        checkBatchSize(request.rollouts.length, maxBatchRollouts, `stream message ${index}`);
        const inputs = parseRollouts(request.rollouts, busyIds);
        const override = parseOverride(request.rewardOverride);
        if (inputs.length === 0) return;
        for (const input of inputs) busyIds.add(input.id);
        // Backpressure: stop reading (and so let HTTP/2 flow control slow the client) while the stream
        // has a full batch in flight.
        if (busyIds.size >= maxBatchRollouts) call.pause();
        void run(inputs, override);
      } catch (error) {
        fail(withStreamMessage(error, index));
      }
    });
    call.on("end", () => {
      halfClosed = true;
      maybeEnd();
    });
  }

  return { scoreBatch, scoreStream };
}

/** Prefixes a request error with the stream message it came from (`stream message 2: rollouts[0]...`). */
function withStreamMessage(error: unknown, index: number): unknown {
  if (!(error instanceof MineditError) || error.code !== ErrorCode.InvalidArgument) return error;
  return new MineditError(
    error.code,
    `stream message ${index}: ${error.rawMessage}`,
    error.field === undefined ? undefined : { field: error.field },
  );
}
