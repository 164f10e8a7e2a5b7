/**
 * The source of a Python program the sandbox runs as `python3 -s -c SOURCE` (sandbox/python/forkserver.py,
 * docker-boot.py): the file itself after the helpers it shares with the others (scratch_files.py), since a
 * `-c` program cannot import a file next to it.
 */
import { readFileSync } from "node:fs";

const read = (name: string) => readFileSync(new URL(`../../sandbox/python/${name}`, import.meta.url), "utf8");

const SHARED = read("scratch_files.py");

export function pythonSource(name: "forkserver.py" | "docker-boot.py"): string {
  return `${SHARED}\n\n${read(name)}`;
}
