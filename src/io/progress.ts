/**
 * Progress of a run over a stream of rows (score, export, build, lint) on stderr: rows done and rows/s,
 * and with the input's size a percentage and a bar. The drawing rules are {@link ProgressLine}'s.
 */
import { ProgressLine, type ProgressStream, progressBar } from "./progress-line.js";

export { PLAIN_INTERVAL_MS, type ProgressStream, TTY_INTERVAL_MS } from "./progress-line.js";

export type ProgressOptions = {
  stream: ProgressStream;
  /** Prefix of plain lines, e.g. `minedit score`. */
  label: string;
  /** What is being counted, plural (`rows`). */
  unit: string;
  /** Size of the input in bytes when known (a regular file); enables the percentage and the bar. */
  totalBytes?: number;
  /** Milliseconds clock; injectable for tests. Defaults to `performance.now`. */
  now?: () => number;
};

export class Progress {
  private readonly line: ProgressLine;
  private readonly label: string;
  private readonly unit: string;
  private readonly totalBytes: number | undefined;
  private count = 0;
  private bytes = 0;

  constructor(options: ProgressOptions) {
    this.line = new ProgressLine(options.stream, options.now);
    this.label = options.label;
    this.unit = options.unit;
    this.totalBytes =
      options.totalBytes !== undefined && options.totalBytes > 0 ? options.totalBytes : undefined;
  }

  /** Records progress: `count` items done so far, `bytes` of input consumed so far (if known). */
  update(count: number, bytes?: number): void {
    this.count = count;
    if (bytes !== undefined) this.bytes = bytes;
    this.line.draw((now, tty) =>
      tty ? this.status(now, true) : `${this.label}: ${this.status(now, false)}`,
    );
  }

  /** Writes a message line (a newline is added) without garbling the bar; the bar reappears on the next update. */
  log(message: string): void {
    this.line.log(message);
  }

  /** Erases the bar, e.g. before the final summary. */
  clear(): void {
    this.line.clear();
  }

  private status(now: number, withBar: boolean): string {
    const seconds = (now - this.line.start) / 1000;
    const rate = seconds > 0 ? this.count / seconds : 0;
    const counts = `${this.count.toLocaleString("en-US")} ${this.unit}, ${formatRate(rate)} ${this.unit}/s`;
    if (this.totalBytes === undefined) return counts;
    const fraction = Math.min(1, this.bytes / this.totalBytes);
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
    if (!withBar) return `${percent.trim()} of input, ${counts}`;
    return `${progressBar(fraction)} ${percent}  ${counts}`;
  }
}

/** Whole numbers from 10/s up; below, two significant digits, so slow work (files analyzed in a sandbox) does not read "0/s". */
export function formatRate(perSecond: number): string {
  if (perSecond === 0 || perSecond >= 10) return Math.round(perSecond).toLocaleString("en-US");
  return Number(perSecond.toPrecision(2)).toString();
}
