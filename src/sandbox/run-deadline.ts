/**
 * How a backend ends a run from this side: at its wall-time limit, or when the request's signal aborts.
 * bwrap.ts, docker.ts and fork-server.ts each kill their run through one of these and read which of the
 * two happened for the result (`timedOut`, `cancelled`).
 */
export class RunDeadline {
  timedOut = false;
  cancelled = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = () => this.cancel();

  constructor(
    limitMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly kill: () => void,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.kill();
    }, limitMs);
    signal?.addEventListener("abort", this.onAbort, { once: true });
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
}
