/**
 * How a backend ends a run from this side: at its wall-time limit, or when the request's signal aborts.
 * bwrap.ts, docker.ts and fork-server.ts each kill their run through one of these and read which of the
 * two happened for the result (`timedOut`, `cancelled`).
 *
 * A run whose process starts only after slow setup (Docker making a container: on the vfs storage driver
 * that copies the whole image, 15 s and more for the lint image on a busy machine) is armed with
 * `{ setupMs }`: its wall-time limit starts at {@link started}, so the daemon's latency never turns a
 * correct program into a TIMEOUT, and the setup has a bound of its own (`setupTimedOut`, an infra fault).
 */
export class RunDeadline {
  timedOut = false;
  cancelled = false;
  setupTimedOut = false;
  private timer: NodeJS.Timeout;
  private readonly onAbort = () => this.cancel();

  constructor(
    private readonly limitMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly kill: () => void,
    options: { setupMs?: number } = {},
  ) {
    this.timer =
      options.setupMs === undefined
        ? this.wallTimer()
        : setTimeout(() => {
            this.setupTimedOut = true;
            this.kill();
          }, options.setupMs);
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The run's process has started (after setup): its wall-time limit counts from now. */
  started(): void {
    clearTimeout(this.timer);
    this.timer = this.wallTimer();
  }

  /** Ends the run as cancelled (what an abort does; for a signal that was aborted before it was listened to). */
  cancel(): void {
    this.cancelled = true;
    this.kill();
  }

  /** Stops the timer and the abort listener: call once the run has ended. */
  dispose(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener("abort", this.onAbort);
  }

  private wallTimer(): NodeJS.Timeout {
    return setTimeout(() => {
      this.timedOut = true;
      this.kill();
    }, this.limitMs);
  }
}
