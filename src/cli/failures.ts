/**
 * How every command runs and ends when something stops it: the exit codes, one way to say what went wrong —
 * `minedit <command>: <message>` with a pointer to `--help` for the user's mistakes (exit 2), the stack
 * for everything else (exit 3, a bug or a broken installation).
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { StdIo } from "../io/std-io.js";

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
export function usageFailure(io: StdIo, command: string, message: string): number {
  io.stderr.write(`minedit ${command}: ${message}\nRun \`minedit ${command} --help\` for usage.\n`);
  return EXIT.usage;
}

/** Reports an internal error of `minedit <command>`; returns the exit code. */
export function internalFailure(io: StdIo, command: string, error: unknown): number {
  const message = isMineditError(error)
    ? error.rawMessage
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
  io.stderr.write(`minedit ${command}: internal error: ${message}\n`);
  return EXIT.internal;
}

/** A MineditError other than Internal is the user's to fix (usage); anything else is internal. */
export function commandFailure(io: StdIo, command: string, error: unknown): number {
  if (isMineditError(error) && error.code !== ErrorCode.Internal)
    return usageFailure(io, command, error.rawMessage);
  return internalFailure(io, command, error);
}

/** What `parseArgs` returns for an options table: each flag absent, or its string, boolean or list. */
export type FlagValues<Options extends Readonly<Record<string, { readonly type: "string" | "boolean" }>>> = {
  [K in keyof Options]?: Options[K] extends { multiple: true }
    ? string[]
    : Options[K]["type"] extends "boolean"
      ? boolean
      : string;
};

/**
 * Parses a command's flags (strict: a bad flag is a usage error) and answers `--help`. Returns the values
 * and positionals, or the exit code when the command is already answered.
 */
export function parseCommandArgs<Values>(
  io: StdIo,
  name: string,
  argv: readonly string[],
  options: ParseArgsConfig["options"],
  help: () => string,
): { values: Values; positionals: string[] } | number {
  let parsed: { values: unknown; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    return usageFailure(io, name, error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values as Values & { help?: boolean };
  if (values.help === true) {
    io.stdout.write(help());
    return EXIT.ok;
  }
  return { values, positionals: parsed.positionals };
}

/**
 * The life of a command that reads input and does work: parse the flags (strict; a bad flag is a usage
 * error), `--help`, `prepare` (open inputs, check everything cheap; any MineditError there is a usage
 * error), `execute` (a MineditError InvalidArgument there is still the user's; anything else internal),
 * then `close` whatever `prepare` opened, however it ended. Never throws.
 */
export async function runCommand<Options extends ParseArgsConfig["options"], Values, Setup>(command: {
  name: string;
  argv: readonly string[];
  io: StdIo;
  options: Options;
  help: () => string;
  prepare: (values: Values, positionals: string[], io: StdIo) => Promise<Setup>;
  execute: (setup: Setup, io: StdIo) => Promise<number>;
  close: (setup: Setup) => Promise<unknown>;
}): Promise<number> {
  const { name, io } = command;
  const parsed = parseCommandArgs<Values>(io, name, command.argv, command.options, command.help);
  if (typeof parsed === "number") return parsed;
  let setup: Setup;
  try {
    setup = await command.prepare(parsed.values, parsed.positionals, io);
  } catch (error) {
    if (isMineditError(error)) return usageFailure(io, name, error.rawMessage);
    return internalFailure(io, name, error);
  }
  try {
    return await command.execute(setup, io);
  } catch (error) {
    if (isMineditError(error) && error.code === ErrorCode.InvalidArgument)
      return usageFailure(io, name, error.rawMessage);
    return internalFailure(io, name, error);
  } finally {
    await command.close(setup);
  }
}
