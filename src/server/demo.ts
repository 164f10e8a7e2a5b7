/**
 * The quick start's main job (`minedit demo`): start the service on a free loopback port, send ONE
 * ScoreBatch of model-like rollouts for the first tasks served over a real gRPC client, print each
 * reward and verdict, and stop. The rollouts show every part of the reward: a minimal repair, the
 * corrupted program unchanged, reformatting that normalizes away, reasoning before the answer, a
 * duplicate (run once), a passing rewrite that edits more than needed, and an unparsable truncation.
 */
import { create } from "@bufbuild/protobuf";
import { Client, credentials, Metadata } from "@grpc/grpc-js";
import type { Config } from "../config.js";
import type { ExceptHandler, Stmt } from "../core/python/ast.js";
import { loadPythonGrammar } from "../core/python/grammar.js";
import { parsePython } from "../core/python/parse.js";
import { unparse } from "../core/python/unparse.js";
import {
  RewardService,
  type Rollout,
  type RolloutResult,
  RolloutSchema,
  ScoreBatchRequestSchema,
  type ScoreBatchResponse,
  Verdict,
} from "../gen/minedit/v1/reward_pb.js";
import type { StdIo } from "../io/std-io.js";
import type { StoredTask } from "../scoring/task-store.js";
import { createLogger } from "./logger.js";
import { startService } from "./service.js";
import { grpcServiceDefinition } from "./service-definition.js";

/** Tasks the demo batch covers (the first ones the service serves). */
const DEMO_TASKS = 4;

/**
 * The gold program with every function body wrapped in `try: ... except Exception: raise`, as a policy
 * "hardening" the code while it fixes it writes: a passing repair that edits more than the minimal fix.
 * The handler re-raises the exception it caught, so the program behaves as the gold does and passes the
 * same tests, while its tokens differ from the gold's. Built on the AST and unparsed, so it is valid
 * Python for any gold program; a docstring stays first (where Python finds it), and a program without a
 * function has its module body wrapped instead (after any docstring and `from __future__` imports,
 * which must come first). tests/e2e/demo.test.ts checks it on every shipped demo task.
 */
export function rewrittenProgram(gold: string): string {
  const module = parsePython(gold);
  if (!wrapFunctionBodies(module.body)) {
    let keep = isDocstring(module.body[0]) ? 1 : 0;
    while (isFutureImport(module.body[keep])) keep += 1;
    module.body = [...module.body.slice(0, keep), ...reraising(module.body.slice(keep))];
  }
  return `${unparse(module)}\n`; // unparse, like ast.unparse, ends without a newline
}

function isDocstring(statement: Stmt | undefined): boolean {
  return (
    statement?.type === "Expr" && statement.value.type === "Constant" && statement.value.value.kind === "str"
  );
}

function isFutureImport(statement: Stmt | undefined): boolean {
  return statement?.type === "ImportFrom" && statement.module === "__future__";
}

/** `body` inside `try: ... except Exception: raise`; an empty body stays empty. */
function reraising(body: Stmt[]): Stmt[] {
  if (body.length === 0) return [];
  const handler: ExceptHandler = {
    type: "ExceptHandler",
    exc_type: { type: "Name", id: "Exception" },
    name: null,
    body: [{ type: "Raise", exc: null, cause: null }],
  };
  return [{ type: "Try", body, handlers: [handler], orelse: [], finalbody: [] }];
}

/**
 * Wraps the body of every function in `statements`, nested ones and methods included (a docstring stays
 * outside); false if there was no function body to wrap.
 */
function wrapFunctionBodies(statements: Stmt[]): boolean {
  let wrapped = false;
  for (const statement of statements) {
    for (const block of childBlocks(statement)) wrapped = wrapFunctionBodies(block) || wrapped;
    if (statement.type === "FunctionDef" || statement.type === "AsyncFunctionDef") {
      const docstring = isDocstring(statement.body[0]) ? 1 : 0;
      if (statement.body.length > docstring) {
        statement.body = [
          ...statement.body.slice(0, docstring),
          ...reraising(statement.body.slice(docstring)),
        ];
        wrapped = true;
      }
    }
  }
  return wrapped;
}

function childBlocks(statement: Stmt): Stmt[][] {
  switch (statement.type) {
    case "FunctionDef":
    case "AsyncFunctionDef":
    case "ClassDef":
    case "With":
    case "AsyncWith":
      return [statement.body];
    case "For":
    case "AsyncFor":
    case "While":
    case "If":
      return [statement.body, statement.orelse];
    case "Try":
    case "TryStar":
      return [
        statement.body,
        ...statement.handlers.map((h) => h.body),
        statement.orelse,
        statement.finalbody,
      ];
    case "Match":
      return statement.cases.map((c) => c.body);
    default:
      return [];
  }
}

/**
 * Model-like completions for one task (each is what a policy really emits now and then), by kind.
 * Callers must `await loadPythonGrammar()` first (the rewrite parses the gold program).
 */
export function demoCompletions(task: StoredTask): [kind: string, completion: string][] {
  const fence = (code: string) => `\`\`\`python\n${code}\`\`\`\n`;
  const commented = task.gold.replace(/\n/, "  # fixed\n").replace(/\n(?=\S)/g, "\n\n");
  return [
    ["minimal-fix", fence(task.gold)],
    ["unchanged", fence(task.corrupted)],
    ["reformatted", fence(commented)],
    [
      "reasoned",
      `<think>Check each branch against the statement.</think>\nThe bug is fixed below.\n${fence(task.gold)}`,
    ],
    ["duplicate", fence(task.gold)],
    ["rewrite", fence(rewrittenProgram(task.gold))],
    ["truncated", fence(task.gold.slice(0, Math.floor(task.gold.length / 2))).replace(/```\n$/, "")],
  ];
}

/** The demo's rollouts for one task, ids `t<index>-<kind>`, grouped by task. */
export function demoRollouts(task: StoredTask, index: number): Rollout[] {
  return demoCompletions(task).map(([kind, completion]) =>
    create(RolloutSchema, {
      id: `t${index}-${kind}`,
      completion,
      taskRef: { case: "taskId", value: task.taskId },
      groupId: task.taskId,
    }),
  );
}

/** One ScoreBatch call over `client` (deadline 120 s). */
export function scoreBatch(client: Client, rollouts: Rollout[]): Promise<ScoreBatchResponse> {
  const method = grpcServiceDefinition(RewardService).scoreBatch;
  const request = create(ScoreBatchRequestSchema, { rollouts });
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      new Metadata(),
      { deadline: Date.now() + 120_000 },
      (error, response) =>
        error !== null
          ? reject(error)
          : response === undefined
            ? reject(new Error("no response"))
            : resolve(response),
    );
  });
}

function line(result: RolloutResult): string {
  const reward = result.reward === undefined ? "  (none)" : result.reward.toFixed(4).padStart(8);
  const c = result.components;
  const distances =
    c === undefined
      ? ""
      : `  d_model=${c.dModel.toFixed(3)} d_gold=${c.dGold.toFixed(3)} excess=${c.excess.toFixed(3)}`;
  const tests = result.testsTotal > 0 ? `  tests ${result.testsPassed}/${result.testsTotal}` : "";
  return `${result.id.padEnd(22)} ${Verdict[result.verdict].padEnd(13)} reward ${reward}${tests}${distances}${result.cached ? "  (cached)" : ""}\n`;
}

/**
 * Runs the demo: the service from `config` over `taskFiles` (`execute: false` skips the tests), one
 * batch, a line per rollout on stdout and a summary on stderr. Throws when the service cannot start.
 */
export async function runDemoBatch(
  config: Config,
  taskFiles: readonly string[],
  execute: boolean,
  io: StdIo,
): Promise<void> {
  await loadPythonGrammar();
  // The transcript is for people: the per-call JSON log lines would only interleave with it.
  const service = await startService(config, taskFiles, execute, undefined, createLogger("warn"));
  const address = `${config.server.host}:${service.server.port}`;
  io.stderr.write(`minedit demo: service on ${address} (${service.tasks.size} tasks)\n`);
  const client = new Client(address, credentials.createInsecure());
  try {
    const tasks = [...service.tasks.values()].slice(0, DEMO_TASKS);
    const rollouts = tasks.flatMap(demoRollouts);
    const started = performance.now();
    const response = await scoreBatch(client, rollouts);
    const seconds = (performance.now() - started) / 1000;
    for (const result of response.results) io.stdout.write(line(result));
    io.stderr.write(
      `minedit demo: ${response.results.length} rollouts scored over gRPC in ${seconds.toFixed(2)} s\n`,
    );
  } finally {
    client.close();
    await service.close();
  }
}
