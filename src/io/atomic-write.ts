/**
 * Writing a file so that readers only ever see the old content or the whole new content: the text goes
 * to a temporary file beside the target (same directory, so the rename cannot cross file systems) and is
 * renamed over it. A crash or Ctrl-C mid-write leaves at most a `*.tmp-<pid>` file behind.
 */
import { rename, writeFile } from "node:fs/promises";

/** The temporary path `path` is written through (unique per process). */
export function temporaryPath(path: string): string {
  return `${path}.tmp-${process.pid}`;
}

/** Writes `text` to `path` through a temporary file and a rename. */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const tmp = temporaryPath(path);
  await writeFile(tmp, text, "utf8");
  await rename(tmp, path);
}
