/**
 * `minedit demo`: the main job end to end on embedded defaults. Parse the flags → src/server/demo.ts
 * (serve, score a demo batch over gRPC, print, stop) → exit code. The service is imported once the flags
 * are read, so `--help` does not load it.
 */

import type { RewardConfig } from "../config.js";
import type { StdIo } from "../io/std-io.js";
import { parseServiceFlags, rewardHelp, SERVICE_FLAGS_HELP, serviceSetup } from "./service-options.js";

/** `minedit demo --help`; `reward` is the configured reward section (defaults without --config). */
export function demoHelp(reward?: RewardConfig): string {
  return `Usage: minedit demo [options]

Starts the reward service on a free loopback port, scores one batch through a real gRPC client, prints
one line per rollout (verdict, reward, tests passed, distances) and stops the service. The batch has
seven rollouts for each of the first four tasks served:
  minimal-fix   the gold repair
  unchanged     the corrupted program, returned as it is
  reformatted   the gold repair with a comment and blank lines: the same normalized program
  reasoned      the gold repair after a <think> block and prose: only the fenced code is scored
  duplicate     the gold repair once more
  rewrite       the gold repair with each function body wrapped in try/except-raise: it passes, but
                it edits more than the minimal fix, so an edit term lowers its reward
  truncated     the first half of the gold repair, its fence left open
Rollouts of one task with the same normalized program run the tests once per batch ("cached").

The rewards:
${rewardHelp(reward)}

Options:
${SERVICE_FLAGS_HELP}
`;
}

export async function runDemo(argv: readonly string[], io: StdIo): Promise<number> {
  const values = await parseServiceFlags("demo", argv, io, demoHelp);
  if (typeof values === "number") return values;
  try {
    const { config, taskFiles, execute } = await serviceSetup(values, { port: 0 });
    const { runDemoBatch } = await import("../server/demo.js");
    await runDemoBatch(config, taskFiles, execute, io);
    return 0;
  } catch (error) {
    io.stderr.write(`minedit demo: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}
