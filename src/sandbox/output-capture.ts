/**
 * The output of a run as a backend captures it: stdout and stderr share one byte budget
 * (`limits.maxOutputBytes`); what goes beyond it is dropped and the run is ended (`outputTruncated`).
 * The bwrap backend and the Docker one (and the fork servers' runs on both) count output here, on the
 * host side, where the program cannot change the count.
 */

/** Collects a run's stdout and stderr up to a shared byte budget; `onOverflow` ends the run. */
export class OutputCollector {
  private readonly chunks: { stdout: Buffer[]; stderr: Buffer[] } = { stdout: [], stderr: [] };
  private total = 0;
  truncated = false;

  constructor(
    private readonly cap: number,
    private readonly onOverflow: () => void,
  ) {}

  add(stream: "stdout" | "stderr", chunk: Buffer): void {
    if (this.truncated) return;
    const room = this.cap - this.total;
    if (chunk.length > room) {
      if (room > 0) this.chunks[stream].push(chunk.subarray(0, room));
      this.total = this.cap;
      this.truncated = true;
      this.onOverflow();
      return;
    }
    this.chunks[stream].push(chunk);
    this.total += chunk.length;
  }

  text(stream: "stdout" | "stderr"): string {
    return Buffer.concat(this.chunks[stream]).toString("utf8");
  }
}
