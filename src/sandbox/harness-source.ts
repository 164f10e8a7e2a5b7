/**
 * The test harness (sandbox/python/harness.py) and the one-line program that runs its compiled bytecode,
 * shared by the runner that runs it (src/runners/python.ts) and the fork servers (fork-server.ts), which
 * load the harness once and, for a run of exactly {@link HARNESS_LOADER}, execute their own copy of its
 * code instead of unmarshalling `harness.b64` again (sandbox/python/forkserver.py, "The harness").
 */
import { readFileSync } from "node:fs";

/** The harness's source, read once at start-up. */
export const HARNESS_SOURCE = readFileSync(
  new URL("../../sandbox/python/harness.py", import.meta.url),
  "utf8",
);

/** The file {@link HARNESS_LOADER} reads: the harness's bytecode, as base64. */
export const HARNESS_BYTECODE_FILE = "harness.b64";

/**
 * Runs the harness from {@link HARNESS_BYTECODE_FILE} (its bytecode, compiled once per sandbox by that
 * sandbox's own interpreter, as base64): `python3 -s -c HARNESS_LOADER ARGS` does what `python3 -s
 * harness.py ARGS` does.
 */
export const HARNESS_LOADER = `import marshal,binascii;exec(marshal.loads(binascii.a2b_base64(open('${HARNESS_BYTECODE_FILE}','rb').read())))`;
