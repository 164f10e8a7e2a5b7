/**
 * OpenRLHF's remote reward-model protocol over HTTP/JSON, on a port of its own, so OpenRLHF trains on
 * minedit rewards with `--remote_rm_url http://HOST:PORT/get_reward --label_key label` (the task id column
 * of the rows `minedit export --kind grpo --format openrlhf` writes) and no Python glue. It scores through
 * the same {@link RolloutScorer} as the gRPC service.
 *
 * `POST /get_reward` with `{"query": [...], "prompts": [...], "labels": [...]}`:
 * - `query[i]` is prompt + response as OpenRLHF decoded it; the response is the text after the first
 *   occurrence of `prompts[i]` in it (the decoded query may start with a BOS token the prompt lacks);
 * - `labels[i]` is the minedit task id (a string or an integer), the dataset column named by `--label_key`.
 *
 * Answer: `{"rewards": [...], "scores": [...], "extra_logs": {...}, "verdicts": [...]}` in request order.
 * `rewards` are the minedit rewards; `scores` (OpenRLHF's 0..1 signal for dynamic filtering) are 1 for
 * PASSED and 0 otherwise; `extra_logs` holds per-sample numeric lists OpenRLHF averages into its logs:
 * `passed`, `infra_error`, `excess`, `d_model`, `d_gold` (0 when not computed), `tests_passed`,
 * `tests_total`. `verdicts` names each sample's verdict, for humans.
 *
 * Infrastructure errors: OpenRLHF needs a number for every sample, so an INFRA_ERROR sample's reward
 * (and score) is the mean of the scored samples with the same label in the request — the same GRPO
 * group, whose group-normalized advantage for it is then zero, i.e. it is effectively masked — or 0 when
 * the request holds no scored sample of that task. Its `extra_logs.infra_error` is 1.
 *
 * Errors are JSON `{"error": {"code", "message", "field"?}}`: 400 for a malformed request or an unknown
 * task id (the field names the offending entry, e.g. `labels[3]`), 413 for a body over
 * `server.maxReceiveMessageBytes` or more samples than `server.maxBatchRollouts`, 401 without the
 * server's token (when one is configured: `Authorization: Bearer <token>`, or `?token=<token>` in the URL
 * because OpenRLHF sends no headers of its own), 404 / 405 for another path / method, 500 for a bug
 * (with a reference; the details go to the server log). Served over TLS when the gRPC server is.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import type { ServerConfig } from "../config.js";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { RolloutInput, RolloutOutput, RolloutScorer } from "../scoring/rollout.js";
import { readPem } from "./server.js";

export type OpenRlhfServerOptions = {
  /** The `server` section: host, `openrlhfPort` (required here), TLS, token and the size limits. */
  config: ServerConfig & { openrlhfPort: number };
  scorer: RolloutScorer;
  /** Receives every unexpected error; the client only saw a 500 with `ref`. Default: one stderr line. */
  onInternalError?: (error: unknown, ref: string) => void;
};

export type RunningHttpServer = {
  /** The bound port (the OS's pick when the config asked for port 0). */
  port: number;
  /** Stops accepting requests, aborts the scoring of requests still in flight and closes. Idempotent. */
  close(): Promise<void>;
};

/** The request path of OpenRLHF's remote reward model. */
export const OPENRLHF_PATH = "/get_reward";

const Label = z.union([z.string().min(1), z.number().int()], {
  error: "expected a task id (a non-empty string or an integer)",
});
const RequestSchema = z.object({
  query: z.array(z.string({ error: "expected a string" }), { error: "required: a list of strings" }),
  prompts: z.array(z.string({ error: "expected a string" }), { error: "required: a list of strings" }),
  labels: z.array(Label, { error: "required: a list of task ids" }),
});

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

function invalid(field: string, message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, `${field}: ${message}`, { field });
}

type Sample = { completion: string; taskId: string };

/** Validates a parsed body and splits each query into its response. */
export function parseRewardRequest(body: unknown, maxSamples: number): Sample[] {
  const parsed = RequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = (issue?.path ?? [])
      .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
      .join("");
    throw invalid(field === "" ? "(body)" : field, issue?.message ?? "invalid request");
  }
  const { query, prompts, labels } = parsed.data;
  if (prompts.length !== query.length) {
    throw invalid("prompts", `${prompts.length} prompts for ${query.length} queries: one prompt per query`);
  }
  if (labels.length !== query.length) {
    throw invalid("labels", `${labels.length} labels for ${query.length} queries: one task id per query`);
  }
  if (query.length > maxSamples) {
    throw new MineditError(
      ErrorCode.ResourceExhausted,
      `the request has ${query.length} samples, more than the server's limit of ${maxSamples} (server.maxBatchRollouts); split it`,
      { field: "query" },
    );
  }
  return query.map((text, i) => {
    const prompt = prompts[i] as string;
    const at = text.indexOf(prompt);
    if (at < 0)
      throw invalid(`query[${i}]`, `does not contain prompts[${i}]: cannot tell the response apart`);
    return { completion: text.slice(at + prompt.length), taskId: String(labels[i]) };
  });
}

/** The OpenRLHF answer for the scorer's outputs, in request order (see the module doc). */
export function rewardResponse(samples: readonly Sample[], outputs: readonly RolloutOutput[]) {
  const scoredSum = new Map<string, { reward: number; passed: number; count: number }>();
  outputs.forEach((output, i) => {
    if (output.reward === null) return;
    const key = (samples[i] as Sample).taskId;
    const sum = scoredSum.get(key) ?? { reward: 0, passed: 0, count: 0 };
    sum.reward += output.reward;
    sum.passed += output.verdict === "PASSED" ? 1 : 0;
    sum.count += 1;
    scoredSum.set(key, sum);
  });
  const rewards: number[] = [];
  const scores: number[] = [];
  outputs.forEach((output, i) => {
    if (output.reward !== null) {
      rewards.push(output.reward);
      scores.push(output.verdict === "PASSED" ? 1 : 0);
      return;
    }
    const sum = scoredSum.get((samples[i] as Sample).taskId);
    rewards.push(sum === undefined ? 0 : sum.reward / sum.count);
    scores.push(sum === undefined ? 0 : sum.passed / sum.count);
  });
  const column = (f: (o: RolloutOutput) => number) => outputs.map(f);
  return {
    rewards,
    scores,
    extra_logs: {
      passed: column((o) => (o.verdict === "PASSED" ? 1 : 0)),
      infra_error: column((o) => (o.verdict === "INFRA_ERROR" ? 1 : 0)),
      excess: column((o) => o.components?.excess ?? 0),
      d_model: column((o) => o.components?.dModel ?? 0),
      d_gold: column((o) => o.components?.dGold ?? 0),
      tests_passed: column((o) => o.testsPassed),
      tests_total: column((o) => o.testsTotal),
    },
    verdicts: outputs.map((o) => o.verdict),
  };
}

/** The scorer's NotFound names `rollouts[i].task_id`; on this endpoint the task id came from `labels[i]`. */
function inRequestTerms(error: unknown): unknown {
  if (!isMineditError(error) || error.field === undefined) return error;
  const match = /^rollouts\[(\d+)\]\.task_id$/.exec(error.field);
  if (match === null) return error;
  const field = `labels[${match[1]}]`;
  return new MineditError(error.code, error.rawMessage.replace(error.field, field), { field });
}

async function score(
  scorer: RolloutScorer,
  samples: Sample[],
  signal: AbortSignal,
): Promise<RolloutOutput[]> {
  const inputs: RolloutInput[] = samples.map((s, i) => ({
    id: String(i),
    completion: s.completion,
    task: { kind: "stored", taskId: s.taskId },
    groupId: s.taskId,
  }));
  const byId = new Map<string, RolloutOutput>();
  for await (const output of scorer.score(inputs, undefined, signal)) byId.set(output.id, output);
  // An aborted scorer may still answer (its cancelled sandboxes as INFRA_ERROR): nobody is listening.
  if (signal.aborted) throw signal.reason;
  return inputs.map((input) => {
    const output = byId.get(input.id);
    if (output === undefined) throw new Error(`the scorer returned no result for sample ${input.id}`);
    return output;
  });
}

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

function sendError(res: ServerResponse, status: number, code: string, message: string, field?: string): void {
  send(res, status, { error: { code, message, ...(field === undefined ? {} : { field }) } });
}

/**
 * Starts the endpoint on `config.host:config.openrlhfPort` and resolves once it listens.
 *
 * @throws MineditError `InvalidArgument` when a TLS file cannot be read, `Unavailable` when the address
 *   cannot be bound.
 */
export async function startOpenRlhfServer(options: OpenRlhfServerOptions): Promise<RunningHttpServer> {
  const { config, scorer } = options;
  const onInternalError =
    options.onInternalError ??
    ((error: unknown, ref: string) => {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`minedit openrlhf endpoint: internal error (ref ${ref}): ${text}\n`);
    });
  const expected = config.authToken === undefined ? undefined : sha256(config.authToken);
  const inFlight = new Set<AbortController>();
  let shuttingDown = false;

  // Once closing, every answer ends its connection, so close() does not wait for keep-alive timeouts.
  const closeIfShuttingDown = (): Record<string, string> => (shuttingDown ? { connection: "close" } : {});
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== OPENRLHF_PATH) {
      sendError(res, 404, "not_found", `no such path ${url.pathname}: POST ${OPENRLHF_PATH}`);
      return;
    }
    if (req.method !== "POST") {
      send(
        res,
        405,
        { error: { code: "method_not_allowed", message: `use POST ${OPENRLHF_PATH}` } },
        { allow: "POST" },
      );
      return;
    }
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
    // The caller hanging up (OpenRLHF's request timeout) stops this request's sandboxes.
    const controller = new AbortController();
    inFlight.add(controller);
    res.on("close", () => {
      inFlight.delete(controller);
      if (!res.writableFinished)
        controller.abort(new MineditError(ErrorCode.Cancelled, "the client closed the connection"));
    });
    try {
      const raw = await readBody(req, config.maxReceiveMessageBytes);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch (error) {
        throw invalid("(body)", `not JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      const samples = parseRewardRequest(body, config.maxBatchRollouts);
      const outputs = await score(scorer, samples, controller.signal);
      send(res, 200, rewardResponse(samples, outputs), closeIfShuttingDown());
    } catch (caught) {
      if (shuttingDown) res.setHeader("connection", "close");
      const error = inRequestTerms(caught);
      if (isMineditError(error)) {
        const status = HTTP_STATUS[error.code];
        if (status === 413) res.setHeader("connection", "close");
        sendError(res, status, error.code, error.rawMessage, error.field);
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
    server.listen(config.openrlhfPort, config.host, () => resolve((server.address() as AddressInfo).port));
  });

  let closing: Promise<void> | undefined;
  return {
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        shuttingDown = true;
        server.close(() => resolve());
        for (const controller of inFlight)
          controller.abort(new MineditError(ErrorCode.Cancelled, "the server is shutting down"));
        // Every request has been answered once its handler settles; a socket still open then is idle or
        // one whose client vanished, and would hold close() until a keep-alive timeout.
        void Promise.allSettled([...handlers]).then(() => server.closeAllConnections());
      });
      return closing;
    },
  };
}
