/**
 * How every command ends when something stops it: the exit codes, and one way to say what went wrong —
 * `minedit <command>: <message>` with a pointer to `--help` for the user's mistakes (exit 2), the stack
 * for everything else (exit 3, a bug or a broken installation).
 */
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { CliIo } from "./main.js";

/** Exit codes of minedit commands (documented in every `--help`). */
export const EXIT = {
  /** Every row was scored. */
  ok: 0,
  /** Some rows were bad and reported on stderr; all the others were scored. */
  badRows: 1,
  /** Bad flags or flag values, unreadable input, no sandbox: nothing was scored. */
  usage: 2,
  /** A bug or a broken installation; the message says which. */
  internal: 3,
} as const;

/** A usage problem, to be reported by {@link commandFailure} with a pointer to `--help`. */
export function usageError(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

/** Reports a usage problem of `minedit <command>` (e.g. `"lint report"`); returns the exit code. */
export function usageFailure(io: CliIo, command: string, message: string): number {
  io.stderr.write(`minedit ${command}: ${message}\nRun \`minedit ${command} --help\` for usage.\n`);
  return EXIT.usage;
}

/** Reports an internal error of `minedit <command>`; returns the exit code. */
export function internalFailure(io: CliIo, command: string, error: unknown): number {
  const message = isMineditError(error)
    ? error.rawMessage
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
  io.stderr.write(`minedit ${command}: internal error: ${message}\n`);
  return EXIT.internal;
}

/** A MineditError other than Internal is the user's to fix (usage); anything else is internal. */
export function commandFailure(io: CliIo, command: string, error: unknown): number {
  if (isMineditError(error) && error.code !== ErrorCode.Internal)
    return usageFailure(io, command, error.rawMessage);
  return internalFailure(io, command, error);
}
