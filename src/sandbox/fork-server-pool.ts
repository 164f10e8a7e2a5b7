/**
 * The fork servers of one task runtime (warm-python.ts has one pool per runtime in use): up to `slots`
 * servers, each its own bwrap sandbox with the runtime's mounts and preloaded modules. A run takes an idle
 * server (or starts one while under `slots`, or waits for the next released); a server that died, was
 * cancelled or could not be cleaned is dropped and replaced in the background, so the pool stays full.
 */
import { ErrorCode, MineditError } from "../errors.js";
import { ForkServer, type ForkServerHost, type ForkServerInfo } from "./fork-server.js";
import type { Runtime } from "./runtimes.js";

export type PoolSources = {
  /** sandbox/python/forkserver.py */
  forkServer: string;
  /** sandbox/python/harness.py */
  harness: string;
  /** The harness's modules, imported by every server before the runtime's own. */
  preload: readonly string[];
};

export class ForkServerPool {
  private readonly idle: ForkServer[] = [];
  private readonly starting = new Set<Promise<ForkServer>>();
  private readonly waiting: ((server: ForkServer | Error) => void)[] = [];
  private readonly all = new Set<ForkServer>();
  private closed = false;

  constructor(
    private readonly base: ForkServerHost,
    readonly runtime: Runtime,
    private readonly slots: number,
    private readonly sources: PoolSources,
  ) {}

  /**
   * Starts one server and waits for it, so a host where none can run fails here (`MineditError
   * (Unavailable)`, with what it printed). The other slots' servers start with {@link fillRest}.
   */
  async startOne(): Promise<void> {
    if (this.all.size + this.starting.size === 0) this.release(await this.startServer());
  }

  /**
   * Starts the other slots' servers in the background: a run that comes meanwhile takes an idle one or
   * starts its own, and start-up (what `minedit serve` waits for before it listens) pays for one
   * interpreter, not one per slot on cores that start them in turn. A background server that fails is
   * started again when a run needs it.
   */
  fillRest(): void {
    while (!this.closed && this.all.size + this.starting.size < this.slots) this.replace();
  }

  /** What each live server reported when it came up. */
  servers(): ForkServerInfo[] {
    return [...this.all].filter((server) => server.alive).map((server) => server.info);
  }

  /** An idle live server, a newly started one while under `slots`, or the next one released. */
  async acquire(): Promise<ForkServer> {
    if (this.closed) throw closedError();
    for (;;) {
      const server = this.idle.pop();
      if (server === undefined) break;
      if (server.alive) return server;
      this.all.delete(server);
    }
    if (this.all.size + this.starting.size < this.slots) {
      return this.startServer().catch((error: Error) => {
        // The slot this start held is free again: a run waiting for a release gets a start of its own
        // (else it waits for a release that may never come, as when the Docker daemon went away).
        this.startForWaiting();
        throw error;
      });
    }
    const next = await new Promise<ForkServer | Error>((resolve) => this.waiting.push(resolve));
    if (next instanceof Error) throw next;
    return next;
  }

  /** Hands a server to a waiting run or back to the pool; a dead one is dropped and replaced. */
  release(server: ForkServer): void {
    if (!server.alive || this.closed) {
      this.all.delete(server);
      if (this.closed) server.kill();
      else this.replace();
      return;
    }
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter(server);
    else this.idle.push(server);
  }

  /**
   * Starts a server in the background to keep the pool full, so the next run does not pay the start-up.
   * If it cannot start, a waiting run gets the error, and the others still waiting get another try each:
   * none of them may wait for a release that will never come (every server gone at once, as when the
   * Docker daemon goes away).
   */
  private replace(): void {
    if (this.closed || this.all.size + this.starting.size >= this.slots) return;
    this.startServer().then(
      (fresh) => this.release(fresh),
      (error: Error) => {
        // Nobody waiting: the next run starts one itself.
        this.waiting.shift()?.(error);
        this.startForWaiting();
      },
    );
  }

  /** A start failed and freed its slot: the first run still waiting for a server gets a start of its own. */
  private startForWaiting(): void {
    if (this.waiting.length > 0) this.replace();
  }

  /** Kills every server; waiting runs are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake(closedError());
    await Promise.allSettled([...this.starting]);
    for (const server of this.all) server.kill();
    this.all.clear();
    this.idle.length = 0;
  }

  private startServer(): Promise<ForkServer> {
    const { forkServer, harness, preload } = this.sources;
    const started = ForkServer.start(this.base, forkServer, harness, preload, this.runtime);
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

function closedError(): MineditError {
  return new MineditError(ErrorCode.Unavailable, "warm sandbox: closed");
}
