/**
 * A protocol-faithful OpenAI-compatible HTTP server for the eval tests, on 127.0.0.1:0: `POST
 * /v1/chat/completions` and `POST /v1/completions` with the OpenAI request and response shapes (choices
 * with `index`, `message` / `text`, `finish_reason`; `usage`; `n`; `max_tokens` cutting the text with
 * `finish_reason: "length"`; `reasoning_content` beside the content), `GET /v1/models`, OpenAI's error
 * bodies (`{"error": {"message", "type", "code"}}`), 401 for a wrong key, 404 for an unknown model. Faults
 * are scripted per request: 429 with `Retry-After`, 500, a slow response, or no response at all (the
 * request is held until the client gives up, so nothing was "generated").
 *
 * It counts what it *answered*: a completed response is a paid generation; the resume test checks that no
 * prompt is answered twice.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the model sees of one request and which choice it is producing. */
export type ModelInput = {
  api: "chat" | "completions";
  /** The user message (chat) or the prompt (completions). */
  prompt: string;
  system: string | null;
  choice: number;
  body: Record<string, unknown>;
};

export type ModelOutput = { text: string; reasoning?: string; finishReason?: "stop" | "length" };

/** What to do with request number `index` (0-based, counting every request received). */
export type Fault =
  | { kind: "rate-limit"; retryAfter?: string; retryAfterMs?: string }
  | { kind: "error"; status: number }
  | { kind: "slow"; delayMs: number }
  | { kind: "hang" }
  | null;

export type FakeServerOptions = {
  model: (input: ModelInput) => ModelOutput;
  models?: readonly string[];
  /** Required `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  fault?: (index: number, body: Record<string, unknown>) => Fault;
};

export type RecordedRequest = {
  index: number;
  path: string;
  body: Record<string, unknown>;
  receivedAt: number;
  /** What the server did: "answered", a fault's kind, or "aborted" (the client left first). */
  result: string;
};

export type FakeServer = {
  /** The base URL, ending in `/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Completed responses per prompt text. */
  answered: Map<string, number>;
  /** Changes the fault script for later requests. */
  setFault(fault: FakeServerOptions["fault"]): void;
  close(): Promise<void>;
};

/** Whitespace-separated words: the fake tokenizer. */
export function countTokens(text: string): number {
  return text.split(/\s+/).filter((w) => w !== "").length;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function apiError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers = {},
): void {
  send(res, status, { error: { message, type, param: null, code } }, headers);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Cuts `text` to `maxTokens` words (keeping the whitespace between them). */
function cut(text: string, maxTokens: number): string {
  const parts = text.split(/(\s+)/);
  let words = 0;
  let out = "";
  for (const part of parts) {
    if (/^\s+$/.test(part) || part === "") {
      out += part;
      continue;
    }
    if (words === maxTokens) break;
    words += 1;
    out += part;
  }
  return out.trimEnd();
}

export async function startFakeOpenAI(options: FakeServerOptions): Promise<FakeServer> {
  const models = options.models ?? ["fake-model"];
  const requests: RecordedRequest[] = [];
  const answered = new Map<string, number>();
  let fault = options.fault;
  let counter = 0;
  const held = new Set<ServerResponse>();
  const server = createServer(async (req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method === "GET" && path === "/v1/models") {
      send(res, 200, {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "minedit-tests" })),
      });
      return;
    }
    const api = path === "/v1/chat/completions" ? "chat" : path === "/v1/completions" ? "completions" : null;
    if (req.method !== "POST" || api === null) {
      apiError(
        res,
        404,
        `Unknown request URL: ${req.method} ${path}`,
        "invalid_request_error",
        "unknown_url",
      );
      return;
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      apiError(res, 401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      apiError(res, 400, "We could not parse the JSON body of your request.", "invalid_request_error", null);
      return;
    }
    const index = counter++;
    const record: RecordedRequest = { index, path, body, receivedAt: performance.now(), result: "answered" };
    requests.push(record);
    if (typeof body.model !== "string" || !models.includes(body.model)) {
      record.result = "404";
      apiError(
        res,
        404,
        `The model \`${String(body.model)}\` does not exist.`,
        "invalid_request_error",
        "model_not_found",
      );
      return;
    }
    const n = body.n === undefined ? 1 : body.n;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 128) {
      record.result = "400";
      apiError(res, 400, "n must be an integer between 1 and 128", "invalid_request_error", "invalid_value");
      return;
    }
    let prompt: string;
    let system: string | null = null;
    if (api === "chat") {
      const messages = body.messages;
      if (!Array.isArray(messages) || messages.length === 0) {
        record.result = "400";
        apiError(res, 400, "'messages' is a required property", "invalid_request_error", null);
        return;
      }
      const user = [...messages].reverse().find((m) => (m as { role?: unknown }).role === "user") as
        | { content?: unknown }
        | undefined;
      const sys = messages.find((m) => (m as { role?: unknown }).role === "system") as
        | { content?: unknown }
        | undefined;
      prompt = typeof user?.content === "string" ? user.content : "";
      system = typeof sys?.content === "string" ? sys.content : null;
    } else {
      if (typeof body.prompt !== "string") {
        record.result = "400";
        apiError(res, 400, "'prompt' is a required property", "invalid_request_error", null);
        return;
      }
      prompt = body.prompt;
    }
    const action = fault?.(index, body) ?? null;
    if (action?.kind === "rate-limit") {
      record.result = "429";
      const headers: Record<string, string> = {};
      if (action.retryAfter !== undefined) headers["retry-after"] = action.retryAfter;
      if (action.retryAfterMs !== undefined) headers["retry-after-ms"] = action.retryAfterMs;
      apiError(res, 429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", headers);
      return;
    }
    if (action?.kind === "error") {
      record.result = String(action.status);
      apiError(
        res,
        action.status,
        "The server had an error while processing your request.",
        "server_error",
        null,
      );
      return;
    }
    if (action?.kind === "hang") {
      record.result = "hang";
      held.add(res);
      res.on("close", () => held.delete(res));
      return;
    }
    let aborted = false;
    res.on("close", () => {
      if (!res.writableFinished) aborted = true;
    });
    if (action?.kind === "slow") await new Promise((resolve) => setTimeout(resolve, action.delayMs));
    if (aborted) {
      record.result = "aborted";
      return;
    }
    const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : Number.POSITIVE_INFINITY;
    const choices: Record<string, unknown>[] = [];
    let completionTokens = 0;
    for (let choice = 0; choice < n; choice += 1) {
      const out = options.model({ api, prompt, system, choice, body });
      let text = out.text;
      let finish = out.finishReason ?? "stop";
      if (countTokens(text) > maxTokens) {
        text = cut(text, maxTokens);
        finish = "length";
      }
      completionTokens += countTokens(text) + countTokens(out.reasoning ?? "");
      choices.push(
        api === "chat"
          ? {
              index: choice,
              message: {
                role: "assistant",
                content: text,
                ...(out.reasoning === undefined ? {} : { reasoning_content: out.reasoning }),
              },
              finish_reason: finish,
              logprobs: null,
            }
          : { index: choice, text, finish_reason: finish, logprobs: null },
      );
    }
    const promptTokens = countTokens(prompt) + countTokens(system ?? "");
    answered.set(prompt, (answered.get(prompt) ?? 0) + 1);
    send(res, 200, {
      id: `fake-${index}`,
      object: api === "chat" ? "chat.completion" : "text_completion",
      created: 1_700_000_000,
      model: body.model,
      choices,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    answered,
    setFault(next) {
      fault = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
