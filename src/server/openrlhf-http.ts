/**
 * OpenRLHF's remote reward-model protocol over HTTP/JSON, on a port of its own, so OpenRLHF trains on
 * minedit rewards with `--reward.remote_url http://HOST:PORT/get_reward --data.label_key label`
 * (OpenRLHF ≥ 0.10.2; `--remote_rm_url`, `--label_key` before) — the label being the task id column of the
 * rows `minedit export --kind grpo --format openrlhf` writes — and no Python glue. It scores through the
 * same {@link RolloutScorer} as the gRPC service.
 *
 * `POST /get_reward` with `{"query": [...], "prompts": [...], "labels": [...]}`:
 * - `query[i]` is prompt + response as OpenRLHF decoded it (special tokens kept, so the response ends in
 *   the chat template's end of turn, which the scorer strips: `reward.endOfTurnMarkers`); the response is
 *   found by {@link splitQuery}, which never refuses a sample (OpenRLHF may left-truncate the prompt);
 * - `labels[i]` is the minedit task id (a string or an integer), the dataset column named by
 *   `--data.label_key` / `--label_key` (OpenRLHF sends `""` without that flag, which is a 400 saying so),
 *   or an inline task: an object, or a JSON object in a string, with a task file row's fields
 *   (`corrupted`, `gold`, `tests`, `entry_point`, optional `runtime`).
 *
 * OpenRLHF ≥ 0.9.1 sends ONE sample per request, as each sample leaves vLLM — up to rollout batch size ×
 * samples per prompt requests at once; 0.9.0 sent the whole batch in one. Requests arriving within
 * `server.openrlhfCoalesceMs` of each other (up to `server.openrlhfCoalesceMaxRollouts` rollouts) are
 * scored in one scorer call, so identical samples of a GRPO group execute once; each request is answered
 * as soon as its own samples are done. A client that hangs up abandons only its own request: the shared
 * call is cancelled once no request waits for it.
 *
 * Answer: `{"rewards": [...], "scores": [...], "extra_logs": {...}, "verdicts": [...]}` in request order.
 * `rewards` are the minedit rewards; `scores` (OpenRLHF's 0..1 signal for dynamic filtering) are 1 for
 * PASSED and 0 otherwise; `extra_logs` holds per-sample numeric lists with the same keys for every request
 * (OpenRLHF stacks them per key and logs `train/<key>`): `passed`, `infra_error`, `prompt_fallback` (1 when
 * the prompt was not found verbatim), `excess`, `d_model`, `d_gold` (0 when not computed),
 * `tests_passed`, `tests_total`. `verdicts` names each sample's verdict, for humans.
 *
 * Infrastructure errors (after the scorer's own retry on a fresh sandbox): OpenRLHF needs a number for
 * every sample and has no per-sample mask. An INFRA_ERROR sample of a request that also holds scored
 * samples of the same task (OpenRLHF 0.9.0's batched request: the GRPO group) takes their mean reward and
 * pass rate, so its group-normalized advantage is zero — it is masked. Otherwise (every OpenRLHF ≥ 0.9.1
 * sample) it gets `server.openrlhfInfraErrorReward`, by default `reward.failureReward`: never more than a
 * failure, which would reward whatever makes the sandbox fail. Either way `extra_logs.infra_error` is 1,
 * and each scored batch with infrastructure errors is logged with the running count.
 *
 * Every request is answered within `server.openrlhfRequestBudgetMs` (150 s) of its arrival, because
 * OpenRLHF's fixed 180 s timeout and five blind retries end in a missing reward that crashes training: a
 * full server (`server.maxQueuedRollouts`) is waited for instead of answering 429, and a sample not
 * scored by the deadline is an INFRA_ERROR as above (logged, counted in `stats().overBudget`).
 *
 * Errors are JSON `{"error": {"code", "message", "field"?}}`: 400 for a malformed request, an empty label
 * or an unknown task id (the field names the offending entry, e.g. `labels[3]`), 413 for a body over
 * `server.maxReceiveMessageBytes` or more samples than `server.maxBatchRollouts`, 401 without the
 * server's token (when one is configured: `Authorization: Bearer <token>`, or `?token=<token>` in the URL
 * because OpenRLHF sends no headers of its own), 404 / 405 for another path / method, 503 while shutting
 * down, 500 for a bug (with a reference; the details go to the server log). OpenRLHF never shows an
 * answer's body (it retries 5 times, then trains on a missing reward and fails later), so every 4xx is
 * also logged. Served over TLS when the gRPC server is.
 *
 * The same port answers slime's built-in remote reward model at `POST /slime/reward` (one sample per
 * request, `{prompt, response, label}` → a bare reward, or an object with `?format=object`;
 * slime-protocol.ts), through the same coalescing window and budget (capped at 100 s: slime's 120 s).
 *
 * The protocol (request checks, the prompt split, the answer) is openrlhf-protocol.ts; the window that
 * scores concurrent requests together is openrlhf-coalescer.ts; this file is the HTTP server around them.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { RewardConfigSchema, type ServerConfig } from "../config.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { RolloutOutput, RolloutScorer } from "../scoring/rollout.js";
import { Coalescer } from "./openrlhf-coalescer.js";
import { invalid, parseRewardRequest, rewardResponse, type Sample } from "./openrlhf-protocol.js";
import { readPem } from "./pem.js";
import { parseSlimeRequest, SLIME_PATH, slimeBudgetMs, slimeResponse } from "./slime-protocol.js";

export type OpenRlhfServerOptions = {
  /** The `server` section: host, `openrlhfPort` (required here), TLS, token, limits and coalescing. */
  config: ServerConfig & { openrlhfPort: number };
  scorer: RolloutScorer;
  /** `reward.failureReward`: the INFRA_ERROR reward unless `server.openrlhfInfraErrorReward` is set.
   *  Default: that field's default (−0.2). */
  failureReward?: number;
  /** Receives every unexpected error; the client only saw a 500 with `ref`. Default: one stderr line. */
  onInternalError?: (error: unknown, ref: string) => void;
  /** Receives the endpoint's log lines (every 4xx answer; per scored batch, its INFRA_ERRORs and prompt
   *  fallbacks), without a newline. Default: stderr. */
  log?: (line: string) => void;
  /** Called when each answer has been sent, with its HTTP status and the request's wall time (metrics). */
  onResponse?: (status: number, seconds: number) => void;
};

/** Counters since the endpoint started, for operators, tests and benchmarks. */
export type OpenRlhfStats = {
  /** `POST /get_reward` requests received, whatever their outcome. */
  requests: number;
  /** Samples answered with a reward. */
  samples: number;
  /** {@link RolloutScorer.score} calls: with coalescing, far fewer than requests. */
  scorerCalls: number;
  /** Samples whose verdict was INFRA_ERROR. */
  infraErrors: number;
  /** Samples whose prompt was not found verbatim in the query, by the {@link splitQuery} rule used. */
  promptFallbacks: { truncated: number; lastLine: number; wholeQuery: number };
  /** Requests answered with a 4xx status. */
  clientErrors: number;
  /** Requests whose client hung up before their answer. */
  abandoned: number;
  /** Samples answered as INFRA_ERROR because they were not scored within `server.openrlhfRequestBudgetMs`
   *  (also counted in `infraErrors`). */
  overBudget: number;
  /** Times a request found the server full (`server.maxQueuedRollouts`) and waited inside its budget
   *  instead of being refused. */
  overloadWaits: number;
};

export type RunningHttpServer = {
  /** The bound port (the OS's pick when the config asked for port 0). */
  port: number;
  /** A copy of the counters now. */
  stats(): OpenRlhfStats;
  /** Stops accepting requests, aborts the scoring of requests still in flight and closes. Idempotent. */
  close(): Promise<void>;
};

/** The request path of OpenRLHF's remote reward model. */
export const OPENRLHF_PATH = "/get_reward";

/** Connections waiting to be accepted, at most (see the listen call for why so many). */
const ACCEPT_BACKLOG = 4096;

/** HTTP status of every {@link ErrorCode}: the one place errors become HTTP statuses for this endpoint. */
const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  [ErrorCode.InvalidArgument]: 400,
  [ErrorCode.NotFound]: 400,
  [ErrorCode.FailedPrecondition]: 400,
  [ErrorCode.ResourceExhausted]: 413,
  [ErrorCode.DeadlineExceeded]: 504,
  [ErrorCode.Cancelled]: 499,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.Internal]: 500,
};

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** The token of a request: `Authorization: Bearer <token>`, else the `token` URL parameter. */
function givenToken(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) return /^Bearer +(\S+) *$/i.exec(header)?.[1];
  return url.searchParams.get("token") ?? undefined;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(
          new MineditError(
            ErrorCode.ResourceExhausted,
            `request body over ${limit} bytes (server.maxReceiveMessageBytes); split the batch`,
          ),
        );
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What a sample not scored within the request budget is answered with: an INFRA_ERROR, as a sandbox
 *  fault is (the reward of neither the program nor the task, so it must never be more than a failure). */
function overBudget(samples: readonly Sample[], budgetMs: number): RolloutOutput[] {
  return samples.map((sample, i) => ({
    id: String(i),
    groupId: sample.groupKey,
    verdict: "INFRA_ERROR",
    reward: null,
    components: null,
    testsPassed: 0,
    testsTotal: 0,
    timings: { queueMs: budgetMs, metricsMs: 0, executionMs: 0, totalMs: budgetMs },
    cached: false,
    detail: `not scored within the request budget (server.openrlhfRequestBudgetMs = ${budgetMs} ms)`,
    rewardVersion: "",
  }));
}

/**
 * Starts the endpoint on `config.host:config.openrlhfPort` and resolves once it listens.
 *
 * @throws MineditError `InvalidArgument` when a TLS file cannot be read, `Unavailable` when the address
 *   cannot be bound.
 */
export async function startOpenRlhfServer(options: OpenRlhfServerOptions): Promise<RunningHttpServer> {
  const { config, scorer } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const onInternalError =
    options.onInternalError ??
    ((error: unknown, ref: string) => {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`minedit openrlhf endpoint: internal error (ref ${ref}): ${text}`);
    });
  const infraErrorReward =
    config.openrlhfInfraErrorReward ??
    options.failureReward ??
    RewardConfigSchema.shape.failureReward.parse(undefined);
  const expected = config.authToken === undefined ? undefined : sha256(config.authToken);
  const stats: OpenRlhfStats = {
    requests: 0,
    samples: 0,
    scorerCalls: 0,
    infraErrors: 0,
    promptFallbacks: { truncated: 0, lastLine: 0, wholeQuery: 0 },
    clientErrors: 0,
    abandoned: 0,
    overBudget: 0,
    overloadWaits: 0,
  };
  const coalescer = new Coalescer(
    scorer,
    config.openrlhfCoalesceMs,
    config.openrlhfCoalesceMaxRollouts,
    (report) => {
      const infra = report.outputs.filter((o) => o.verdict === "INFRA_ERROR").length;
      const fallbacks = { truncated: 0, lastLine: 0, wholeQuery: 0 };
      for (const { split } of report.samples) {
        if (split === "truncated") fallbacks.truncated += 1;
        else if (split === "last_line") fallbacks.lastLine += 1;
        else if (split === "whole_query") fallbacks.wholeQuery += 1;
      }
      const fallbackCount = fallbacks.truncated + fallbacks.lastLine + fallbacks.wholeQuery;
      stats.infraErrors += infra;
      stats.promptFallbacks.truncated += fallbacks.truncated;
      stats.promptFallbacks.lastLine += fallbacks.lastLine;
      stats.promptFallbacks.wholeQuery += fallbacks.wholeQuery;
      const parts: string[] = [];
      if (infra > 0) {
        parts.push(
          `${infra} INFRA_ERROR (sandbox fault after retries; reward ${infraErrorReward} unless a scored sample ` +
            `of the task in the same request stands in, extra_logs.infra_error = 1; ${stats.infraErrors} since start)`,
        );
      }
      if (fallbackCount > 0) {
        const total = stats.promptFallbacks;
        parts.push(
          `${plural(fallbackCount, "prompt")} not found verbatim in the query (${fallbacks.truncated} left-truncated, ` +
            `${fallbacks.lastLine} split at the prompt's last line, ${fallbacks.wholeQuery} scored whole; ` +
            `${total.truncated + total.lastLine + total.wholeQuery} since start)`,
        );
      }
      if (parts.length > 0) {
        log(
          `minedit openrlhf endpoint: of ${plural(report.samples.length, "sample")} in ${plural(report.requests, "request")}: ${parts.join("; ")}`,
        );
      }
    },
  );
  const inFlight = new Set<AbortController>();
  let shuttingDown = false;
  const budgetMs = config.openrlhfRequestBudgetMs;

  /**
   * The outputs of a request's samples, answered by `deadline` (epoch ms) whatever happens: a server
   * that is full (the admission's retry hint) is waited for rather than refused, since OpenRLHF ignores
   * Retry-After and counts a 429 as one of its five tries; samples still unscored at the deadline are
   * INFRA_ERRORs. Rejects only with the request's own abort (client gone, shutdown) or a real error.
   */
  const scoreWithinBudget = async (
    samples: readonly Sample[],
    signal: AbortSignal,
    deadline: number,
    requestBudgetMs: number,
  ): Promise<RolloutOutput[]> => {
    let full = false;
    for (let remaining = deadline - Date.now(); remaining > 0; remaining = deadline - Date.now()) {
      const budget = AbortSignal.timeout(remaining);
      try {
        return await coalescer.score(samples, AbortSignal.any([signal, budget]));
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const retryMs = isMineditError(error) ? error.retryAfterMs : undefined;
        if (retryMs === undefined && !budget.aborted) throw error;
        full = retryMs !== undefined;
        if (retryMs === undefined || Date.now() + retryMs >= deadline) break;
        stats.overloadWaits += 1;
        await sleep(retryMs, undefined, { signal }).catch(() => {});
      }
    }
    if (signal.aborted) throw signal.reason;
    stats.overBudget += samples.length;
    stats.infraErrors += samples.length;
    log(
      `minedit openrlhf endpoint: ${plural(samples.length, "sample")} not scored within the request budget ` +
        `(server.openrlhfRequestBudgetMs = ${requestBudgetMs} ms${full ? ", the server stayed full" : ""}): ` +
        `answered INFRA_ERROR (reward ${infraErrorReward}); size the server for the load (docs/trainers.md#openrlhf); ` +
        `${stats.overBudget} since start`,
    );
    return overBudget(samples, requestBudgetMs);
  };

  const sendError = (
    res: ServerResponse,
    status: number,
    code: string,
    message: string,
    field?: string,
    headers: Record<string, string> = {},
  ): void => {
    if (status >= 400 && status < 500) {
      stats.clientErrors += 1;
      // OpenRLHF only logs "Request error" and retries: the reason is visible here or nowhere.
      log(`minedit openrlhf endpoint: answered ${status} ${code}: ${message}`);
    }
    send(res, status, { error: { code, message, ...(field === undefined ? {} : { field }) } }, headers);
  };

  // Once closing, every answer ends its connection, so close() does not wait for keep-alive timeouts.
  const closeIfShuttingDown = (): Record<string, string> => (shuttingDown ? { connection: "close" } : {});
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const slime = url.pathname === SLIME_PATH;
    if (url.pathname !== OPENRLHF_PATH && !slime) {
      sendError(
        res,
        404,
        "not_found",
        `no such path ${url.pathname}: POST ${OPENRLHF_PATH} (OpenRLHF) or ${SLIME_PATH} (slime's remote_rm)`,
      );
      return;
    }
    if (req.method !== "POST") {
      sendError(res, 405, "method_not_allowed", `use POST ${url.pathname}`, undefined, { allow: "POST" });
      return;
    }
    stats.requests += 1;
    if (expected !== undefined) {
      const given = givenToken(req, url);
      if (given === undefined || !timingSafeEqual(sha256(given), expected)) {
        const message =
          given === undefined
            ? "missing token: send `Authorization: Bearer <token>` or ?token=<token>"
            : "invalid token";
        sendError(res, 401, "unauthenticated", message);
        return;
      }
    }
    // The caller hanging up (OpenRLHF's 180 s request timeout) abandons this request; the scoring it
    // shares with other requests goes on for them.
    // slime gives each attempt 120 s: its budget is capped below that, and it always has one.
    const requestBudgetMs = slime ? slimeBudgetMs(budgetMs) : budgetMs;
    const deadline = Date.now() + requestBudgetMs;
    const controller = new AbortController();
    inFlight.add(controller);
    let hungUp = false;
    res.on("close", () => {
      inFlight.delete(controller);
      if (!res.writableFinished) {
        hungUp = true;
        controller.abort(new MineditError(ErrorCode.Cancelled, "the client closed the connection"));
      }
    });
    try {
      const raw = await readBody(req, config.maxReceiveMessageBytes);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch (error) {
        throw invalid("(body)", `not JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      const samples = slime ? [parseSlimeRequest(body)] : parseRewardRequest(body, config.maxBatchRollouts);
      const outputs =
        requestBudgetMs === 0
          ? await coalescer.score(samples, controller.signal)
          : await scoreWithinBudget(samples, controller.signal, deadline, requestBudgetMs);
      stats.samples += samples.length;
      const answer = slime
        ? slimeResponse(
            samples[0] as Sample,
            outputs[0] as RolloutOutput,
            infraErrorReward,
            url.searchParams.get("format") === "object",
          )
        : rewardResponse(samples, outputs, infraErrorReward);
      send(res, 200, answer, closeIfShuttingDown());
    } catch (error) {
      if (hungUp) {
        stats.abandoned += 1;
        return;
      }
      if (shuttingDown) res.setHeader("connection", "close");
      if (isMineditError(error)) {
        // An overloaded server (src/server/admission.ts) asks for a retry: 429 with the usual headers.
        const retryMs = error.retryAfterMs;
        const status = retryMs === undefined ? HTTP_STATUS[error.code] : 429;
        const retry =
          retryMs === undefined
            ? {}
            : { "retry-after": String(Math.ceil(retryMs / 1000)), "retry-after-ms": String(retryMs) };
        if (status === 413) res.setHeader("connection", "close");
        sendError(res, status, error.code, error.rawMessage, error.field, retry);
        if (status === 413) res.on("finish", () => req.destroy());
        return;
      }
      const ref = randomUUID().slice(0, 8);
      onInternalError(error, ref);
      sendError(res, 500, ErrorCode.Internal, `internal error (ref ${ref}); the server logged the details`);
    }
  };

  const handlers = new Set<Promise<void>>();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const { onResponse } = options;
    if (onResponse !== undefined) {
      res.on("finish", () => onResponse(res.statusCode, (performance.now() - started) / 1000));
    }
    const handled = handle(req, res);
    handlers.add(handled);
    void handled.finally(() => handlers.delete(handled));
  };
  let server: ReturnType<typeof createHttpServer>;
  if (config.tls === undefined) {
    server = createHttpServer(listener);
  } else {
    const [cert, key] = await Promise.all([
      readPem(config.tls.certFile, "server.tls.certFile"),
      readPem(config.tls.keyFile, "server.tls.keyFile"),
    ]);
    server = createHttpsServer({ cert, key }, listener);
  }

  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", (error) => {
      reject(
        new MineditError(
          ErrorCode.Unavailable,
          `cannot listen on ${config.host}:${config.openrlhfPort} (server.openrlhfPort): ${error.message}`,
        ),
      );
    });
    // OpenRLHF sends every sample of a step as a request of its own, all at once (openrlhf/utils/agent.py
    // at v0.11.0, 3c3be623: SingleTurnAgentExecutor._fetch_rewards_via_http, which
    // clients/python/tests/test_contract_openrlhf.py mirrors): the accept queue must hold a step's burst
    // while the event loop is busy (the kernel caps it at net.core.somaxconn, 4,096 by default). Node's
    // default of 511 let 62 of that test's 4,096 requests be reset on a loaded machine; 16 resets 1,194.
    server.listen({ port: config.openrlhfPort, host: config.host, backlog: ACCEPT_BACKLOG }, () =>
      resolve((server.address() as AddressInfo).port),
    );
  });

  let closing: Promise<void> | undefined;
  return {
    port,
    stats: () => ({
      ...stats,
      scorerCalls: coalescer.calls,
      promptFallbacks: { ...stats.promptFallbacks },
    }),
    close() {
      closing ??= new Promise<void>((resolve) => {
        shuttingDown = true;
        server.close(() => resolve());
        coalescer.close();
        for (const controller of inFlight)
          controller.abort(new MineditError(ErrorCode.Unavailable, "the server is shutting down"));
        // Every request has been answered once its handler settles; a socket still open then is idle or
        // one whose client vanished, and would hold close() until a keep-alive timeout.
        void Promise.allSettled([...handlers]).then(() => server.closeAllConnections());
      });
      return closing;
    },
  };
}
