/**
 * Progress reporting on stderr for long CLI runs, without a dependency.
 *
 * On a terminal: one line redrawn in place (`\r` + erase-line), at most every {@link TTY_INTERVAL_MS}, with
 * a bar when the input size is known. Anywhere else (a log file, CI, a pipe): no control characters, just
 * a plain line every {@link PLAIN_INTERVAL_MS} — and nothing at all for runs shorter than that, so short
 * runs and tests print only their summary.
 *
 * Messages that must interleave with the bar (bad rows) go through {@link Progress.log}, which clears the
 * bar first so the two never share a line.
 */

/** What the reporter needs of stderr; `isTTY`/`columns` are those of `process.stderr`. */
export type ProgressStream = {
  write(chunk: string): boolean;
  isTTY?: boolean;
  columns?: number;
};

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

/** Redraw period of the terminal bar: fast enough to look live, slow enough to cost nothing. */
export const TTY_INTERVAL_MS = 100;
/** Period of plain progress lines when stderr is not a terminal. */
export const PLAIN_INTERVAL_MS = 5000;

const BAR_WIDTH = 24;

export class Progress {
  private readonly stream: ProgressStream;
  private readonly label: string;
  private readonly unit: string;
  private readonly totalBytes: number | undefined;
  private readonly now: () => number;
  private readonly tty: boolean;
  private readonly start: number;
  private lastDraw: number;
  private count = 0;
  private bytes = 0;
  /** Whether a bar is currently drawn on the terminal's last line (and must be erased before output). */
  private barShown = false;

  constructor(options: ProgressOptions) {
    this.stream = options.stream;
    this.label = options.label;
    this.unit = options.unit;
    this.totalBytes =
      options.totalBytes !== undefined && options.totalBytes > 0 ? options.totalBytes : undefined;
    this.now = options.now ?? (() => performance.now());
    this.tty = options.stream.isTTY === true;
    this.start = this.now();
    this.lastDraw = this.start;
  }

  /** Records progress: `count` items done so far, `bytes` of input consumed so far (if known). */
  update(count: number, bytes?: number): void {
    this.count = count;
    if (bytes !== undefined) this.bytes = bytes;
    const now = this.now();
    const interval = this.tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS;
    if (now - this.lastDraw < interval) return;
    this.lastDraw = now;
    if (this.tty) {
      this.stream.write(`\r\x1b[K${this.fit(this.status(now, true))}`);
      this.barShown = true;
    } else {
      this.stream.write(`${this.label}: ${this.status(now, false)}\n`);
    }
  }

  /** Writes a message line (a newline is added) without garbling the bar; the bar reappears on the next update. */
  log(message: string): void {
    this.clear();
    this.stream.write(`${message}\n`);
  }

  /** Erases the bar, e.g. before the final summary. */
  clear(): void {
    if (this.barShown) {
      this.stream.write("\r\x1b[K");
      this.barShown = false;
    }
  }

  private status(now: number, withBar: boolean): string {
    const seconds = (now - this.start) / 1000;
    const rate = seconds > 0 ? Math.round(this.count / seconds) : 0;
    const counts = `${this.count.toLocaleString("en-US")} ${this.unit}, ${rate.toLocaleString("en-US")} ${this.unit}/s`;
    if (this.totalBytes === undefined) return counts;
    const fraction = Math.min(1, this.bytes / this.totalBytes);
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
    if (!withBar) return `${percent.trim()} of input, ${counts}`;
    const filled = Math.round(fraction * BAR_WIDTH);
    return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${percent}  ${counts}`;
  }

  /** Cuts the line to the terminal width: a wrapped line would not be erased by `\r` + erase-line. */
  private fit(line: string): string {
    const columns = this.stream.columns;
    return columns !== undefined && columns > 1 && line.length >= columns ? line.slice(0, columns - 1) : line;
  }
}
