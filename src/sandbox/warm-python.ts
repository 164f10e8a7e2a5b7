/**
 * The bwrap backend with warm interpreters: `python3 -s -c CODE …` and `python3 -s FILE …` runs go to a
 * pool of fork servers (fork-server.ts), one bwrap sandbox each, which fork them from an interpreter that
 * has already started and imported the harness's modules; anything else runs in a fresh sandbox of the
 * plain backend. Why: sandbox plus interpreter start-up was most of an execution's cost (70–90 ms, more
 * than a whole unsandboxed rollout), and a GRPO step is thousands of executions.
 *
 * One pool per task runtime in use (fork-server-pool.ts; runtimes.ts), `slots` servers each: a run goes to
 * its runtime's pool, whose servers have also imported the runtime's heavy modules (pandas, numpy,
 * matplotlib, … for `bigcodebench`: about a second per fresh interpreter) before forking. The pools named
 * at {@link WarmPythonSandbox.create} are started and filled before it resolves; another runtime's pool
 * starts with its first run.
 *
 * Each execution still gets what a fresh sandbox gives (see sandbox/python/forkserver.py): its own
 * process tree, killed entirely when it ends; an emptied scratch and /dev/shm; no SysV IPC left behind; a
 * fork server it cannot ptrace. A sandbox that dies, is cancelled, or cannot be made clean is discarded
 * and replaced. Different slots are different sandboxes, so concurrent executions share nothing.
 */
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { ForkServerHost, ForkServerInfo } from "./fork-server.js";
import { ForkServerPool, type PoolSources } from "./fork-server-pool.js";
import { HARNESS_SOURCE } from "./harness-source.js";
import { pythonSource } from "./python-source.js";
import { DEFAULT_RUNTIME, type RuntimeName } from "./runtimes.js";
import type { ExecutionRequest, ExecutionResult, Sandbox } from "./sandbox.js";

const FORK_SERVER_SOURCE = pythonSource("forkserver.py");

/**
 * Imported once per fork server: everything the harness imports for any test style, by statement or by name
 * (`_hashlib`, its HMAC), so no execution pays for them: loading OpenSSL was 11 of a unittest run's 76 ms
 * where page faults are slow. (Stateless at import; `random`, which seeds itself, is left to the program.)
 */
export const PRELOADED_MODULES: readonly string[] = [
  "_hashlib",
  "ast",
  "atexit",
  "binascii",
  "gc",
  "json",
  "json.encoder",
  "marshal",
  "mmap",
  "select",
  "traceback",
  "types",
  "unittest",
  "unittest.case",
  "unittest.loader",
  "unittest.result",
  "unittest.suite",
  "unittest.util",
];

/**
 * Whether the fork server runs `argv` exactly as a fresh `python3 -s` would: `-s` is the only flag, then
 * `-c CODE` or a script that is one of the request's files.
 */
export function runsWarm(request: ExecutionRequest): boolean {
  const [program, flag, target] = request.argv;
  if (program !== "python3" || flag !== "-s" || target === undefined) return false;
  if (target === "-c") return request.argv.length >= 4;
  return !target.startsWith("-") && Object.hasOwn(request.files, target);
}

export type WarmPythonOptions = {
  /** Fork servers (sandboxes) per runtime at most, i.e. warm executions of one runtime at once. */
  slots: number;
  /** The runtimes whose pools start before `create` resolves (default: the standard library's). */
  runtimes?: readonly RuntimeName[];
  /**
   * When their other servers start (one each is up when `create` resolves): once this settles; at once
   * when absent. `minedit serve` passes its listening, so that on a small machine they do not take the
   * CPU its start-up needs (on 2 cores, 0.6 s of it); a run before then starts what it needs itself.
   */
  fillAfter?: Promise<unknown>;
};

/** The live fork servers of one runtime's pool. */
export type WarmPoolInfo = { runtime: RuntimeName; servers: ForkServerInfo[] };

/** A backend that runs programs fresh and hosts fork servers: the bwrap one, or the Docker one. */
export type WarmBase = Sandbox & ForkServerHost;

export class WarmPythonSandbox implements Sandbox {
  readonly name: string;
  private readonly pools = new Map<RuntimeName, Promise<ForkServerPool>>();
  private readonly sources: PoolSources = {
    forkServer: FORK_SERVER_SOURCE,
    harness: HARNESS_SOURCE,
    preload: PRELOADED_MODULES,
  };
  private closed = false;

  private constructor(
    private readonly base: WarmBase,
    private readonly slots: number,
  ) {
    this.name = `${base.name}+fork-server`;
  }

  /**
   * Starts the pools of `runtimes` on `base`, `slots` fork servers each, and waits until each has one up
   * (the others start in the background, after `options.fillAfter`: ForkServerPool.fillRest), so a host
   * where they cannot run fails here, once, with `MineditError(Unavailable)` (the caller may then use
   * `base` alone), and a runtime that is not installed with `FailedPrecondition` naming it.
   */
  static async create(base: WarmBase, options: WarmPythonOptions): Promise<WarmPythonSandbox> {
    if (!Number.isSafeInteger(options.slots) || options.slots <= 0) {
      throw new MineditError(ErrorCode.InvalidArgument, "slots must be a positive integer", {
        field: "slots",
      });
    }
    const sandbox = new WarmPythonSandbox(base, options.slots);
    try {
      const names = [...new Set(options.runtimes ?? [DEFAULT_RUNTIME])];
      const pools = await Promise.all(
        names.map(async (name) => {
          const pool = await sandbox.pool(name);
          await pool.startOne();
          return pool;
        }),
      );
      const fillRest = () => {
        for (const pool of pools) pool.fillRest();
      };
      if (options.fillAfter === undefined) fillRest();
      else options.fillAfter.then(fillRest, fillRest);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  /** The plain backend: a new sandbox and interpreter per run. */
  fresh(): Sandbox {
    return this.base;
  }

  /** Each started pool's live fork servers (what they reported when they came up: RSS, preload time). */
  async forkServers(): Promise<WarmPoolInfo[]> {
    const pools = await Promise.allSettled(this.pools.values());
    return pools.flatMap((p) =>
      p.status === "fulfilled" ? [{ runtime: p.value.runtime.name, servers: p.value.servers() }] : [],
    );
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    if (this.closed) throw new MineditError(ErrorCode.Unavailable, "warm sandbox: closed");
    if (!runsWarm(request)) return this.base.run(request);
    const pool = await this.pool(request.runtime ?? DEFAULT_RUNTIME);
    // A server that dies before the program starts is the sandbox's fault, not the program's: one retry
    // on a fresh server, then the error (INFRA_ERROR for the rollout).
    for (let attempt = 0; ; attempt++) {
      const server = await pool.acquire();
      try {
        return await server.execute(request);
      } catch (error) {
        if (attempt >= 1 || !isMineditError(error) || error.code !== ErrorCode.Unavailable) throw error;
      } finally {
        pool.release(server);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = await Promise.allSettled(this.pools.values());
    await Promise.all(pools.map((p) => (p.status === "fulfilled" ? p.value.close() : undefined)));
    await this.base.close();
  }

  /**
   * The pool of runtime `name`, made on first use (empty: servers start as runs need them). Rejects, and
   * is asked again next time, when the runtime is unknown or not installed (see ForkServerHost.runtime).
   */
  private pool(name: RuntimeName): Promise<ForkServerPool> {
    let pool = this.pools.get(name);
    if (pool === undefined) {
      pool = this.base.runtime(name).then((runtime) => {
        if (this.closed) throw new MineditError(ErrorCode.Unavailable, "warm sandbox: closed");
        return new ForkServerPool(this.base, runtime, this.slots, this.sources);
      });
      this.pools.set(name, pool);
      pool.catch(() => {
        if (this.pools.get(name) === pool) this.pools.delete(name);
      });
    }
    return pool;
  }
}
