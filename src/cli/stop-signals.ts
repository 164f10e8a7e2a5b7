/**
 * How a long-running command (`minedit serve`) learns it should stop: the first SIGINT or SIGTERM starts a
 * graceful drain; a second one, while that drain runs, ends the process at once — an operator who presses
 * Ctrl-C twice, or an orchestrator past its grace period, means now.
 */
import { constants } from "node:os";

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Resolves with the first stop signal. From then on another one calls `onSecond` (default: a line on
 * stderr and `process.exit(128 + signal number)`, the shell's convention for death by that signal).
 */
export function waitForStopSignal(
  onSecond: (signal: StopSignal) => void = (signal) => {
    process.stderr.write(`minedit: second ${signal}: exiting now, without draining\n`);
    process.exit(128 + constants.signals[signal]);
  },
): Promise<StopSignal> {
  return new Promise((resolve) => {
    const first = (signal: StopSignal): void => {
      for (const name of STOP_SIGNALS) {
        process.off(name, first);
        process.on(name, onSecond);
      }
      resolve(signal);
    };
    for (const name of STOP_SIGNALS) process.on(name, first);
  });
}
