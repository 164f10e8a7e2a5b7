/**
 * Gate records on disk (task-gate.ts): one small JSON file per task content key, under a directory
 * shared by every start and replica on the machine. Files are written atomically, so a crash leaves an
 * old record or none, and an unreadable record counts as none (the task is gated again).
 */
import { mkdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { writeFileAtomically } from "../io/atomic-write.js";
import type { GateCache, GateRecord } from "./task-gate.js";

/** The default directory: `~/.cache/minedit/task-gate`. */
export function defaultGateCacheDir(): string {
  return join(homedir(), ".cache", "minedit", "task-gate");
}

export class DirectoryGateCache implements GateCache {
  constructor(private readonly dir: string) {}

  private path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<GateRecord | undefined> {
    try {
      const record = JSON.parse(await readFile(this.path(key), "utf8")) as Partial<GateRecord>;
      return typeof record.goldVerdict === "string" &&
        typeof record.corruptedVerdict === "string" &&
        typeof record.goldWallMs === "number"
        ? ({ goldCpuMs: null, goldIdleMs: null, ...record } as GateRecord)
        : undefined;
    } catch {
      return undefined;
    }
  }

  async set(key: string, record: GateRecord): Promise<void> {
    const path = this.path(key);
    await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
    await writeFileAtomically(path, `${JSON.stringify(record)}\n`);
  }
}

/** No memory between starts (tests, or a read-only disk). */
export class MemoryGateCache implements GateCache {
  private readonly records = new Map<string, GateRecord>();
  async get(key: string): Promise<GateRecord | undefined> {
    return this.records.get(key);
  }
  async set(key: string, record: GateRecord): Promise<void> {
    this.records.set(key, record);
  }
}
