/**
 * `minedit demo`: the main job end to end on embedded defaults. Starts the service on a free loopback
 * port, sends one ScoreBatch of model-like rollouts for the shipped demo tasks over a real gRPC client,
 * prints each reward and verdict, and shuts down.
 */

import { create } from "@bufbuild/protobuf";
import { Client, credentials, Metadata } from "@grpc/grpc-js";
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
import { startService } from "../server/service.js";
import { grpcServiceDefinition } from "../server/service-definition.js";
import { parseServiceFlags, SERVICE_FLAGS_HELP, serviceConfig, taskFiles } from "./service-options.js";

export function demoHelp(): string {
  return `Usage: minedit demo [options]

Starts the reward service on a free loopback port, scores a demo batch through a real gRPC client — for
the first four tasks: the minimal repair, the corrupted program returned unchanged, the repair with
comments and reformatting, the repair after a <think> block and prose, a rewrite, and a truncated answer
— prints one line per rollout (verdict, reward, tests, distances) and stops the service.

Options:
${SERVICE_FLAGS_HELP}
`;
}

/** Model-like completions for one task (each is what a policy really emits now and then). */
function demoRollouts(task: StoredTask, index: number): Rollout[] {
  const fence = (code: string) => `\`\`\`python\n${code}\`\`\`\n`;
  const commented = task.gold.replace(/\n/, "  # fixed\n").replace(/\n(?=\S)/g, "\n\n");
  const completions: [string, string][] = [
    ["minimal-fix", fence(task.gold)],
    ["unchanged", fence(task.corrupted)],
    ["reformatted", fence(commented)],
    [
      "reasoned",
      `<think>Check each branch against the statement.</think>\nThe bug is fixed below.\n${fence(task.gold)}`,
    ],
    ["duplicate", fence(task.gold)],
    ["truncated", fence(task.gold.slice(0, Math.floor(task.gold.length / 2))).replace(/```\n$/, "")],
  ];
  return completions.map(([kind, completion]) =>
    create(RolloutSchema, {
      id: `t${index}-${kind}`,
      completion,
      taskRef: { case: "taskId", value: task.taskId },
      groupId: task.taskId,
    }),
  );
}

function scoreBatch(client: Client, rollouts: Rollout[]): Promise<ScoreBatchResponse> {
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

export async function runDemo(argv: readonly string[], io: StdIo): Promise<number> {
  const values = parseServiceFlags("demo", argv, io, demoHelp);
  if (typeof values === "number") return values;
  try {
    const config = await serviceConfig(values, { port: 0 });
    const engine = await startService(config, taskFiles(config), values["no-exec"] !== true);
    const address = `${config.server.host}:${engine.server.port}`;
    io.stderr.write(`minedit demo: service on ${address} (${engine.tasks.size} tasks)\n`);
    const client = new Client(address, credentials.createInsecure());
    try {
      const tasks = [...engine.tasks.values()].slice(0, 4);
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
      await engine.close();
    }
    return 0;
  } catch (error) {
    io.stderr.write(`minedit demo: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}
