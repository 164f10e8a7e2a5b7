/**
 * The process streams a command uses, injectable so that a command (and everything it calls) can run
 * in-process with captured streams: the tests, and embedding minedit in another program.
 */
import type { Readable, Writable } from "node:stream";

export type StdIo = {
  stdin: Readable;
  stdout: Writable;
  /** `isTTY` and `columns` decide how progress is drawn (src/io/progress.ts). */
  stderr: Writable & { isTTY?: boolean; columns?: number };
};
