/**
 * Data the repository never ships, read at run time from where this machine keeps it: BigCodeBench's
 * release file (its licence lets us read it, not copy it here) and the over-editing paper's repository
 * (github.com/nreHieW/fyp: its code and its 400 tasks). Two environment variables say where:
 *
 * - `MINEDIT_DATA_DIR`: a directory holding `bigcodebench/BigCodeBench.jsonl.gz` (and, optionally, the
 *   paper's `data/questions/...` files);
 * - `MINEDIT_FYP_DIR`: a checkout, or a bare git directory, of github.com/nreHieW/fyp.
 *
 * Unset, the tests that need them skip with the reason returned here (the skip reporter lists it). Set but
 * wrong, they fail: whoever set the variable expects those tests to run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** What was found, or why it is not available on this machine. */
export type Found<T> = { value: T; reason?: undefined } | { value?: undefined; reason: string };

/** The path of the paper's 400 tasks inside its repository (and under MINEDIT_DATA_DIR, if kept there). */
export const PAPER_TASKS = "data/questions/corrupted_solutions_manual_easy_400.jsonl";

const NO_FYP =
  "MINEDIT_FYP_DIR not set: the over-editing paper's code and tasks (github.com/nreHieW/fyp) are read at run time, never shipped";

/** A directory named by an environment variable, checked to exist when the variable is set. */
function envDir(name: string): string | undefined {
  const dir = process.env[name];
  if (dir === undefined || dir === "") return undefined;
  if (!existsSync(dir)) throw new Error(`${name}=${dir}: no such directory`);
  return dir;
}

/** BigCodeBench's release file (`bigcodebench/BigCodeBench.jsonl.gz` under MINEDIT_DATA_DIR). */
export function bigCodeBenchFile(): Found<string> {
  const dir = envDir("MINEDIT_DATA_DIR");
  if (dir === undefined)
    return { reason: "MINEDIT_DATA_DIR not set: BigCodeBench is read at run time, never shipped" };
  const file = join(dir, "bigcodebench", "BigCodeBench.jsonl.gz");
  if (!existsSync(file)) throw new Error(`MINEDIT_DATA_DIR=${dir} has no bigcodebench/BigCodeBench.jsonl.gz`);
  return { value: file };
}

/** The text of `path` in the paper's repository (MINEDIT_FYP_DIR: its work tree, else its git HEAD). */
export function fypFile(path: string): Found<string> {
  const dir = envDir("MINEDIT_FYP_DIR");
  if (dir === undefined) return { reason: NO_FYP };
  if (existsSync(join(dir, path))) return { value: readFileSync(join(dir, path), "utf8") };
  const show = spawnSync("git", ["-C", dir, "show", `HEAD:${path}`], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (show.status !== 0)
    throw new Error(`MINEDIT_FYP_DIR=${dir}: cannot read ${path}: ${show.stderr.trim()}`);
  return { value: show.stdout };
}

/** Runs `git args` in the paper's repository (MINEDIT_FYP_DIR), for tests that read its history or tree. */
export function fypGit(args: readonly string[]): Found<string> {
  const dir = envDir("MINEDIT_FYP_DIR");
  if (dir === undefined) return { reason: NO_FYP };
  const run = spawnSync("git", ["-C", dir, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0)
    throw new Error(`MINEDIT_FYP_DIR=${dir}: git ${args.join(" ")} failed: ${run.stderr.trim()}`);
  return { value: run.stdout };
}

/**
 * The paper's 400 tasks as text: from MINEDIT_FYP_DIR, else from MINEDIT_DATA_DIR's copy of the paper's
 * `data/questions/` (either is enough).
 */
export function paperTasks(): Found<string> {
  const data = envDir("MINEDIT_DATA_DIR");
  if (envDir("MINEDIT_FYP_DIR") === undefined && data !== undefined && existsSync(join(data, PAPER_TASKS)))
    return { value: readFileSync(join(data, PAPER_TASKS), "utf8") };
  const found = fypFile(PAPER_TASKS);
  if (found.reason !== undefined)
    return {
      reason: `${found.reason} (nor MINEDIT_DATA_DIR with the paper's ${PAPER_TASKS})`,
    };
  return found;
}
