/**
 * The bwrap backend with warm interpreters: `python3 -s -c CODE …` and `python3 -s FILE …` runs go to a
 * pool of fork servers (fork-server.ts), one bwrap sandbox each, which fork them from an interpreter that
 * has already started and imported the harness's modules; anything else runs in a fresh sandbox of the
 * plain backend. Why: sandbox plus interpreter start-up was most of an execution's cost (70–90 ms, more
 * than a whole unsandboxed rollout), and a GRPO step is thousands of executions.
 *
 * Each execution still gets what a fresh sandbox gives (see sandbox/python/forkserver.py): its own
 * process tree, killed entirely when it ends; an emptied scratch and /dev/shm; no SysV IPC left behind; a
 * fork server it cannot ptrace. A sandbox that dies, is cancelled, or cannot be made clean is discarded
 * and replaced. Different slots are different sandboxes, so concurrent executions share nothing.
 */
import { readFileSync } from "node:fs";
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { BwrapSandbox } from "./bwrap.js";
import { ForkServer } from "./fork-server.js";
import type { ExecutionRequest, ExecutionResult, Sandbox } from "./sandbox.js";

const FORK_SERVER_SOURCE = readFileSync(
  new URL("../../sandbox/python/forkserver.py", import.meta.url),
  "utf8",
);
const HARNESS_SOURCE = readFileSync(new URL("../../sandbox/python/harness.py", import.meta.url), "utf8");

/**
 * Imported once per fork server: everything the harness imports for any test style, so no execution pays
 * for them. (Stateless at import; `random`, which seeds itself, is left to the program.)
 */
export const PRELOADED_MODULES: readonly string[] = [
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
  /** Fork servers (sandboxes) at most, i.e. warm executions at once; more wait for a free one. */
  slots: number;
};

export class WarmPythonSandbox implements Sandbox {
  readonly name = "bwrap+fork-server";
  private readonly idle: ForkServer[] = [];
  private readonly starting = new Set<Promise<ForkServer>>();
  private readonly waiting: ((server: ForkServer | Error) => void)[] = [];
  private readonly all = new Set<ForkServer>();
  private closed = false;

  private constructor(
    private readonly base: BwrapSandbox,
    private readonly slots: number,
  ) {}

  /**
   * Starts `slots` fork servers on `base` and waits for the first, so a host where they cannot run fails
   * here, once, with `MineditError(Unavailable)` (the caller may then use `base` alone).
   */
  static async create(base: BwrapSandbox, options: WarmPythonOptions): Promise<WarmPythonSandbox> {
    if (!Number.isSafeInteger(options.slots) || options.slots <= 0) {
      throw new MineditError(ErrorCode.InvalidArgument, "slots must be a positive integer", {
        field: "slots",
      });
    }
    const sandbox = new WarmPythonSandbox(base, options.slots);
    const first = sandbox.startServer();
    for (let i = 1; i < options.slots; i++)
      sandbox.startServer().then(
        (server) => sandbox.release(server),
        () => {},
      );
    try {
      sandbox.release(await first);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  /** The plain bubblewrap backend: a new sandbox and interpreter per run. */
  fresh(): Sandbox {
    return this.base;
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    if (this.closed) throw new MineditError(ErrorCode.Unavailable, "warm sandbox: closed");
    if (!runsWarm(request)) return this.base.run(request);
    // A server that dies before the program starts is the sandbox's fault, not the program's: one retry
    // on a fresh server, then the error (INFRA_ERROR for the rollout).
    for (let attempt = 0; ; attempt++) {
      const server = await this.acquire();
      try {
        return await server.execute(request);
      } catch (error) {
        if (attempt >= 1 || !isMineditError(error) || error.code !== ErrorCode.Unavailable) throw error;
      } finally {
        this.release(server);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0))
      wake(new MineditError(ErrorCode.Unavailable, "warm sandbox: closed"));
    await Promise.allSettled([...this.starting]);
    for (const server of this.all) server.kill();
    this.all.clear();
    this.idle.length = 0;
    await this.base.close();
  }

  /** An idle live server, a newly started one while under `slots`, or the next one released. */
  private async acquire(): Promise<ForkServer> {
    for (;;) {
      const server = this.idle.pop();
      if (server === undefined) break;
      if (server.alive) return server;
      this.all.delete(server);
    }
    if (this.all.size + this.starting.size < this.slots) return this.startServer();
    const next = await new Promise<ForkServer | Error>((resolve) => this.waiting.push(resolve));
    if (next instanceof Error) throw next;
    return next;
  }

  /** Hands a server to a waiting run or back to the pool; a dead one is dropped and replaced. */
  private release(server: ForkServer): void {
    if (!server.alive || this.closed) {
      this.all.delete(server);
      if (this.closed) server.kill();
      else if (this.waiting.length > 0 || this.all.size + this.starting.size < this.slots) {
        // Keep the pool full in the background, so the next run does not pay the start-up.
        this.startServer().then(
          (fresh) => this.release(fresh),
          (error: Error) => this.waiting.shift()?.(error),
        );
      }
      return;
    }
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter(server);
    else this.idle.push(server);
  }

  private startServer(): Promise<ForkServer> {
    const started = ForkServer.start(this.base, FORK_SERVER_SOURCE, HARNESS_SOURCE, PRELOADED_MODULES);
    this.starting.add(started);
    const settle = () => this.starting.delete(started);
    started.then((server) => {
      settle();
      if (this.closed) server.kill();
      else this.all.add(server);
    }, settle);
    return started;
  }
}
